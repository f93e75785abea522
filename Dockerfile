# Two images from one build (docker-compose.yml picks them by target):
#   web     the site, beat and the SQLite worker, run as the unprivileged user `iibench`;
#   worker  the verification workers: the same code plus the MariaDB and PostgreSQL servers
#           they start privately. It starts as root only to start each private server as the
#           server's own unprivileged user (`mysql`, `postgres`, made by their packages) in a
#           0700 directory and a memory cgroup; docker-compose.yml drops every other capability.
FROM python:3.11-slim-bookworm AS base
RUN apt-get update && apt-get install -y --no-install-recommends \
      gcc make libc6-dev libmariadb-dev libpq-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN make -C runner/iibench
RUN useradd --system --uid 10001 --home-dir /app --no-create-home iibench \
    && mkdir -p var/media var/reruns && chown -R iibench:iibench var

FROM base AS worker
# The private servers' binaries; the packages create the `mysql` and `postgres` users.
RUN apt-get update && apt-get install -y --no-install-recommends \
      mariadb-server postgresql-15 \
    && rm -rf /var/lib/apt/lists/*
ENV RERUN_RECOVERY_MARIADB_USER=mysql \
    RERUN_RECOVERY_POSTGRESQL_USER=postgres \
    RERUN_RECOVERY_DIR=/tmp

FROM base AS web
USER iibench
EXPOSE 8000
