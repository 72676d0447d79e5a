import { finishExecRunHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";
import { otherMethods } from "../../../_lib/methods";

export const dynamic = "force-dynamic";

/** End a run a client drives, with its result. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return toFetchResponse(await finishExecRunHandler(req, restDeps(), id));
}

const other = otherMethods("POST");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
