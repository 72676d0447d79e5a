import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";

/**
 * Secrets at rest (target header values, monitor passwords): AES-256-GCM with a 32-byte key that
 * the app and the worker get from their environment (`BENCHBOARD_SECRET_KEY`, base64) and pass in
 * explicitly. Stored as `v1.<iv>.<tag>.<ciphertext>` (base64url); the authentication tag makes a
 * tampered value or a wrong key fail loudly instead of decrypting to garbage. The associated data
 * binds a value to its organization, so a ciphertext copied into another org's row does not open.
 */
export const SECRET_KEY_BYTES = 32;
const VERSION = "v1";
const IV_BYTES = 12;

export class SecretKeyError extends Error {
  override name = "SecretKeyError";
}

/** Decode and check a base64 key; the message says how to make a good one. */
export function parseSecretKey(base64: string): Buffer {
  const key = Buffer.from(base64.trim(), "base64");
  if (key.length !== SECRET_KEY_BYTES) {
    throw new SecretKeyError(
      `BENCHBOARD_SECRET_KEY must be ${SECRET_KEY_BYTES} bytes in base64 (got ${key.length} bytes); ` +
        "make one with: head -c 32 /dev/urandom | base64",
    );
  }
  return key;
}

function assertKey(key: Buffer | null | undefined): asserts key is Buffer {
  if (!key) {
    throw new SecretKeyError("secret storage is not configured: set BENCHBOARD_SECRET_KEY (32 bytes, base64)");
  }
  if (key.length !== SECRET_KEY_BYTES) throw new SecretKeyError(`the secret key must be ${SECRET_KEY_BYTES} bytes`);
}

export function encryptSecret(key: Buffer | null | undefined, plaintext: string, context: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".");
}

export function decryptSecret(key: Buffer | null | undefined, stored: string, context: string): string {
  assertKey(key);
  const [version, iv, tag, ciphertext] = stored.split(".");
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new SecretKeyError("stored secret has an unknown format");
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    // Never echo the stored value or the key; the likely cause is a changed key.
    throw new SecretKeyError("stored secrets could not be decrypted (was BENCHBOARD_SECRET_KEY changed?)");
  }
}

/** What a target keeps encrypted: secret header values by header name, monitor passwords by monitor id. */
export const ZTargetSecrets = z.object({
  headers: z.record(z.string(), z.string()).default({}),
  monitorPasswords: z.record(z.string(), z.string()).default({}),
});
export type TTargetSecrets = z.infer<typeof ZTargetSecrets>;

const targetContext = (orgId: string) => `benchboard:target-secrets:${orgId}`;

export function encryptTargetSecrets(key: Buffer | null | undefined, orgId: string, secrets: TTargetSecrets): string {
  return encryptSecret(key, JSON.stringify(secrets), targetContext(orgId));
}

export function decryptTargetSecrets(
  key: Buffer | null | undefined,
  orgId: string,
  stored: string | null,
): TTargetSecrets {
  if (!stored) return { headers: {}, monitorPasswords: {} };
  return ZTargetSecrets.parse(JSON.parse(decryptSecret(key, stored, targetContext(orgId))));
}
