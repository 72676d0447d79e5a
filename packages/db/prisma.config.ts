import { defineConfig } from "prisma/config";

// The Prisma CLI's view of the project. `prisma generate` needs no database; `prisma migrate
// deploy` (where the schema engine is available) applies the same migrations as src/migrate.ts.
export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
  datasource: {
    url: process.env.DATABASE_URL ?? "postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard",
  },
});
