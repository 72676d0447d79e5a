import {
  deleteNotificationRuleHandler,
  toFetchResponse,
  updateNotificationRuleHandler,
} from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";
import { otherMethods } from "../../../_lib/methods";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ id: string }> };

export async function PATCH(req: Request, { params }: Params) {
  const { id } = await params;
  return toFetchResponse(await updateNotificationRuleHandler(req, restDeps(), id));
}

export async function DELETE(req: Request, { params }: Params) {
  const { id } = await params;
  return toFetchResponse(await deleteNotificationRuleHandler(req, restDeps(), id));
}

const other = otherMethods("PATCH", "DELETE");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const POST = other.POST;
export const PUT = other.PUT;
export const OPTIONS = other.OPTIONS;
