-- The run list's equality filters are far from independent: a target's runs come from a few
-- projects, configurations and branches. Planning with each filter's selectivity alone, PostgreSQL
-- expected a rare combination (target + configuration + branch) to fill a page early and walked a
-- target's runs newest first, reading all of them when nothing matched. Statistics over the
-- columns together let it see that such a combination is rare and look the runs up instead.
CREATE STATISTICS "Run_filter_stats" (mcv, dependencies) ON "projectId", "targetId", "instanceConfigId", branch FROM "Run";

-- A target's runs on one branch (a CI line), without reading its other branches' runs.
CREATE INDEX "Run_targetId_branch_createdAt_idx" ON "Run"("targetId", "branch", "createdAt" DESC);

ANALYZE "Run";
