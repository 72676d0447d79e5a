-- The run list filters by target and instance config: with these a rare combination is found
-- through the indexes instead of reading every run of the organization.
CREATE INDEX "Run_targetId_createdAt_idx" ON "Run"("targetId", "createdAt" DESC);

CREATE INDEX "Run_instanceConfigId_createdAt_idx" ON "Run"("instanceConfigId", "createdAt" DESC);
