import { startExecRunHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../_lib/deps";
import { otherMethods } from "../../_lib/methods";

export const dynamic = "force-dynamic";

/** Start a run a client drives (`benchboard exec`). Bearer tokens only: no cookies, no CSRF. */
export async function POST(req: Request) {
  return toFetchResponse(await startExecRunHandler(req, restDeps()));
}

const other = otherMethods("POST");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
