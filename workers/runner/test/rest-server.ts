import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AgentRestDeps,
  agentAnnounceHandler,
  agentCheckpointHandler,
  agentClaimHandler,
  agentHeartbeatHandler,
  agentProgressHandler,
  agentReadyHandler,
  agentResultHandler,
  agentStopHandler,
  getRunHandler,
  launchRunHandler,
  type RestResponse,
  removeAgentHandler,
  toFetchResponse,
} from "@benchboard/api/rest/index";

type Handler = (req: Request, deps: AgentRestDeps, id: string) => Promise<RestResponse>;

const RUN_ROUTES: Record<string, Handler> = {
  heartbeat: agentHeartbeatHandler,
  ready: agentReadyHandler,
  progress: agentProgressHandler,
  checkpoint: agentCheckpointHandler,
  result: agentResultHandler,
};

/**
 * The REST routes the agent and the CLI call, served over real HTTP on 127.0.0.1 by the same
 * handlers the web app's route files call (the web app itself needs a build). Counts requests
 * by path so tests can see what the agent sent.
 */
export async function startRestServer(deps: AgentRestDeps) {
  const bytesIn: Record<string, number> = {};
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const request = new Request(url, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: body.length ? body : undefined,
    });
    let result: RestResponse;
    const agentRun = /^\/api\/v1\/agent\/runs\/([^/]+)\/([a-z]+)$/.exec(url.pathname);
    const kind = agentRun ? agentRun[2]! : url.pathname;
    bytesIn[kind] = (bytesIn[kind] ?? 0) + body.length;
    if (agentRun && RUN_ROUTES[agentRun[2]!]) result = await RUN_ROUTES[agentRun[2]!]!(request, deps, agentRun[1]!);
    else if (url.pathname === "/api/v1/agent/announce") result = await agentAnnounceHandler(request, deps);
    else if (url.pathname === "/api/v1/agent/claim") result = await agentClaimHandler(request, deps);
    else if (url.pathname === "/api/v1/agent/stop") result = await agentStopHandler(request, deps);
    else if (url.pathname === "/api/v1/runs/launch") result = await launchRunHandler(request, deps);
    else if (url.pathname.startsWith("/api/v1/agents/") && req.method === "DELETE") {
      result = await removeAgentHandler(request, deps, url.pathname.split("/").pop()!);
    } else if (url.pathname.startsWith("/api/v1/runs/")) {
      result = await getRunHandler(request, deps, url.pathname.split("/").pop()!);
    } else result = { status: 404, body: { error: { message: "no such route here" } } };
    const response = toFetchResponse(result);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Request body bytes received, by agent route (`progress`, `result`, …) or path. */
    bytesIn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
