import { execProgressHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";
import { otherMethods } from "../../../_lib/methods";

export const dynamic = "force-dynamic";

/** Per-second figures of a run a client drives. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return toFetchResponse(await execProgressHandler(req, restDeps(), id));
}

const other = otherMethods("POST");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
