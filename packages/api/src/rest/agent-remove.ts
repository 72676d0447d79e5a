import { authorize, type RestDeps } from "./auth";
import { json, RestError, type RestRequest, type RestResponse, restErrorResponse } from "./http";

/**
 * DELETE /api/v1/agents/{name}: remove an offline agent of the token's organization (a finished
 * `--once` CI agent, a pod gone for good). An online agent is refused (409); offline agents also
 * go by themselves after the install's retention (`BENCHBOARD_AGENT_RETENTION_DAYS`). Needs an API
 * token with `config:write` for the whole organization (not one limited to a project).
 */
export async function removeAgentHandler(req: RestRequest, deps: RestDeps, name: string): Promise<RestResponse> {
  try {
    const api = await authorize(req, deps, "config:write");
    if (api.token.projectId) {
      throw new RestError(403, "this API token is limited to one project; agents belong to the whole organization");
    }
    let decoded = "";
    try {
      decoded = decodeURIComponent(name).trim();
    } catch {
      // A malformed %-escape: not a name.
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(decoded)) {
      throw new RestError(400, "name: an agent name is letters, digits, . _ - (at most 63)", { field: "name" });
    }
    const removed = await api.caller.agent.remove({ name: decoded });
    return json(200, { removed });
  } catch (err) {
    return restErrorResponse(err, "DELETE /agents/{name}");
  }
}
