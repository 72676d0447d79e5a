import { IMPORT_FORMATS } from "@benchboard/core/importers";
import { describe, expect, it } from "vitest";
import { UPLOAD_CHOICE_ORDER, UPLOAD_CHOICES } from "./upload-formats";

describe("the upload form's formats", () => {
  it("offers every importer the server has, once each, plus detection and native JSON", () => {
    expect([...UPLOAD_CHOICE_ORDER].sort()).toEqual(["auto", "native", ...IMPORT_FORMATS].sort());
    expect(new Set(UPLOAD_CHOICE_ORDER).size).toBe(UPLOAD_CHOICE_ORDER.length);
    expect(Object.keys(UPLOAD_CHOICES).sort()).toEqual([...UPLOAD_CHOICE_ORDER].sort());
  });

  it("says which file each format wants", () => {
    for (const choice of UPLOAD_CHOICE_ORDER) expect(UPLOAD_CHOICES[choice].hint.length).toBeGreaterThan(10);
  });
});
