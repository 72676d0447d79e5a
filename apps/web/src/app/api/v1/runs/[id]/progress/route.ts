import { execProgressHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";

export const dynamic = "force-dynamic";

/** Per-second figures of a run a client drives. */
export async function POST(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return toFetchResponse(await execProgressHandler(req, restDeps(), id));
}
