-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'api';

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "agentLabel" TEXT;

-- AlterTable
ALTER TABLE "Target" ADD COLUMN     "agentLabel" TEXT;

-- CreateTable
CREATE TABLE "Agent" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "labels" TEXT[],
    "capacity" INTEGER NOT NULL DEFAULT 1,
    "activeRuns" INTEGER NOT NULL DEFAULT 0,
    "version" TEXT NOT NULL DEFAULT '',
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stoppedAt" TIMESTAMP(3),

    CONSTRAINT "Agent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Agent_tokenId_idx" ON "Agent"("tokenId");

-- CreateIndex
CREATE UNIQUE INDEX "Agent_orgId_name_key" ON "Agent"("orgId", "name");

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Agent" ADD CONSTRAINT "Agent_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "ApiToken"("id") ON DELETE CASCADE ON UPDATE CASCADE;
