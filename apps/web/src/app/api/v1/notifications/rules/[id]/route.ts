import { deleteNotificationRuleHandler, updateNotificationRuleHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  PATCH: (req, deps, { id }: { id: string }) => updateNotificationRuleHandler(req, deps, id),
  DELETE: (req, deps, { id }: { id: string }) => deleteNotificationRuleHandler(req, deps, id),
});
