import { getRunHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../_lib/deps";

export const dynamic = "force-dynamic";

export async function GET(req: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return toFetchResponse(await getRunHandler(req, restDeps(), id));
}
