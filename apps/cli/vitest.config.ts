import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

const core = fileURLToPath(new URL("../../packages/core/src/", import.meta.url));
const loadgen = fileURLToPath(new URL("../../packages/loadgen/src/", import.meta.url));

export default defineProject({
  // The core package's sources by path, as tsconfig.json maps them (the CLI bundles them).
  resolve: {
    alias: [
      { find: /^@benchboard\/core$/, replacement: `${core}index.ts` },
      { find: /^@benchboard\/core\/importers$/, replacement: `${core}importers/index.ts` },
      { find: /^@benchboard\/core\/(.*)$/, replacement: `${core}$1` },
      { find: /^@benchboard\/loadgen$/, replacement: `${loadgen}index.ts` },
      { find: /^@benchboard\/loadgen\/(.*)$/, replacement: `${loadgen}$1.ts` },
    ],
  },
  test: {
    name: "cli",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Each test starts the real command: node, tsx's loader and the TypeScript sources.
    testTimeout: 30_000,
  },
});
