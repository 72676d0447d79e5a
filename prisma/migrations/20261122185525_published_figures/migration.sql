-- AlterTable
ALTER TABLE "Comparison" ADD COLUMN     "published" JSONB;

-- AlterTable
ALTER TABLE "Sweep" ADD COLUMN     "includedRunIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "published" JSONB;
