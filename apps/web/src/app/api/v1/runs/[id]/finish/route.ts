import { finishExecRunHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";

export const dynamic = "force-dynamic";

/** End a run a client drives, with its result. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return toFetchResponse(await finishExecRunHandler(req, restDeps(), id));
}
