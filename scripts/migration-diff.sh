#!/usr/bin/env bash
# Write the SQL that takes the database from the committed schema (git HEAD) to the working copy's
# prisma/schema.prisma, as a new migration folder. The Prisma 7 CLI needs a native schema engine
# that may be unavailable offline, so this runs Prisma 6.19's JS-engine `migrate diff` from a
# scratch directory (nothing is added to the project's dependencies). Needs a reachable database
# (any; it is only used to satisfy the CLI), given by DATABASE_URL or the local default.
# Usage: scripts/migration-diff.sh <migration_name> [from-git-ref]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME="${1:?usage: migration-diff.sh <migration_name> [from-git-ref]}"
REF="${2:-HEAD}"
TOOL="${BENCHBOARD_PRISMA6_DIR:-$ROOT/.data/prisma6}"
export DATABASE_URL="${DATABASE_URL:-postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard}"
export PRISMA_QUERY_ENGINE_LIBRARY=/bin/true PRISMA_SCHEMA_ENGINE_BINARY=/bin/true CHECKPOINT_DISABLE=1

if [ ! -x "$TOOL/node_modules/.bin/prisma" ]; then
  mkdir -p "$TOOL"
  (cd "$TOOL" && npm init -y >/dev/null && npm i --no-audit --no-fund prisma@6.19.3 @prisma/adapter-pg@7.10.0 pg@8.23.1 >/dev/null)
fi
cat >"$TOOL/prisma.config.ts" <<'TS'
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";
export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "to.prisma",
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL }),
} as never);
TS
# Prisma 6 wants a url in the datasource and the classic generator.
to_v6() { sed -e 's#^\(\s*provider = "postgresql"\)#\1\n  url = env("DATABASE_URL")#' -e '/^\s*output\s*=/d' -e '/moduleFormat/d' -e 's#"prisma-client"#"prisma-client-js"#'; }
to_v6 <"$ROOT/prisma/schema.prisma" >"$TOOL/to.prisma"
if git -C "$ROOT" cat-file -e "$REF:prisma/schema.prisma" 2>/dev/null; then
  git -C "$ROOT" show "$REF:prisma/schema.prisma" | to_v6 >"$TOOL/from.prisma"
  FROM=(--from-schema-datamodel from.prisma)
else
  FROM=(--from-empty)
fi
DIR="$ROOT/prisma/migrations/$(date -u +%Y%m%d%H%M%S)_$NAME"
SQL="$(cd "$TOOL" && npx prisma migrate diff "${FROM[@]}" --to-schema-datamodel to.prisma --script)"
if [ -z "$SQL" ] || grep -q "This is an empty migration" <<<"$SQL"; then echo "no schema changes"; exit 0; fi
mkdir -p "$DIR"
printf '%s\n' "$SQL" >"$DIR/migration.sql"
echo "wrote $DIR/migration.sql"
