import { agentClaimHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { agentDeps } from "../../_lib/deps";
import { otherMethods } from "../../_lib/methods";

export const dynamic = "force-dynamic";

export async function POST(req: Request) {
  return toFetchResponse(await agentClaimHandler(req, agentDeps()));
}

const other = otherMethods("POST");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
