-- Runs stored before saturation was a reading of its own were invalid when only the target had
-- been the limit. A result whose every reason is one the engines give for the target (its queue or
-- a stage grew, requests waited for its connections, it did not keep up, it held the connections
-- while the rate fell short, requests dropped waiting for a connection) is a measurement: it reads
-- "saturated", its reasons kept as saturation reasons. A result with any other reason (the
-- generator's, a partial checkpoint, an import's) is left as it is.
UPDATE "RunResult"
SET "valid" = TRUE,
    "saturationReasons" = "invalidReasons",
    "invalidReasons" = ARRAY[]::TEXT[]
WHERE NOT "valid"
  AND cardinality("invalidReasons") > 0
  AND cardinality("saturationReasons") = 0
  AND NOT EXISTS (
    SELECT 1 FROM unnest("invalidReasons") AS reason
    WHERE NOT (
      reason LIKE 'the target is the limit: %'
      OR reason LIKE 'the target did not keep up: %'
      OR reason LIKE '%: the target held the connections'
      OR reason ~ '^[0-9]+ requests dropped: more than [0-9]+ waiting for a connection$'
    )
  );
