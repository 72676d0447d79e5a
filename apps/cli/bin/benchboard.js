#!/usr/bin/env node
// The CLI ships as TypeScript source like every workspace package; tsx's loader compiles it (and
// @benchboard/core) on the fly, so there is no build step between editing and running.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
