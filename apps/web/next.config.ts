import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages ship TypeScript source (no build step between packages).
  transpilePackages: [
    "@benchboard/api",
    "@benchboard/core",
    "@benchboard/db",
    "@benchboard/jobs",
    "@benchboard/loadgen",
    "@benchboard/ui",
  ],
  // Node-only libraries stay outside the server bundle.
  serverExternalPackages: ["pg", "bullmq", "ioredis", "@prisma/adapter-pg", "@prisma/client"],
  poweredByHeader: false,
  // A separate build directory lets several builds (e.g. parallel test runs) coexist.
  distDir: process.env.BENCHBOARD_NEXT_DIST_DIR || ".next",
  typedRoutes: false,
};

export default config;
