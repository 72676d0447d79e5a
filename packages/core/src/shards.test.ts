import { describe, expect, it } from "vitest";
import { ZScenarioSpec } from "./scenario";
import { planShards, splitEvenly } from "./shards";

describe("planShards", () => {
  it("splits an open model's rate and connection cap, keeping the duration", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-open", rate: 5000, durationS: 60, maxConnections: 1001 });
    const shards = planShards(spec, 3);
    expect(shards.map((s) => (s.engine === "http-open" ? s.rate : 0)).reduce((a, b) => a + b)).toBeCloseTo(5000, 9);
    expect(shards.map((s) => (s.engine === "http-open" ? s.maxConnections : 0))).toEqual([334, 334, 333]);
    expect(shards.every((s) => s.engine === "http-open" && s.durationS === 60)).toBe(true);
  });

  it("splits a closed model's users and requests so they add up exactly", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 10, requests: 1003 });
    const shards = planShards(spec, 4);
    expect(shards.map((s) => (s.engine === "http-closed" ? s.concurrency : 0))).toEqual([3, 3, 2, 2]);
    expect(shards.map((s) => (s.engine === "http-closed" ? s.requests : 0))).toEqual([251, 251, 251, 250]);
  });

  it("keeps one shard as the scenario itself and refuses impossible splits naming the field", () => {
    const spec = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 2, durationS: 5 });
    expect(planShards(spec, 1)).toEqual([spec]);
    expect(() => planShards(spec, 3)).toThrow("concurrency (2) is below the shard count");
    expect(() => planShards(spec, 0)).toThrow("must be a whole number from 1 to 64");
    const chat = ZScenarioSpec.parse({ engine: "ws-chat", users: 10, rooms: 2, messagesPerUser: 1 });
    expect(() => planShards(chat, 3)).toThrow("rooms (2) is below the shard count: a room is never split");
    const sparse = ZScenarioSpec.parse({ engine: "ws-chat", users: 2, rooms: 4, messagesPerUser: 1 });
    expect(() => planShards(sparse, 2)).toThrow("users (2) leave shard 2 without members; use fewer shards");
    const narrow = ZScenarioSpec.parse({ engine: "ws-chat", users: 10, rooms: 4, messagesPerUser: 1, poolSize: 1 });
    expect(() => planShards(narrow, 2)).toThrow("poolSize (1) is below the shard count");
  });

  it("splits a chat scenario by whole rooms, each keeping the members it has unsplit", () => {
    // 23 users over 5 rooms: rooms 0–2 have 5 members, rooms 3–4 have 4.
    const spec = ZScenarioSpec.parse({ engine: "ws-chat", users: 23, rooms: 5, messagesPerUser: 3, poolSize: 9 });
    const shards = planShards(spec, 2).map((s) => (s.engine === "ws-chat" ? s : null)!);
    expect(
      shards.map(({ rooms, users, firstRoom, firstUser, poolSize }) => ({
        rooms,
        users,
        firstRoom,
        firstUser,
        poolSize,
      })),
    ).toEqual([
      { rooms: 3, users: 15, firstRoom: 0, firstUser: 0, poolSize: 5 },
      { rooms: 2, users: 8, firstRoom: 3, firstUser: 15, poolSize: 4 },
    ]);
    // Each shard's own round-robin gives every room the size it has in the unsplit run.
    const sizes = (users: number, rooms: number) =>
      Array.from({ length: rooms }, (_, r) => Math.floor(users / rooms) + (r < users % rooms ? 1 : 0));
    expect(shards.flatMap((s) => sizes(s.users, s.rooms))).toEqual(sizes(23, 5));
    expect(
      shards.every((s) => s.messagesPerUser === 3 && s.durationS === (spec.engine === "ws-chat" && spec.durationS)),
    ).toBe(true);
  });

  it("splitEvenly sums to the total with parts differing by at most one", () => {
    for (const [total, n] of [
      [7, 3],
      [0, 2],
      [100, 7],
      [5, 5],
    ] as const) {
      const parts = splitEvenly(total, n);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...parts) - Math.min(...parts)).toBeLessThanOrEqual(1);
    }
  });
});
