-- AlterTable
ALTER TABLE "Target" ADD COLUMN     "overheadStages" TEXT[] DEFAULT ARRAY[]::TEXT[];
