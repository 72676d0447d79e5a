-- Entries of the operator's allow-list that tenants may target too (none by default).
ALTER TABLE "InstallSettings" ADD COLUMN "tenantTargets" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "InstallSettings" ADD COLUMN "tenantTargetsSet" BOOLEAN NOT NULL DEFAULT false;

-- A verification binds the addresses the token was served from, and lasts a while.
ALTER TABLE "VerifiedOrigin" ADD COLUMN "addresses" TEXT[] DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "VerifiedOrigin" ADD COLUMN "expiresAt" TIMESTAMP(3);
-- Earlier verifications recorded no address: they keep allowing monitors for a week and must be
-- proved again over HTTP before more load is sent.
UPDATE "VerifiedOrigin" SET "expiresAt" = "verifiedAt" + INTERVAL '7 days';
