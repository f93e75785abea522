"""The option table of the server binary a private server runs, read from the binary itself
(`mariadbd --no-defaults --verbose --help`, `postgres --describe-config`) as the server's
unprivileged user, and kept per binary path and modification time: a new package version on
the worker is read again, the same one once per worker process."""

from __future__ import annotations

import os
import subprocess  # fixed binaries, argument lists, never a shell  # nosec B404
from pathlib import Path

from runner.servers import ServerConfig, ServerError, run_as_server_user
from submissions.setup.server_options import ServerOption, mariadb_options, postgresql_options

_CACHE: dict[tuple[str, int], dict[str, ServerOption]] = {}


def server_binary(config: ServerConfig) -> str:
    if config.kind == "mariadb":
        return config.mariadbd
    return str(Path(config.postgresql_bin_dir) / "postgres")


def described_options(config: ServerConfig) -> dict[str, ServerOption]:
    binary = server_binary(config)
    try:
        key = (binary, os.stat(binary).st_mtime_ns)
    except OSError as error:
        raise ServerError(f"The server binary {binary} is not there: {error.strerror}") from None
    if key not in _CACHE:
        if config.kind == "mariadb":
            text = _output(config, [binary, "--no-defaults", "--verbose", "--help"])
            _CACHE[key] = mariadb_options(text)
        else:
            _CACHE[key] = postgresql_options(_output(config, [binary, "--describe-config"]))
        if not _CACHE[key]:
            raise ServerError(f"{binary} described no options")
    return _CACHE[key]


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
