#!/usr/bin/env bash
# Stop the web app, worker and reference targets started by up.sh (services keep running;
# `scripts/services.sh stop` stops Redis and RabbitMQ).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quiet="${1:-}"
for pidfile in "$ROOT"/.data/pids/*.pid; do
  [ -f "$pidfile" ] || continue
  pid="$(cat "$pidfile")"
  # up.sh starts each process as the leader of its own process group: stop the whole group, so
  # children (the Next.js server under `next start`) go too.
  if kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do
      kill -0 -- "-$pid" 2>/dev/null || kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    [ "$quiet" = "--quiet" ] || echo "stopped $(basename "$pidfile" .pid)"
  fi
  rm -f "$pidfile"
done
