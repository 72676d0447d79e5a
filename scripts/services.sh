#!/usr/bin/env bash
# Bring up the services Benchboard needs on this machine: PostgreSQL, Redis and RabbitMQ (with
# its management API). Idempotent: a service that already answers is left alone. A service whose
# URL is given (DATABASE_URL, REDIS_URL, AMQP_URL) is not started here, only checked.
# Missing servers are installed from Debian packages (needs root or sudo).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_DIR="${BENCHBOARD_STATE_DIR:-$ROOT/.data}"
mkdir -p "$STATE_DIR"

PG_USER=benchboard
PG_PASSWORD=benchboard
PG_DB=benchboard
DEFAULT_DATABASE_URL="postgresql://$PG_USER:$PG_PASSWORD@127.0.0.1:5432/$PG_DB"
RABBIT_NODE="benchboard@localhost"

say() { printf '\033[1m[services]\033[0m %s\n' "$*"; }
fail() { printf '\033[31m[services] %s\033[0m\n' "$*" >&2; exit 1; }
# URLs are printed with their password masked.
mask() { sed -E 's#(://[^:/@]+:)[^@]+@#\1***@#' <<<"$1"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    fail "need root to run: $* (install it yourself or set the service URL)"
  fi
}

apt_install() {
  say "installing Debian packages: $*"
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$STATE_DIR/apt.log" 2>&1; then
    as_root apt-get update -qq >>"$STATE_DIR/apt.log" 2>&1 || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$STATE_DIR/apt.log" 2>&1 ||
      fail "apt-get install $* failed; see $STATE_DIR/apt.log"
  fi
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # port seconds name
  for _ in $(seq 1 $(($2 * 10))); do port_open "$1" && return 0; sleep 0.1; done
  fail "$3 did not open port $1 within $2 s"
}

postgres() {
  if [ -n "${DATABASE_URL:-}" ]; then
    command -v pg_isready >/dev/null || apt_install postgresql-client
    pg_isready -q -d "$DATABASE_URL" || fail "DATABASE_URL $(mask "$DATABASE_URL") does not answer"
    say "PostgreSQL: using DATABASE_URL $(mask "$DATABASE_URL")"
    return
  fi
  command -v pg_ctlcluster >/dev/null || apt_install postgresql
  local cluster version name
  cluster="$(pg_lsclusters --no-header | sort -k1,1nr | head -n1)"
  [ -n "$cluster" ] || fail "no PostgreSQL cluster found (pg_lsclusters is empty)"
  version="$(awk '{print $1}' <<<"$cluster")"
  name="$(awk '{print $2}' <<<"$cluster")"
  if ! pg_isready -q -h 127.0.0.1 -p 5432; then
    say "starting PostgreSQL $version/$name"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" "$name" start || true
    for _ in $(seq 1 100); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 0.1; done
    pg_isready -q -h 127.0.0.1 -p 5432 || fail "PostgreSQL did not start; see /var/log/postgresql/"
  fi
  # The application role gets a password (TCP uses password auth) and CREATEDB for test databases.
  as_root su postgres -c "psql -q -v ON_ERROR_STOP=1 -d postgres" >/dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_USER') THEN
    CREATE ROLE $PG_USER LOGIN PASSWORD '$PG_PASSWORD' CREATEDB;
  END IF;
END \$\$;
SQL
  if ! as_root su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname = '$PG_DB'\" -d postgres" | grep -q 1; then
    as_root su postgres -c "createdb -O $PG_USER $PG_DB"
  fi
  say "PostgreSQL: $(mask "$DEFAULT_DATABASE_URL")"
}

redis() {
  if [ -n "${REDIS_URL:-}" ]; then
    say "Redis: using REDIS_URL $(mask "$REDIS_URL")"
    return
  fi
  if port_open 6379; then say "Redis: already running on 127.0.0.1:6379"; return; fi
  command -v redis-server >/dev/null || apt_install redis-server
  say "starting Redis"
  redis-server --daemonize yes --port 6379 --bind 127.0.0.1 --save '' --appendonly no \
    --pidfile "$STATE_DIR/redis.pid" --logfile "$STATE_DIR/redis.log" --dir "$STATE_DIR"
  wait_port 6379 10 Redis
  say "Redis: redis://127.0.0.1:6379"
}

rabbitmq() {
  if [ -n "${AMQP_URL:-}" ]; then
    say "RabbitMQ: using AMQP_URL $(mask "$AMQP_URL")"
    return
  fi
  if port_open 5672 && port_open 15672; then say "RabbitMQ: already running on 127.0.0.1:5672 (management 15672)"; return; fi
  command -v rabbitmq-server >/dev/null || apt_install rabbitmq-server
  local base="$STATE_DIR/rabbitmq"
  mkdir -p "$base/mnesia" "$base/log"
  echo '[rabbitmq_management].' >"$base/enabled_plugins"
  # Queue depth is sampled every second during runs: refresh the management stats as often.
  echo 'collect_statistics_interval = 1000' >"$base/rabbitmq.conf"
  # Debian's wrapper runs the node as user rabbitmq: it must own its state or -detached fails silently.
  id rabbitmq >/dev/null 2>&1 && as_root chown -R rabbitmq:rabbitmq "$base"
  export RABBITMQ_NODENAME="$RABBIT_NODE" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
    RABBITMQ_MNESIA_BASE="$base/mnesia" RABBITMQ_LOG_BASE="$base/log" \
    RABBITMQ_PID_FILE="$base/rabbitmq.pid" RABBITMQ_ENABLED_PLUGINS_FILE="$base/enabled_plugins" \
    RABBITMQ_CONFIG_FILE="$base/rabbitmq"
  say "starting RabbitMQ (about 10 s)"
  rabbitmq-server -detached >/dev/null 2>&1 || true
  timeout 60 rabbitmqctl -n "$RABBIT_NODE" wait "$base/rabbitmq.pid" >/dev/null 2>&1 ||
    fail "RabbitMQ did not start; see $base/log"
  wait_port 15672 30 "RabbitMQ management"
  say "RabbitMQ: amqp://127.0.0.1:5672 (management http://127.0.0.1:15672)"
}

stop_all() {
  [ -f "$STATE_DIR/redis.pid" ] && kill "$(cat "$STATE_DIR/redis.pid")" 2>/dev/null && say "Redis stopped"
  timeout 30 rabbitmqctl -n "$RABBIT_NODE" stop >/dev/null 2>&1 && say "RabbitMQ stopped"
  return 0
}

case "${1:-up}" in
  up) postgres; redis; rabbitmq ;;
  postgres) postgres ;;
  redis) redis ;;
  rabbitmq) rabbitmq ;;
  stop) stop_all ;;
  *) fail "usage: services.sh [up|postgres|redis|rabbitmq|stop]" ;;
esac
