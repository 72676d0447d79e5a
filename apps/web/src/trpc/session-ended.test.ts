import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { isUnauthorized, signInPath } from "./session-ended";

describe("an ended session", () => {
  it("is told from other refusals by the API's 401", () => {
    const refusal = (code: string, httpStatus: number) =>
      Object.assign(new TRPCClientError("refused"), { data: { code, httpStatus } });
    expect(isUnauthorized(refusal("UNAUTHORIZED", 401))).toBe(true);
    expect(isUnauthorized(refusal("FORBIDDEN", 403))).toBe(false);
    expect(isUnauthorized(refusal("NOT_FOUND", 404))).toBe(false);
    expect(isUnauthorized(new Error("UNAUTHORIZED"))).toBe(false);
  });

  it("goes to sign-in with the page to come back to", () => {
    expect(signInPath("/runs/abc", "?tab=series")).toBe("/sign-in?next=%2Fruns%2Fabc%3Ftab%3Dseries");
    expect(signInPath("/")).toBe("/sign-in");
    expect(signInPath("/", "?org=x")).toBe("/sign-in?next=%2F%3Forg%3Dx");
  });
});
