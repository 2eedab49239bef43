#!/usr/bin/env bash
# A team set-up on one machine: a Prefect server on loopback (on PostgreSQL with --postgres, as
# Prefect recommends for teams; SQLite otherwise), a `process` work pool, the provider limits
# (Prefect global concurrency limits mathprobe-<provider>, from MATHPROBE_MAX_CONCURRENCY_*),
# the deployments of prefect.yaml (beside this script) and N workers. It runs from a checkout
# (deploy/local.sh, with the checkout's .venv) or from an installed mathprobe (`mathprobe
# deploy up ...` runs this script from the package, with the Python that runs mathprobe).
# Afterwards, from any shell:
#   export PREFECT_API_URL=$(local.sh status --api-url)     # http://127.0.0.1:PORT/api
#   prefect deployment run eval/full            # the defaults: data and store set at `up`
# or press Run on eval/full (or eval/sweep) in the UI at http://127.0.0.1:PORT.
# Workers on other machines: `pip install mathprobe` there, then `prefect worker start --pool
# mathprobe-process` with PREFECT_API_URL pointing here (and the data at the same path, or
# data_dir given per run).
#
#   local.sh up [--port PORT] [--workers N] [--postgres] [--data-dir DIR] [--db STORE]
#   local.sh down | status [--api-url]
# --port: the server's port on 127.0.0.1 (default $PORT, else 4200; one in use is refused at
# once, naming --port); `status --api-url` prints the server's API URL (for PREFECT_API_URL).
# --data-dir (default $MATHPROBE_DATA_DIR, required) and --db (default $MATHPROBE_DB, else
# mathprobe.duckdb in the current folder) become the deployments' defaults.
# Environment: PORT (4200), STATE_DIR (.prefect-local in the checkout, else in the current
# folder: PREFECT_HOME, logs, pids), POOL (mathprobe-process), PG_PORT (5433, with
# --postgres), WORKER_LIMIT (flow runs at once per worker; default none), BIN (the folder of
# the python, prefect and mathprobe to use; default the checkout's .venv/bin).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO=""
if [[ -f $HERE/../pyproject.toml && -f $HERE/../flows/eval.py ]]; then
  REPO="$(cd "$HERE/.." && pwd)"
