#!/bin/sh
# Re-make the demo logs of the workload tracks with the bundled C benchmark, one run at a time.
# Usage: [ONLY=part...] scripts/demo_logs/make_track_logs.sh  (from the repository root, after
# `make -C runner/iibench`). Needs the MariaDB and PostgreSQL servers of `make services` and
# the scratch database below on both; every run drops and re-creates its table there.
set -eu
IIBENCH=${IIBENCH:-runner/iibench/iibench}
OUT=${OUT:-submissions/demo_logs}
MYSQL=${MYSQL:-mysql://root@127.0.0.1:3306/iibench_tracks_demo}
PG=${PG:-postgresql://postgres@127.0.0.1:5432/iibench_tracks_demo}
SQLITE_DIR=$(mktemp -d)
trap 'rm -rf "$SQLITE_DIR"' EXIT
SQLITE="sqlite:///$SQLITE_DIR/demo.db"

run() {  # run NAME ARGS...: the benchmark's stdout into OUT/NAME
    name=$1
    shift
    echo "$name: iibench $*" >&2
    "$IIBENCH" "$@" >"$OUT/$name"
    rm -f "$SQLITE_DIR"/demo.db*
}

# FIFO (seed 002) at 1/1000 scale: 250,000 rows, then one delete per insert, to 500,000.
fifo() {
    for target in mariadb:"$MYSQL" postgresql:"$PG" sqlite:"$SQLITE"; do
        run "c-fifo-${target%%:*}-500k.log" --db "${target#*:}" --rows 500000 \
            --delete-after 250000 --report-every 5000 --query-threads 1
    done
}

# Query scalability (seed 001): query threads while the table grows.
query() {
    run c-query-mariadb-2m.log --db "$MYSQL" --rows 2000000 --report-every 50000 --query-threads 1
    run c-query-postgresql-1m.log --db "$PG" --rows 1000000 --report-every 50000 --query-threads 1
    run c-query-sqlite-1m.log --db "$SQLITE" --rows 1000000 --report-every 50000 --query-threads 1
}

# Query scalability with a declared series: seed 004's full primary-key range scan, timed with
# psql's \timing after runs of 250,000 to 1,000,000 rows on PostgreSQL (each run re-creates the
# table); prints the "rows, seconds" lines to declare. The entry's log is the last run.
query_declared() {
    for rows in 250000 500000 750000 1000000; do
        "$IIBENCH" --db "$PG" --rows "$rows" --report-every 50000 \
            >"$OUT/c-query-postgresql-declared-1m.log"
        ms=$(psql "$PG" -Atq -c '\timing on' -c "SELECT COUNT(*), SUM(price) FROM mypurchases
            WHERE transactionid < (SELECT MAX(transactionid) FROM mypurchases)" |
            sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
        echo "$rows, $(awk -v ms="$ms" 'BEGIN { printf "%.4f", ms / 1000 }')"
    done
}

# Primary-key types (seed 004): the three key kinds, 500,000 rows as in the seed, 2 writers and
# 4 readers, the three runs one after another in one file per backend.
pk_types() {
    for target in mariadb:"$MYSQL" sqlite:"$SQLITE"; do
        name="c-pk-types-${target%%:*}-500k.log"
        : >"$OUT/$name"
        for pk in autoinc uuid-char uuid-ordered; do
            echo "$name: iibench --pk $pk" >&2
            "$IIBENCH" --db "${target#*:}" --pk "$pk" --rows 500000 --report-every 50000 \
                --writers 2 --readers 4 >>"$OUT/$name"
            rm -f "$SQLITE_DIR"/demo.db*
        done
    done
}

# Bulk loading (seed 003): iibench load per (keys, row length) class.
bulk_load() {
    for class in 1:64 4:64 1:256 4:256; do
        run "c-load-mariadb-k${class%%:*}-l${class#*:}.log" load --db "$MYSQL" \
            --keys "${class%%:*}" --row-length "${class#*:}" --rows 200000
    done
    run c-load-postgresql-k1-l64.log load --db "$PG" --keys 1 --row-length 64 --rows 200000
    run c-load-postgresql-k4-l256.log load --db "$PG" --keys 4 --row-length 256 --rows 200000
    run c-load-sqlite-k1-l64.log load --db "$SQLITE" --keys 1 --row-length 64 --rows 200000
    run c-load-sqlite-k4-l64.log load --db "$SQLITE" --keys 4 --row-length 64 --rows 200000
}

# ONLY="pk_types bulk_load" re-makes just those.
for part in ${ONLY:-fifo query query_declared pk_types bulk_load}; do
    "$part"
done
