-- Keys named __proto__, constructor or prototype are refused at every depth of an upload now.
-- Rows stored before may hold one nested (an import's `extra`, a tool's load settings, a
-- snapshot), which the views' serializer refuses, so the run's page failed. Such keys are
-- renamed with a trailing underscore (constructor_) at every depth; every value is kept.
CREATE FUNCTION pg_temp.unreserve_keys_deep(j jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF jsonb_typeof(j) = 'object' THEN
    RETURN COALESCE(
      (SELECT jsonb_object_agg(
         CASE WHEN e.key IN ('__proto__', 'constructor', 'prototype') THEN e.key || '_' ELSE e.key END,
         pg_temp.unreserve_keys_deep(e.value))
       FROM jsonb_each(j) AS e),
      '{}'::jsonb);
  ELSIF jsonb_typeof(j) = 'array' THEN
    RETURN COALESCE(
      (SELECT jsonb_agg(pg_temp.unreserve_keys_deep(e.value) ORDER BY e.ord)
       FROM jsonb_array_elements(j) WITH ORDINALITY AS e(value, ord)),
      '[]'::jsonb);
  END IF;
  RETURN j;
END
$$;

-- Only rows whose JSON text names a reserved key somewhere are rewritten (a string value that
-- merely contains the word is escaped as \"constructor\" and does not match).
CREATE FUNCTION pg_temp.has_reserved_key(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT j IS NOT NULL AND j::text ~ '"(__proto__|constructor|prototype)":'
$$;

UPDATE "RunResult" SET
  "metrics" = pg_temp.unreserve_keys_deep("metrics"),
  "statusCounts" = pg_temp.unreserve_keys_deep("statusCounts"),
  "errors" = pg_temp.unreserve_keys_deep("errors"),
  "stages" = pg_temp.unreserve_keys_deep("stages"),
  "thresholdResults" = pg_temp.unreserve_keys_deep("thresholdResults"),
  "extra" = pg_temp.unreserve_keys_deep("extra")
WHERE pg_temp.has_reserved_key("metrics") OR pg_temp.has_reserved_key("statusCounts")
   OR pg_temp.has_reserved_key("errors") OR pg_temp.has_reserved_key("stages")
   OR pg_temp.has_reserved_key("thresholdResults") OR pg_temp.has_reserved_key("extra");

UPDATE "Run" SET
  "sweepValue" = pg_temp.unreserve_keys_deep("sweepValue"),
  "targetSnapshot" = pg_temp.unreserve_keys_deep("targetSnapshot"),
  "configSnapshot" = pg_temp.unreserve_keys_deep("configSnapshot"),
  "scenarioSnapshot" = pg_temp.unreserve_keys_deep("scenarioSnapshot"),
  "progress" = pg_temp.unreserve_keys_deep("progress"),
  "serverConfig" = pg_temp.unreserve_keys_deep("serverConfig")
WHERE pg_temp.has_reserved_key("sweepValue") OR pg_temp.has_reserved_key("targetSnapshot")
   OR pg_temp.has_reserved_key("configSnapshot") OR pg_temp.has_reserved_key("scenarioSnapshot")
   OR pg_temp.has_reserved_key("progress") OR pg_temp.has_reserved_key("serverConfig");

UPDATE "RunShard" SET "result" = pg_temp.unreserve_keys_deep("result") WHERE pg_temp.has_reserved_key("result");
UPDATE "Scenario" SET "spec" = pg_temp.unreserve_keys_deep("spec") WHERE pg_temp.has_reserved_key("spec");
UPDATE "Comparison" SET "published" = pg_temp.unreserve_keys_deep("published") WHERE pg_temp.has_reserved_key("published");
UPDATE "Sweep" SET "published" = pg_temp.unreserve_keys_deep("published") WHERE pg_temp.has_reserved_key("published");

DROP FUNCTION pg_temp.has_reserved_key(jsonb);
DROP FUNCTION pg_temp.unreserve_keys_deep(jsonb);
