import { launchRunHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../_lib/deps";

export const dynamic = "force-dynamic";

export async function POST(req: Request) {
  return toFetchResponse(await launchRunHandler(req, restDeps()));
}
