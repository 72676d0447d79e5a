-- Record keys named __proto__, constructor or prototype are refused at every boundary now; rows
-- stored before keep their values under the name with a trailing underscore (constructor_), so
-- the views that refused to serialize them work again and nothing measured is lost.
CREATE FUNCTION pg_temp.unreserve_keys(j jsonb) RETURNS jsonb AS $$
  SELECT COALESCE(
    jsonb_object_agg(CASE WHEN key IN ('__proto__', 'constructor', 'prototype') THEN key || '_' ELSE key END, value),
    '{}'::jsonb
  )
  FROM jsonb_each(j)
$$ LANGUAGE sql IMMUTABLE;

UPDATE "RunResult" SET "metrics" = pg_temp.unreserve_keys("metrics")
WHERE jsonb_typeof("metrics") = 'object' AND "metrics" ?| ARRAY['__proto__', 'constructor', 'prototype'];
UPDATE "RunResult" SET "statusCounts" = pg_temp.unreserve_keys("statusCounts")
WHERE jsonb_typeof("statusCounts") = 'object' AND "statusCounts" ?| ARRAY['__proto__', 'constructor', 'prototype'];
UPDATE "RunResult" SET "stages" = pg_temp.unreserve_keys("stages")
WHERE jsonb_typeof("stages") = 'object' AND "stages" ?| ARRAY['__proto__', 'constructor', 'prototype'];
UPDATE "InstanceConfig" SET "knobs" = pg_temp.unreserve_keys("knobs")
WHERE jsonb_typeof("knobs") = 'object' AND "knobs" ?| ARRAY['__proto__', 'constructor', 'prototype'];
UPDATE "Run" SET "configSnapshot" = jsonb_set("configSnapshot", '{knobs}', pg_temp.unreserve_keys("configSnapshot"->'knobs'))
WHERE jsonb_typeof("configSnapshot"->'knobs') = 'object'
  AND ("configSnapshot"->'knobs') ?| ARRAY['__proto__', 'constructor', 'prototype'];
UPDATE "Series" s SET "metric" = s."metric" || '_'
WHERE s."metric" IN ('__proto__', 'constructor', 'prototype')
  AND NOT EXISTS (SELECT 1 FROM "Series" o WHERE o."runId" = s."runId" AND o."metric" = s."metric" || '_');

DROP FUNCTION pg_temp.unreserve_keys(jsonb);
