import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// DNS rebinding against the tRPC route as Next.js runs it, with a real database: a page on
// another site whose name was rebound to this server's address sends the app's own Host and a
// matching Origin. Only the app's public URL (here the default, 127.0.0.1:3000) is answered.
let t: TestDatabase;
let savedUrl: string | undefined;
let POST: (req: Request) => Promise<Response>;

beforeAll(async () => {
  t = await createTestDatabase();
  savedUrl = process.env.DATABASE_URL;
  process.env.DATABASE_URL = t.url;
  ({ POST } = (await import("../app/api/trpc/[trpc]/route")) as unknown as { POST: typeof POST });
});
afterAll(async () => {
  if (savedUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = savedUrl;
  await t.drop();
});

const signUp = (headers: Record<string, string>, email: string) =>
  POST(
    new Request("http://127.0.0.1:3000/api/trpc/auth.signUp", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ json: { email, password: "rebinding password 1" } }),
    }),
  );

describe("requests for another host name", () => {
  it("get 421 and create nothing: a rebound name cannot sign up the install's first account", async () => {
    const res = await signUp(
      { host: "rebind.example:3000", origin: "http://rebind.example:3000" },
      "first@example.test",
    );
    expect(res.status).toBe(421);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await t.db.user.count()).toBe(0);
  });

  it("refuse a write without an Origin, which could set a session cookie", async () => {
    const res = await signUp({ host: "127.0.0.1:3000" }, "no-origin@example.test");
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await t.db.user.count()).toBe(0);
  });

  it("still answer the app's own host and origin", async () => {
    const res = await signUp({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" }, "owner@example.test");
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toMatch(/^bb_session=/);
    // Plain http: no Secure cookie, whatever a client claims in X-Forwarded-Proto.
    expect(res.headers.get("set-cookie")).not.toMatch(/Secure/);
    // Signing in again sets a cookie too (a later sign-up sets none until its email is confirmed).
    const spoofed = await POST(
      new Request("http://127.0.0.1:3000/api/trpc/auth.signIn", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          host: "127.0.0.1:3000",
          origin: "http://127.0.0.1:3000",
          "x-forwarded-proto": "https",
        },
        body: JSON.stringify({ json: { email: "owner@example.test", password: "rebinding password 1" } }),
      }),
    );
    expect(spoofed.status).toBe(200);
    expect(spoofed.headers.get("set-cookie")).not.toMatch(/Secure/);
  });
});
