import amqp from "amqplib";
import pg from "pg";
import { expect } from "vitest";
import { readEnv } from "../env";
import { PROMETHEUS_CONTENT_TYPE } from "../lib/metrics";
import { type ParsedFamily, parsePrometheusText } from "./prometheus-text";

/** Service URLs for integration tests: the same environment the targets read. */
export const testEnv = readEnv();

/** A name no other test run uses: RabbitMQ prefixes and database names. */
export function uniqueName(label: string): string {
  return `t_${label}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

export async function deleteExchange(name: string): Promise<void> {
  const connection = await amqp.connect(testEnv.AMQP_URL);
  try {
    const channel = await connection.createChannel();
    await channel.deleteExchange(name);
    await channel.close();
  } finally {
    await connection.close();
  }
}

/** A queue as RabbitMQ's management API describes it, or null when it does not exist. */
export async function managementQueue(queue: string): Promise<Record<string, unknown> | null> {
  const base = new URL(testEnv.BENCHBOARD_RABBITMQ_MANAGEMENT_URL);
  const auth = Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString(
    "base64",
  );
  base.username = "";
  base.password = "";
  const response = await fetch(new URL(`/api/queues/%2F/${encodeURIComponent(queue)}`, base), {
    headers: { authorization: `Basic ${auth}` },
  });
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

export async function withAdminDatabase<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testEnv.DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function databaseExists(name: string): Promise<boolean> {
  return withAdminDatabase(async (client) => {
    const result = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    return result.rowCount === 1;
  });
}

export async function dropDatabase(name: string): Promise<void> {
  await withAdminDatabase((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

/** GET /metrics, check the content type and parse strictly (throws on any format error). */
export async function scrape(baseUrl: string): Promise<Map<string, ParsedFamily>> {
  const response = await fetch(`${baseUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
  return parsePrometheusText(await response.text());
}

export async function putConfig(baseUrl: string, body: unknown, method: "PUT" | "PATCH" = "PUT") {
  const response = await fetch(`${baseUrl}/admin/config`, {
    method,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function getConfig(baseUrl: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/admin/config`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * Shared check for every target: each bad knob is refused with 400 naming the field, and the
 * stored config is exactly what it was before.
 */
export async function expectConfigRejections(
  baseUrl: string,
  cases: Array<{ body: unknown; field: string }>,
): Promise<void> {
  const before = await getConfig(baseUrl);
  for (const { body, field } of cases) {
    const { status, body: answer } = await putConfig(baseUrl, body);
    expect(status, JSON.stringify(body)).toBe(400);
    const error = answer.error as { type: string; field: string; message: string };
    expect(error.type).toBe("invalid_config");
    expect(error.field, JSON.stringify(body)).toBe(field);
    expect(error.message).toContain(field);
    const patched = await putConfig(baseUrl, body, "PATCH");
    expect(patched.status).toBe(400);
  }
  expect(await getConfig(baseUrl)).toEqual(before);
}

/** Poll until `check` returns a value that is not undefined, or fail after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (true) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
