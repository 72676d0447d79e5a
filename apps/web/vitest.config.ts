import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "web",
    include: ["src/**/*.test.ts", "e2e/**/*.e2e.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Browser tests start the whole product: one file at a time keeps a 2-core machine responsive.
    fileParallelism: false,
  },
});
