import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ZRestLaunchInput, ZRestUploadEnvelope } from "../rest/schemas";
import { ZUploadRunInput } from "./upload";

// The upload schemas on anything a client can send: they accept or refuse with issues that name
// a field, and never throw.
const SCHEMAS = { ZUploadRunInput, ZRestUploadEnvelope, ZRestLaunchInput };

describe("upload schemas on arbitrary input", () => {
  it.each(Object.entries(SCHEMAS))("%s never throws and names a field when refusing", (_, schema) => {
    const shaped = fc.record(
      {
        project: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        content: fc.oneof(fc.string({ maxLength: 100 }), fc.jsonValue({ maxDepth: 5 })),
        format: fc.oneof(fc.constantFrom("auto", "wrk", "native", "nope"), fc.string()),
        tags: fc.oneof(fc.array(fc.string()), fc.string()),
        instanceConfig: fc.jsonValue({ maxDepth: 6 }),
        ciUrl: fc.oneof(fc.webUrl(), fc.string()),
        idempotencyKey: fc.string({ maxLength: 300 }),
        scenario: fc.string(),
        target: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(shaped, fc.anything()), (value) => {
        const parsed = schema.safeParse(value);
        if (!parsed.success) expect(parsed.error.issues.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
