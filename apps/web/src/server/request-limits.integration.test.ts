import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The tRPC route as Next.js runs it, against a real database: limits hold on the bytes read.
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

/** A body sent in 64 kB chunks without Content-Length, as `Transfer-Encoding: chunked` does. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 65_536));
      at += 65_536;
    },
  });
}

function trpcPost(body: BodyInit, init: RequestInit = {}): Request {
  return new Request("http://127.0.0.1:3000/api/trpc/auth.signIn", {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000" },
    body,
    duplex: "half",
    ...init,
  } as RequestInit);
}

describe("tRPC request limits", () => {
  it("refuses a chunked body over 1 MB with 413, though it declares no length", async () => {
    const body = JSON.stringify({ json: { email: "a@example.com", password: "x".repeat(1_500_000) } });
    const req = trpcPost(chunked(body));
    expect(req.headers.get("content-length")).toBeNull();
    const res = await POST(req);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/larger than 1000000 bytes/);
  });

  it("refuses a body nested deeper than 64 levels with 400 before parsing it", async () => {
    const res = await POST(trpcPost(`{"json":{"email":${"[".repeat(50_000)}${"]".repeat(50_000)}}}`));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/nests deeper than 64/);
  });

  it("still answers a normal request", async () => {
    const res = await POST(
      trpcPost(JSON.stringify({ json: { email: "nobody@example.com", password: "wrong-password" } })),
    );
    expect(res.status).toBe(401);
  });
});
