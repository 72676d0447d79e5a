import { removeAgentHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  DELETE: (req, deps, { name }: { name: string }) => removeAgentHandler(req, deps, name),
});
