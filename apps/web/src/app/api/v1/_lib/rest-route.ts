import { type RestResponse, toFetchResponse } from "@benchboard/api/rest/index";
import { agentDeps, restDeps } from "./deps";
import { otherMethods, type Refusal, type ServedMethod } from "./methods";

type Answer = RestResponse | Response;

/**
 * What serves one method of a path: the request, the app's dependencies and the path's dynamic
 * segments in; a REST handler's result out, or a finished Response (an SVG, or a refusal that
 * depends on the segments).
 */
type Serve<Deps, Params> = (req: Request, deps: Deps, params: Params) => Answer | Promise<Answer>;

type Served<Deps> = Partial<Record<ServedMethod, Serve<Deps, never>>>;

type ParamsOf<S> = S extends (req: Request, deps: never, params: infer P) => unknown ? P : never;

/** What Next.js calls for a method, with the path's dynamic segments. */
type Handler<Params> = (req: Request, context: { params: Promise<Params> }) => Response | Promise<Response>;

/**
 * A route file's exports: a handler for each method it serves, and for each other method a
 * refusal (405 naming what the path serves; 204 with `Allow` for OPTIONS). HEAD is left to
 * Next.js where GET is served: it answers HEAD with GET's handler.
 */
type RouteExports<S> = { [M in keyof S & ServedMethod]: Handler<ParamsOf<S[M]>> } & Record<
  Exclude<ServedMethod, keyof S> | "OPTIONS",
  Refusal
> &
  ("GET" extends keyof S ? unknown : { HEAD: Refusal });

function withRefusals<S>(served: ServedMethod[], handlers: Record<string, unknown>): RouteExports<S> {
  const { HEAD, ...refusals } = otherMethods(...served);
  return { ...refusals, ...(served.includes("GET") ? {} : { HEAD }), ...handlers } as RouteExports<S>;
}

function route<Deps, S extends Served<Deps>>(deps: () => Deps, served: S): RouteExports<S> {
  const methods = Object.keys(served) as ServedMethod[];
  const handlers = methods.map((method) => {
    const serve = served[method] as Serve<Deps, unknown>;
    const handler: Handler<unknown> = async (req, { params }) => {
      const segments = await params;
      const answer = await serve(req, deps(), segments);
      return answer instanceof Response ? answer : toFetchResponse(answer);
    };
    return [method, handler];
  });
  return withRefusals<S>(methods, Object.fromEntries(handlers));
}

/** A bearer-token REST route: each method it serves gets the app's REST dependencies. */
export function restRoute<S extends Served<ReturnType<typeof restDeps>>>(served: S): RouteExports<S> {
  return route(restDeps, served);
}

/** A route of `benchboard agent`: the REST dependencies plus the agents' job queues. */
export function agentRoute<S extends Served<ReturnType<typeof agentDeps>>>(served: S): RouteExports<S> {
  return route(agentDeps, served);
}

/** A public document, the same for every caller: no token, so none of the app's dependencies. */
export function documentRoute(document: () => RestResponse): RouteExports<{ GET: () => Response }> {
  return withRefusals(["GET"], { GET: () => toFetchResponse(document()) });
}
