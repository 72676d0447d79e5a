import { describe, expect, it } from "vitest";
import { z } from "zod";
import { boolKnob, ConfigError, ConfigStore, intKnob, numberKnob } from "./config-store";

const ZKnobs = z.strictObject({
  buffer_size: intKnob(1, 100, 10),
  error_rate: numberKnob(0, 1, 0),
  drop: boolKnob(false),
});

describe("ConfigStore", () => {
  it("fills defaults and reads numbers and booleans given as strings", () => {
    const store = new ConfigStore(ZKnobs, { buffer_size: "20", drop: "true" });
    expect(store.get()).toEqual({ buffer_size: 20, error_rate: 0, drop: true });
  });

  it("PUT semantics reset knobs not given; PATCH keeps them", async () => {
    const store = new ConfigStore(ZKnobs, { buffer_size: 50, error_rate: 0.5 });
    await store.apply({ error_rate: 0.25 }, "merge");
    expect(store.get()).toEqual({ buffer_size: 50, error_rate: 0.25, drop: false });
    await store.apply({ drop: true }, "replace");
    expect(store.get()).toEqual({ buffer_size: 10, error_rate: 0, drop: true });
  });

  it("refuses bad input naming each field and changes nothing", async () => {
    const store = new ConfigStore(ZKnobs, { buffer_size: 50 });
    const before = store.get();
    const failure = await store
      .apply({ buffer_size: 0, error_rate: "lots", bufer: 1 }, "merge")
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    const fields = (failure as ConfigError).issues.map((i) => i.field).sort();
    expect(fields).toEqual(["bufer", "buffer_size", "error_rate"]);
    expect((failure as ConfigError).message).toContain("buffer_size: must be an integer from 1 to 100");
    expect(store.get()).toBe(before);
    await expect(store.apply([1, 2], "replace")).rejects.toThrow(/body: must be a JSON object/);
    await expect(store.apply({ buffer_size: 2.5 }, "replace")).rejects.toThrow(/buffer_size/);
    await expect(store.apply({ drop: "yes" }, "replace")).rejects.toThrow(/drop: must be true or false/);
    expect(store.get()).toBe(before);
  });

  it("runs change listeners in order, one apply at a time", async () => {
    const store = new ConfigStore(ZKnobs);
    const seen: string[] = [];
    store.onChange(async (next, previous) => {
      seen.push(`start ${previous.buffer_size}->${next.buffer_size}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen.push(`end ${next.buffer_size}`);
    });
    await Promise.all([store.apply({ buffer_size: 1 }, "merge"), store.apply({ buffer_size: 2 }, "merge")]);
    expect(seen).toEqual(["start 10->1", "end 1", "start 1->2", "end 2"]);
  });
});
