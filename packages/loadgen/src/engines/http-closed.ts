import type { TPlanStep, TScenarioSpec } from "@benchboard/core";
import type { Dispatcher } from "undici";
import {
  CallTimeoutError,
  ClosedLoopCall,
  callOnce,
  createClient,
  createPool,
  type HttpCall,
  type PreparedRequest,
  prepareRequest,
  prepareScenarioRequest,
} from "../http/call";
import { recordHttpCall } from "../http/record";
import { enforceLimits } from "../limits";
import { STALL_MIN_MS } from "../open-loop";
import {
  type AssignedResponse,
  type CompiledTemplate,
  compileTemplate,
  readPath,
  renderTemplate,
  TemplateError,
  type TemplateScope,
  templateRoots,
} from "../plan/template";
import { checkpointer, Recorder } from "../recorder";
import { StallGuard } from "../stall-confirm";
import { EngineConfigError, type EngineContext, type EngineResult } from "../types";
import { resolveTargetUrl } from "../url";
import { everySecond, InFlight, RateGate, sleep } from "../util";
import { CANCEL_GRACE_MS } from "./open-model";

type HttpClosedSpec = Extract<TScenarioSpec, { engine: "http-closed" }>;

/**
 * Closed model: `concurrency` virtual users each send a request, wait for the whole response
 * and send the next, until `requests` have been sent or `durationS` has passed. Users start
 * evenly spread over `rampUpS`. With a `plan`, each user runs whole iterations of the plan and
 * `requests` counts iterations (drill's model).
 *
 * The single-request path is callback driven (no promise or stream per request) because it is
 * what raw throughput is measured with.
 *
 * A stall (the loop frozen longer than the open model's least bound, `STALL_MIN_MS`) holds every
 * user until `ctx.confirmAfterStall` answers that the run still runs (see `StallGuard`); a "no"
 * stops the load.
 */
export async function runHttpClosed(spec: HttpClosedSpec, ctx: EngineContext): Promise<EngineResult> {
  const limits = enforceLimits(spec, ctx);
  const base = resolveTargetUrl(ctx.baseUrl, "/");
  const plan = spec.plan && spec.plan.length > 0 ? compilePlan(spec.plan, spec.variables ?? {}) : null;
  // Refuse a bad path before any connection exists.
  if (!plan) resolveTargetUrl(ctx.baseUrl, spec.request.path);
  // Plans share a pool; single requests give each user its own connection.
  const connections: Dispatcher[] = plan
    ? [createPool(base.origin, spec.concurrency, spec.timeoutMs, ctx.pin)]
    : Array.from({ length: spec.concurrency }, () => createClient(base.origin, spec.timeoutMs, ctx.pin));
  // The closed model does not pace itself, so the ceiling is what keeps it within the caps.
  const gate = new RateGate(limits.maxRate);
  const pool = connections[0]!;
  const signal = ctx.signal;
  const startedAt = new Date();
  const t0 = performance.now();
  const rec = new Recorder(["rps", "errors"], t0);
  const durationMs = (spec.durationS ?? limits.maxDurationS) * 1000;
  const deadline = t0 + durationMs;
  const total = spec.requests ?? Number.POSITIVE_INFINITY;
  const state = { claimed: 0, closing: false };
  const guard = new StallGuard({ boundMs: STALL_MIN_MS, confirm: ctx.confirmAfterStall, startPerf: t0 });
  const canContinue = (now = performance.now()) =>
    state.claimed < total && !signal?.aborted && !guard.stopped && now < deadline;

  const checkpoint = checkpointer(ctx, rec, startedAt);
  const stopProgress = everySecond(() => {
    const now = performance.now();
    rec.tick(now);
    checkpoint(now);
    const fraction = Number.isFinite(total)
      ? (plan ? state.claimed : (rec.counters.requests ?? 0)) / total
      : (now - t0) / durationMs;
    ctx.onProgress?.(rec.progress(now, fraction));
  });

  try {
    if (plan) {
      const headers = { ...ctx.headers };
      const baseText = ctx.baseUrl.replace(/\/+$/, "");
      await Promise.all(
        Array.from({ length: spec.concurrency }, async (_, user) => {
          await sleep(rampDelay(spec, user), signal);
          while (canContinue()) {
            const iteration = state.claimed++;
            await runIteration(plan, {
              gate,
              iteration,
              pool,
              rec,
              headers,
              base: baseText,
              baseUrl: base,
              variables: spec.variables ?? {},
              timeoutMs: spec.timeoutMs,
              signal,
              deadline,
              state,
              guard,
            });
          }
        }),
      );
    } else {
      await runSingleRequest(spec, ctx, connections, rec, state, total, deadline, gate, guard);
    }
  } finally {
    stopProgress();
    guard.stop();
  }
  const endPerf = performance.now();
  // Told after a stall that the run no longer runs: stopped, as by a cancel.
  const stopped = signal?.aborted === true || guard.stopped;
  const canceled = stopped && state.claimed < total && endPerf < deadline;
  state.closing = true;
  await Promise.all(connections.map((c) => c.destroy(new CallTimeoutError("run ended")).catch(() => undefined)));

  const runtimeMs = Math.max(1, endPerf - t0);
  // Achieved rate counts answered requests; refused connections are reported as failed_connections.
  rec.counters.rps = ((rec.counters.requests ?? 0) - (rec.counters.failed_connections ?? 0)) / (runtimeMs / 1000);
  const invalidReasons: string[] = [];
  if (spec.durationS === undefined && state.claimed < total && !stopped) {
    invalidReasons.push(`stopped at the duration limit of ${limits.maxDurationS} s before all requests were sent`);
  }
  return rec.finish(endPerf, {
    startedAt,
    endedAt: new Date(),
    canceled,
    runtimeMs,
    invalidReasons,
    extra: {
      ...(plan ? { iterations: state.claimed } : {}),
      ...(guard.stalls().length ? { stalls: stallRecords(guard) } : {}),
    },
  });
}

