import { randomUUID } from "node:crypto";
import { type EngineProgress, LIVE_SAMPLES, parseLiveProgress, type TLiveProgress } from "@benchboard/core";
import { hashToken, newToken } from "../auth/tokens";
import type { Db } from "../client";
import { ConflictError, NotFoundError } from "../errors";
import type { Prisma } from "../generated/prisma/client";
import { apiTokenPublicSelect } from "./auth";

/**
 * Agents: `benchboard agent` processes an organization runs inside its own network. They hold an
 * agent token (a kind of API token good for nothing else), announce themselves, and take that
 * organization's agent runs through the REST API.
 */

/** Agent tokens start with this, API tokens with `bb_`: neither is accepted where the other is. */
export const AGENT_TOKEN_PREFIX = "bba_";
/** An agent that has not been heard from for this long is shown offline. */
export const AGENT_OFFLINE_AFTER_MS = 30_000;

/**
 * What one organization's agents may hold on the install at once. Each label an online agent
 * offers is polled on every claim, and each claim is a request held open: an agent token must
 * not be able to turn that into unbounded work on the server.
 */
export const AGENT_CAPS = {
  /** Distinct labels offered by the organization's online agents. */
  labelsPerOrg: 64,
  /** Online agents announced with one agent token. */
  agentsPerToken: 64,
  /** Claims (long polls for work) of the organization waiting at once, per server process. */
  claimsPerOrg: 64,
} as const;

export async function createAgentToken(db: Db, orgId: string, input: { name: string; createdById: string | null }) {
  const token = newToken(AGENT_TOKEN_PREFIX);
  const record = await db.apiToken.create({
    data: {
      orgId,
      name: input.name,
      tokenHash: hashToken(token),
      prefix: token.slice(0, AGENT_TOKEN_PREFIX.length + 6),
      scopes: [],
      kind: "agent",
      createdById: input.createdById,
    },
    select: { ...apiTokenPublicSelect, kind: true },
  });
  return { token, record };
}

export interface AgentCaller {
  tokenId: string;
  orgId: string;
}

/**
 * Resolve an agent token: null when unknown, not an agent token, revoked, expired, or when the
 * member who created it has left the organization (or is now a viewer, who may not launch).
 */
export async function verifyAgentToken(db: Db, token: string): Promise<AgentCaller | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX)) return null;
  const record = await db.apiToken.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!record || record.kind !== "agent" || record.revokedAt) return null;
  if (record.expiresAt && record.expiresAt < new Date()) return null;
  if (record.createdById) {
    const membership = await db.membership.findUnique({
      where: { orgId_userId: { orgId: record.orgId, userId: record.createdById } },
      select: { role: true },
    });
    if (!membership || membership.role === "viewer") return null;
  }
  // At most one write a minute per token: agents call several times a second.
  if (!record.lastUsedAt || Date.now() - record.lastUsedAt.getTime() > 60_000) {
    await db.apiToken.update({ where: { id: record.id }, data: { lastUsedAt: new Date() } });
  }
  return { tokenId: record.id, orgId: record.orgId };
}

export interface AnnounceInput {
  name: string;
  labels: string[];
  capacity: number;
  version: string;
  /** The agent's own ceilings; null (or no engines): only the organization's caps apply. */
  maxRate?: number | null;
  maxConnections?: number | null;
  engines?: string[];
}

/**
 * The agent process that announced a name is no longer the one holding it: a newer process
 * announced the same name (with this token or another), or the agent was removed. It stops.
 */
export class AgentReplacedError extends Error {
  readonly field = "agentId";
  constructor(message: string) {
    super(message);
    this.name = "AgentReplacedError";
  }
}

/**
 * An agent starts (or restarts under the same name): one row per name in the organization. The
 * newest announce with a valid agent token of the organization takes the name — its token and a
 * fresh instance id replace the old ones — and the process that held it before is told so on its
 * next claim (and on any report, when it used another token) and stops. Refused when it would take
 * the organization past its labels or the token past its agents (counting online agents other than
 * this name, which it replaces).
 */
