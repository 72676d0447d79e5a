-- Share links keep only a hash of their token (existing links keep working: their hash is the
-- SHA-256 of the token they were given) and remember whether target details are shown.
ALTER TABLE "ShareLink" ADD COLUMN "tokenHash" TEXT;
UPDATE "ShareLink" SET "tokenHash" = encode(sha256(convert_to("token", 'UTF8')), 'hex');
ALTER TABLE "ShareLink" ALTER COLUMN "tokenHash" SET NOT NULL;
DROP INDEX "ShareLink_token_key";
ALTER TABLE "ShareLink" DROP COLUMN "token";
CREATE UNIQUE INDEX "ShareLink_tokenHash_key" ON "ShareLink"("tokenHash");
ALTER TABLE "ShareLink" ADD COLUMN "includeTarget" BOOLEAN NOT NULL DEFAULT false;
