import { z } from "zod";

/**
 * The Server-Timing stages a target declares as its own work: summed into "gateway overhead" and
 * ticked by default in a run's stage breakdown. Names are short tokens, as Server-Timing metric
 * names are.
 */
export const OVERHEAD_STAGES_MAX = 32;
const STAGE_NAME = /^[a-z0-9_.-]{1,64}$/;

export const ZOverheadStageName = z
  .string()
  .trim()
  .regex(STAGE_NAME, "each overhead stage is 1–64 characters of lowercase letters, digits, _ . or -");

export const ZOverheadStages = z
  .array(ZOverheadStageName)
  .max(OVERHEAD_STAGES_MAX, `overhead stages: at most ${OVERHEAD_STAGES_MAX} names`)
  .superRefine((names, ctx) => {
    const seen = new Set<string>();
    names.forEach((name, i) => {
      if (seen.has(name))
        ctx.addIssue({ code: "custom", path: [i], message: `overhead stage "${name}" appears twice` });
      seen.add(name);
    });
  })
  .meta({ uniqueItems: true });
export type TOverheadStages = z.infer<typeof ZOverheadStages>;

/** The overhead stages a run's target snapshot declares; null when it declares none. */
export function targetOverheadStages(targetSnapshot: unknown): string[] | null {
  if (!targetSnapshot || typeof targetSnapshot !== "object" || Array.isArray(targetSnapshot)) return null;
  const stages = (targetSnapshot as Record<string, unknown>).overheadStages;
  if (!Array.isArray(stages)) return null;
  const names = stages.filter((s): s is string => typeof s === "string" && STAGE_NAME.test(s));
  return names.length ? names : null;
}

/** A comma-separated list as typed in a form ("queue_wait, key_selection") to stage names. */
export function parseStageList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
