-- AlterTable
ALTER TABLE "Target" ADD COLUMN "baselineKnobs" JSONB;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "dispatchedAt" TIMESTAMP(3),
ADD COLUMN "serverConfig" JSONB;

-- Runs queued before this column existed: the first queued run of each group (and every
-- ungrouped queued run) was put on the queue at launch or when its predecessor ended.
UPDATE "Run" r SET "dispatchedAt" = r."queuedAt"
WHERE r.status = 'queued' AND (
  r."groupId" IS NULL OR r."groupIndex" = (
    SELECT min(o."groupIndex") FROM "Run" o WHERE o."groupId" = r."groupId" AND o.status = 'queued'
  )
);
