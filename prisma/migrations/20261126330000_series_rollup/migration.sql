-- A reduced copy of every long per-second series, so a view of long runs (a comparison of ten
-- one-hour runs is 180,000 samples) reads at most 600 points per series instead of all of them.
-- Each point keeps the minimum, maximum, mean and count of the samples in its bucket: peaks
-- (latency percentiles, memory, queue depth) are charted from the maximum, so a one-second spike
-- survives; rates from the mean, weighted by the count when points are merged further.
--
-- Layout (big-endian float8, as float8send writes it): length, bucket, then min[n], max[n],
-- mean[n], count[n] with n = ceil(length / bucket); NaN where a bucket has no sample.
ALTER TABLE "Series" ADD COLUMN "rollup" BYTEA;

-- Numbers only, as the views read them: null, non-numbers and values beyond double precision
-- are gaps, exactly as a view of the full series skips them.
CREATE FUNCTION "series_rollup"(vals jsonb, max_points integer) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH p AS (
    SELECT jsonb_array_length(vals) AS n, ceil(jsonb_array_length(vals)::numeric / max_points)::integer AS b
  ),
  e AS (
    SELECT (t.ord - 1) / p.b AS k, t.ord,
      CASE WHEN jsonb_typeof(t.x) = 'number' AND abs((t.x #>> '{}')::numeric) < 1e300
        THEN (t.x #>> '{}')::float8 END AS v
    FROM p, jsonb_array_elements(vals) WITH ORDINALITY AS t(x, ord)
  ),
  g AS (
    SELECT k, min(v) AS lo, max(v) AS hi, avg(v ORDER BY ord) AS mean, count(v)::float8 AS c FROM e GROUP BY k
  )
  SELECT float8send(p.n::float8) || float8send(p.b::float8)
    || string_agg(float8send(coalesce(g.lo, 'NaN')), ''::bytea ORDER BY g.k)
    || string_agg(float8send(coalesce(g.hi, 'NaN')), ''::bytea ORDER BY g.k)
    || string_agg(float8send(coalesce(g.mean, 'NaN')), ''::bytea ORDER BY g.k)
    || string_agg(float8send(g.c), ''::bytea ORDER BY g.k)
  FROM p, g
  GROUP BY p.n, p.b
$$;

-- Written in the same statement as the samples, whoever writes them (a stored result, an upload,
-- a checkpoint, retention downsampling old runs, raw SQL); short series keep none.
CREATE FUNCTION "series_rollup_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rollup := CASE
    WHEN jsonb_typeof(NEW."values") <> 'array' THEN NULL
    WHEN jsonb_array_length(NEW."values") > 600 THEN "series_rollup"(NEW."values", 600)
  END;
  RETURN NEW;
END
$$;

-- Inserts of short series (most runs) skip the function call entirely.
CREATE TRIGGER "Series_rollup_insert"
BEFORE INSERT ON "Series"
FOR EACH ROW
WHEN (CASE WHEN jsonb_typeof(NEW."values") = 'array' THEN jsonb_array_length(NEW."values") > 600 ELSE false END)
EXECUTE FUNCTION "series_rollup_sync"();

CREATE TRIGGER "Series_rollup_update"
BEFORE UPDATE OF "values" ON "Series"
FOR EACH ROW EXECUTE FUNCTION "series_rollup_sync"();

-- Back-fill every stored long series.
UPDATE "Series" SET "rollup" = "series_rollup"("values", 600)
WHERE CASE WHEN jsonb_typeof("values") = 'array' THEN jsonb_array_length("values") > 600 ELSE false END;
