import { getConfigHandler, putConfigHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";
import { otherMethods } from "../../../_lib/methods";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ project: string }> };

/** The project's configuration as a document (`benchboard export`). */
export async function GET(req: Request, { params }: Params) {
  return toFetchResponse(await getConfigHandler(req, restDeps(), (await params).project));
}

/** Apply a configuration document (`benchboard apply`); `?dryRun=true` only plans. */
export async function PUT(req: Request, { params }: Params) {
  return toFetchResponse(await putConfigHandler(req, restDeps(), (await params).project));
}

const other = otherMethods("GET", "PUT");
export const POST = other.POST;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
