/**
 * A run's label from what really ran, not from the scenario's name: the load of the spec as it
 * ran (a launch's overrides and a sweep value included, both kept in the snapshot), and the
 * instance config it ran on. "300 req/s non-streaming, 20 s" that ran 500 req/s for 15 s on a
 * t3.xlarge reads "500 req/s · 15 s · t3.xlarge".
 */
export interface RunLabelInput {
  scenarioSnapshot: unknown;
  configSnapshot: unknown;
}

const number = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

function count(n: number): string {
  return n.toLocaleString("en-US", { maximumFractionDigits: 2 });
}

function seconds(s: number): string {
  if (s >= 120 && s % 60 === 0) return `${s / 60} min`;
  return `${count(s)} s`;
}

/** The load part: rate or concurrency, and duration or request count. */
export function loadLabel(spec: unknown): string | undefined {
  if (!spec || typeof spec !== "object") return undefined;
  const s = spec as Record<string, unknown>;
  const parts: string[] = [];
  const rate = number(s.rate);
  const durationS = number(s.durationS);
  switch (s.engine) {
    case "http-open":
    case "llm": {
      if (rate !== undefined) parts.push(`${count(rate)} req/s`);
      if (s.engine === "llm" && typeof s.stream === "boolean") parts.push(s.stream ? "streaming" : "non-streaming");
      if (durationS !== undefined) parts.push(seconds(durationS));
      break;
    }
    case "http-closed": {
      const concurrency = number(s.concurrency);
      const requests = number(s.requests);
      if (concurrency !== undefined) parts.push(`${count(concurrency)} connections`);
      if (requests !== undefined) parts.push(`${count(requests)} requests`);
      else if (durationS !== undefined) parts.push(seconds(durationS));
      break;
    }
    case "ws-chat": {
      const users = number(s.users);
      const rooms = number(s.rooms);
      const messages = number(s.messagesPerUser);
      if (users !== undefined) parts.push(`${count(users)} users`);
      if (rooms !== undefined) parts.push(`${count(rooms)} rooms`);
      if (s.endsAfter === "duration") {
        if (durationS !== undefined) parts.push(seconds(durationS));
      } else if (messages !== undefined) parts.push(`${count(messages)} msgs/user`);
      break;
    }
    default: {
      // An uploaded run's tool settings: whatever load figures it reported.
      if (rate !== undefined) parts.push(`${count(rate)} req/s`);
      const concurrency = number(s.concurrency);
      if (concurrency !== undefined) parts.push(`${count(concurrency)} connections`);
      if (durationS !== undefined) parts.push(seconds(durationS));
    }
  }
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** The config part: its instance type, else its name, with a CPU limit when it has one. */
export function configLabel(config: unknown): string | undefined {
  if (!config || typeof config !== "object") return undefined;
  const c = config as Record<string, unknown>;
  const base = text(c.instanceType) ?? text(c.name);
  const cpuLimit = number(c.cpuLimit);
  const parts = [base, cpuLimit !== undefined ? `${count(cpuLimit)} CPU` : undefined].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/** The load part of a run's label, from its scenario snapshot (the spec as it ran). */
export function snapshotLoadLabel(scenarioSnapshot: unknown): string | undefined {
  const snapshot = scenarioSnapshot as { spec?: unknown; engine?: unknown } | null;
  const spec =
    snapshot?.spec && typeof snapshot.spec === "object"
      ? { engine: snapshot.engine, ...(snapshot.spec as Record<string, unknown>) }
      : undefined;
  return loadLabel(spec);
}

export function runLabel(run: RunLabelInput): string | undefined {
  const parts = [snapshotLoadLabel(run.scenarioSnapshot), configLabel(run.configSnapshot)].filter(
    (p): p is string => !!p,
  );
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** A sweep value as the runs list shows it: "buffer_size = 20000", "t3.xlarge + 4 workers". */
export function sweepValueLabel(parameter: string | null | undefined, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const shown =
    typeof value === "object"
      ? Object.entries(value as Record<string, unknown>)
          .map(([k, v]) => `${k} = ${String(v)}`)
          .join(", ")
      : String(value);
  if (!parameter) return shown;
  const name = parameter.split(".").pop() ?? parameter;
  return typeof value === "object" ? shown : `${name} = ${shown}`;
}

/** Where a run stands among the runs launched with it: its sweep value, its repetition. */
export interface RunPositionInput {
  /** The sweep it belongs to, with the values it swept and how often each was repeated. */
  sweep?: { parameter: string; values: unknown; repetitions: number } | null;
  sweepValue?: unknown;
  /** Its place in its launch group (0-based), and the group's size when there is no sweep. */
  groupIndex?: number | null;
  groupSize?: number | null;
}

export interface RunPosition {
  /** 1-based value of the sweep, and how many values it swept. */
  value?: { index: number; count: number; label: string };
  /** 1-based repetition of its value, and how many there were. */
  repetition?: { index: number; count: number };
}

export function runPosition(input: RunPositionInput): RunPosition {
  const out: RunPosition = {};
  const groupIndex = typeof input.groupIndex === "number" ? input.groupIndex : null;
  const label = sweepValueLabel(input.sweep?.parameter, input.sweepValue);
  if (input.sweep && label) {
    const values = Array.isArray(input.sweep.values) ? input.sweep.values : [];
    const repetitions = Math.max(1, input.sweep.repetitions);
    // Runs of a sweep are numbered value by value, each value's repetitions back to back.
    const byValue = values.findIndex((v) => JSON.stringify(v) === JSON.stringify(input.sweepValue));
    const index = groupIndex !== null ? Math.floor(groupIndex / repetitions) : byValue;
    if (index >= 0 && values.length > 0) out.value = { index: index + 1, count: values.length, label };
    if (repetitions > 1 && groupIndex !== null)
      out.repetition = { index: (groupIndex % repetitions) + 1, count: repetitions };
  } else if (groupIndex !== null && typeof input.groupSize === "number" && input.groupSize > 1) {
    out.repetition = { index: groupIndex + 1, count: input.groupSize };
  }
  return out;
}

/** Which launch fields a run's overrides changed, in words ("rate", "duration"). */
function overriddenFields(scenarioSnapshot: unknown): string[] {
  const overrides = (scenarioSnapshot as { overrides?: unknown } | null)?.overrides;
  if (!overrides || typeof overrides !== "object") return [];
  return Object.entries(overrides)
    .filter(([, v]) => typeof v === "number")
    .map(([k]) => (k === "durationS" ? "duration" : k));
}

/**
 * What a run did, in one line: the load as it ran (its overrides and sweep value are in its
 * snapshot), the config, the sweep value with its place, the repetition. "400 req/s · 20 s ·
 * t3.xlarge · rate = 400 (value 3 of 4) · repetition 2 of 3". The scenario's own name can
 * describe other load ("checkout 200 rps"), so it is not part of it.
 */
export function runIdentity(run: RunLabelInput & RunPositionInput): string | undefined {
  const position = runPosition(run);
  const overridden = overriddenFields(run.scenarioSnapshot);
  const parts = [
    runLabel(run),
    overridden.length ? `${overridden.join(", ")} set at launch` : undefined,
    position.value ? `${position.value.label} (value ${position.value.index} of ${position.value.count})` : undefined,
    position.repetition ? `repetition ${position.repetition.index} of ${position.repetition.count}` : undefined,
  ].filter((p): p is string => !!p);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** A run's title everywhere it is named: "Run #24 · 400 req/s · 20 s · rate = 400 (value 3 of 4)". */
export function runTitle(
  run: RunLabelInput & RunPositionInput & { number: number; scenarioName?: string | null },
): string {
  const identity = runIdentity(run) ?? (run.scenarioName?.trim() || undefined);
  return identity ? `Run #${run.number} · ${identity}` : `Run #${run.number}`;
}

/**
 * An instance config as a filter names it: its name, which tells two configs on one instance type
 * apart, with what it ran on when the name doesn't already say it ("gateway-large (t3.xlarge 2
 * CPU)"). A snapshot without a name falls back to its instance type.
 */
export function instanceConfigLabel(config: unknown): string | undefined {
  if (!config || typeof config !== "object") return undefined;
  const name = text((config as Record<string, unknown>).name);
  const machine = configLabel({ ...(config as Record<string, unknown>), name: undefined });
  if (!name) return machine;
  return machine && !name.includes(machine) ? `${name} (${machine})` : name;
}
