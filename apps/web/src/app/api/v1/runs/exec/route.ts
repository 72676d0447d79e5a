import { startExecRunHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../_lib/rest-route";

export const dynamic = "force-dynamic";

/** Start a run a client drives (`benchboard exec`). Bearer tokens only: no cookies, no CSRF. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({ POST: startExecRunHandler });
