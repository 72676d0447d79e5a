import {
  createNotificationRuleHandler,
  listNotificationRulesHandler,
  toFetchResponse,
} from "@benchboard/api/rest/index";
import { restDeps } from "../../_lib/deps";
import { otherMethods } from "../../_lib/methods";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  return toFetchResponse(await listNotificationRulesHandler(req, restDeps()));
}

export async function POST(req: Request) {
  return toFetchResponse(await createNotificationRuleHandler(req, restDeps()));
}

const other = otherMethods("GET", "POST");
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
