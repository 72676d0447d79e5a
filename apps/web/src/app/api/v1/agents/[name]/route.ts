import { removeAgentHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../_lib/deps";
import { otherMethods } from "../../_lib/methods";

export const dynamic = "force-dynamic";

export async function DELETE(req: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return toFetchResponse(await removeAgentHandler(req, restDeps(), name));
}

const other = otherMethods("DELETE");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const POST = other.POST;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const OPTIONS = other.OPTIONS;
