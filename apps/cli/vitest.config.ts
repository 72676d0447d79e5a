import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "cli",
    include: ["src/**/*.test.ts"],
    // Each test starts the real command: node, tsx's loader and the TypeScript sources.
    testTimeout: 30_000,
  },
});
