#!/usr/bin/env bash
# One command from a fresh machine to a running Benchboard with demo data:
# installs what is missing, starts PostgreSQL/Redis/RabbitMQ (unless their URLs are given),
# migrates, loads demo data, builds and starts the web app, the worker and the reference targets.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
mkdir -p .data/logs .data/pids
PORT="${PORT:-3000}"
# A local install's operator lets its own organization target the reference targets (and
# RabbitMQ's management API, which the chat demo's monitor reads); set BENCHBOARD_ALLOWED_TARGETS
# to choose otherwise. Nothing private is opened to tenants (other organizations) unless
# BENCHBOARD_TENANT_TARGETS lists it.
export BENCHBOARD_ALLOWED_TARGETS="${BENCHBOARD_ALLOWED_TARGETS-127.0.0.1:${BENCHBOARD_GATEWAY_PORT:-4100},127.0.0.1:${BENCHBOARD_CHAT_PORT:-4200},127.0.0.1:${BENCHBOARD_EXAMPLES_PORT:-4300},127.0.0.1:15672}"
export BENCHBOARD_TENANT_TARGETS="${BENCHBOARD_TENANT_TARGETS-}"
# Without a mail server, account mail (sign-up confirmations, reset links) goes to this file,
# readable by this user only.
export BENCHBOARD_MAIL_LOG="${BENCHBOARD_MAIL_LOG:-$ROOT/.data/mail.log}"

ensure_node
ensure_pnpm
ensure_secret_key
ensure_setup_token
bash scripts/services.sh
ensure_deps
step "migrating the database"
pnpm --silent db:migrate
step "loading demo data"
pnpm --silent db:seed
build_web
bash scripts/down.sh --quiet

# Each process runs in a session (and process group) of its own whose id is the recorded pid, so
# down.sh stops it together with any children it forks.
start() { # name dir command...
  local name="$1" dir="$2"
  shift 2
  (cd "$dir" || exit 1; exec setsid nohup "$@" >"$ROOT/.data/logs/$name.log" 2>&1) &
  echo $! >"$ROOT/.data/pids/$name.pid"
}
# Something else listening on a port we need would answer the health checks below in our place.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ports=("$PORT")
[ -f apps/targets/src/main.ts ] && ports+=("${BENCHBOARD_GATEWAY_PORT:-4100}" "${BENCHBOARD_CHAT_PORT:-4200}" "${BENCHBOARD_EXAMPLES_PORT:-4300}")
for port in "${ports[@]}"; do
  port_taken "$port" && die "port $port is already in use (another Benchboard? stop it with scripts/down.sh in its checkout, or set PORT / BENCHBOARD_*_PORT)"
done
step "starting the reference targets, the worker and the web app"
if [ -f apps/targets/src/main.ts ]; then start targets apps/targets node --import tsx src/main.ts; fi
start worker workers/runner node --import tsx src/index.ts
# A larger young generation (see README, "Workers, shards and live runs"): keep in step with
# apps/web/package.json's start script.
start web apps/web node --max-semi-space-size=64 server.mjs -p "$PORT" -H "${HOST:-127.0.0.1}"

for _ in $(seq 1 100); do
  curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break
  sleep 0.3
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" || { tail -20 .data/logs/web.log; die "the web app did not start (log: .data/logs/web.log)"; }
if [ -f .data/pids/targets.pid ]; then
  for port in "${BENCHBOARD_GATEWAY_PORT:-4100}" "${BENCHBOARD_CHAT_PORT:-4200}" "${BENCHBOARD_EXAMPLES_PORT:-4300}"; do
    for _ in $(seq 1 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port/health" 2>/dev/null && break; sleep 0.2; done
    curl -fsS -o /dev/null "http://127.0.0.1:$port/health" || { tail -20 .data/logs/targets.log; die "a reference target did not start (log: .data/logs/targets.log)"; }
  done
fi
printf '\n\033[1;32mBenchboard is running at http://127.0.0.1:%s\033[0m\n' "$PORT"
# The setup link only while the install's own organization has no owner (the operator) yet, as
# sign-up decides (packages/db/src/queries/auth.ts); when that cannot be read, it is shown.
owners="$(psql "${DATABASE_URL:-postgresql://benchboard:benchboard@127.0.0.1:5432/benchboard}" -Atc \
  "select count(*) from \"Membership\" m join \"Organization\" o on o.id = m.\"orgId\" where o.slug = 'local' and m.role = 'owner'" 2>/dev/null || true)"
if [ -z "$owners" ] || [ "$owners" = "0" ]; then
  printf 'First visit: create the operator account (the first one owns this install) at\n'
  printf '  http://127.0.0.1:%s/sign-up?setup=%s\n' "$PORT" "$BENCHBOARD_SETUP_TOKEN"
  printf 'That link carries the one-time setup token; sign-up without it cannot create the first account.\n'
else
  printf 'Sign in at http://127.0.0.1:%s/sign-in (this install already has its operator account).\n' "$PORT"
fi
if [ -f .data/pids/targets.pid ]; then
  printf 'Reference targets: gateway :%s, chat :%s, examples :%s. ' \
    "${BENCHBOARD_GATEWAY_PORT:-4100}" "${BENCHBOARD_CHAT_PORT:-4200}" "${BENCHBOARD_EXAMPLES_PORT:-4300}"
fi
[ -z "${BENCHBOARD_SMTP_URL:-}" ] && printf 'No mail server set: account mail (sign-up and reset links) is in %s.\n' "$BENCHBOARD_MAIL_LOG"
printf 'Logs: .data/logs/   Stop: scripts/down.sh\n'
