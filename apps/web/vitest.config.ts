import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: {
    // Route handlers are imported as Next.js runs them on the server: `~/` paths, and the
    // server-only marker resolved to its server build (an empty module).
    tsconfigPaths: true,
    alias: [
      {
        find: /^server-only$/,
        replacement: fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
      },
    ],
  },
  test: {
    name: "web",
    include: ["src/**/*.test.ts", "e2e/**/*.e2e.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Browser tests start the whole product: one file at a time keeps a 2-core machine responsive.
    fileParallelism: false,
  },
});
