import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "./root";

describe("tRPC error answers", () => {
  it("say invalid input as fields and messages, not as the issues' JSON", () => {
    const parsed = z
      .object({ name: z.string().min(1, "required"), spec: z.object({ rate: z.number().max(10, "at most 10") }) })
      .safeParse({ name: "", spec: { rate: 50 } });
    if (parsed.success) throw new Error("the input should be refused");
    // What tRPC raises when a procedure's input schema refuses the input.
    const error = new TRPCError({
      code: "BAD_REQUEST",
      message: JSON.stringify(parsed.error.issues),
      cause: parsed.error,
    });
    const format = appRouter._def._config.errorFormatter;
    const shape = format({
      error,
      type: "mutation",
      path: "scenario.create",
      input: undefined,
      ctx: undefined,
      shape: {
        code: -32600,
        message: error.message,
        data: { code: "BAD_REQUEST", httpStatus: getHTTPStatusCodeFromError(error), path: "scenario.create" },
      },
    }) as { message: string; data: { fieldErrors: Record<string, string[]> } };
    expect(shape.message).toBe("name: required; spec.rate: at most 10");
    expect(shape.message).not.toContain("{");
    expect(shape.data.fieldErrors).toEqual({ name: ["required"], "spec.rate": ["at most 10"] });
  });
});
