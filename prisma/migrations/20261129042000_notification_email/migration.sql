-- AlterEnum
ALTER TYPE "NotificationChannel" ADD VALUE 'email';

-- AlterTable
ALTER TABLE "NotificationEndpoint" ADD COLUMN     "recipients" TEXT[] DEFAULT ARRAY[]::TEXT[];
