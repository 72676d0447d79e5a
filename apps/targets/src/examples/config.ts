import { z } from "zod";
import { intKnob } from "../lib/config-store";

export const ZExamplesConfig = z.strictObject({
  /** PostgreSQL connections for the medium example. */
  db_pool_size: intKnob(1, 100, 10),
  /** Image resizes running at once in the heavy example; more wait their turn. */
  max_concurrent_resizes: intKnob(1, 64, 4),
  /** libvips threads per resize; 0 keeps sharp's default (one per core). */
  image_threads: intKnob(0, 64, 0),
  /** PNG zlib level of resized images: CPU per request against response size. */
  png_compression_level: intKnob(0, 9, 6),
});

export type TExamplesConfig = z.infer<typeof ZExamplesConfig>;

export const ZCreateCustomerInput = z.strictObject({
  firstName: z.string().trim().min(1, "is required").max(100),
  lastName: z.string().trim().min(1, "is required").max(100),
  email: z.email("must be an email address"),
  phone: z.string().trim().min(1, "is required").max(40),
  priority: z.number({ error: "must be an integer from 1 to 5" }).int().min(1).max(5),
  userEmail: z.email("must be an email address"),
});
export type TCreateCustomerInput = z.infer<typeof ZCreateCustomerInput>;

export const ZListCustomersInput = z.object({ email: z.email("must be an email address") });
