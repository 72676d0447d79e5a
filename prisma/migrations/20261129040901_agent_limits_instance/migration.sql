-- Agents announce their limits (rate, connections, engines) so runs go only to agents that can
-- take them, and each announce gets an instance id so one process holds a name at a time.
-- AlterTable
ALTER TABLE "Agent" ADD COLUMN     "engines" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "instanceId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "maxConnections" INTEGER,
ADD COLUMN     "maxRate" DOUBLE PRECISION;
