-- AlterTable
ALTER TABLE "RunShard" ADD COLUMN     "heartbeatAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "RunShard_status_idx" ON "RunShard"("status");
