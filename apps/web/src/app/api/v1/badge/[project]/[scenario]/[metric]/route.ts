import { badgeHandler } from "@benchboard/api/rest/index";
import { restDeps } from "../../../../_lib/deps";
import { otherMethods } from "../../../../_lib/methods";

export const dynamic = "force-dynamic";

export async function GET(req: Request) {
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
  const out = await badgeHandler(req, restDeps(), { project, scenario, metric });
  return new Response(out.svg, { status: out.status, headers: out.headers });
}

const other = otherMethods("GET");
export const POST = other.POST;
export const PUT = other.PUT;
export const PATCH = other.PATCH;
export const DELETE = other.DELETE;
export const OPTIONS = other.OPTIONS;