/** The stalls the users were held for (when, s into the run; how long; the confirmation's wait). */
function stallRecords(guard: StallGuard) {
  return guard.stalls().map((s) => ({
    atS: Math.round(s.atMs) / 1000,
    gapMs: Math.round(s.gapMs),
    confirmMs: Math.round(s.confirmMs),
  }));
}

function rampDelay(spec: HttpClosedSpec, user: number): number {
  return spec.rampUpS > 0 ? (spec.rampUpS * 1000 * user) / spec.concurrency : 0;
}

async function runSingleRequest(
  spec: HttpClosedSpec,
  ctx: EngineContext,
  connections: Dispatcher[],
  rec: Recorder,
  state: { claimed: number; closing: boolean },
  total: number,
  deadline: number,
  gate: RateGate,
  guard: StallGuard,
): Promise<void> {
  const { request } = prepareScenarioRequest(spec, ctx);
  const inFlight = new InFlight();
  let usersLeft = spec.concurrency;
  let resolveAll: () => void = () => undefined;
  const allDone = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const userDone = () => {
    if (--usersLeft === 0) resolveAll();
  };
  // Kept by a listener so that the per-request check reads a local instead of the signal.
  let aborted = ctx.signal?.aborted === true;
  const markAborted = () => {
    aborted = true;
  };
  ctx.signal?.addEventListener("abort", markAborted, { once: true });
  // Users held back by the rate ceiling; cleared when the run is canceled.
  const paced = new Set<NodeJS.Timeout>();
  // Users held after a stall until it is confirmed that the run still runs.
  const held: number[] = [];
  const hold = (user: number) => {
    held.push(user);
    if (held.length > 1) return;
    void guard.settled().then((goOn) => {
      for (const u of held.splice(0)) {
        if (goOn) send(u, performance.now());
        else userDone();
      }
    });
  };
  // The completion time of one call is the start time of the user's next one (or, when the rate
  // ceiling holds it back, the time its slot comes).
  const send = (user: number, now: number) => {
    if (aborted || guard.stopped || state.claimed >= total || now >= deadline) return userDone();
    if (!guard.mayGo(now)) return hold(user);
    const wait = gate.reserve(now);
    if (wait >= 1) {
      state.claimed++;
      const timer = setTimeout(() => {
        paced.delete(timer);
        const at = performance.now();
        if (aborted || guard.stopped || !guard.mayGo(at)) {
          // Its slot came after a stall (or the end): it asks again once the stall is settled.
          state.claimed--;
          return aborted || guard.stopped ? userDone() : hold(user);
        }
        inFlight.inc();
        connections[user]!.dispatch(request, new ClosedLoopCall(at, done, null, user));
      }, wait);
      paced.add(timer);
      return;
    }
    state.claimed++;
    inFlight.inc();
    connections[user]!.dispatch(request, new ClosedLoopCall(now, done, null, user));
  };
  const done = (call: HttpCall, error: Error | null) => {
    inFlight.dec();
    if (state.closing) return;
    const now = performance.now();
    if (error !== null && ctx.signal?.aborted) {
      // An abort that tore this call down is not a measurement.
      return userDone();
    }
    recordHttpCall(rec, call, error, now, request.bodyBytes);
    send(call.tag, now);
  };
  // Users still waiting out their ramp-up when the run is canceled never start.
  const rampTimers = new Set<NodeJS.Timeout>();
  for (let user = 0; user < spec.concurrency; user++) {
    const delay = rampDelay(spec, user);
    if (delay === 0) {
      // Opening every user at once is a burst of the loop's own, not a freeze.
      const now = performance.now();
      guard.alive(now);
      send(user, now);
      continue;
    }
    const timer = setTimeout(() => {
      rampTimers.delete(timer);
      send(user, performance.now());
    }, delay);
    rampTimers.add(timer);
  }
  const onAbort = () => {
    for (const timer of [...rampTimers, ...paced]) {
      clearTimeout(timer);
      userDone();
    }
    rampTimers.clear();
    paced.clear();
    for (const _ of held.splice(0)) userDone();
  };
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.race([allDone, abortedAndDrained(ctx.signal, inFlight)]);
  } finally {
    ctx.signal?.removeEventListener("abort", onAbort);
    ctx.signal?.removeEventListener("abort", markAborted);
    for (const timer of rampTimers) clearTimeout(timer);
    for (const timer of paced) clearTimeout(timer);
  }
}

