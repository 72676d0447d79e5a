import { execProgressHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../_lib/rest-route";

export const dynamic = "force-dynamic";

/** Per-second figures of a run a client drives. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  POST: (req, deps, { id }: { id: string }) => execProgressHandler(req, deps, id),
});
