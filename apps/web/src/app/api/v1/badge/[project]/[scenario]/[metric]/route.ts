import { badgeHandler } from "@benchboard/api/rest/index";
import { restRoute } from "../../../../_lib/rest-route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = restRoute({
  async GET(req, deps) {
    // Read from the path itself, decoded once: a scenario name may hold any character.
    const [project = "", scenario = "", metric = ""] = new URL(req.url).pathname
      .split("/")
      .slice(-3)
      .map((part) => {
        try {
          return decodeURIComponent(part);
        } catch {
          return "";
        }
      });
    const out = await badgeHandler(req, deps, { project, scenario, metric });
    return new Response(out.svg, { status: out.status, headers: out.headers });
  },
});
