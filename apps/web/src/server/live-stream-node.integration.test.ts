import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOrgFixture, type OrgFixture } from "@benchboard/api/testing/org-fixture";
import { LiveSamples } from "@benchboard/core";
import { getDb } from "@benchboard/db";
import { createTestDatabase, type TestDatabase } from "@benchboard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyLiveStep, type LiveStepProgress } from "~/lib/live-step";

// The production server's direct path for a run's live stream, on a real HTTP server and a real
// database: the proxy's and route's checks, then whole states and steps a page can rebuild.

let t: TestDatabase;
let server: Server;
let baseUrl: string;
let mine: OrgFixture;
let theirs: OrgFixture;
let savedEnv: Record<string, string | undefined> = {};
let clock = Date.now();
const samples = new LiveSamples(() => clock);

const progressAt = (second: number) => {
  clock += 1_000;
  return samples.add(
    {
      elapsedMs: second * 1_000,
      fraction: second / 600,
      requests: second * 100,
      errors: 0,
      rps: 100,
      latencyP50Ms: 2,
      latencyP99Ms: 9,
    },
    { mem_bytes: 1e8 + second },
  );
};

beforeAll(async () => {
  t = await createTestDatabase();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The app reads its environment once, when ~/env is first imported.
  savedEnv = { DATABASE_URL: process.env.DATABASE_URL, BENCHBOARD_PUBLIC_URL: process.env.BENCHBOARD_PUBLIC_URL };
  process.env.DATABASE_URL = t.url;
  process.env.BENCHBOARD_PUBLIC_URL = baseUrl;
  const { serveLiveStream } = await import("./live-stream-node");
  server.on("request", (req, res) => {
    if (!serveLiveStream(req, res)) {
      res.writeHead(418);
      res.end("not the live stream");
    }
  });
  const db = getDb(t.url);
  mine = await createOrgFixture(db, "live-mine");
  theirs = await createOrgFixture(db, "live-theirs");
  let progress = progressAt(1);
  for (let s = 2; s <= 320; s++) progress = progressAt(s);
  await db.run.update({
    where: { id: mine.execRun.id },
    data: { progress: progress as object, heartbeatAt: new Date() },
  });
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await t?.drop();
});

interface Event {
  id: string;
  event: string;
  data: unknown;
}

/** Open the stream and read events until `until` says stop; then drop the connection. */
async function readEvents(
  runId: string,
  headers: Record<string, string>,
  until: (events: Event[], text: string) => boolean,
): Promise<{ status: number; headers: Headers; events: Event[]; text: string }> {
  const abort = new AbortController();
  const res = await fetch(`${baseUrl}/api/runs/${runId}/events`, { headers, signal: abort.signal });
  const events: Event[] = [];
  let text = "";
  if (res.ok && res.body) {
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    while (!until(events, text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const blocks = text.split("\n\n");
      events.length = 0;
      for (const block of blocks.slice(0, -1)) {
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((line) => line && !line.startsWith(":"))
            .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
        );
        if (fields.event && fields.id && fields.data) {
          events.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
        }
      }
    }
    abort.abort();
  } else {
    text = await res.text();
  }
  return { status: res.status, headers: res.headers, events, text };
}

const cookie = (f: OrgFixture) => ({ cookie: `bb_session=${f.users.viewer.sessionToken}` });

