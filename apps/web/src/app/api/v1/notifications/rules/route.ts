import { createNotificationRuleHandler, listNotificationRulesHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  GET: listNotificationRulesHandler,
  POST: createNotificationRuleHandler,
});
