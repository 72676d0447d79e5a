import {
  IMPORT_FORMATS,
  ImportError,
  type TNormalizedRun,
  ZNormalizedRunGit,
  ZNormalizedRunInstanceConfig,
} from "@benchboard/core/importers";
import { ParsePoolBusyError, readUploadOffThread } from "@benchboard/core/importers/parse-pool";
import { type ReadUpload, runTimes } from "@benchboard/core/importers/read-upload";
import { createUploadedRun, findProjectByRef, NotFoundError } from "@benchboard/db";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { withinLimits } from "../input-limits";
import { enforceRateLimit, memberProcedure, router } from "../trpc";

/** Uploads one organization may make per minute (each is read on a shared pool of threads). */
export const UPLOADS_PER_MINUTE = 120;

/** The largest upload accepted, in bytes (characters for the tRPC input). */
export const MAX_UPLOAD_BYTES = 10_000_000;

/** `native` is Benchboard's own run JSON; `auto` recognises every format from the content. */
export const UPLOAD_FORMATS = [
  "auto",
  "native",
  ...IMPORT_FORMATS,
  "wrk2",
  "apachebench",
  "bifrost-benchmarking",
] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

const ZTag = z
  .string()
  .trim()
  .min(1, "tags cannot be empty")
  .max(64, "a tag is at most 64 characters")
  .regex(/^[^,\s][^,]*$/, "tags cannot contain commas");

export const ZUploadRunInput = z.object({
  /** The project's id or slug. */
  project: z.string().trim().min(1, "project is required (its id or slug)").max(200),
  /** Scenario name; defaults to the one in the data, else the tool's name. Matches a stored scenario's thresholds. */
  scenario: z.string().trim().min(1, "scenario cannot be empty").max(200).optional(),
  format: z.enum(UPLOAD_FORMATS, { error: `must be one of ${UPLOAD_FORMATS.join(", ")}` }).default("auto"),
  /** The tool's output (or a native run) as text. */
  content: z
    .string()
    .min(1, "the uploaded content is empty")
    .max(MAX_UPLOAD_BYTES, `the upload is larger than ${MAX_UPLOAD_BYTES} bytes`),
  /** bifrost-benchmarking: which provider's run to take when the file holds several. */
  provider: z.string().trim().min(1).max(100).optional(),
  /** Where the target ran; stored as the run's instance config snapshot (overrides the data's). */
  instanceConfig: ZNormalizedRunInstanceConfig.superRefine(
    withinLimits({ maxText: 2_000, maxEntries: 100 }),
  ).optional(),
  branch: ZNormalizedRunGit.shape.branch,
  commit: ZNormalizedRunGit.shape.commit,
  ciUrl: ZNormalizedRunGit.shape.ciUrl.unwrap().max(2_000, "a URL is at most 2,000 characters").optional(),
  tags: z.array(ZTag).max(20, "at most 20 tags").optional(),
  notes: z.string().max(10_000).optional(),
  /** The same key again returns the run stored the first time instead of storing another. */
  idempotencyKey: z
    .string()
    .min(1)
    .max(255, "at most 255 characters")
    .regex(/^[\x21-\x7e]+$/, "must be visible ASCII characters")
    .optional(),
});
export type TUploadRunInput = z.infer<typeof ZUploadRunInput>;

export { runTimes };

function mergedInstanceConfig(run: TNormalizedRun, given: TUploadRunInput["instanceConfig"]) {
  const merged = { ...run.instanceConfig, ...given };
  const knobs = { ...run.instanceConfig?.knobs, ...given?.knobs };
  if (Object.keys(knobs).length > 0) merged.knobs = knobs;
  return Object.keys(merged).length > 0 ? merged : null;
}

export const uploadRouter = router({
  /**
   * Store a finished run from a file: Benchboard's own JSON or a load tool's output. The run is
   * stored succeeded with the project's and the same-named scenario's thresholds evaluated, and
   * the tool's own threshold verdicts kept.
   */
  run: memberProcedure.input(ZUploadRunInput).mutation(async ({ ctx, input }) => {
    await enforceRateLimit(ctx, `upload:${ctx.orgId}`, UPLOADS_PER_MINUTE, 60, "uploads in this organization");
    const project = await findProjectByRef(ctx.db, ctx.orgId, input.project);
    if (!project) throw new NotFoundError("project", `no project "${input.project}" in this organization`);
    let read: ReadUpload;
    try {
      // Off the request thread, with histograms re-encoded and series bounded, so that views
      // read canonical data and one hostile file never stalls other requests; in this
      // organization's share of the pool, so one organization's burst never holds up another's.
      read = await readUploadOffThread(input, ctx.orgId);
    } catch (err) {
      if (err instanceof ImportError) throw new TRPCError({ code: "BAD_REQUEST", message: err.message, cause: err });
      if (err instanceof ParsePoolBusyError) {
        throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: err.message, cause: err });
      }
      throw err;
    }
    const { run, format } = read;
    const { startedAt, endedAt } = runTimes(run);
    const tags = [...new Set([...(run.tags ?? []), ...(input.tags ?? [])])];
    const { run: stored, created } = await createUploadedRun(ctx.db, ctx.orgId, {
      projectId: project.id,
      source: format === "native" ? "upload" : `import:${format}`,
      scenarioName: input.scenario ?? run.scenario?.name ?? run.tool?.name ?? "upload",
      scenario: run.scenario ? { engine: run.scenario.engine, spec: run.scenario.spec } : null,
      tool: run.tool ?? null,
      target: run.target ?? null,
      instanceConfig: mergedInstanceConfig(run, input.instanceConfig),
      result: run.result,
      startedAt,
      endedAt,
      branch: input.branch ?? run.git?.branch ?? null,
      commit: input.commit ?? run.git?.commit ?? null,
      ciUrl: input.ciUrl ?? run.git?.ciUrl ?? null,
      tags,
      // The uploader's words first, then what the tool said about its own results.
      notes: [input.notes, run.notes].filter((n) => n !== undefined && n.trim() !== "").join("\n\n"),
      idempotencyKey: input.idempotencyKey ?? null,
      createdById: ctx.userId,
    });
    return { ...stored, project, created };
  }),
});
