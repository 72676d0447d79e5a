import { deleteConfigItemHandler, putConfigItemHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../../_lib/deps";
import { otherMethods } from "../../../../_lib/methods";

export const dynamic = "force-dynamic";

/** Names arrive percent-encoded or already decoded, depending on the client and router. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

type Params = { params: Promise<{ project: string; kind: string; name: string }> };

/** Create or update one target, instance config or scenario by name. */
export async function PUT(req: Request, { params }: Params) {
  const { project, kind, name } = await params;
  return toFetchResponse(await putConfigItemHandler(req, restDeps(), project, kind, safeDecode(name)));
}

export async function DELETE(req: Request, { params }: Params) {
  const { project, kind, name } = await params;
  return toFetchResponse(await deleteConfigItemHandler(req, restDeps(), project, kind, safeDecode(name)));
}

const other = otherMethods("PUT", "DELETE");
export const GET = other.GET;
export const HEAD = other.HEAD;
export const POST = other.POST;
export const PATCH = other.PATCH;
export const OPTIONS = other.OPTIONS;
