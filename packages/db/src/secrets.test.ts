import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  decryptSecret,
  decryptTargetSecrets,
  encryptSecret,
  encryptTargetSecrets,
  parseSecretKey,
  SecretKeyError,
} from "./secrets";

const key = randomBytes(32);

describe("secrets at rest", () => {
  it("round-trips and never stores the plaintext", () => {
    const stored = encryptSecret(key, "Bearer sk-live-123", "ctx");
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain("sk-live");
    expect(decryptSecret(key, stored, "ctx")).toBe("Bearer sk-live-123");
  });

  it("uses a fresh IV each time, so equal secrets do not look equal", () => {
    expect(encryptSecret(key, "same", "ctx")).not.toBe(encryptSecret(key, "same", "ctx"));
  });

  it("refuses a wrong key, another context or a tampered value", () => {
    const stored = encryptSecret(key, "value", "org-a");
    expect(() => decryptSecret(randomBytes(32), stored, "org-a")).toThrow(SecretKeyError);
    expect(() => decryptSecret(key, stored, "org-b")).toThrow(/could not be decrypted/);
    const [v, iv, tag, body] = stored.split(".");
    const flipped = Buffer.from(body!, "base64url");
    flipped[0]! ^= 1;
    expect(() => decryptSecret(key, [v, iv, tag, flipped.toString("base64url")].join("."), "org-a")).toThrow(
      SecretKeyError,
    );
  });

  it("explains a missing or malformed key", () => {
    expect(() => encryptSecret(null, "x", "ctx")).toThrow(/BENCHBOARD_SECRET_KEY/);
    expect(() => parseSecretKey(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes.*got 16/);
    expect(parseSecretKey(key.toString("base64")).equals(key)).toBe(true);
  });

  it("binds a target's secrets to its organization", () => {
    const stored = encryptTargetSecrets(key, "org1", { headers: { Authorization: "t0ken" }, monitorPasswords: {} });
    expect(decryptTargetSecrets(key, "org1", stored).headers).toEqual({ Authorization: "t0ken" });
    expect(() => decryptTargetSecrets(key, "org2", stored)).toThrow(SecretKeyError);
    expect(decryptTargetSecrets(null, "org1", null)).toEqual({ headers: {}, monitorPasswords: {} });
  });
});