/** After an abort, give calls in flight a moment to finish, then stop waiting for them. */
async function abortedAndDrained(signal: AbortSignal | undefined, inFlight: InFlight): Promise<void> {
  if (!signal) return new Promise(() => undefined);
  if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
  await inFlight.drained(CANCEL_GRACE_MS);
}

// ---------------------------------------------------------------------------------------------
// Plans

interface CompiledStep {
  step: TPlanStep;
  index: number;
  method: string;
  path: CompiledTemplate;
  headers: [string, CompiledTemplate][];
  body: CompiledTemplate | null;
  set: [string, CompiledTemplate][];
  /** Prepared once when nothing in the request varies. */
  constantRequest: { request: PreparedRequest; url: URL } | null;
}

type CompiledPlan = CompiledStep[];

/** Compile templates and check every `{{ name }}` refers to something that will exist. */
export function compilePlan(steps: TPlanStep[], variables: Record<string, string>): CompiledPlan {
  const known = new Set(["iteration", "base", ...Object.keys(variables)]);
  return steps.map((step, index) => {
    const field = `plan.${index}`;
    const set: [string, CompiledTemplate][] = Object.entries(step.set ?? {}).map(([k, v]) => [k, compileTemplate(v)]);
    const path = compileTemplate(step.request.path);
    const headers: [string, CompiledTemplate][] = Object.entries(step.request.headers).map(([k, v]) => [
      k,
      compileTemplate(v),
    ]);
    const body = step.request.body !== undefined ? compileTemplate(step.request.body) : null;
    const check = (t: CompiledTemplate, where: string, extra: string[] = []) => {
      for (const root of templateRoots(t)) {
        if (known.has(root) || extra.includes(root)) continue;
        if ((root === "item" || root === "index") && step.withItems) continue;
        throw new EngineConfigError(
          `${field}.${where}`,
          `unknown variable {{ ${root} }} (known: ${[...known, ...(step.withItems ? ["item", "index"] : [])].join(", ")})`,
        );
      }
    };
    for (const [k, t] of set) check(t, `set.${k}`);
    for (const [k] of set) known.add(k);
    check(path, "request.path");
    for (const [k, t] of headers) check(t, `request.headers.${k}`);
    if (body) check(body, "request.body");
    for (const [i, a] of (step.asserts ?? []).entries()) {
      const root = a.key.split(".")[0]!;
      if (!known.has(root) && root !== step.assign) {
        throw new EngineConfigError(`${field}.asserts.${i}.key`, `unknown variable ${root}`);
      }
    }
    if (step.assign) known.add(step.assign);
    return {
      step,
      index,
      method: step.request.method,
      path,
      headers,
      body,
      set,
      constantRequest: null,
    };
  });
}

interface IterationContext {
  gate: RateGate;
  iteration: number;
  pool: Dispatcher;
  rec: Recorder;
  headers: Record<string, string>;
  base: string;
  baseUrl: URL;
  variables: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  deadline: number;
  state: { closing: boolean };
  guard: StallGuard;
}

