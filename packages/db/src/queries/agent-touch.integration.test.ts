import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../testing";
import { AGENT_SEEN_RESOLUTION_MS, createAgentToken, touchAgent } from "./agent";

// An agent's signs of life (claims, heartbeats, progress) on real PostgreSQL: a row that already
// says what the sign would write is left alone, so an agent's concurrent claims don't queue on it.
let t: TestDatabase;
let orgId = "";
let tokenId = "";

beforeAll(async () => {
  t = await createTestDatabase();
  orgId = (await t.db.organization.create({ data: { name: "A", slug: "a" } })).id;
  tokenId = (await createAgentToken(t.db, orgId, { name: "agents", createdById: null })).record.id;
});

afterAll(async () => {
  await t?.drop();
});

const agentRow = (id: string) =>
  t.db.agent.findUniqueOrThrow({ where: { id }, select: { lastSeenAt: true, activeRuns: true, stoppedAt: true } });

describe("touchAgent", () => {
  it("writes only what changed: a stale sighting, the active runs, a stop cleared", async () => {
    const longAgo = new Date(Date.now() - 10 * AGENT_SEEN_RESOLUTION_MS);
    const { id } = await t.db.agent.create({
      data: { orgId, tokenId, name: "lab-1", labels: ["x"], lastSeenAt: longAgo, stoppedAt: longAgo },
    });
    await touchAgent(t.db, id, 0);
    const seen = await agentRow(id);
    expect(seen.lastSeenAt.getTime()).toBeGreaterThan(longAgo.getTime());
    expect(seen.stoppedAt).toBeNull();

    // Seen a moment ago, same count: nothing is written.
    await touchAgent(t.db, id, 0);
    await touchAgent(t.db, id);
    expect((await agentRow(id)).lastSeenAt).toEqual(seen.lastSeenAt);

    // A different count is written at once, with the sighting.
    await touchAgent(t.db, id, 2);
    expect((await agentRow(id)).activeRuns).toBe(2);

    // A stop is cleared by the next sign of life, however recent the last one.
    await t.db.agent.update({ where: { id }, data: { stoppedAt: new Date() } });
    await touchAgent(t.db, id);
    expect((await agentRow(id)).stoppedAt).toBeNull();

    // Sixty-four at once all settle, and the row is as one of them would leave it.
    await Promise.all(Array.from({ length: 64 }, () => touchAgent(t.db, id, 2)));
    expect((await agentRow(id)).activeRuns).toBe(2);
  });

  it("fails for an agent that is gone", async () => {
    await expect(touchAgent(t.db, "no-such-agent")).rejects.toThrow();
  });
});
