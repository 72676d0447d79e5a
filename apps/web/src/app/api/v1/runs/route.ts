import { uploadRunHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../_lib/rest-route";

export const dynamic = "force-dynamic";

/** Upload a finished run (native JSON or a load tool's output). Bearer tokens only: no cookies, no CSRF. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({ POST: uploadRunHandler });
