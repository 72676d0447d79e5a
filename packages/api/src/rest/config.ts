import { withConnectionDefaultWithinCaps } from "@benchboard/core";
import type { ApiTokenScope, Db } from "@benchboard/db";
import { findProjectByRef, organizationCaps, slugify } from "@benchboard/db";
import { z } from "zod";
import {
  applyConfig,
  exportConfig,
  ZConfigDocument,
  ZConfigInstanceConfig,
  ZConfigScenario,
  ZConfigTarget,
} from "../config-as-code";
import { createCaller } from "../root";
import { ZSetThresholdsInput } from "../routers/trend";
import { type ApiCaller, assertProjectAllowed, authorize, type RestDeps } from "./auth";
import { json, parseJsonBody, RestError, type RestRequest, readBodyText, restHandler, zodFailure } from "./http";

/**
 * Configuration as code over REST: a project's targets, instance configs, scenarios and
 * thresholds, read with `config:read` and changed with `config:write`. Every change goes through
 * the web app's own procedures, so the same checks apply.
 */

const MAX_CONFIG_BODY_BYTES = 5_000_000;

/** The REST names of the kinds of configuration. */
export const CONFIG_KINDS = {
  targets: { kind: "target", schema: ZConfigTarget, list: "targets" },
  "instance-configs": { kind: "instanceConfig", schema: ZConfigInstanceConfig, list: "instanceConfigs" },
  scenarios: { kind: "scenario", schema: ZConfigScenario, list: "scenarios" },
} as const;
type KindPath = keyof typeof CONFIG_KINDS;

async function projectFor(
  req: RestRequest,
  deps: RestDeps,
  ref: string,
  scope: ApiTokenScope,
): Promise<{
  api: ApiCaller;
  project: NonNullable<Awaited<ReturnType<typeof findProjectByRef>>>;
}>;
async function projectFor(
  req: RestRequest,
  deps: RestDeps,
  ref: string,
  scope: ApiTokenScope,
  options: { mayBeNew: true },
): Promise<{ api: ApiCaller; project: Awaited<ReturnType<typeof findProjectByRef>> }>;
/**
 * The project a request names, by slug or id. With `mayBeNew` (applying a whole document) a
 * slug no project has yet answers null, to be created, when the token may create projects.
 */
async function projectFor(
  req: RestRequest,
  deps: RestDeps,
  ref: string,
  scope: ApiTokenScope,
  options: { mayBeNew?: boolean } = {},
) {
  const api = await authorize(req, deps, scope);
  const project = await findProjectByRef(deps.db, api.token.orgId, ref);
  const notFound = new RestError(404, `project: no project "${ref}" in this organization`, { field: "project" });
  if (!project && options.mayBeNew) {
    if (api.token.projectId) {
      throw new RestError(403, `project: this API token is limited to another project; it cannot create "${ref}"`, {
        field: "project",
      });
    }
    if (slugify(ref) !== ref) {
      throw new RestError(
        404,
        `project: no project "${ref}" in this organization; to create one, name it by a slug such as "${slugify(ref)}"`,
        { field: "project" },
      );
    }
    return { api, project: null };
  }
  if (!project) throw notFound;
  assertProjectAllowed(api.token, project.id, {
    status: scope === "config:read" ? 404 : 403,
    field: "project",
    message:
      scope === "config:read"
        ? `no project "${ref}" in this organization`
        : "this API token is limited to another project",
  });
  return { api, project };
}

const context = (api: ApiCaller, deps: RestDeps) => ({
  caller: api.caller,
  callerFor: (db: Db) => createCaller({ ...api.context, db }),
  db: deps.db,
  orgId: api.token.orgId,
  secretKey: deps.secretKey ?? null,
  projectLimited: api.token.projectId !== null,
});

function kindOf(path: string): (typeof CONFIG_KINDS)[KindPath] {
  const kind = CONFIG_KINDS[path as KindPath];
  if (!kind) {
    throw new RestError(
      404,
      `no such configuration: ${path} (expected targets, instance-configs, scenarios or thresholds)`,
    );
  }
  return kind;
}

/** The document's scenarios with the connection pools they leave out sized within the organization's caps. */
async function withScenarioDefaultsWithinCaps(deps: RestDeps, orgId: string, doc: unknown): Promise<unknown> {
  if (!doc || typeof doc !== "object" || !Array.isArray((doc as { scenarios?: unknown }).scenarios)) return doc;
  const caps = await organizationCaps(deps.db, orgId);
  const scenarios = (doc as { scenarios: unknown[] }).scenarios.map((s) =>
    s && typeof s === "object" && "spec" in s
      ? { ...s, spec: withConnectionDefaultWithinCaps((s as { spec: unknown }).spec, caps) }
      : s,
  );
  return { ...doc, scenarios };
}

function isDryRun(req: RestRequest): boolean {
  const value = new URL(req.url).searchParams.get("dryRun");
  if (value === null || value === "false" || value === "0") return false;
  if (value === "" || value === "true" || value === "1") return true;
  throw new RestError(400, "dryRun: must be true or false", { field: "dryRun" });
}

async function jsonBody(req: RestRequest): Promise<unknown> {
  return parseJsonBody(await readBodyText(req, MAX_CONFIG_BODY_BYTES));
}

// ---- GET /api/v1/projects/{project}/config ----

export const getConfigHandler = restHandler(
  "GET /projects/{project}/config",
  async (req, deps: RestDeps, projectRef: string) => {
    const { api, project } = await projectFor(req, deps, projectRef, "config:read");
    return json(200, await exportConfig(context(api, deps), project));
  },
);

