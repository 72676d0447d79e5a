import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ZScenarioSpec } from "./index";

const message = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]?.message;

describe("plain zod messages", () => {
  it("says what is wrong in plain words", () => {
    expect(message(z.number().positive(), 0)).toBe("must be more than 0");
    expect(message(z.number().min(1), 0)).toBe("must be at least 1");
    expect(message(z.number().max(1_800), 3_600)).toBe("must be at most 1,800");
    expect(message(z.number().int(), 1.5)).toBe("must be a whole number");
    expect(message(z.number(), "ten")).toBe("must be a number");
    expect(message(z.object({ rate: z.number() }), {})).toBe("required");
    expect(message(z.string().min(1), "")).toBe("required");
    expect(message(z.string().max(3), "abcd")).toBe("must be at most 3 characters");
    expect(message(z.array(z.string()).max(2), ["a", "b", "c"])).toBe("takes at most 2 entries");
    expect(message(z.url(), "not a url")).toBe("must be a URL such as https://example.com");
    expect(message(z.enum(["GET", "POST"]), "GET!")).toBe('must be one of "GET", "POST"');
    expect(message(z.strictObject({}), { extra: 1 })).toBe("unknown field extra");
  });

  it("keeps the messages a schema writes itself", () => {
    expect(message(z.string().min(1, "name is required"), "")).toBe("name is required");
  });

  it("reaches the product's own schemas, at the field's path", () => {
    const result = ZScenarioSpec.safeParse({ engine: "http-open", rate: -5, durationS: 10 });
    const issue = result.error?.issues.find((i) => i.path.join(".") === "rate");
    expect(issue?.message).not.toMatch(/too small|expected/i);
  });
});
