import { z } from "zod";

/**
 * Zod's own messages read like a type checker ("Too small: expected number to be >0"). Every
 * boundary validates with zod, so one error map turns them into plain words; the field's name
 * comes with the issue's path ("spec.rate: must be more than 0"). Messages written on a schema
 * win over this map.
 */

const count = (n: number | bigint, one: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : `${one}s`}`;

const TYPE_WORDS: Record<string, string> = {
  number: "must be a number",
  int: "must be a whole number",
  bigint: "must be a whole number",
  string: "must be text",
  boolean: "must be true or false",
  array: "must be a list",
  object: "must be a set of named fields",
  date: "must be a date",
};

const FORMAT_WORDS: Record<string, string> = {
  url: "must be a URL such as https://example.com",
  email: "must be an email address",
  uuid: "must be a UUID",
  datetime: "must be a date and time (ISO 8601)",
  date: "must be a date (YYYY-MM-DD)",
  regex: "has characters that are not allowed here",
};

export function plainZodMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "required";
      if (issue.input === null) return "required (got nothing)";
      return TYPE_WORDS[issue.expected] ?? `must be ${issue.expected}`;
    case "too_small": {
      const min = issue.minimum as number | bigint;
      if (issue.origin === "string") return min === 1 ? "required" : `must be at least ${count(min, "character")}`;
      if (issue.origin === "array" || issue.origin === "set")
        return `needs at least ${count(min, "entry")}`.replace("entrys", "entries");
      return issue.inclusive
        ? `must be at least ${min.toLocaleString("en-US")}`
        : `must be more than ${min.toLocaleString("en-US")}`;
    }
    case "too_big": {
      const max = issue.maximum as number | bigint;
      if (issue.origin === "string") return `must be at most ${count(max, "character")}`;
      if (issue.origin === "array" || issue.origin === "set")
        return `takes at most ${count(max, "entry")}`.replace("entrys", "entries");
      return issue.inclusive
        ? `must be at most ${max.toLocaleString("en-US")}`
        : `must be less than ${max.toLocaleString("en-US")}`;
    }
    case "invalid_format":
      return FORMAT_WORDS[issue.format] ?? `is not a valid ${issue.format.replace(/_/g, " ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return `${issue.keys.length === 1 ? "unknown field" : "unknown fields"} ${issue.keys.join(", ")}`;
    case "invalid_union":
      return "does not match any of the accepted forms";
    case "invalid_key":
      return "has a key that is not allowed";
    case "invalid_element":
      return "has an entry that is not valid";
    default:
      return undefined;
  }
}

/**
 * Use the plain words for every zod schema in this process (or page). Runs when this module loads;
 * bundles that drop modules for their side effects alone (core is marked free of them) call it.
 */
export function installPlainZodMessages(): void {
  z.config({ customError: plainZodMessage });
}

installPlainZodMessages();