async function runIteration(plan: CompiledPlan, it: IterationContext): Promise<void> {
  const scope: TemplateScope = {
    iteration: it.iteration,
    base: it.base,
    variables: { ...it.variables },
    assigned: new Map<string, AssignedResponse>(),
  };
  for (const cs of plan) {
    const { step } = cs;
    try {
      for (const [k, t] of cs.set) scope.variables[k] = renderTemplate(t, scope);
    } catch (err) {
      recordPlanError(it.rec, step, err);
      return;
    }
    if (step.delayMs) await sleep(step.delayMs, it.signal);
    const items = stepItems(step);
    for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
      if (it.signal?.aborted || performance.now() >= it.deadline) return;
      scope.item = items[itemIndex];
      scope.index = itemIndex;
      let prepared: { request: PreparedRequest; url: URL };
      try {
        prepared = cs.constantRequest ?? buildStepRequest(cs, scope, it);
        if (
          cs.path.constant !== null &&
          cs.body?.constant !== null &&
          cs.headers.every(([, t]) => t.constant !== null)
        ) {
          cs.constantRequest = prepared;
        }
      } catch (err) {
        recordPlanError(it.rec, step, err);
        return;
      }
      const keep = step.assign !== undefined;
      await it.gate.wait(it.signal);
      // After a stall nothing is sent until the run is confirmed to run; then the end may have passed.
      if (!it.guard.mayGo(performance.now()) && !(await it.guard.settled())) return;
      if (it.signal?.aborted || it.guard.stopped || performance.now() >= it.deadline) return;
      const { call, error } = await callOnce(it.pool, prepared.request, performance.now(), {
        keepBody: keep,
        keepHeaders: keep,
      });
      if (it.state.closing || (error !== null && it.signal?.aborted)) return;
      const now = performance.now();
      const ok = recordHttpCall(it.rec, call, error, now, prepared.request.bodyBytes);
      it.rec.add(`step.${step.name}.requests`);
      if (!ok) it.rec.add(`step.${step.name}.failed`);
      if (error === null) it.rec.recordExtra(`step.${step.name}`, (now - call.startAt) * 1000);
      if (error !== null) return; // later steps may depend on this one
      if (step.assign) {
        scope.assigned.set(step.assign, { status: call.status, body: parseBody(call.body()), headers: call.headers() });
      }
      for (const a of step.asserts ?? []) {
        const actual = readPath(a.key, scope);
        if (String(actual) !== String(a.value)) {
          it.rec.add("failed");
          it.rec.add("success", -1);
          it.rec.count("errors", now);
          // The key and the expectation, never what the response held: a stored error is shown
          // to the run's readers and on share pages.
          it.rec.error("assert", `${step.name}: ${a.key} is not ${JSON.stringify(a.value)}`);
          return;
        }
      }
    }
    if (step.delayAfterMs) await sleep(step.delayAfterMs, it.signal);
  }
}

function stepItems(step: TPlanStep): unknown[] {
  if (!step.withItems) return [undefined];
  let items: unknown[] = step.withItems;
  if (step.shuffle) {
    items = [...items];
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
  }
  if (step.pick !== undefined) items = items.slice(0, step.pick);
  return items;
}

function buildStepRequest(cs: CompiledStep, scope: TemplateScope, it: IterationContext) {
  const path = renderTemplate(cs.path, scope);
  const url = resolveTargetUrl(it.baseUrl.href, path);
  const headers: Record<string, string> = { ...it.headers };
  for (const [k, t] of cs.headers) headers[k] = renderTemplate(t, scope);
  const body = cs.body ? renderTemplate(cs.body, scope) : null;
  return {
    url,
    request: prepareRequest({
      path: url.pathname + url.search,
      method: cs.method,
      headers,
      body,
      timeoutMs: it.timeoutMs,
    }),
  };
}

function parseBody(body: Buffer): unknown {
  if (body.length === 0) return null;
  const text = body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function recordPlanError(rec: Recorder, step: TPlanStep, err: unknown): void {
  const now = performance.now();
  rec.add("requests");
  rec.add("failed");
  rec.count("rps", now);
  rec.count("errors", now);
  if (err instanceof TemplateError) rec.error("template", `${step.name}: ${err.message}`);
  else if (err instanceof EngineConfigError) rec.error("config", `${step.name}: ${err.message}`);
  else rec.error("plan", `${step.name}: ${String(err)}`);
}
