import { listConfigHandler, putThresholdsHandler, toFetchResponse } from "@benchboard/api/rest/index";
import { restDeps } from "../../../_lib/deps";
import { otherMethods } from "../../../_lib/methods";

export const dynamic = "force-dynamic";

type Params = { params: Promise<{ project: string; kind: string }> };

/** A project's targets, instance-configs, scenarios or thresholds. */
export async function GET(req: Request, { params }: Params) {
  const { project, kind } = await params;
  return toFetchResponse(await listConfigHandler(req, restDeps(), project, kind));
}

/** Replace the project's thresholds (only `thresholds` is set as a whole). */
export async function PUT(req: Request, { params }: Params) {
  const { project, kind } = await params;
  if (kind !== "thresholds") {
    return Response.json(
      {
        error: {
          message: `PUT a single item at /projects/${project}/${kind}/{name}, or the whole document at /projects/${project}/config`,
        },
      },
      { status: 405, headers: { allow: "GET, HEAD, OPTIONS" } },
    );
  }
  return toFetchResponse(await putThresholdsHandler(req, restDeps(), project));
}

const other = otherMethods("GET", "PUT");
export const POST = other.POST;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
