#!/usr/bin/env bash
# Installs the Debian packages the project builds and tests with, when they are missing.
set -euo pipefail
# mariadb-plugin-rocksdb: MyRocks, loaded by a private MariaDB server when a run asks ROCKSDB.
packages=(libmariadb-dev libpq-dev libsqlite3-dev pkg-config chromium wrk nginx mariadb-plugin-rocksdb)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "Installing Debian packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q "${missing[@]}" || { $sudo apt-get update -q && $sudo apt-get install -y -q "${missing[@]}"; }
