import { type EngineProgress, type TRunResultData, ZScenarioSpec } from "@benchboard/core";
import { claimRun, type Db, finishRun, isCancelRequested, recordProgress } from "@benchboard/db";
import type { TRunExecutePayload } from "@benchboard/jobs";
import { EngineConfigError, type EngineResult, runScenario } from "@benchboard/loadgen";

export interface ProcessorDeps {
  db: Db;
  workerId: string;
  log: (line: string) => void;
}

const CANCEL_POLL_MS = 250;

interface TargetSnapshot {
  baseUrl: string;
  headers?: { name: string; value?: string }[];
}

interface ConfigSnapshot {
  knobs?: Record<string, unknown>;
}

/**
 * Execute one run: claim it, apply its instance config, run the engine while relaying progress
 * and watching for cancellation, then store the result. Every path ends the run: a thrown error
 * becomes `failed` with a readable reason and whatever was measured.
 */
export async function handleRunExecute(deps: ProcessorDeps, payload: TRunExecutePayload): Promise<void> {
  const { db, log } = deps;
  const run = await claimRun(db, payload.runId, deps.workerId);
  if (!run) {
    log(`run ${payload.runId} is no longer queued; skipped`);
    return;
  }
  log(`run ${run.id} (#${run.number}) started`);
  const abort = new AbortController();
  let lastProgressWrite = 0;
  const cancelPoll = setInterval(() => {
    isCancelRequested(db, run.id)
      .then((cancel) => {
        if (cancel && !abort.signal.aborted) abort.abort();
      })
      .catch(() => {});
  }, CANCEL_POLL_MS);

  try {
    const target = run.targetSnapshot as unknown as TargetSnapshot | null;
    if (!target?.baseUrl) throw new EngineConfigError("target", "the run has no target");
    const scenario = run.scenarioSnapshot as { spec?: unknown } | null;
    const spec = ZScenarioSpec.safeParse(scenario?.spec);
    if (!spec.success) {
      const issue = spec.error.issues[0];
      throw new EngineConfigError(`scenario.${issue?.path.join(".")}`, issue?.message ?? "invalid");
    }
    await applyInstanceConfig(run.target?.configApplyUrl ?? null, run.configSnapshot as ConfigSnapshot | null);

    const headers = Object.fromEntries(
      (target.headers ?? []).filter((h) => typeof h.value === "string").map((h) => [h.name, h.value as string]),
    );
    const result = await runScenario(spec.data, {
      baseUrl: target.baseUrl,
      headers,
      signal: abort.signal,
      onProgress: (p: EngineProgress) => {
        const now = Date.now();
        if (now - lastProgressWrite < 900) return;
        lastProgressWrite = now;
        recordProgress(db, run.id, p).catch(() => {});
      },
    });
    const outcome = judge(result);
    await finishRun(db, run.id, { ...outcome, result: toResultData(result) });
    log(`run ${run.id} ${outcome.status}${outcome.error ? `: ${outcome.error}` : ""}`);
  } catch (err) {
    const reason = describeError(err);
    log(`run ${run.id} failed: ${reason}`);
    await finishRun(db, run.id, { status: "failed", error: reason, result: null });
  } finally {
    clearInterval(cancelPoll);
  }
}

/** A run where nothing succeeded did not test the service: it failed, with the dominant error. */
function judge(result: EngineResult): { status: "succeeded" | "failed" | "canceled"; error: string | null } {
  if (result.canceled) return { status: "canceled", error: "canceled by request" };
  const requests = result.metrics.requests ?? 0;
  const success = result.metrics.success ?? 0;
  if (requests > 0 && success === 0) {
    const top = [...result.errors].sort((a, b) => b.count - a.count)[0];
    const what = top ? `${top.message || top.kind}` : "every request failed";
    return {
      status: "failed",
      error: `target unreachable or failing: ${what} (${requests} of ${requests} requests failed)`,
    };
  }
  if (requests === 0 && result.metrics.messages === undefined) {
    return { status: "failed", error: "no requests were completed" };
  }
  return { status: "succeeded", error: null };
}

function toResultData(result: EngineResult): TRunResultData {
  const { startedAt: _s, endedAt: _e, canceled: _c, ...data } = result;
  return data;
}

async function applyInstanceConfig(url: string | null, config: ConfigSnapshot | null): Promise<void> {
  if (!url || !config?.knobs || Object.keys(config.knobs).length === 0) return;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(config.knobs),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new Error(`applying the instance config to ${url} failed: ${describeError(err)}`);
  }
  if (!res.ok) {
    const body = (await res.text().catch(() => "")).slice(0, 300);
    throw new Error(`the target rejected the instance config (HTTP ${res.status}): ${body}`);
  }
}

function describeError(err: unknown): string {
  if (err instanceof EngineConfigError) return `invalid ${err.field}: ${err.message.replace(`${err.field}: `, "")}`;
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return [e.message ?? String(err), cause].filter(Boolean).join(" — ");
}
