import { z } from "zod";
import { HARD_LIMITS, type TScenarioSpec } from "./scenario";

/**
 * Launch-time changes to a stored scenario's load, so one scenario serves every rate of a
 * series: the arrival rate, the concurrency (closed-model users, or the connection pool of an
 * open model) and the duration. The run's snapshot keeps the spec as it ran and the overrides.
 */
export const ZLaunchOverrides = z.object({
  rate: z
    .number({ error: "rate must be a number (requests per second)" })
    .positive("rate must be above 0")
    .max(HARD_LIMITS.maxRate, `rate is at most ${HARD_LIMITS.maxRate.toLocaleString("en-US")} req/s`)
    .optional(),
  concurrency: z
    .number({ error: "concurrency must be a number" })
    .int("concurrency must be a whole number")
    .positive("concurrency must be at least 1")
    .max(HARD_LIMITS.maxConcurrency, `concurrency is at most ${HARD_LIMITS.maxConcurrency.toLocaleString("en-US")}`)
    .optional(),
  durationS: z
    .number({ error: "duration must be a number (seconds)" })
    .positive("duration must be above 0 s")
    .max(HARD_LIMITS.maxDurationS, `duration is at most ${HARD_LIMITS.maxDurationS.toLocaleString("en-US")} s`)
    .optional(),
});
export type TLaunchOverrides = z.infer<typeof ZLaunchOverrides>;

export class LaunchOverrideError extends Error {
  constructor(
    readonly field: keyof TLaunchOverrides,
    message: string,
  ) {
    super(message);
    this.name = "LaunchOverrideError";
  }
}

/** True when no override is set. */
export function hasOverrides(o: TLaunchOverrides | null | undefined): o is TLaunchOverrides {
  return !!o && (o.rate !== undefined || o.concurrency !== undefined || o.durationS !== undefined);
}

/**
 * The spec with the overrides applied. An override the engine has no use for is refused, naming
 * the field, rather than silently ignored (a chat scenario paces by message interval, not rate).
 */
export function applyLaunchOverrides(spec: TScenarioSpec, overrides: TLaunchOverrides): TScenarioSpec {
  const { rate, concurrency, durationS } = overrides;
  switch (spec.engine) {
    case "http-open": {
      const out = { ...spec };
      if (rate !== undefined) {
        out.rate = rate;
        // A ramp ends at the rate: keep its start below the new end.
        if (out.rampFromRate !== undefined && out.rampFromRate > rate) out.rampFromRate = rate;
      }
      if (concurrency !== undefined) out.maxConnections = concurrency;
      if (durationS !== undefined) out.durationS = durationS;
      return out;
    }
    case "llm": {
      const out = { ...spec };
      if (rate !== undefined) out.rate = rate;
      if (concurrency !== undefined) out.maxConnections = concurrency;
      if (durationS !== undefined) out.durationS = durationS;
      return out;
    }
    case "http-closed": {
      if (rate !== undefined) {
        throw new LaunchOverrideError(
          "rate",
          "a closed-model scenario sends as fast as it is answered; set concurrency instead of rate",
        );
      }
      const out = { ...spec };
      if (concurrency !== undefined) out.concurrency = concurrency;
      if (durationS !== undefined) {
        // A duration replaces a request count: the run ends by time.
        out.durationS = durationS;
        delete out.requests;
      }
      return out;
    }
    case "ws-chat": {
      if (rate !== undefined) {
        throw new LaunchOverrideError(
          "rate",
          "a chat scenario is paced by its message interval; edit the scenario to change it",
        );
      }
      if (concurrency !== undefined) {
        throw new LaunchOverrideError(
          "concurrency",
          "a chat scenario's load is its users and rooms; edit the scenario to change them",
        );
      }
      // A chat given a duration lasts it: users keep chatting until it ends (see endsAfter).
      return durationS !== undefined ? { ...spec, durationS, endsAfter: "duration" } : spec;
    }
    case "capacity-search": {
      if (rate !== undefined) {
        throw new LaunchOverrideError("rate", "a capacity search chooses its rates; set minRate and maxRate instead");
      }
      if (durationS !== undefined) {
        throw new LaunchOverrideError(
          "durationS",
          "a capacity search runs plateaus until the knee; set plateauS for each plateau's length instead",
        );
      }
      return concurrency !== undefined ? { ...spec, maxConnections: concurrency } : spec;
    }
  }
}
