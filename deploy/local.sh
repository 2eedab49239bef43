#!/usr/bin/env bash
# A team set-up on one machine: a Prefect server on loopback, a `process` work pool, the
# deployments of deploy/prefect.yaml and a worker. Afterwards, from any shell:
#   export PREFECT_API_URL=http://127.0.0.1:${PORT:-4200}/api
#   prefect deployment run eval/full --param model=baseline:random --param db=$PWD/runs.duckdb \
#       --param data_dir=$MATHPROBE_DATA_DIR --param limit=60
# or press Run on eval/full in the UI at http://127.0.0.1:${PORT:-4200}.
#
#   deploy/local.sh up | down | status
# Environment: PORT (4200), STATE_DIR (.prefect-local: PREFECT_HOME, logs, pids), POOL.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PORT:-4200}"
STATE_DIR="${STATE_DIR:-$REPO/.prefect-local}"
POOL="${POOL:-mathprobe-process}"
BIN="$REPO/.venv/bin"
export PREFECT_HOME="$STATE_DIR/home"
export PREFECT_API_URL="http://127.0.0.1:$PORT/api"
export PREFECT_SERVER_ANALYTICS_ENABLED=false
export MATHPROBE_REPO="$REPO"
mkdir -p "$STATE_DIR" "$PREFECT_HOME"

wait_healthy() {
  for _ in $(seq 1 120); do
    if "$BIN/python" -c "import urllib.request,sys; urllib.request.urlopen('$PREFECT_API_URL/health', timeout=2)" 2>/dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "Prefect server did not become healthy; see $STATE_DIR/server.log" >&2
  return 1
}

start_bg() {  # name, command...
  local name=$1; shift
  nohup "$@" >"$STATE_DIR/$name.log" 2>&1 &
  echo $! >"$STATE_DIR/$name.pid"
}

stop_bg() {
  local pidfile="$STATE_DIR/$1.pid"
  if [[ -f $pidfile ]]; then
    local pid; pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  fi
}

case "${1:-up}" in
  up)
    test -x "$BIN/prefect" || make -C "$REPO" install
    start_bg server "$BIN/prefect" server start --host 127.0.0.1 --port "$PORT"
    wait_healthy
    "$BIN/prefect" work-pool inspect "$POOL" >/dev/null 2>&1 \
      || "$BIN/prefect" work-pool create "$POOL" --type process
    (cd "$REPO" && "$BIN/prefect" --no-prompt deploy --prefect-file deploy/prefect.yaml --all)
    start_bg worker "$BIN/prefect" worker start --pool "$POOL" --type process
    echo "Prefect UI: http://127.0.0.1:$PORT   (export PREFECT_API_URL=$PREFECT_API_URL)"
    ;;
  down)
    stop_bg worker
    stop_bg server
    ;;
  status)
    for name in server worker; do
      if [[ -f $STATE_DIR/$name.pid ]] && kill -0 "$(cat "$STATE_DIR/$name.pid")" 2>/dev/null; then
        echo "$name: running (pid $(cat "$STATE_DIR/$name.pid"), log $STATE_DIR/$name.log)"
      else
        echo "$name: stopped"
      fi
    done
    ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
