import { randomBytes } from "node:crypto";
import { type TMonitorConfig, ZMonitorConfig } from "@benchboard/core";
import { canonicalOrigin } from "@benchboard/core/address";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import { Prisma } from "../generated/prisma/client";
import type { TargetKind } from "../generated/prisma/enums";
import { decryptTargetSecrets, encryptTargetSecrets, SecretKeyError, type TTargetSecrets } from "../secrets";
import { isInstallOrganization } from "./org";

/**
 * A header as a form sends it. A secret header's value is write-only: leave `value` empty to keep
 * the stored one (found under `from`, its name before an edit, or else its name).
 */
export interface TargetHeaderInput {
  name: string;
  value?: string | null;
  secret?: boolean;
  from?: string | null;
}

/**
 * A monitor as a form sends it: `id` names a stored monitor (to keep its password), `password`
 * replaces the RabbitMQ password, `clearPassword` removes it. `config.password` is ignored.
 */
export interface TargetMonitorInput {
  id?: string | null;
  config: TMonitorConfig;
  password?: string | null;
  clearPassword?: boolean;
}

export interface TargetInput {
  projectId: string;
  name: string;
  kind: TargetKind;
  baseUrl: string;
  headers?: TargetHeaderInput[];
  /** Monitor configs as sent by a form, or plain configs (a RabbitMQ password in them is kept secret). */
  monitors?: (TargetMonitorInput | TMonitorConfig)[];
  configApplyUrl?: string | null;
  /** Server-Timing stages that are the target's own work; absent on update keeps the stored list. */
  overheadStages?: string[];
  /** Agent-only: reached only by the organization's agents with this label; left out on update keeps it. */
  agentLabel?: string | null;
}

export interface SecretOptions {
  /** The 32-byte key secrets are encrypted with; needed only when a secret is stored or changed. */
  secretKey?: Buffer | null;
}

/** Stored and returned header: a plain value, or only the name of a secret one. */
export type PublicHeader = { name: string; value: string } | { name: string; secret: true };

/** Stored and returned monitor: its config without the password, and whether one is stored. */
export type PublicMonitor = (TMonitorConfig extends infer M
  ? M extends unknown
    ? Omit<M, "password">
    : never
  : never) & {
  id: string;
  hasPassword?: boolean;
};

/** Everything about a target except its encrypted secrets. */
export const publicTargetSelect = {
  id: true,
  orgId: true,
  projectId: true,
  name: true,
  kind: true,
  baseUrl: true,
  headers: true,
  monitors: true,
  configApplyUrl: true,
  baselineKnobs: true,
  overheadStages: true,
  agentLabel: true,
  createdAt: true,
  updatedAt: true,
} as const;

type TargetRow = Prisma.TargetGetPayload<{ select: typeof publicTargetSelect }>;

function toPublic(row: TargetRow) {
  return { ...row, headers: publicHeaders(row.headers), monitors: publicMonitors(row.monitors) };
}

export function publicHeaders(stored: unknown): PublicHeader[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((h): PublicHeader[] => {
    if (!h || typeof h !== "object" || typeof (h as { name?: unknown }).name !== "string") return [];
    const { name, value, secret } = h as { name: string; value?: unknown; secret?: unknown };
    if (secret === true) return [{ name, secret: true }];
    return [{ name, value: typeof value === "string" ? value : "" }];
  });
}

export function publicMonitors(stored: unknown): PublicMonitor[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((m, index): PublicMonitor[] => {
    const parsed = ZMonitorConfig.safeParse(m);
    if (!parsed.success) return [];
    const raw = m as { id?: unknown; hasPassword?: unknown };
    const { password: _password, ...config } = parsed.data as TMonitorConfig & { password?: string };
    return [
      {
        ...config,
        id: typeof raw.id === "string" ? raw.id : `m${index}`,
        ...(raw.hasPassword === true ? { hasPassword: true } : {}),
      } as PublicMonitor,
    ];
  });
}

