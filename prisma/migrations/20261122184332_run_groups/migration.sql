-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "groupId" TEXT,
ADD COLUMN     "groupIndex" INTEGER;

-- CreateIndex
CREATE INDEX "Run_groupId_groupIndex_idx" ON "Run"("groupId", "groupIndex");
