import { defineConfig } from "vitest/config";

// One suite over every package: each package directory is a vitest project with its own config
// (or the defaults), so `vitest run` here is the full test suite.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "workers/*", "deploy/*"],
  },
});
