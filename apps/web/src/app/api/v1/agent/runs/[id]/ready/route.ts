import { agentReadyHandler } from "@benchboard/api/rest/index";
import { agentRoute } from "../../../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = agentRoute({
  POST: (req, deps, { id }: { id: string }) => agentReadyHandler(req, deps, id),
});
