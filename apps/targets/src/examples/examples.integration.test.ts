import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleValue } from "../testing/prometheus-text";
import {
  databaseExists,
  dropDatabase,
  expectConfigRejections,
  getConfig,
  putConfig,
  scrape,
  testEnv,
  uniqueName,
  waitFor,
} from "../testing/services";
import { type ExamplesServer, startExamples } from "./server";

// A database of its own, created by the server under test and dropped at the end.
const database = uniqueName("examples");
let examples: ExamplesServer;

beforeAll(async () => {
  expect(await databaseExists(database)).toBe(false);
  examples = await startExamples({ port: 0, databaseUrl: testEnv.DATABASE_URL, database });
  await examples.databaseReady();
});
afterAll(async () => {
  await examples?.close(1_000);
  await dropDatabase(database);
});

interface Customer {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  priority: number;
  userEmail: string;
  createdAt: string;
}

async function customersOf(baseUrl: string, email: string): Promise<Customer[]> {
  const response = await fetch(`${baseUrl}/api/customers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  return (await response.json()) as Customer[];
}

describe("examples: light (static files)", () => {
  it.each([
    ["/", "index.html", "text/html"],
    ["/style.css", "style.css", "text/css"],
    ["/script.js", "script.js", "text/javascript"],
  ])("serves %s from disk", async (path, file, type) => {
    const response = await fetch(`${examples.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain(type);
    const onDisk = await readFile(new URL(`./static/${file}`, import.meta.url), "utf8");
    expect(await response.text()).toBe(onDisk);
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(onDisk));
  });

  it("answers 404 for anything else, including paths that try to leave the directory", async () => {
    for (const path of ["/nope.css", "/static/../package.json", "/..%2fpackage.json", "/a/b/c"]) {
      const response = await fetch(`${examples.url}${path}`);
      expect(response.status, path).toBe(404);
      await response.arrayBuffer();
    }
  });
});

describe("examples: medium (customers from PostgreSQL)", () => {
  it("created its database and seeded 500 customers of the benchmark user", async () => {
    expect(await databaseExists(database)).toBe(true);
    const customers = await customersOf(examples.url, "test@example.com");
    expect(customers).toHaveLength(500);
    expect(customers.map((c) => c.id)).toEqual([...customers.map((c) => c.id)].sort((a, b) => a - b));
    expect(customers[0]).toMatchObject({ firstName: "Ada", lastName: "Lovelace", userEmail: "test@example.com" });
    for (const customer of customers) {
      expect(customer.email).toMatch(/@example\.com$/);
      expect([1, 2, 3]).toContain(customer.priority);
      expect(Number.isNaN(Date.parse(customer.createdAt))).toBe(false);
    }
    const viaGet = await fetch(`${examples.url}/api/customers?email=test%40example.com`);
    expect(((await viaGet.json()) as Customer[]).length).toBe(500);
    expect(await customersOf(examples.url, "nobody@example.com")).toEqual([]);
  });

  it("creates customers, validates input naming the field, and never seeds twice", async () => {
    const created = await fetch(`${examples.url}/api/customers/create`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        firstName: "Test",
        lastName: "User",
        email: "test.user@example.com",
        phone: "123456789",
        priority: 1,
        userEmail: "other@example.com",
      }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ firstName: "Test", userEmail: "other@example.com" });
    expect(await customersOf(examples.url, "other@example.com")).toHaveLength(1);

    for (const [body, field] of [
      [{ firstName: "T", lastName: "U", email: "not-an-email", phone: "1", priority: 1, userEmail: "a@b.co" }, "email"],
      [{ firstName: "T", lastName: "U", email: "a@b.co", phone: "1", priority: 9, userEmail: "a@b.co" }, "priority"],
      [{ firstName: "", lastName: "U", email: "a@b.co", phone: "1", priority: 1, userEmail: "a@b.co" }, "firstName"],
    ] as const) {
      const response = await fetch(`${examples.url}/api/customers/create`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field);
    }
    const badList = await fetch(`${examples.url}/api/customers`, { method: "POST", body: '{"email":"x"}' });
    expect(badList.status).toBe(400);
    expect(((await badList.json()) as { error: { field: string } }).error.field).toBe("email");

    // A second instance on the same database finds the seed and leaves it alone.
    const second = await startExamples({ port: 0, databaseUrl: testEnv.DATABASE_URL, database });
    try {
      await second.databaseReady();
      expect(await customersOf(second.url, "test@example.com")).toHaveLength(500);
    } finally {
      await second.close(1_000);
    }
  });
});