// ---- PUT /api/v1/projects/{project}/config[?dryRun=true] ----

export const putConfigHandler = restHandler(
  "PUT /projects/{project}/config",
  async (req, deps: RestDeps, projectRef: string) => {
    const dryRun = isDryRun(req);
    const { api, project } = await projectFor(req, deps, projectRef, "config:write", { mayBeNew: true });
    const parsed = ZConfigDocument.safeParse(
      await withScenarioDefaultsWithinCaps(deps, api.token.orgId, await jsonBody(req)),
    );
    if (!parsed.success) throw zodFailure(parsed.error);
    // A document that names another project than the one it is sent to is a mistake (a job-level
    // BENCHBOARD_PROJECT over a file for another project): applying it would rewrite the wrong one.
    const named = parsed.data.project?.trim();
    if (named && named !== (project ? project.slug : projectRef) && named !== project?.id) {
      throw new RestError(
        409,
        `project: the document names project "${named}" but was sent to project "${project?.slug ?? projectRef}"; make them agree`,
        { field: "project" },
      );
    }
    const changes = await applyConfig(
      context(api, deps),
      project ? { id: project.id } : { create: { slug: projectRef, name: parsed.data.projectName ?? projectRef } },
      parsed.data,
      { dryRun },
    );
    return json(200, { dryRun, changed: changes.filter((c) => c.action !== "unchanged").length, changes });
  },
);

// ---- GET /api/v1/projects/{project}/{targets|instance-configs|scenarios|thresholds} ----

export const listConfigHandler = restHandler(
  "GET /projects/{project}/{kind}",
  async (req, deps: RestDeps, projectRef: string, kindPath: string) => {
    const kind = kindPath === "thresholds" ? null : kindOf(kindPath);
    const { api, project } = await projectFor(req, deps, projectRef, "config:read");
    const doc = await exportConfig(context(api, deps), project);
    return json(200, kind ? { items: doc[kind.list] } : { thresholds: doc.thresholds });
  },
);

// ---- PUT /api/v1/projects/{project}/thresholds ----

export const putThresholdsHandler = restHandler(
  "PUT /projects/{project}/thresholds",
  async (req, deps: RestDeps, projectRef: string) => {
    const { api, project } = await projectFor(req, deps, projectRef, "config:write");
    const parsed = z.strictObject({ thresholds: ZSetThresholdsInput.shape.thresholds }).safeParse(await jsonBody(req));
    if (!parsed.success) throw zodFailure(parsed.error);
    const changes = await applyConfig(
      context(api, deps),
      { id: project.id },
      ZConfigDocument.parse({ version: 1, thresholds: parsed.data.thresholds }),
      { dryRun: isDryRun(req) },
    );
    return json(200, { change: changes[0] });
  },
);

// ---- PUT /api/v1/projects/{project}/{kind}/{name}: create or update one item by name ----

export const putConfigItemHandler = restHandler(
  "PUT /projects/{project}/{kind}/{name}",
  async (req, deps: RestDeps, projectRef: string, kindPath: string, name: string) => {
    const kind = kindOf(kindPath);
    const { api, project } = await projectFor(req, deps, projectRef, "config:write");
    const body = await jsonBody(req);
    if (!body || typeof body !== "object" || Array.isArray(body))
      throw new RestError(400, "the body must be a JSON object");
    const given = (body as { name?: unknown }).name;
    if (given !== undefined && given !== name) {
      throw new RestError(400, `name: "${String(given)}" differs from the name in the path ("${name}")`, {
        field: "name",
      });
    }
    const item =
      kind.kind === "scenario"
        ? (
            (await withScenarioDefaultsWithinCaps(deps, api.token.orgId, { scenarios: [body] })) as {
              scenarios: unknown[];
            }
          ).scenarios[0]
        : body;
    const parsed = kind.schema.safeParse({ ...(item as object), name });
    if (!parsed.success) throw zodFailure(parsed.error);
    const doc = ZConfigDocument.parse({ version: 1, [kind.list]: [parsed.data] });
    const [change] = await applyConfig(context(api, deps), { id: project.id }, doc, { dryRun: isDryRun(req) });
    return json(change?.action === "create" ? 201 : 200, { change });
  },
);

// ---- DELETE /api/v1/projects/{project}/{kind}/{name} ----

export const deleteConfigItemHandler = restHandler(
  "DELETE /projects/{project}/{kind}/{name}",
  async (req, deps: RestDeps, projectRef: string, kindPath: string, name: string) => {
    const kind = kindOf(kindPath);
    const { api, project } = await projectFor(req, deps, projectRef, "config:write");
    const projectId = project.id;
    const notFound = () =>
      new RestError(404, `name: no ${kindPath.replace(/s$/, "")} "${name}" in the project`, { field: "name" });
    if (kind.kind === "target") {
      const item = (await api.caller.target.list({ projectId })).find((t) => t.name === name);
      if (!item) throw notFound();
      await api.caller.target.delete({ id: item.id });
    } else if (kind.kind === "instanceConfig") {
      const item = (await api.caller.instanceConfig.list({ projectId })).find((c) => c.name === name);
      if (!item) throw notFound();
      await api.caller.instanceConfig.delete({ id: item.id });
    } else {
      const item = (await api.caller.scenario.list({ projectId })).find((s) => s.name === name);
      if (!item) throw notFound();
      await api.caller.scenario.delete({ id: item.id });
    }
    return json(200, { deleted: { kind: kind.kind, name } });
  },
);