export async function announceAgent(db: Db, caller: AgentCaller, input: AnnounceInput) {
  const now = new Date();
  const others = await db.agent.findMany({
    where: {
      orgId: caller.orgId,
      name: { not: input.name },
      stoppedAt: null,
      lastSeenAt: { gt: new Date(now.getTime() - AGENT_OFFLINE_AFTER_MS) },
    },
    select: { labels: true, tokenId: true },
  });
  const labels = new Set([...others.flatMap((a) => a.labels), ...input.labels]);
  if (labels.size > AGENT_CAPS.labelsPerOrg) {
    throw new ConflictError(
      "labels",
      `an organization's online agents offer at most ${AGENT_CAPS.labelsPerOrg} labels; with these they would offer ${labels.size}: reuse labels the organization already has, or stop agents that offer others`,
    );
  }
  const sameToken = others.filter((a) => a.tokenId === caller.tokenId).length;
  if (sameToken >= AGENT_CAPS.agentsPerToken) {
    throw new ConflictError(
      "name",
      `one agent token runs at most ${AGENT_CAPS.agentsPerToken} agents at once, and ${sameToken} are online with this one: stop one, or create another agent token`,
    );
  }
  const data = {
    tokenId: caller.tokenId,
    instanceId: randomUUID(),
    labels: input.labels,
    capacity: input.capacity,
    version: input.version,
    maxRate: input.maxRate ?? null,
    maxConnections: input.maxConnections ?? null,
    engines: input.engines ?? [],
    activeRuns: 0,
    startedAt: now,
    lastSeenAt: now,
    stoppedAt: null,
  };
  return db.agent.upsert({
    where: { orgId_name: { orgId: caller.orgId, name: input.name } },
    create: { orgId: caller.orgId, name: input.name, ...data },
    update: data,
    select: {
      id: true,
      name: true,
      instanceId: true,
      labels: true,
      capacity: true,
      maxRate: true,
      maxConnections: true,
      engines: true,
    },
  });
}

const isoSecondsOf = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * The caller's agent. An agent of another organization (or none) is not found; one whose name a
 * newer announce took — with another token, or with this token from another process
 * (`instanceId` differs) — answers `AgentReplacedError`, so the older process stops instead of
 * retrying. Calls without `instanceId` (reports on runs a process already holds) are matched by
 * token only: a process replaced under the same token finishes what it runs.
 */
export async function agentOfCaller(db: Db, caller: AgentCaller, agentId: string, instanceId?: string) {
  const agent = await db.agent.findFirst({
    where: { id: agentId, orgId: caller.orgId },
    select: {
      id: true,
      name: true,
      labels: true,
      capacity: true,
      orgId: true,
      tokenId: true,
      instanceId: true,
      startedAt: true,
      maxRate: true,
      maxConnections: true,
      engines: true,
    },
  });
  if (!agent) {
    throw new NotFoundError(
      "agentId",
      "no such agent in this organization (removed, or expired while offline): start the agent again to announce anew",
    );
  }
  if (agent.tokenId !== caller.tokenId || (instanceId !== undefined && instanceId !== agent.instanceId)) {
    const token =
      agent.tokenId !== caller.tokenId
        ? await db.apiToken.findUnique({ where: { id: agent.tokenId }, select: { name: true } })
        : null;
    const how = token ? `with agent token "${token.name}"` : "with this agent token";
    throw new AgentReplacedError(
      `the name ${agent.name} was taken at ${isoSecondsOf(agent.startedAt)} by a newer agent process announced ${how}: this process stops (the newest announce of a name holds it; give each agent process its own --name)`,
    );
  }
  const { tokenId: _t, ...rest } = agent;
  return rest;
}

/**
 * How stale `lastSeenAt` may be before a sign of life writes it again. Offline is judged in tens
 * of seconds; a write per claim would queue an agent's concurrent long polls on its row's lock
 * and a commit each (64 claims of one agent took over 5 s), where a no-op writes nothing.
 */
export const AGENT_SEEN_RESOLUTION_MS = 2_000;

/** A sign of life from the agent: seen now, not stopped, and its active run count when given. */
export async function touchAgent(db: Db, agentId: string, activeRuns?: number) {
  const now = new Date();
  const { count } = await db.agent.updateMany({
    where: {
      id: agentId,
      OR: [
        { lastSeenAt: { lt: new Date(now.getTime() - AGENT_SEEN_RESOLUTION_MS) } },
        { stoppedAt: { not: null } },
        ...(activeRuns !== undefined ? [{ activeRuns: { not: activeRuns } }] : []),
      ],
    },
    data: { lastSeenAt: now, stoppedAt: null, ...(activeRuns !== undefined ? { activeRuns } : {}) },
  });
  // Nothing to write, or no such agent: the latter still fails as an update of a missing row does.
  if (count === 0 && !(await db.agent.findUnique({ where: { id: agentId }, select: { id: true } }))) {
    await db.agent.update({ where: { id: agentId }, data: { lastSeenAt: now } });
  }
}

/** Whether the agent said it stopped after `since` (a claim that began before then is stale). */
export async function agentStoppedSince(db: Db, agentId: string, since: Date): Promise<boolean> {
  const agent = await db.agent.findUnique({ where: { id: agentId }, select: { stoppedAt: true } });
  return agent === null || (agent.stoppedAt !== null && agent.stoppedAt >= since);
}

