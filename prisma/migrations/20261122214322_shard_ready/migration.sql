-- AlterTable
ALTER TABLE "RunShard" ADD COLUMN     "readyAt" TIMESTAMP(3);
