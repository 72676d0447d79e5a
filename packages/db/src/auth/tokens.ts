import { createHash, randomBytes } from "node:crypto";

/** 256-bit random token, URL-safe. */
export function newToken(prefix = ""): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/** Tokens are stored only as their sha256: a database leak does not reveal usable tokens. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
