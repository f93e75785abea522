#!/bin/sh
# Real logs of today's Python iibench (mdcallag/mytools bench/ibench/iibench.py) for the test
# fixtures of issue 42: every way its indexes can be made, on MariaDB and PostgreSQL, a query
# thread, and a run killed with SIGKILL before its summary. The client is NOT part of this
# repository: fetch it yourself and pass its path, with a Python that has mysqlclient (MySQLdb)
# and psycopg2.
#   IIBENCH_PY=/tmp/iibench.py PYTHON=/tmp/iib-venv/bin/python OUT=/tmp/client-logs \
#     scripts/demo_logs/make_python_client_logs.sh
# Its MariaDB connection is the server's socket: since upstream bbdf6295 the client connects
# through a socket by default and its `--mysql_use_socket` flag cannot be turned off.
set -eu
: "${IIBENCH_PY:?path to iibench.py}" "${PYTHON:?python with MySQLdb and psycopg2}" "${OUT:?output folder}"
ROWS=${ROWS:-300000}
KILL_AFTER=${KILL_AFTER:-6}
SOCKET=${SOCKET:-/run/mysqld/mysqld.sock}
mkdir -p "$OUT"
COMMON="--num_secondary_indexes=3 --rows_per_commit=1000 --secs_per_report=1"
MY="--dbms=mysql --db_socket=$SOCKET --db_user=root --engine=innodb"
PG="--dbms=postgres --db_host=127.0.0.1 --db_user=postgres"

fresh_databases() {
  mysql -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"
  psql -h127.0.0.1 -Upostgres -qc "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
}

run() {  # run NAME ARGS...: one run, its command line first in NAME.cmd
  name=$1; shift
  echo "python3 iibench.py $*" > "$OUT/$name.cmd"
  "$PYTHON" "$IIBENCH_PY" "$@" > "$OUT/$name.log" 2> "$OUT/$name.err"
}

for dbms in mariadb postgresql; do
  db=iibench_clients_runs
  fresh_databases $db
  if [ $dbms = mariadb ]; then target="$MY --db_name=$db"; else target="$PG --db_name=$db"; fi
  run python-$dbms-setup-only $target $COMMON --setup --max_rows=$ROWS
  run python-$dbms-secondary-at-start $target $COMMON --setup --secondary_at_start --max_rows=$ROWS
  run python-$dbms-secondary-at-end $target $COMMON --setup --secondary_at_end --max_rows=$ROWS
  run python-$dbms-query-thread $target $COMMON --setup --secondary_at_start --query_threads=1 --max_rows=$ROWS
  # Killed: a run asked for ten times the rows, SIGKILLed (with its processes) after KILL_AFTER s.
  echo "python3 iibench.py $target $COMMON --setup --secondary_at_start --max_rows=$((ROWS * 10)) (SIGKILL after ${KILL_AFTER} s)" > "$OUT/python-$dbms-killed.cmd"
  setsid "$PYTHON" "$IIBENCH_PY" $target $COMMON --setup --secondary_at_start --max_rows=$((ROWS * 10)) \
    > "$OUT/python-$dbms-killed.log" 2> "$OUT/python-$dbms-killed.err" &
  pid=$!
  sleep "$KILL_AFTER"
  kill -KILL "-$pid" || true  # its process group: the client forks an inserter and a statement maker
  wait $pid || true
done
mysql -h127.0.0.1 -uroot -e "DROP DATABASE IF EXISTS iibench_clients_runs"
psql -h127.0.0.1 -Upostgres -qc "DROP DATABASE IF EXISTS iibench_clients_runs"
date -u > "$OUT/finished"
