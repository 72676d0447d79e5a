import { describe, expect, it } from "vitest";
import { applyLaunchOverrides, LaunchOverrideError, ZLaunchOverrides } from "./launch-overrides";
import { ZScenarioSpec } from "./scenario";

const open = ZScenarioSpec.parse({ engine: "http-open", rate: 100, durationS: 30, rampFromRate: 50, rampS: 5 });
const closed = ZScenarioSpec.parse({ engine: "http-closed", concurrency: 10, requests: 1000 });
const chat = ZScenarioSpec.parse({ engine: "ws-chat", users: 10, rooms: 2, messagesPerUser: 5, durationS: 60 });

describe("launch overrides", () => {
  it("sets an open model's rate, connection pool and duration, keeping the ramp below the rate", () => {
    const out = applyLaunchOverrides(open, { rate: 40, concurrency: 8, durationS: 5 });
    expect(out).toMatchObject({ engine: "http-open", rate: 40, maxConnections: 8, durationS: 5, rampFromRate: 40 });
    expect(open).toMatchObject({ rate: 100, durationS: 30 });
  });

  it("turns a closed model's request count into a duration and sets its users", () => {
    const out = applyLaunchOverrides(closed, { concurrency: 3, durationS: 2 });
    expect(out).toMatchObject({ engine: "http-closed", concurrency: 3, durationS: 2 });
    expect("requests" in out && out.requests !== undefined).toBe(false);
    expect(ZScenarioSpec.safeParse(out).success).toBe(true);
  });

  it("refuses an override the engine has no use for, naming the field", () => {
    expect(() => applyLaunchOverrides(closed, { rate: 5 })).toThrow(LaunchOverrideError);
    try {
      applyLaunchOverrides(chat, { concurrency: 5 });
    } catch (err) {
      expect((err as LaunchOverrideError).field).toBe("concurrency");
    }
  });

  it("makes a chat given a duration last it instead of ending after its messages", () => {
    expect(chat).toMatchObject({ endsAfter: "messages", durationS: 60 });
    const out = applyLaunchOverrides(chat, { durationS: 9 });
    expect(out).toMatchObject({ durationS: 9, endsAfter: "duration", messagesPerUser: 5 });
    expect(ZScenarioSpec.safeParse(out).success).toBe(true);
    expect(chat).toMatchObject({ endsAfter: "messages" });
  });

  it("words bad values in plain language", () => {
    const parsed = ZLaunchOverrides.safeParse({ rate: 0, concurrency: 1.5 });
    expect(parsed.success).toBe(false);
    const messages = parsed.error?.issues.map((i) => i.message) ?? [];
    expect(messages).toContain("rate must be above 0");
    expect(messages).toContain("concurrency must be a whole number");
  });
});
