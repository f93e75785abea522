"""The option table of the server binary a private server runs, read from the binary itself
(`mariadbd --no-defaults --verbose --help`, `postgres --describe-config`) as the server's
unprivileged user, and kept per binary path, modification time and plugin set: a new package
version on the worker is read again, the same one once per worker process. A plugin's options
(MyRocks' rocksdb_*) are listed only with the plugin loaded, so the table is read with the
plugins the server will load.

The pure half, reading a table's text and deciding each declared setting against it, is
runner/judge/server_options.py: this module runs the binaries and keeps what they said."""

from __future__ import annotations

import os
import subprocess  # fixed binaries, argument lists, never a shell  # nosec B404
from dataclasses import asdict
from pathlib import Path

from django.utils import timezone

from runner.judge.scaling import SettingFate, setting_fates
from runner.judge.server_options import (
    ServerOption,
    mariadb_options,
    postgresql_options,
)
from runner.models import ServerOptionTable
from runner.servers import ServerConfig, ServerError, plugin_arguments, run_as_server_user
from submissions.setup.server_settings import MYSQL, POSTGRESQL

_CACHE: dict[tuple[str, int, tuple[str, ...]], dict[str, ServerOption]] = {}


def server_binary(config: ServerConfig) -> str:
    if config.kind == "mariadb":
        return config.mariadbd
    return str(Path(config.postgresql_bin_dir) / "postgres")


def table_name(config: ServerConfig) -> str:
    """The binary as the kept table names it: with its plugins, one table per set."""
    return " ".join([server_binary(config), *(f"+{plugin}" for plugin in config.plugins)])


def described_options(config: ServerConfig) -> dict[str, ServerOption]:
    binary = server_binary(config)
    try:
        key = (binary, os.stat(binary).st_mtime_ns, config.plugins)
    except OSError as error:
        raise ServerError(f"The server binary {binary} is not there: {error.strerror}") from None
    if key not in _CACHE:
        if config.kind == "mariadb":
            arguments = [binary, "--no-defaults", *plugin_arguments(config), "--verbose", "--help"]
            _CACHE[key] = mariadb_options(_output(config, arguments))
            missing = [plugin for plugin in config.plugins if not _loaded(plugin, _CACHE[key])]
            if missing:
                del _CACHE[key]
                raise ServerError(
                    f"{binary} did not load the plugin {', '.join(missing)} (is its package, "
                    "mariadb-plugin-rocksdb, installed on this worker?)"
                )
        else:
            _CACHE[key] = postgresql_options(_output(config, [binary, "--describe-config"]))
        if not _CACHE[key]:
            raise ServerError(f"{binary} described no options")
    return _CACHE[key]


def options_kept(config: ServerConfig) -> dict[str, ServerOption]:
    """`described_options`, kept for the entry pages at every verification (one row a binary,
    upserted: cheap beside a rerun's minutes), so the table they read is the one the workers
    run now."""
    options = described_options(config)
    binary = server_binary(config)
    _keep(config, (table_name(config), os.stat(binary).st_mtime_ns), options)
    return options


# A plugin's library -> the option prefix it adds (its engine's own settings).
PLUGIN_OPTIONS = {"ha_rocksdb.so": "rocksdb_"}


def _loaded(plugin: str, options: dict[str, ServerOption]) -> bool:
    prefix = PLUGIN_OPTIONS.get(plugin)
    return prefix is None or any(name.startswith(prefix) for name in options)


FAMILIES = {"mariadb": MYSQL, "postgresql": POSTGRESQL}


def _keep(config: ServerConfig, key: tuple[str, int], options: dict[str, ServerOption]) -> None:
    """The table as read, for the entry page (`setting_decisions`)."""
    ServerOptionTable.objects.update_or_create(
        binary=key[0],
        binary_mtime_ns=key[1],
        defaults={
            "family": FAMILIES[config.kind],
            "options": [asdict(option) for option in options.values()],
            "read_at": timezone.now(),
        },
    )


def setting_decisions(declared: dict[str, str], family: str) -> dict[str, SettingFate] | None:
    """What a verification does with each declared setting, by the option table a worker read
    last from a server of the entry's family: key -> its fate (applied, and how: as another
    name, scaled, held, capped; or the refusal naming it), decided as a rerun decides it
    (scaling.setting_fates). None while no worker has read one (the page then says it is
    not yet known)."""
    tables = ServerOptionTable.objects.filter(family=family).order_by("-read_at")
    # A plugin's settings are judged by a table read with it loaded (MyRocks' rocksdb_*).
    prefixes = tuple(PLUGIN_OPTIONS.values())
    plugins = {
        plugin
        for key in declared
        if key.startswith(prefixes)
        for plugin, prefix in PLUGIN_OPTIONS.items()
        if key.startswith(prefix)
    }
    table = (
        next((t for t in tables if all(f"+{plugin}" in t.binary for plugin in plugins)), None)
        or tables.first()
    )
    if table is None:
        return None
    options = {
        row["name"]: ServerOption(**{**row, "choices": tuple(row.get("choices") or ())})
        for row in table.options
    }
    return setting_fates(declared, options=options, family=family)


def _output(config: ServerConfig, arguments: list[str]) -> str:
    try:
        done = run_as_server_user(config, arguments, cwd="/")
    except (OSError, subprocess.SubprocessError) as error:
        raise ServerError(f"Could not list the options of {arguments[0]}: {error}") from None
    if done.returncode != 0:
        raise ServerError(
            f"Could not list the options of {arguments[0]} (exit {done.returncode}): "
            f"{done.stderr.strip()[-300:]}"
        )
    return done.stdout
