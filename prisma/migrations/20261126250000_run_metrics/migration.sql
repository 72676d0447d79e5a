-- One row per run and numeric summary metric, so the run list sorts and filters by any metric,
-- and trends read one metric, through an index instead of reading every result's JSON.
CREATE TABLE "RunMetric" (
    "runId" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "RunMetric_pkey" PRIMARY KEY ("runId","key")
);

CREATE INDEX "RunMetric_orgId_key_value_runId_idx" ON "RunMetric"("orgId", "key", "value", "runId");

-- A trend reads one scenario's line of a project, newest first.
CREATE INDEX "Run_projectId_scenarioName_createdAt_idx" ON "Run"("projectId", "scenarioName", "createdAt" DESC);

ALTER TABLE "RunMetric" ADD CONSTRAINT "RunMetric_runId_fkey" FOREIGN KEY ("runId") REFERENCES "RunResult"("runId") ON DELETE CASCADE ON UPDATE CASCADE;

-- The rows follow RunResult.metrics in the same transaction whatever writes it (the app, the
-- seed, a repair migration, raw SQL): numbers only, as the run list always read them; values
-- beyond double precision are left out rather than refusing the result.
CREATE FUNCTION "run_metric_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.metrics IS NOT DISTINCT FROM OLD.metrics AND NEW."runId" = OLD."runId" THEN
      RETURN NEW;
    END IF;
    DELETE FROM "RunMetric" WHERE "runId" = OLD."runId";
  END IF;
  INSERT INTO "RunMetric" ("runId", "orgId", "key", "value")
  SELECT NEW."runId", r."orgId", m.key, (m.value #>> '{}')::float8
  FROM "Run" r,
       jsonb_each(CASE WHEN jsonb_typeof(NEW.metrics) = 'object' THEN NEW.metrics ELSE '{}'::jsonb END) m
  WHERE r.id = NEW."runId"
    AND jsonb_typeof(m.value) = 'number'
    AND abs((m.value #>> '{}')::numeric) < 1e300;
  RETURN NEW;
END
$$;

CREATE TRIGGER "RunResult_metrics_sync"
AFTER INSERT OR UPDATE OF metrics, "runId" ON "RunResult"
FOR EACH ROW EXECUTE FUNCTION "run_metric_sync"();

-- Back-fill every stored result.
INSERT INTO "RunMetric" ("runId", "orgId", "key", "value")
SELECT rr."runId", r."orgId", m.key, (m.value #>> '{}')::float8
FROM "RunResult" rr
JOIN "Run" r ON r.id = rr."runId",
     jsonb_each(CASE WHEN jsonb_typeof(rr.metrics) = 'object' THEN rr.metrics ELSE '{}'::jsonb END) m
WHERE jsonb_typeof(m.value) = 'number'
  AND abs((m.value #>> '{}')::numeric) < 1e300;
