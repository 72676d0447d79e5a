import { getConfigHandler, putConfigHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  /** The project's configuration as a document (`benchboard export`). */
  GET: (req, deps, { project }: { project: string }) => getConfigHandler(req, deps, project),
  /** Apply a configuration document (`benchboard apply`); `?dryRun=true` only plans. */
  PUT: (req, deps, { project }: { project: string }) => putConfigHandler(req, deps, project),
});
