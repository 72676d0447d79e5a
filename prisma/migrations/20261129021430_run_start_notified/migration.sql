-- `run.started` notifications: a run's start is looked at once. Runs that started before this
-- migration are marked as looked at, so none of them is announced now.
-- AlterTable
ALTER TABLE "Run" ADD COLUMN "startNotifiedAt" TIMESTAMP(3);

UPDATE "Run" SET "startNotifiedAt" = "startedAt" WHERE "startedAt" IS NOT NULL;

-- CreateIndex
CREATE INDEX "Run_startNotifiedAt_startedAt_idx" ON "Run"("startNotifiedAt", "startedAt");
