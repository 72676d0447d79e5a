import { listConfigHandler, putThresholdsHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../_lib/rest-route";

export const dynamic = "force-dynamic";

type Kind = { project: string; kind: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  /** A project's targets, instance-configs, scenarios or thresholds. */
  GET: (req, deps, { project, kind }: Kind) => listConfigHandler(req, deps, project, kind),
  /** Replace the project's thresholds (only `thresholds` is set as a whole). */
  PUT: (req, deps, { project, kind }: Kind) => {
    if (kind === "thresholds") return putThresholdsHandler(req, deps, project);
    return Response.json(
      {
        error: {
          message: `PUT a single item at /projects/${project}/${kind}/{name}, or the whole document at /projects/${project}/config`,
        },
      },
      { status: 405, headers: { allow: "GET, HEAD, OPTIONS" } },
    );
  },
});
