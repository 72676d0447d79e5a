import type { ServerResponse } from "node:http";
import { z } from "zod";
import { HttpError, type RouteContext, type Router, readJson, sendJson } from "./http";

/**
 * Knob schemas. Instance configs are free-form JSON typed by people, and env-provided configs are
 * strings, so `"20"` is read as 20 and `"true"` as true; anything else that is not the declared
 * type is refused with a message naming the allowed range.
 */
function numericString(value: unknown): unknown {
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return value;
}

export function intKnob(min: number, max: number, fallback: number) {
  const message = `must be an integer from ${min} to ${max}`;
  return z
    .preprocess(numericString, z.number({ error: message }).int({ error: message }).min(min, message).max(max, message))
    .default(fallback);
}

export function numberKnob(min: number, max: number, fallback: number) {
  const message = `must be a number from ${min} to ${max}`;
  return z
    .preprocess(numericString, z.number({ error: message }).min(min, message).max(max, message))
    .default(fallback);
}

export function boolKnob(fallback: boolean) {
  return z
    .preprocess(
      (value) => (value === "true" ? true : value === "false" ? false : value),
      z.boolean({ error: "must be true or false" }),
    )
    .default(fallback);
}

export interface ConfigIssue {
  field: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join("; "));
    this.name = "ConfigError";
  }
}

type Listener<T> = (next: T, previous: T) => void | Promise<void>;

/**
 * A target's current knobs. `replace` (PUT) resets every knob not given to its default, so a run's
 * behaviour depends only on the config it applied, never on what the previous run left behind;
 * `merge` (PATCH) changes only the given knobs. Invalid input changes nothing.
 */
export class ConfigStore<S extends z.ZodType<Record<string, unknown>>> {
  private current: z.infer<S>;
  private readonly listeners: Array<Listener<z.infer<S>>> = [];
  /** Serializes applies so two concurrent PUTs cannot interleave their listeners. */
  private applying: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly schema: S,
    initial: unknown = {},
  ) {
    this.current = this.validate(initial);
  }

  get(): z.infer<S> {
    return this.current;
  }

  onChange(listener: Listener<z.infer<S>>): void {
    this.listeners.push(listener);
  }

  validate(input: unknown): z.infer<S> {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      throw new ConfigError([{ field: "body", message: "must be a JSON object of knobs" }]);
    }
    const parsed = this.schema.safeParse(input);
    if (!parsed.success) throw new ConfigError(parsed.error.issues.map(toIssue));
    return parsed.data;
  }

  async apply(input: unknown, mode: "replace" | "merge"): Promise<z.infer<S>> {
    const run = async () => {
      const next = this.validate(
        mode === "merge" && input !== null && typeof input === "object" && !Array.isArray(input)
          ? { ...this.current, ...input }
          : input,
      );
      const previous = this.current;
      this.current = next;
      for (const listener of this.listeners) await listener(next, previous);
      return next;
    };
    const result = this.applying.then(run, run);
    this.applying = result.catch(() => undefined);
    return result;
  }
}

function toIssue(issue: z.core.$ZodIssue): ConfigIssue {
  if (issue.code === "unrecognized_keys") {
    const keys = (issue as { keys: string[] }).keys;
    return { field: keys.join(","), message: `unknown knob (not one of this target's knobs)` };
  }
  return { field: issue.path.map(String).join(".") || "body", message: issue.message };
}

/** `GET /admin/config` returns the knobs; `PUT` replaces them, `PATCH` changes some. */
export function registerAdminConfigRoutes<S extends z.ZodType<Record<string, unknown>>>(
  router: Router,
  store: ConfigStore<S>,
): void {
  router.get("/admin/config", ({ res }) => sendJson(res, 200, store.get()));
  const update =
    (mode: "replace" | "merge") =>
    async ({ req, res }: RouteContext) => {
      let body: unknown;
      try {
        body = await readJson(req, 64 * 1024);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        refuse(res, error.status, [
          { field: error.details.field ?? "body", message: error.message.replace(/^body: /, "") },
        ]);
        return;
      }
      try {
        sendJson(res, 200, await store.apply(body, mode));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        refuse(res, 400, error.issues);
      }
    };
  router.put("/admin/config", update("replace"));
  router.patch("/admin/config", update("merge"));
}

/** The same error shape on every target, whatever its other endpoints use. */
function refuse(res: ServerResponse, status: number, issues: ConfigIssue[]): void {
  sendJson(res, status, {
    error: {
      type: "invalid_config",
      message: issues.map((i) => `${i.field}: ${i.message}`).join("; "),
      field: issues[0]?.field ?? "body",
      issues,
    },
  });
}
