-- A run the target limited is a measurement ("saturated"), not an invalid run: its reasons get
-- their own column, so lists and sweeps read the three states without opening the result's JSON.
ALTER TABLE "RunResult" ADD COLUMN "saturationReasons" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- The target's signals were kept beside valid results in extra.targetLimits: move the sentences over.
UPDATE "RunResult"
SET "saturationReasons" = ARRAY(
  SELECT e #>> '{}' FROM jsonb_array_elements("extra"->'targetLimits') AS e WHERE jsonb_typeof(e) = 'string'
)
WHERE "valid" AND jsonb_typeof("extra"->'targetLimits') = 'array';