fi
STATE_DIR="${STATE_DIR:-${REPO:-$PWD}/.prefect-local}"
# the port of the server `up` started (recorded), else $PORT, else 4200; `up --port` overrides
if [[ ${1:-up} != up && -f $STATE_DIR/port ]]; then PORT="$(cat "$STATE_DIR/port")"; fi
PORT="${PORT:-4200}"
if [[ ${1:-up} == up ]]; then
  for ((i = 2; i <= $#; i++)); do
    if [[ ${!i} == --port ]]; then j=$((i + 1)); PORT="${!j:?--port PORT}"; fi
  done
fi
POOL="${POOL:-mathprobe-process}"
PG_PORT="${PG_PORT:-5433}"
if [[ -z ${BIN:-} ]]; then
  if [[ -n $REPO ]]; then BIN="$REPO/.venv/bin"
  else BIN="$(dirname "$(command -v prefect || echo /nonexistent/prefect)")"; fi
fi
export PREFECT_HOME="$STATE_DIR/home"
export PREFECT_API_URL="http://127.0.0.1:$PORT/api"
export PREFECT_SERVER_ANALYTICS_ENABLED=false
mkdir -p "$STATE_DIR" "$PREFECT_HOME"

wait_healthy() {
  for _ in $(seq 1 240); do
    if "$BIN/python" -c "import urllib.request,sys; urllib.request.urlopen('$PREFECT_API_URL/health', timeout=2)" 2>/dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "Prefect server did not become healthy; see $STATE_DIR/server.log" >&2
  return 1
}

start_bg() {  # name, command...
  # A script's background commands inherit SIGINT ignored; a Prefect worker turns SIGTERM into
  # SIGINT to itself, so it would never stop (stop_bg then waited out its 5 s for each worker).
  # `trap - INT` gives the command SIGINT back: a worker stops cleanly in under a second.
  local name=$1; shift
  (trap - INT; exec nohup "$@") >"$STATE_DIR/$name.log" 2>&1 &
  echo $! >"$STATE_DIR/$name.pid"
}

stop_bg() {  # SIGTERM to all named at once, SIGKILL to any left after 5 s (a worker waits for
             # nothing we need); stopping them one after another took up to 5 s each
  local name pids=() pidfile
  for name in "$@"; do
    pidfile="$STATE_DIR/$name.pid"
    [[ -f $pidfile ]] || continue
    pids+=("$(cat "$pidfile")")
    rm -f "$pidfile"
  done
  [[ ${#pids[@]} -gt 0 ]] || return 0
  kill "${pids[@]}" 2>/dev/null || true
  local _ alive pid
  for _ in $(seq 1 50); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive == 1 ]] || break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}

workers() { ls "$STATE_DIR" 2>/dev/null | sed -n 's/^\(worker-[0-9]*\)\.pid$/\1/p'; }

case "${1:-up}" in
  up)
    shift || true
    n_workers=1; postgres=0
    data_dir="${MATHPROBE_DATA_DIR:-}"; db="${MATHPROBE_DB:-mathprobe.duckdb}"
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --workers) n_workers=${2:?--workers N}; shift 2 ;;
        --port) shift 2 ;;                      # read above: PREFECT_API_URL is made of it
        --postgres) postgres=1; shift ;;
        --data-dir) data_dir=${2:?--data-dir DIR}; shift 2 ;;
        --db) db=${2:?--db STORE}; shift 2 ;;
        *) echo "usage: $0 up [--port PORT] [--workers N] [--postgres] [--data-dir DIR] [--db STORE]" >&2; exit 2 ;;
      esac
    done
    if [[ -z $data_dir ]]; then
      echo "error: no data directory: pass --data-dir DIR or set MATHPROBE_DATA_DIR (the folder that holds wemath/, conceptmath/, cmmath/); the deployments run with it by default" >&2
      exit 2
    fi
    if [[ ! -d $data_dir ]]; then
      echo "error: --data-dir $data_dir: no such directory" >&2; exit 2
    fi
    if [[ ! $PORT =~ ^[0-9]+$ ]] || (( PORT < 1 || PORT > 65535 )); then
      echo "error: --port $PORT: must be a TCP port, 1..65535" >&2; exit 2
    fi
    if ! "${BIN}/python" -c "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1])))" "$PORT" 2>/dev/null; then
      echo "error: --port $PORT: already in use on 127.0.0.1 (another Prefect server?); choose another with --port" >&2; exit 2
    fi
    if [[ ! -x $BIN/prefect && -n $REPO ]]; then make -C "$REPO" install; fi
    if [[ ! -x $BIN/prefect ]]; then
      echo "error: no prefect in $BIN: install mathprobe there, or set BIN to its folder" >&2; exit 2
    fi
    case "$db" in ducklake:*|/*) ;; *) db="$PWD/$db" ;; esac
    export MATHPROBE_DATA_DIR="$(cd "$data_dir" && pwd -P)" MATHPROBE_DB="$db"
    if [[ $postgres == 1 ]]; then
      PG_DIR="${PG_DIR:-$STATE_DIR/postgres}"
      "$HERE/postgres.sh" start "$PG_DIR" "$PG_PORT" prefect
      echo "$PG_DIR" >"$STATE_DIR/postgres.dir"
      export PREFECT_SERVER_DATABASE_CONNECTION_URL="postgresql+asyncpg://postgres@127.0.0.1:$PG_PORT/prefect"
    fi
    echo "$PORT" >"$STATE_DIR/port"
    start_bg server "$BIN/prefect" server start --host 127.0.0.1 --port "$PORT"
    wait_healthy
    "$BIN/prefect" work-pool inspect "$POOL" >/dev/null 2>&1 \
      || "$BIN/prefect" work-pool create "$POOL" --type process >/dev/null
    "$BIN/python" -m mathprobe.runs.limits
    "$BIN/prefect" --no-prompt deploy --prefect-file "$HERE/prefect.yaml" --all --pool "$POOL"
    limit=()
    [[ -n ${WORKER_LIMIT:-} ]] && limit=(--limit "$WORKER_LIMIT")
    for i in $(seq 1 "$n_workers"); do
      start_bg "worker-$i" "$BIN/prefect" worker start --pool "$POOL" --type process \
        --name "mathprobe-worker-$i" "${limit[@]}"
    done
    echo "Prefect UI: http://127.0.0.1:$PORT   (export PREFECT_API_URL=$PREFECT_API_URL); $n_workers worker(s); runs read $MATHPROBE_DATA_DIR and write $MATHPROBE_DB by default"
    ;;
  down)
    # shellcheck disable=SC2046
    stop_bg $(workers)
    stop_bg server
    rm -f "$STATE_DIR/port"
    if [[ -f $STATE_DIR/postgres.dir ]]; then
      "$HERE/postgres.sh" stop "$(cat "$STATE_DIR/postgres.dir")"
      rm -f "$STATE_DIR/postgres.dir"
    fi
    ;;
  status)
    if [[ ${2:-} == --api-url ]]; then      # for `export PREFECT_API_URL=$(... status --api-url)`
      if [[ -f $STATE_DIR/server.pid ]] && kill -0 "$(cat "$STATE_DIR/server.pid")" 2>/dev/null; then
        echo "$PREFECT_API_URL"; exit 0
      fi
      echo "error: no server running here (STATE_DIR $STATE_DIR): \`up\` starts one" >&2; exit 1
    fi
    for name in server $(workers); do
      if [[ -f $STATE_DIR/$name.pid ]] && kill -0 "$(cat "$STATE_DIR/$name.pid")" 2>/dev/null; then
        echo "$name: running (pid $(cat "$STATE_DIR/$name.pid"), log $STATE_DIR/$name.log)$([[ $name == server ]] && echo ", UI http://127.0.0.1:$PORT, API $PREFECT_API_URL")"
      else
        echo "$name: stopped"
      fi
    done
    ;;
  *) echo "usage: $0 up [--port PORT] [--workers N] [--postgres] [--data-dir DIR] [--db STORE] | down | status [--api-url]" >&2; exit 2 ;;
esac