export async function listTargets(db: Db, orgId: string, projectId?: string) {
  const rows = await db.target.findMany({
    where: { orgId, ...(projectId ? { projectId } : {}) },
    orderBy: { createdAt: "asc" },
    select: { ...publicTargetSelect, _count: { select: { runs: true } } },
  });
  const [trusted, verified] = await Promise.all([
    isInstallOrganization(db, orgId),
    db.verifiedOrigin.findMany({ where: { orgId }, select: { origin: true, method: true, verifiedAt: true } }),
  ]);
  const byOrigin = new Map(verified.map((v) => [v.origin, v]));
  return rows.map(({ _count, ...row }) => {
    const v = byOrigin.get(canonicalOrigin(row.baseUrl) ?? "");
    /** May load reach it: the install's own (trusted), verified (how and when), or a probe only. */
    const verification: TargetVerification = trusted
      ? { state: "trusted" }
      : v
        ? { state: "verified", method: v.method === "dns" ? "dns" : "http", at: v.verifiedAt }
        : { state: "probe_only" };
    return { ...toPublic(row), runCount: _count.runs, verification };
  });
}

export type TargetVerification =
  | { state: "trusted" }
  | { state: "verified"; method: "http" | "dns"; at: Date }
  | { state: "probe_only" };

export async function getTarget(db: Db, orgId: string, id: string) {
  const row = await db.target.findFirst({ where: { orgId, id }, select: publicTargetSelect });
  return row ? toPublic(row) : null;
}

function normalizeMonitor(m: TargetMonitorInput | TMonitorConfig): TargetMonitorInput {
  if ("config" in m) return m;
  return { config: m, password: m.kind === "rabbitmq" ? m.password : undefined };
}