export async function stopAgent(db: Db, agentId: string) {
  await db.agent.update({ where: { id: agentId }, data: { stoppedAt: new Date(), activeRuns: 0 } });
}

/** The id an agent's runs and shards record as their worker. */
export const agentWorkerId = (agent: { id: string; name: string }) => `agent:${agent.name}:${agent.id}`;

/**
 * The run (and shard) an agent may report on: its organization's, meant for agents, and
 * claimed by this agent. Anything else is "not found", like another organization's runs.
 */
export async function agentRunOfCaller(
  db: Db,
  agent: { id: string; name: string; orgId: string },
  runId: string,
  shard: number | null,
) {
  const workerId = agentWorkerId(agent);
  const run = await db.run.findFirst({
    where: { id: runId, orgId: agent.orgId, agentLabel: { not: null }, workerIds: { has: workerId } },
    select: { id: true, status: true, shardCount: true, cancelRequested: true, startedAt: true, orgId: true },
  });
  if (!run) throw new NotFoundError("id", "run not found");
  if (shard === null && run.shardCount > 1) throw new NotFoundError("shard", "this run is sharded: name the shard");
  if (shard !== null) {
    const row = await db.runShard.findFirst({ where: { runId, index: shard, workerId }, select: { status: true } });
    if (!row) throw new NotFoundError("shard", "shard not found");
    return { ...run, shardStatus: row.status };
  }
  return { ...run, shardStatus: null };
}

/**
 * Append one second to a run's live progress (the live page's figures and charts). The agent
 * reports per second; the server keeps the last few minutes, as a worker does in memory.
 */
export async function appendLiveProgress(
  db: Db,
  runId: string,
  progress: EngineProgress,
  monitors: Record<string, number | null>,
): Promise<void> {
  await db.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: runId }, select: { status: true, progress: true } });
    if (run?.status !== "running") return;
    const previous = parseLiveProgress(run.progress)?.samples ?? [];
    const samples = [
      ...previous,
      {
        t: Date.now(),
        rps: progress.rps,
        p50: progress.latencyP50Ms,
        p99: progress.latencyP99Ms,
        errors: progress.errors,
        mem: monitors.mem_bytes ?? null,
        cpu: monitors.cpu_cores ?? null,
        queue: monitors.queue_depth ?? monitors["gauge.queue_depth"] ?? null,
      },
    ].slice(-LIVE_SAMPLES);
    const live: TLiveProgress = { ...progress, samples, monitors };
    await tx.run.update({
      where: { id: runId },
      data: { progress: live as unknown as Prisma.InputJsonValue, heartbeatAt: new Date() },
    });
  });
}

export type AgentState = "online" | "busy" | "offline";

/** An organization's agents with their state, newest first; never another organization's. */
export async function listAgents(db: Db, orgId: string, now = Date.now()) {
  const agents = await db.agent.findMany({
    where: { orgId },
    orderBy: [{ lastSeenAt: "desc" }, { name: "asc" }],
    select: {
      id: true,
      name: true,
      labels: true,
      capacity: true,
      activeRuns: true,
      version: true,
      startedAt: true,
      lastSeenAt: true,
      stoppedAt: true,
      maxRate: true,
      maxConnections: true,
      engines: true,
      token: { select: { name: true, prefix: true, revokedAt: true } },
    },
  });
  return agents.map((a) => {
    const offline = a.stoppedAt !== null || now - a.lastSeenAt.getTime() > AGENT_OFFLINE_AFTER_MS;
    const state: AgentState = offline ? "offline" : a.activeRuns > 0 ? "busy" : "online";
    return {
      id: a.id,
      name: a.name,
      labels: a.labels,
      capacity: a.capacity,
      activeRuns: offline ? 0 : a.activeRuns,
      version: a.version,
      startedAt: a.startedAt,
      lastSeenAt: a.lastSeenAt,
      state,
      offlineSince: offline ? (a.stoppedAt ?? a.lastSeenAt) : null,
      tokenName: a.token.name,
      tokenRevoked: a.token.revokedAt !== null,
      /** What the agent announced it takes (null / empty: no limit of its own). */
      limits: { maxRate: a.maxRate, maxConnections: a.maxConnections, engines: a.engines },
    };
  });
}

export async function listAgentTokens(db: Db, orgId: string) {
  return db.apiToken.findMany({
    where: { orgId, kind: "agent" },
    orderBy: { createdAt: "desc" },
    select: { ...apiTokenPublicSelect, createdBy: { select: { id: true, email: true, name: true } } },
  });
}

/** Who created an agent token of the organization (null: no such agent token). */
export async function agentTokenCreator(db: Db, orgId: string, id: string) {
  return db.apiToken.findFirst({ where: { id, orgId, kind: "agent" }, select: { createdById: true } });
}

