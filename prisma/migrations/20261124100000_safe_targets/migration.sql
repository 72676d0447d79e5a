-- AlterTable
ALTER TABLE "Organization" DROP COLUMN "allowPrivateTargets",
ADD COLUMN     "verificationToken" TEXT;

-- CreateTable
CREATE TABLE "InstallSettings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "allowedTargets" TEXT[],
    "allowedTargetsSet" BOOLEAN NOT NULL DEFAULT false,
    "signupOpen" BOOLEAN,
    "defaultCaps" JSONB NOT NULL DEFAULT '{}',
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "InstallSettings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VerifiedOrigin" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "verifiedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VerifiedOrigin_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VerifiedOrigin_orgId_origin_key" ON "VerifiedOrigin"("orgId", "origin");

-- CreateIndex
CREATE UNIQUE INDEX "Organization_verificationToken_key" ON "Organization"("verificationToken");

-- AddForeignKey
ALTER TABLE "VerifiedOrigin" ADD CONSTRAINT "VerifiedOrigin_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
