import { toFetchResponse, uploadRunHandler } from "@benchboard/api/rest/index";
import { restDeps } from "../_lib/deps";

export const dynamic = "force-dynamic";

/** Upload a finished run (native JSON or a load tool's output). Bearer tokens only: no cookies, no CSRF. */
export async function POST(req: Request) {
  return toFetchResponse(await uploadRunHandler(req, restDeps()));
}
