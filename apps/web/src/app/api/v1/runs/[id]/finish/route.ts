import { finishExecRunHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../_lib/rest-route";

export const dynamic = "force-dynamic";

/** End a run a client drives, with its result. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  POST: (req, deps, { id }: { id: string }) => finishExecRunHandler(req, deps, id),
});
