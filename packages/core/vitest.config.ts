import { defineProject } from "vitest/config";

// Without its own config, `vitest run` in this package picks up the root config, whose project
// globs do not resolve from here.
export default defineProject({
  test: {
    name: "core",
    include: ["src/**/*.test.ts"],
  },
});
