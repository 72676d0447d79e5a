-- A run's creation time in each of its metric rows, so that a metric range under the run list's
-- date order walks one index (organization, metric, creation time) and checks the value in it,
-- instead of walking the runs and looking up each one's metric.
ALTER TABLE "RunMetric" ADD COLUMN "runCreatedAt" TIMESTAMP(3);

UPDATE "RunMetric" m SET "runCreatedAt" = r."createdAt" FROM "Run" r WHERE r.id = m."runId";

ALTER TABLE "RunMetric" ALTER COLUMN "runCreatedAt" SET NOT NULL;

CREATE INDEX "RunMetric_orgId_key_runCreatedAt_runId_value_idx"
  ON "RunMetric"("orgId", "key", "runCreatedAt" DESC, "runId" DESC, "value");

-- The rows carry the run's creation time from the start, whatever writes the result.
CREATE OR REPLACE FUNCTION "run_metric_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF NEW.metrics IS NOT DISTINCT FROM OLD.metrics AND NEW."runId" = OLD."runId" THEN
      RETURN NEW;
    END IF;
    DELETE FROM "RunMetric" WHERE "runId" = OLD."runId";
  END IF;
  INSERT INTO "RunMetric" ("runId", "orgId", "key", "value", "runCreatedAt")
  SELECT NEW."runId", r."orgId", m.key, (m.value #>> '{}')::float8, r."createdAt"
  FROM "Run" r,
       jsonb_each(CASE WHEN jsonb_typeof(NEW.metrics) = 'object' THEN NEW.metrics ELSE '{}'::jsonb END) m
  WHERE r.id = NEW."runId"
    AND jsonb_typeof(m.value) = 'number'
    AND abs((m.value #>> '{}')::numeric) < 1e300;
  RETURN NEW;
END
$$;

-- And follow it should a run's creation time ever be corrected.
CREATE FUNCTION "run_metric_created_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "RunMetric" SET "runCreatedAt" = NEW."createdAt" WHERE "runId" = NEW.id;
  RETURN NEW;
END
$$;

CREATE TRIGGER "Run_created_metric_sync"
AFTER UPDATE OF "createdAt" ON "Run"
FOR EACH ROW WHEN (NEW."createdAt" IS DISTINCT FROM OLD."createdAt")
EXECUTE FUNCTION "run_metric_created_sync"();
