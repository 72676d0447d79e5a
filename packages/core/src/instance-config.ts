import { z } from "zod";
import { ZKnobs } from "./knobs";

/**
 * An instance config's fields as the API takes them: the server validates with this schema and
 * the editor checks with it before sending, so both give the same message at the same field.
 */
export const ZConfigName = z.string().trim().min(1, "name is required").max(80, "name is at most 80 characters");

// zod 4 gives a number's `error` for every failed check: each bound has its own words.
export const ZInstanceConfigFields = z.object({
  name: ZConfigName,
  instanceType: z.string().trim().max(80, "at most 80 characters").nullish(),
  vcpu: z.number({ error: "must be a number" }).positive("must be more than 0").max(1024, "at most 1024").nullish(),
  memoryMb: z
    .number({ error: "must be a number" })
    .int("whole MiB")
    .positive("must be more than 0")
    .max(16_777_216, "at most 16,777,216 MiB (16 TiB)")
    .nullish(),
  cpuLimit: z.number({ error: "must be a number" }).positive("must be more than 0").max(1024, "at most 1024").nullish(),
  replicas: z
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "at least 1")
    .max(1000, "at most 1000")
    .default(1),
  knobs: ZKnobs.default({}),
});
export type TInstanceConfigFields = z.infer<typeof ZInstanceConfigFields>;
