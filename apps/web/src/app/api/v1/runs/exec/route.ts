import { startExecRunHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../_lib/deps";

export const dynamic = "force-dynamic";

/** Start a run a client drives (`benchboard exec`). Bearer tokens only: no cookies, no CSRF. */
export async function POST(req: Request) {
  return toFetchResponse(await startExecRunHandler(req, restDeps()));
}
