#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a loopback port, for the test suite's PostgreSQL pass, the
# cluster test and the benchmarks. Never touches a system cluster.
#   scripts/postgres.sh start DIR PORT   → prints the admin URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/postgres.sh stop DIR
# Needs Debian's postgresql package (apt-get install -y postgresql). As root, the server runs as
# the unprivileged `postgres` user; otherwise as the current user.
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || { echo "postgresql is not installed (apt-get install -y postgresql)" >&2; exit 1; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "$cmd" in
  start)
    port=${3:?PORT}
    mkdir -p "$dir"; chmod 755 "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    if [ ! -f "$dir/pgdata/PG_VERSION" ]; then
      as_owner mkdir -p "$dir/pgdata"; as_owner chmod 700 "$dir/pgdata"
      as_owner "$bin/initdb" -D "$dir/pgdata" --auth=trust -U postgres -E UTF8 >/dev/null
    fi
    # fsync off: a throwaway cluster for tests and benchmarks, never real data.
    as_owner "$bin/pg_ctl" -D "$dir/pgdata" -l "$dir/log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir/pgdata" -m immediate stop >/dev/null 2>&1 || true
    ;;
  *) echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