describe("examples: heavy (image resize)", () => {
  it.each([
    [200, 200],
    [1000, 1000],
    [320, 90],
  ])("resizes the bundled image to %i×%i PNG", async (width, height) => {
    const response = await fetch(`${examples.url}/${width}/${height}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect(metadata).toMatchObject({ format: "png", width, height });
  });

  it("refuses sizes out of bounds naming the parameter", async () => {
    for (const [path, field] of [
      ["/0/10", "width"],
      ["/10/99999", "height"],
      ["/ten/10", "width"],
    ] as const) {
      const response = await fetch(`${examples.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field);
    }
  });

  it("max_concurrent_resizes holds extra resizes back", async () => {
    expect((await putConfig(examples.url, { max_concurrent_resizes: 1 })).status).toBe(200);
    let maxWaiting = 0;
    let maxRunning = 0;
    let done = false;
    const resizes = Promise.all(
      Array.from({ length: 4 }, async () => {
        const response = await fetch(`${examples.url}/1000/1000`);
        await response.arrayBuffer();
        return response.status;
      }),
    ).finally(() => {
      done = true;
    });
    await waitFor(
      async () => {
        const metrics = await scrape(examples.url);
        maxWaiting = Math.max(maxWaiting, sampleValue(metrics, "examples_resizes_waiting"));
        maxRunning = Math.max(maxRunning, sampleValue(metrics, "examples_resizes_running"));
        return done || maxWaiting >= 2 ? true : undefined;
      },
      10_000,
      "resizes to queue up",
    );
    expect(await resizes).toEqual([200, 200, 200, 200]);
    expect(maxRunning).toBe(1);
    expect(maxWaiting).toBeGreaterThanOrEqual(2);
    expect((await putConfig(examples.url, {})).status).toBe(200);
  });
});

describe("examples: /metrics and /admin/config", () => {
  it("serves valid Prometheus text counting requests per example app", async () => {
    const before = await scrape(examples.url);
    const lightBefore = sampleValue(before, "examples_requests_total", { app: "light", status: "200" });
    await (await fetch(`${examples.url}/style.css`)).text();
    await (await fetch(`${examples.url}/script.js`)).text();
    const after = await scrape(examples.url);
    expect(sampleValue(after, "examples_requests_total", { app: "light", status: "200" })).toBe(lightBefore + 2);
    expect(sampleValue(after, "examples_request_duration_seconds_count", { app: "medium" })).toBeGreaterThan(0);
    expect(sampleValue(after, "examples_requests_total", { app: "heavy", status: "400" })).toBeGreaterThan(0);
    expect(sampleValue(after, "examples_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(sampleValue(after, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(after.get("process_cpu_seconds_total")?.type).toBe("counter");
  });

  it("refuses bad knobs with 400 naming the field; good ones apply and the database keeps working", async () => {
    await expectConfigRejections(examples.url, [
      { body: { db_pool_size: 0 }, field: "db_pool_size" },
      { body: { max_concurrent_resizes: 100 }, field: "max_concurrent_resizes" },
      { body: { png_compression_level: 10 }, field: "png_compression_level" },
      { body: { cpu_limit: 0.5 }, field: "cpu_limit" },
    ]);
    const applied = await putConfig(examples.url, { db_pool_size: 2, png_compression_level: 1 });
    expect(applied.status).toBe(200);
    expect(await getConfig(examples.url)).toMatchObject({ db_pool_size: 2, png_compression_level: 1 });
    const results = await Promise.all(Array.from({ length: 6 }, () => customersOf(examples.url, "test@example.com")));
    for (const customers of results) expect(customers).toHaveLength(500);
    const metrics = await scrape(examples.url);
    expect(sampleValue(metrics, "examples_db_pool_connections", { state: "total" })).toBeLessThanOrEqual(2);
    // A lower zlib level makes the same resize bigger: the knob reaches the encoder.
    const fast = (await (await fetch(`${examples.url}/500/500`)).arrayBuffer()).byteLength;
    expect((await putConfig(examples.url, { png_compression_level: 9 })).status).toBe(200);
    const small = (await (await fetch(`${examples.url}/500/500`)).arrayBuffer()).byteLength;
    expect(fast).toBeGreaterThan(small);
  });
});