async function assertNameFree(db: Db, projectId: string, name: string, exceptId?: string) {
  const clash = await db.target.findFirst({
    where: { projectId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  if (clash) throw new ConflictError("name", `a target named "${name}" already exists in this project`);
}

/**
 * Split the form's headers and monitors into what is stored in the clear and what is encrypted,
 * keeping stored secrets the form left untouched. Secret values never leave this function except
 * inside the ciphertext.
 */
function buildStored(
  headers: TargetHeaderInput[],
  monitors: TargetMonitorInput[],
  previous: TTargetSecrets,
  previousMonitorIds: Set<string>,
  bound: { originChanged: boolean; monitorOrigins: Map<string, string | null> } = {
    originChanged: false,
    monitorOrigins: new Map(),
  },
) {
  const secrets: TTargetSecrets = { headers: {}, monitorPasswords: {} };
  const storedHeaders: PublicHeader[] = headers.flatMap((h, i): PublicHeader[] => {
    if (!h.secret) return [{ name: h.name, value: h.value ?? "" }];
    if (h.value) {
      secrets.headers[h.name] = h.value;
    } else {
      // A secret belongs to the origin it was entered for: a new origin does not inherit it.
      if (bound.originChanged) return [];
      const kept = previous.headers[h.from ?? h.name];
      if (kept === undefined) throw new ConflictError(`headers.${i}.value`, "enter a value for this secret header");
      secrets.headers[h.name] = kept;
    }
    return [{ name: h.name, secret: true }];
  });
  const storedMonitors = monitors.map((m) => {
    const id = m.id && previousMonitorIds.has(m.id) ? m.id : randomBytes(6).toString("hex");
    const { password: _ignored, ...config } = m.config as TMonitorConfig & { password?: string };
    let password: string | undefined;
    if (m.config.kind === "rabbitmq" && !m.clearPassword) {
      const sameOrigin =
        !bound.originChanged &&
        m.id !== undefined &&
        m.id !== null &&
        bound.monitorOrigins.get(m.id) === canonicalOrigin(m.config.url);
      password = m.password ? m.password : m.id && sameOrigin ? previous.monitorPasswords[m.id] : undefined;
    }
    if (password !== undefined) secrets.monitorPasswords[id] = password;
    return { ...config, id, ...(password !== undefined ? { hasPassword: true } : {}) };
  });
  const hasSecrets = Object.keys(secrets.headers).length > 0 || Object.keys(secrets.monitorPasswords).length > 0;
  return { storedHeaders, storedMonitors, secrets: hasSecrets ? secrets : null };
}

/** The form field a secret-storage problem is reported at: the first secret in the input. */
function firstSecretField(headers: TargetHeaderInput[], monitors: TargetMonitorInput[]): string {
  const header = headers.findIndex((h) => h.secret);
  if (header >= 0) return `headers.${header}.value`;
  const monitor = monitors.findIndex((m) => m.config.kind === "rabbitmq");
  return monitor >= 0 ? `monitors.${monitor}.password` : "headers";
}

function encryptOrExplain(
  options: SecretOptions,
  orgId: string,
  secrets: TTargetSecrets | null,
  field: string,
): string | null {
  if (!secrets) return null;
  if (!options.secretKey) {
    throw new ConflictError(field, "secrets cannot be stored: the server has no BENCHBOARD_SECRET_KEY");
  }
  return encryptTargetSecrets(options.secretKey, orgId, secrets);
}

function rethrowUnique(err: unknown, name: string): never {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") {
    throw new ConflictError("name", `a target named "${name}" already exists in this project`);
  }
  throw err;
}

/** The columns that creating and updating a target both write from the form. */
function formColumns(
  orgId: string,
  input: Omit<TargetInput, "projectId">,
  monitors: ReturnType<typeof normalizeMonitor>[],
  stored: ReturnType<typeof buildStored>,
  options: SecretOptions,
) {
  return {
    name: input.name,
    kind: input.kind,
    baseUrl: input.baseUrl,
    headers: stored.storedHeaders,
    monitors: stored.storedMonitors as Prisma.InputJsonValue,
    secrets: encryptOrExplain(options, orgId, stored.secrets, firstSecretField(input.headers ?? [], monitors)),
    configApplyUrl: input.configApplyUrl ?? null,
  };
}

export async function createTarget(db: Db, orgId: string, input: TargetInput, options: SecretOptions = {}) {
  const monitors = (input.monitors ?? []).map(normalizeMonitor);
  await assertNameFree(db, input.projectId, input.name);
  const stored = buildStored(input.headers ?? [], monitors, { headers: {}, monitorPasswords: {} }, new Set());
  try {
    const row = await db.target.create({
      data: {
        orgId,
        projectId: input.projectId,
        ...formColumns(orgId, input, monitors, stored, options),
        overheadStages: input.overheadStages ?? [],
        agentLabel: input.agentLabel ?? null,
      },
      select: publicTargetSelect,
    });
    return toPublic(row);
  } catch (err) {
    rethrowUnique(err, input.name);
  }
}

export async function updateTarget(
  db: Db,
  orgId: string,
  id: string,
  input: Omit<TargetInput, "projectId">,
  options: SecretOptions = {},
) {
  const current = await db.target.findFirst({ where: { orgId, id }, select: { ...publicTargetSelect, secrets: true } });
  if (!current) throw new NotFoundError("id", "target not found");
  const monitors = (input.monitors ?? []).map(normalizeMonitor);
  await assertNameFree(db, current.projectId, input.name, id);
  // Decrypt only when the form keeps a stored secret; otherwise a missing key must not block edits.
  const keepsSecret =
    (input.headers ?? []).some((h) => h.secret && !h.value) ||
    monitors.some((m) => m.config.kind === "rabbitmq" && m.id && !m.password && !m.clearPassword);
  let previous: TTargetSecrets = { headers: {}, monitorPasswords: {} };
  if (keepsSecret && current.secrets) {
    try {
      previous = decryptTargetSecrets(options.secretKey, orgId, current.secrets);
    } catch (err) {
      if (!(err instanceof SecretKeyError)) throw err;
      throw new ConflictError(
        firstSecretField(input.headers ?? [], monitors),
        `the stored secrets cannot be read (${err.message}); enter the values again`,
      );
    }
  }
  const previousMonitors = publicMonitors(current.monitors);
  const previousIds = new Set(previousMonitors.map((m) => m.id));
  const stored = buildStored(input.headers ?? [], monitors, previous, previousIds, {
    originChanged: canonicalOrigin(input.baseUrl) !== canonicalOrigin(current.baseUrl),
    monitorOrigins: new Map(previousMonitors.map((m) => [m.id, "url" in m ? canonicalOrigin(m.url) : null])),
  });
  try {
    const row = await db.target.update({
      where: { id },
      data: {
        ...formColumns(orgId, input, monitors, stored, options),
        overheadStages: input.overheadStages,
        ...(input.agentLabel !== undefined ? { agentLabel: input.agentLabel ?? null } : {}),
      },
      select: publicTargetSelect,
    });
    return toPublic(row);
  } catch (err) {
    rethrowUnique(err, input.name);
  }
}

/**
 * Delete a target. Its finished runs keep their snapshots; its queued runs are canceled, since
 * load goes only to targets still registered.
 */
export async function deleteTarget(db: Db, orgId: string, id: string) {
  return db.$transaction(async (tx) => {
    const target = await tx.target.findFirst({ where: { orgId, id }, select: { id: true, name: true } });
    if (!target) throw new NotFoundError("id", "target not found");
    const canceled = await tx.run.updateMany({
      where: { orgId, targetId: id, status: "queued" },
      data: { status: "canceled", cancelRequested: true, endedAt: new Date(), error: "its target was deleted" },
    });
    await tx.target.delete({ where: { id } });
    return { id, canceledRuns: canceled.count };
  });
}

/**
 * Monitor configs ready to sample, with stored passwords filled in. Monitors from a form keep the
 * password of the stored monitor they name by `id`, so "test connection" works before saving.
 */
export async function resolveMonitors(
  db: Db,
  orgId: string,
  targetId: string | null | undefined,
  monitors: (TargetMonitorInput | TMonitorConfig)[] | null,
  options: SecretOptions = {},
): Promise<TMonitorConfig[]> {
  const target = targetId
    ? await db.target.findFirst({ where: { orgId, id: targetId }, select: { monitors: true, secrets: true } })
    : null;
  if (targetId && !target) throw new NotFoundError("targetId", "target not found");
  const storedMonitors = publicMonitors(target?.monitors);
  const storedOrigin = new Map(storedMonitors.map((m) => [m.id, "url" in m ? canonicalOrigin(m.url) : null]));
  const inputs: TargetMonitorInput[] = monitors
    ? monitors.map(normalizeMonitor)
    : storedMonitors.map((m) => ({ id: m.id, config: m as unknown as TMonitorConfig }));
  const needsStored = inputs.some((m) => m.config.kind === "rabbitmq" && m.id && !m.password && !m.clearPassword);
  const secrets =
    needsStored && target?.secrets ? decryptTargetSecrets(options.secretKey, orgId, target.secrets) : null;
  return inputs.map((m) => {
    if (m.config.kind !== "rabbitmq") return ZMonitorConfig.parse(m.config);
    const { password: _ignored, ...config } = m.config;
    // A stored password goes only to the URL it was stored for, never to one typed in the form.
    const storedFits = m.id ? storedOrigin.get(m.id) === canonicalOrigin(m.config.url) : false;
    const password = m.clearPassword
      ? undefined
      : m.password || (m.id && storedFits ? secrets?.monitorPasswords[m.id] : undefined) || undefined;
    return ZMonitorConfig.parse({ ...config, ...(password !== undefined ? { password } : {}) });
  });
}

/**
 * The headers a run sends: the snapshot's header list (names, order, plain values) with secret
 * values decrypted from the target row. Throws when a secret is listed but cannot be found.
 */
export function runHeaders(
  snapshotHeaders: unknown,
  target: { orgId: string; secrets: string | null } | null,
  secretKey: Buffer | null | undefined,
): Record<string, string> {
  const headers = publicHeaders(snapshotHeaders);
  const needsSecrets = headers.some((h) => "secret" in h);
  if (needsSecrets && !target) {
    throw new ConflictError("target", "the target was deleted, so its secret headers are gone");
  }
  const secrets: Pick<TTargetSecrets, "headers"> =
    needsSecrets && target ? decryptTargetSecrets(secretKey, target.orgId, target.secrets) : { headers: {} };
  const out: Record<string, string> = {};
  for (const h of headers) {
    if ("secret" in h) {
      const value = secrets.headers[h.name];
      if (value === undefined) throw new ConflictError("target", `secret header ${h.name} has no stored value`);
      out[h.name] = value;
    } else {
      out[h.name] = h.value;
    }
  }
  return out;
}
