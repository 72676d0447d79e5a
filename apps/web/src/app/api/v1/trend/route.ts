import { toFetchResponse, trendHandler } from "@benchboard/api/rest/index";
import { restDeps } from "../_lib/deps";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  return toFetchResponse(await trendHandler(req, restDeps()));
}
