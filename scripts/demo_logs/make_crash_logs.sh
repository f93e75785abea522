#!/bin/sh
# The crash-recovery demo entries (seed 003's experiment at a small scale): a private database
# server with its own data directory, port and socket; iibench inserting at --max-rate; the
# server killed with SIGKILL once the log reports ROWS rows; the restart timed until the
# server accepts connections and the table answers. Prints one line per run with the figures
# an entrant declares; the insert run's output goes to OUT/c-crash-<server>-<rate>.log.
# Usage (repository root, after `make -C runner/iibench`): scripts/demo_logs/make_crash_logs.sh
set -eu
IIBENCH=${IIBENCH:-runner/iibench/iibench}
OUT=${OUT:-submissions/demo_logs}
PGBIN=${PGBIN:-$(pg_config --bindir)}
PG_PORT=${PG_PORT:-55432}
MY_PORT=${MY_PORT:-53306}
WORK=$(mktemp -d)
SERVER_PID=""
# PostgreSQL refuses to run as root: then its private server runs as the postgres user.
AS_PG=""
if [ "$(id -u)" = 0 ]; then
    AS_PG="runuser -u postgres --"
    chmod 755 "$WORK"
    mkdir "$WORK/pg" && chown postgres "$WORK/pg"
fi

now() { date +%s.%N; }

stop_server() {  # SIGKILL to the server and the processes it started, by their ids
    [ -n "$SERVER_PID" ] || return 0
    kill -KILL "$SERVER_PID" $(pgrep -P "$SERVER_PID" || true) 2>/dev/null || true
    while kill -0 "$SERVER_PID" 2>/dev/null; do sleep 0.05; done
    SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT

# --- PostgreSQL: initdb + pg_ctl ------------------------------------------------------------
pg_start() {
    $AS_PG "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/server.log" -w \
        -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1" start >/dev/null
    SERVER_PID=$(head -1 "$WORK/pg/postmaster.pid")
}
pg_answers() {
    psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d crash -Atqc \
        "SELECT 1 FROM mypurchases LIMIT 1" >/dev/null 2>&1
}

# --- MariaDB: mariadb-install-db + mariadbd -------------------------------------------------
my_start() {
    mariadbd --no-defaults --user="$(id -un)" --datadir="$WORK/my" --port="$MY_PORT" \
        --bind-address=127.0.0.1 --socket="$WORK/my.sock" --pid-file="$WORK/my.pid" \
        --log-error="$WORK/my.err" &
    SERVER_PID=$!
}
my_answers() {
    mariadb --no-defaults -h 127.0.0.1 -P "$MY_PORT" -u root -e \
        "SELECT 1 FROM crash.mypurchases LIMIT 1" >/dev/null 2>&1
}

# crash_run SERVER URL RATE ROWS: insert at RATE (0: flat out), kill the server at ROWS rows,
# restart it and time until the table answers.
crash_run() {
    server=$1 url=$2 rate=$3 rows=$4
    log="$OUT/c-crash-$server-$rate.log"
    "$IIBENCH" --db "$url" --rows 100000000 --max-rate "$rate" --report-every 10000 >"$log" &
    bench=$!
    until awk -v want="$rows" '$1 ~ /^[0-9]+$/ && $1 >= want { found = 1 } END { exit !found }' "$log"; do
        sleep 0.2
    done
    stop_server
    wait "$bench" || true  # it fails: the server is gone
    start=$(now)
    "${server}_start"
    until "${server}_answers"; do sleep 0.05; done
    seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    summary=$(grep '^# summary' "$log")
    echo "$server rate=$rate recovery_seconds=$seconds $summary"
}

$AS_PG "$PGBIN/initdb" -D "$WORK/pg" -U postgres -A trust >/dev/null
pg_start
createdb -h 127.0.0.1 -p "$PG_PORT" -U postgres crash
PG_URL="postgresql://postgres@127.0.0.1:$PG_PORT/crash"
crash_run pg "$PG_URL" 200 10000
crash_run pg "$PG_URL" 2000 100000
crash_run pg "$PG_URL" 0 1000000
stop_server

mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$WORK/my" \
    --auth-root-authentication-method=normal >/dev/null
my_start
until mariadb --no-defaults -h 127.0.0.1 -P "$MY_PORT" -u root -e "CREATE DATABASE IF NOT EXISTS crash" 2>/dev/null; do
    sleep 0.2
done
MY_URL="mysql://root@127.0.0.1:$MY_PORT/crash"
crash_run my "$MY_URL" 200 10000
crash_run my "$MY_URL" 2000 100000
crash_run my "$MY_URL" 0 1000000