describe("the live stream's direct path", () => {
  it("takes only its own path and method", async () => {
    expect((await fetch(`${baseUrl}/api/runs/${mine.execRun.id}`)).status).toBe(418);
    expect((await fetch(`${baseUrl}/api/runs/${mine.execRun.id}/events`, { method: "HEAD" })).status).toBe(418);
    expect((await fetch(`${baseUrl}/api/runs/a%2Fb/events`)).status).toBe(418);
  });

  it("answers only for the app's host name, a session, and a run of the viewer's organization", async () => {
    const foreign = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${baseUrl}/api/runs/${mine.execRun.id}/events`, { headers: { host: "rebound.example" } });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(foreign.status).toBe(421);
    expect(JSON.parse(foreign.body).error.message).toMatch(/host name/);

    const anonymous = await readEvents(mine.execRun.id, {}, () => true);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toEqual({ error: { message: "sign in to continue" } });
    // Another organization's run is not found (not "forbidden": its existence is not told).
    const stranger = await readEvents(mine.execRun.id, cookie(theirs), () => true);
    expect(stranger.status).toBe(404);
    expect(stranger.text).not.toContain(mine.execRun.id);
    expect(stranger.headers.get("x-frame-options")).toBe("DENY");
  });

  it("sends the whole state first, then steps that rebuild each later state exactly", async () => {
    const db = getDb(t.url);
    let second = 320;
    const writer = setInterval(() => {
      const progress = progressAt(++second);
      // A heartbeat too, or the stale-run watchdog would end the run. (A Prisma query runs
      // only once something awaits it.)
      db.run
        .update({ where: { id: mine.execRun.id }, data: { progress: progress as object, heartbeatAt: new Date() } })
        .catch(() => {});
    }, 400);
    try {
      // Three states, then the writer stops and the stream reads on until a tick: no change since.
      const got = await readEvents(mine.execRun.id, cookie(mine), (events, text) => {
        if (events.length >= 3) clearInterval(writer);
        return events.length >= 3 && text.endsWith(": tick\n\n");
      });
      expect(got.status).toBe(200);
      expect(got.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(got.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(got.text.startsWith("retry: 1000\n\n")).toBe(true);
      const [first, ...rest] = got.events;
      expect(first?.event).toBe("run");
      type State = { progress: { samples: { t: number }[] } & Record<string, unknown> };
      let state = first!.data as State;
      expect(state.progress.samples).toHaveLength(300);
      for (const event of rest) {
        expect(event.event).toBe("step");
        const step = event.data as Omit<State, "progress"> & { progress: LiveStepProgress };
        expect(step.progress.samplesAdded.length).toBeGreaterThan(0);
        expect(step.progress.samplesAdded.length).toBeLessThan(10);
        state = applyLiveStep(state, step)!;
        expect(state).not.toBeNull();
        expect(state.progress.samples).toHaveLength(300);
      }
      // The last state rebuilt from steps is the one a new viewer is sent whole.
      const fresh = await readEvents(mine.execRun.id, cookie(mine), (events) => events.length >= 1);
      expect(fresh.events[0]!.id).toBe(rest.at(-1)!.id);
      expect(fresh.events[0]!.data).toEqual(state);
      // Steps are a fraction of a whole state's bytes.
      const wholeBytes = JSON.stringify(first!.data).length;
      const stepBytes = JSON.stringify(rest[0]!.data).length;
      expect(stepBytes * 4).toBeLessThan(wholeBytes);
    } finally {
      clearInterval(writer);
    }
  }, 30_000);

  it("resumes from Last-Event-ID: nothing while the state is the same, the whole state after an unknown id", async () => {
    const first = await readEvents(mine.execRun.id, cookie(mine), (events) => events.length >= 1);
    const id = first.events[0]!.id;
    // The same state: the stream only ticks (a comment keeps proxies from closing it).
    const same = await readEvents(mine.execRun.id, { ...cookie(mine), "last-event-id": id }, (events, text) =>
      text.includes(": tick"),
    );
    expect(same.status).toBe(200);
    expect(same.events).toEqual([]);
    // An id this server never sent: the whole state, not a step.
    const unknown = await readEvents(
      mine.execRun.id,
      { ...cookie(mine), "last-event-id": "0123456789abcdef" },
      (events) => events.length >= 1,
    );
    expect(unknown.events[0]).toMatchObject({ id, event: "run" });
  }, 15_000);

  it("ends the stream with the end state", async () => {
    const db = getDb(t.url);
    await db.run.update({ where: { id: mine.execRun.id }, data: { heartbeatAt: new Date() } });
    const opened = readEvents(mine.execRun.id, cookie(mine), () => false);
    await new Promise((r) => setTimeout(r, 500));
    await db.run.update({ where: { id: mine.execRun.id }, data: { status: "succeeded", endedAt: new Date() } });
    // readEvents returns when the server closes the stream.
    const { events } = await opened;
    expect(events.at(-1)).toMatchObject({ event: expect.stringMatching(/^(run|step)$/) });
    expect((events.at(-1)!.data as { status: string }).status).toBe("succeeded");
  }, 15_000);
});
