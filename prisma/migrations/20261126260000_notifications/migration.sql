-- CreateEnum
CREATE TYPE "NotificationChannel" AS ENUM ('webhook', 'slack', 'teams');

-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "badgesPublic" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "defaultBranch" TEXT NOT NULL DEFAULT 'main';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "notifiedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "NotificationEndpoint" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "channel" "NotificationChannel" NOT NULL,
    "urlEnc" TEXT NOT NULL,
    "urlOrigin" TEXT NOT NULL,
    "secretEnc" TEXT,
    "previousSecretEnc" TEXT,
    "previousSecretUntil" TIMESTAMP(3),
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "disabledAt" TIMESTAMP(3),
    "disabledReason" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationEndpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationRule" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "events" TEXT[],
    "projectId" TEXT,
    "scenarioId" TEXT,
    "baselineBranch" TEXT NOT NULL DEFAULT 'main',
    "tolerancePct" DOUBLE PRECISION NOT NULL DEFAULT 5,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationRuleEndpoint" (
    "ruleId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,

    CONSTRAINT "NotificationRuleEndpoint_pkey" PRIMARY KEY ("ruleId","endpointId")
);

-- CreateTable
CREATE TABLE "NotificationEvent" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "dedupeKey" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "NotificationEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NotificationDelivery" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastStatus" INTEGER,
    "lastError" TEXT,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deliveredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NotificationDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrgNotice" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "readAt" TIMESTAMP(3),

    CONSTRAINT "OrgNotice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "NotificationEndpoint_orgId_idx" ON "NotificationEndpoint"("orgId");

-- CreateIndex
CREATE INDEX "NotificationRule_orgId_idx" ON "NotificationRule"("orgId");

-- CreateIndex
CREATE INDEX "NotificationEvent_orgId_createdAt_idx" ON "NotificationEvent"("orgId", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "NotificationEvent_orgId_dedupeKey_key" ON "NotificationEvent"("orgId", "dedupeKey");

-- CreateIndex
CREATE INDEX "NotificationDelivery_status_nextAttemptAt_idx" ON "NotificationDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "NotificationDelivery_orgId_createdAt_idx" ON "NotificationDelivery"("orgId", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "NotificationDelivery_eventId_endpointId_key" ON "NotificationDelivery"("eventId", "endpointId");

-- CreateIndex
CREATE INDEX "OrgNotice_orgId_createdAt_idx" ON "OrgNotice"("orgId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Run_notifiedAt_endedAt_idx" ON "Run"("notifiedAt", "endedAt");

-- AddForeignKey
ALTER TABLE "NotificationEndpoint" ADD CONSTRAINT "NotificationEndpoint_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationRule" ADD CONSTRAINT "NotificationRule_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationRuleEndpoint" ADD CONSTRAINT "NotificationRuleEndpoint_ruleId_fkey" FOREIGN KEY ("ruleId") REFERENCES "NotificationRule"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationRuleEndpoint" ADD CONSTRAINT "NotificationRuleEndpoint_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "NotificationEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationEvent" ADD CONSTRAINT "NotificationEvent_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationDelivery" ADD CONSTRAINT "NotificationDelivery_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "NotificationEvent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationDelivery" ADD CONSTRAINT "NotificationDelivery_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "NotificationEndpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrgNotice" ADD CONSTRAINT "OrgNotice_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Runs that ended before notifications existed are not announced now.
UPDATE "Run" SET "notifiedAt" = "endedAt" WHERE "endedAt" IS NOT NULL;
