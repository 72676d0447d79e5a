import { deleteConfigItemHandler, putConfigItemHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../../_lib/rest-route";

export const dynamic = "force-dynamic";

/** Names arrive percent-encoded or already decoded, depending on the client and router. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

type Item = { project: string; kind: string; name: string };

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  /** Create or update one target, instance config or scenario by name. */
  PUT: (req, deps, { project, kind, name }: Item) => putConfigItemHandler(req, deps, project, kind, safeDecode(name)),
  DELETE: (req, deps, { project, kind, name }: Item) =>
    deleteConfigItemHandler(req, deps, project, kind, safeDecode(name)),
});
