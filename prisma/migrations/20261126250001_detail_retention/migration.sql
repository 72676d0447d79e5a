-- A pinned run keeps its per-second detail whatever the retention setting.
ALTER TABLE "Run" ADD COLUMN "pinned" BOOLEAN NOT NULL DEFAULT false;

-- When retention downsampled the run's series and dropped its interval histograms.
ALTER TABLE "RunResult" ADD COLUMN "detailTrimmedAt" TIMESTAMP(3);
