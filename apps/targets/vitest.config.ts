import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "targets",
    // Integration tests start real servers against RabbitMQ and PostgreSQL on a loaded 2-core
    // machine; the defaults (5 s / 10 s) are too tight for a cold start under parallel files.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
