import { deleteNotificationEndpointHandler, updateNotificationEndpointHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  PATCH: (req, deps, { id }: { id: string }) => updateNotificationEndpointHandler(req, deps, id),
  DELETE: (req, deps, { id }: { id: string }) => deleteNotificationEndpointHandler(req, deps, id),
});
