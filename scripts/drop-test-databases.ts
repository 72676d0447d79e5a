import { dropStaleTestDatabases } from "../packages/db/src/testing.ts";

// Test databases left behind by interrupted runs are dropped before a new run.
const dropped = await dropStaleTestDatabases();
if (dropped) console.log(`dropped ${dropped} stale test database(s)`);
