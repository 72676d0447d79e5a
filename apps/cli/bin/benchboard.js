#!/usr/bin/env node
// Runs the CLI from its TypeScript sources inside the repository (tests, development): tsx's
// loader compiles it and the core package's sources, resolved through tsconfig.json's paths.
// The installable package runs dist/benchboard.js instead, built by build.mjs.
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
