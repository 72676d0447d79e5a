-- Sign-ups waiting for their email to be confirmed: only the SHA-256 of the mailed token is
-- stored; the account is made when the link is used.
CREATE TABLE "SignUpConfirmation" (
    "id" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "passwordHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SignUpConfirmation_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "SignUpConfirmation_tokenHash_key" ON "SignUpConfirmation"("tokenHash");

CREATE INDEX "SignUpConfirmation_email_idx" ON "SignUpConfirmation"("email");
