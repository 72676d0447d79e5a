import "server-only";
import { getDb, getRunLiveById } from "@benchboard/db";
import { env } from "~/env";
import { LiveHub } from "./live-hub";

const globals = globalThis as unknown as { benchboardLiveHub?: LiveHub };

/** The process's one live feed: one read per live run per second, shared by all its viewers. */
export function liveHub(): LiveHub {
  globals.benchboardLiveHub ??= new LiveHub((runId) => getRunLiveById(getDb(env.DATABASE_URL), runId));
  return globals.benchboardLiveHub;
}
