#!/usr/bin/env bash
# Starts the local PostgreSQL, MariaDB and Redis when they are installed but down.
# The tests talk to the real servers; this is how a fresh machine gets them running.
set -uo pipefail
wait_for() {  # name, command
  for _ in $(seq 1 60); do eval "$2" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "error: $1 did not come up" >&2; return 1
}
status=0
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
    echo "Starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
    wait_for PostgreSQL "pg_isready -h 127.0.0.1 -p 5432 -q" || status=1
  else
    echo "error: PostgreSQL is down and not installed here" >&2; status=1
  fi
fi
if ! mariadb-admin -h 127.0.0.1 -u root ping >/dev/null 2>&1; then
  if [ -x /usr/sbin/mariadbd ]; then
    echo "Starting MariaDB"
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
    wait_for MariaDB "mariadb-admin -h 127.0.0.1 -u root ping" || status=1
  else
    echo "error: MariaDB is down and not installed here" >&2; status=1
  fi
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  if command -v redis-server >/dev/null; then
    echo "Starting Redis"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log
    wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping" || status=1
  else
    echo "error: Redis is down and not installed here" >&2; status=1
  fi
fi
# The scratch databases the default rerun targets write to (the benchmark drops and creates
# its own tables in them).
if [ $status -eq 0 ]; then
  mariadb -h 127.0.0.1 -u root -e "CREATE DATABASE IF NOT EXISTS iibench_rerun" || status=1
  psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='iibench_rerun'" \
    | grep -q 1 || createdb -h 127.0.0.1 -U postgres iibench_rerun || status=1
fi
# The crash-recovery targets start private servers of their own from these binaries (and, when
# the worker runs as root, PostgreSQL as the postgres user): say now if one is missing.
pg_bin=${RERUN_RECOVERY_POSTGRESQL_BIN_DIR:-/usr/lib/postgresql/15/bin}
for binary in "${RERUN_RECOVERY_MARIADBD:-/usr/sbin/mariadbd}" \
              "${RERUN_RECOVERY_MARIADB_INSTALL_DB:-/usr/bin/mariadb-install-db}" \
              "$pg_bin/initdb" "$pg_bin/postgres"; do
  [ -x "$binary" ] || { echo "error: $binary is missing: crash-recovery reruns need it" >&2; status=1; }
done
if [ "$(id -u)" -eq 0 ] && ! id "${RERUN_RECOVERY_POSTGRESQL_USER:-postgres}" >/dev/null 2>&1; then
  echo "error: no ${RERUN_RECOVERY_POSTGRESQL_USER:-postgres} user to run a private PostgreSQL as" >&2
  status=1
fi
exit $status
