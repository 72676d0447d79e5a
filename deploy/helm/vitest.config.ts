import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "helm",
    include: ["*.test.ts"],
    // The first run builds helm and kubeconform and converts the schemas (see tools.ts).
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
