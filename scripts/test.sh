#!/usr/bin/env bash
# The full test suite from a fresh machine: installs what is missing, starts the services,
# then typechecks, lints and runs every test (unit, integration, browser) in one vitest run.
# Ends with the line "N passed, N failed" and exits non-zero on any failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
mkdir -p .data .ci

ensure_node
ensure_pnpm
ensure_secret_key
bash scripts/services.sh || die "services did not start"
ensure_deps
ensure_chromium
ensure_vegeta
ensure_helm_tools
ensure_schemathesis
build_web
(cd packages/db && node --import tsx ../../scripts/drop-test-databases.ts) || true

checks_passed=0
checks_failed=0
step "typecheck"
if pnpm --silent turbo run typecheck --output-logs=errors-only; then checks_passed=$((checks_passed + 1)); else checks_failed=$((checks_failed + 1)); fi
step "lint"
if pnpm --silent biome check . --diagnostic-level=error >.data/lint.log 2>&1; then checks_passed=$((checks_passed + 1)); else cat .data/lint.log; checks_failed=$((checks_failed + 1)); fi

step "tests"
rm -f .ci/results.json
pnpm --silent vitest run --reporter=default --reporter=json --outputFile.json=.ci/results.json "$@"
vitest_status=$?
node scripts/summarize-results.mjs .ci/results.json "$checks_passed" "$checks_failed" "$vitest_status"
