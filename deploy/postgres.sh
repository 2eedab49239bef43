#!/usr/bin/env bash
# A PostgreSQL server of its own in DIR on 127.0.0.1:PORT, for a DuckLake catalog or the Prefect
# server's database (Debian's `postgresql` package: `make postgres` installs it).
#   deploy/postgres.sh start DIR PORT [DB ...]   initdb on first use, start, create the DBs
#   deploy/postgres.sh stop DIR                  fast shutdown
# Clients connect as user `postgres` without a password from loopback only (trust); put a
# managed PostgreSQL with real credentials behind a team's shared catalog.
# PostgreSQL refuses to run as root: as root it runs as the `postgres` user, so DIR must be a
# place that user can reach (e.g. under /tmp, not under a root-only folder).
set -euo pipefail
cmd=${1:?usage: $0 start DIR PORT [DB ...] | stop DIR}
dir=$(mkdir -p "${2:?DIR}" && cd "$2" && pwd)
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[[ -x "$bindir/pg_ctl" ]] || bindir=$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/pg_ctl)")
if [[ ! -x "$bindir/pg_ctl" ]]; then
  echo "postgres.sh: no PostgreSQL server found; run 'make postgres' (Debian's postgresql package)" >&2
  exit 1
fi
as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[[ $(id -u) == 0 ]] && chown postgres "$dir"

case "$cmd" in
  start)
    port=${3:?PORT}; shift 3
    if [[ ! -f $dir/data/PG_VERSION ]]; then
      as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log"
    fi
    as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -h 127.0.0.1 -k $dir -c fsync=off" start >/dev/null
    for db in "$@"; do
      "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = '$db'" | grep -q 1 \
        || "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres "$db"
    done
    ;;
  stop)
    [[ -f $dir/data/postmaster.pid ]] && as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    ;;
  *) echo "usage: $0 start DIR PORT [DB ...] | stop DIR" >&2; exit 2 ;;
esac