/** Revoke an agent token; every agent using it is refused from its next call. */
export async function revokeAgentToken(db: Db, orgId: string, id: string) {
  const { count } = await db.apiToken.updateMany({
    where: { orgId, id, kind: "agent", revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (!count) throw new NotFoundError("id", "agent token not found or already revoked");
}

/** Whether any of an organization's agents serves a label now, and when one was last heard from. */
export interface AgentLabelPresence {
  agentLabel: string;
  /** Agents offering the label that are online now (busy ones included). */
  agentsOnline: number;
  /** The last time an agent offering it was heard from (its stop included); null: never announced. */
  lastSeenAt: Date | null;
}

export async function agentLabelPresence(
  db: Db | Prisma.TransactionClient,
  orgId: string,
  agentLabel: string,
  now = Date.now(),
): Promise<AgentLabelPresence> {
  const agents = await db.agent.findMany({
    where: { orgId, labels: { has: agentLabel } },
    select: { lastSeenAt: true, stoppedAt: true },
  });
  let agentsOnline = 0;
  let lastSeenAt: Date | null = null;
  for (const a of agents) {
    if (a.stoppedAt === null && now - a.lastSeenAt.getTime() <= AGENT_OFFLINE_AFTER_MS) agentsOnline++;
    const seen = a.stoppedAt && a.stoppedAt > a.lastSeenAt ? a.stoppedAt : a.lastSeenAt;
    if (!lastSeenAt || seen > lastSeenAt) lastSeenAt = seen;
  }
  return { agentLabel, agentsOnline, lastSeenAt };
}

const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** "none online since 2026-…Z", "no agent has ever announced it" or "2 online". */
export function describeAgentPresence(p: AgentLabelPresence): string {
  if (p.agentsOnline > 0) return `${p.agentsOnline} online`;
  return p.lastSeenAt ? `none online since ${isoSeconds(p.lastSeenAt)}` : "no agent has ever announced it";
}

/** What a queued agent run waits for, as the run page and `benchboard run --wait` say it. */
export function agentWaitMessage(p: AgentLabelPresence): string {
  return `waiting for an agent labelled ${p.agentLabel} (${describeAgentPresence(p)})`;
}

/**
 * Refuse a launch on a label no online agent of the organization serves, naming the label and
 * when one was last seen; the caller may ask to queue the run anyway (an agent about to start).
 */
export async function assertAgentLabelServed(
  db: Db | Prisma.TransactionClient,
  orgId: string,
  agentLabel: string,
  field: string,
): Promise<void> {
  const presence = await agentLabelPresence(db, orgId, agentLabel);
  if (presence.agentsOnline > 0) return;
  const seen = presence.lastSeenAt ? `last seen ${isoSeconds(presence.lastSeenAt)}` : "no agent has ever announced it";
  throw new ConflictError(
    field,
    `no agent labelled ${agentLabel} is online (${seen}): start one, or launch with queueWithoutAgent (benchboard run --queue) to wait for one`,
  );
}

/** How long an offline agent stays listed before it is removed (`BENCHBOARD_AGENT_RETENTION_DAYS`). */
export const DEFAULT_AGENT_RETENTION_DAYS = 7;

/**
 * Remove an offline agent of the organization by name (a `--once` CI agent, a pod gone for good).
 * An online agent is refused: it would announce again at its next start anyway, so stop it (or
 * revoke its token) first. Its runs keep the name they recorded.
 */
export async function removeAgent(db: Db, orgId: string, name: string, now = Date.now()) {
  const agent = await db.agent.findFirst({
    where: { orgId, name },
    select: { id: true, name: true, lastSeenAt: true, stoppedAt: true },
  });
  if (!agent) throw new NotFoundError("name", `no agent named ${name} in this organization`);
  if (agent.stoppedAt === null && now - agent.lastSeenAt.getTime() <= AGENT_OFFLINE_AFTER_MS) {
    throw new ConflictError(
      "name",
      `agent ${name} is online (last seen ${isoSecondsOf(agent.lastSeenAt)}): stop it first, or revoke its agent token`,
    );
  }
  await db.agent.delete({ where: { id: agent.id } });
  return { id: agent.id, name: agent.name };
}

/** Remove agents of every organization offline for longer than `retentionMs`; returns how many. */
export async function expireOfflineAgents(db: Db, retentionMs: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionMs);
  const { count } = await db.agent.deleteMany({
    where: {
      lastSeenAt: { lt: cutoff },
      OR: [{ stoppedAt: null }, { stoppedAt: { lt: cutoff } }],
    },
  });
  return count;
}
