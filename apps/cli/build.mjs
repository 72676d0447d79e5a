// Bundles the CLI and everything it uses (commander, zod, yaml, the core package's importers)
// into one ES module with no runtime dependencies, for the package `npm pack` makes.
import { chmod, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

const outfile = here("./dist/benchboard.js");

await rm(here("./dist"), { recursive: true, force: true });
await build({
  // The engine's thread runs a module of its own (packages/loadgen/src/engine-thread.ts), found
  // beside the bundle.
  entryPoints: [
    { in: here("./src/cli.ts"), out: "benchboard" },
    { in: here("../../packages/loadgen/src/engine-thread-entry.ts"), out: "engine-thread-entry" },
  ],
  outdir: here("./dist"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  tsconfig: here("./tsconfig.json"),
  // Bundled CommonJS modules call require() for Node's built-ins.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __bbCreateRequire } from 'node:module';\nconst require = __bbCreateRequire(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
await chmod(outfile, 0o755);
