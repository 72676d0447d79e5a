import type { Db } from "../client";
import { Prisma } from "../generated/prisma/client";

/**
 * Retention of per-second detail for operators (`BENCHBOARD_RETAIN_DETAIL_DAYS`): runs that ended
 * longer ago have their series downsampled to 10 s and their shards' interval histograms dropped.
 * The headline metrics, the merged histogram and everything else of the result stay. A run that
 * a comparison (as a run or its baseline), an unrevoked share link or its pin refers to keeps all
 * of its detail, as do the published benchmarks (demo organizations).
 */
export const RETAINED_INTERVAL_MS = 10_000;

/** Runs to trim in one transaction. */
const BATCH = 200;

function eligible(cutoff: Date): Prisma.Sql {
  return Prisma.sql`
    r.status IN ('succeeded', 'failed', 'canceled')
    AND r."endedAt" < ${cutoff}
    AND rr."detailTrimmedAt" IS NULL
    AND NOT r.pinned
    AND NOT o.demo
    AND NOT EXISTS (SELECT 1 FROM "Comparison" c WHERE c."baselineRunId" = r.id OR r.id = ANY (c."runIds"))
    AND NOT EXISTS (SELECT 1 FROM "ShareLink" l WHERE l."revokedAt" IS NULL AND l."runId" = r.id)`;
}

/** Samples per 10 s bucket for a series at `intervalMs`. */
const factor = Prisma.sql`greatest(1, round(${RETAINED_INTERVAL_MS}::numeric / s."intervalMs"))::int`;

/** What retention at `days` would trim now: runs, and the bytes it would free (estimated). */
export async function retentionPreview(db: Db, days: number, now = new Date()) {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const rows = await db.$queryRaw<{ runs: bigint; series_bytes: number | null; shard_bytes: number | null }[]>`
    WITH candidates AS (
      SELECT r.id FROM "Run" r
      JOIN "RunResult" rr ON rr."runId" = r.id
      JOIN "Organization" o ON o.id = r."orgId"
      WHERE ${eligible(cutoff)}
    )
    SELECT
      (SELECT count(*) FROM candidates) AS runs,
      -- A long series' stored reduced copy is counted as freed too: downsampled to 10 s, a series
      -- of up to 6,000 one-second samples no longer needs one.
      (SELECT sum(pg_column_size(s.values) - pg_column_size(s.values) / ${factor}
                  + coalesce(pg_column_size(s.rollup), 0))::float8
         FROM "Series" s WHERE s."runId" IN (SELECT id FROM candidates) AND ${factor} > 1) AS series_bytes,
      (SELECT sum(coalesce(pg_column_size(sh.result -> 'intervalHistograms'), 0))::float8
         FROM "RunShard" sh WHERE sh."runId" IN (SELECT id FROM candidates)) AS shard_bytes`;
  const row = rows[0];
  return {
    days,
    cutoff,
    runs: Number(row?.runs ?? 0),
    bytes: Math.round((row?.series_bytes ?? 0) + (row?.shard_bytes ?? 0)),
  };
}

/**
 * Trim the detail of runs that ended more than `days` ago (in batches, each in its own
 * transaction; a run is re-checked inside it, so a run pinned or shared meanwhile is left alone).
 * Returns how many runs were trimmed.
 */
export async function applyRetention(db: Db, days: number, now = new Date(), maxRuns = 10_000): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  let trimmed = 0;
  while (trimmed < maxRuns) {
    const count = await db.$transaction(async (tx) => {
      const ids = (
        await tx.$queryRaw<{ id: string }[]>`
          SELECT r.id FROM "Run" r
          JOIN "RunResult" rr ON rr."runId" = r.id
          JOIN "Organization" o ON o.id = r."orgId"
          WHERE ${eligible(cutoff)}
          ORDER BY r."endedAt"
          LIMIT ${Math.min(BATCH, maxRuns - trimmed)}
          FOR UPDATE OF r, rr SKIP LOCKED`
      ).map((r) => r.id);
      if (ids.length === 0) return 0;
      // Rates and counts keep their 10 s mean; latency series their 10 s worst, so a spike stays visible.
      await tx.$executeRaw`
        UPDATE "Series" s SET
          "intervalMs" = s."intervalMs" * ${factor},
          values = (
            SELECT coalesce(jsonb_agg(bucket.v ORDER BY bucket.b), '[]'::jsonb) FROM (
              SELECT (t.ord - 1) / ${factor} AS b,
                CASE WHEN count(t.x) = 0 THEN 'null'::jsonb
                     WHEN s.metric LIKE 'latency%' OR s.metric LIKE 'ttft%' THEN to_jsonb(max(t.x))
                     ELSE to_jsonb(round(avg(t.x)::numeric, 6)) END AS v
              FROM (
                SELECT e.ord, CASE WHEN jsonb_typeof(e.value) = 'number' THEN (e.value #>> '{}')::float8 END AS x
                FROM jsonb_array_elements(s.values) WITH ORDINALITY AS e(value, ord)
              ) t
              GROUP BY 1
            ) bucket
          )
        WHERE s."runId" IN (${Prisma.join(ids)}) AND ${factor} > 1 AND jsonb_typeof(s.values) = 'array'`;
      await tx.$executeRaw`
        UPDATE "RunShard" SET result = result - 'intervalHistograms'
        WHERE "runId" IN (${Prisma.join(ids)}) AND result ? 'intervalHistograms'`;
      await tx.$executeRaw`
        UPDATE "RunResult" SET "detailTrimmedAt" = ${now} WHERE "runId" IN (${Prisma.join(ids)})`;
      return ids.length;
    });
    trimmed += count;
    if (count === 0) break;
  }
  return trimmed;
}

/** Pin or unpin a run: a pinned run keeps its per-second detail. */
export async function setRunPinned(db: Db, orgId: string, runId: string, pinned: boolean) {
  const { count } = await db.run.updateMany({ where: { orgId, id: runId }, data: { pinned } });
  return count > 0;
}
