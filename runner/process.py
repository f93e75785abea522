"""Running the benchmark as a child process we can always stop: its own process group, dead
when its parent dies, SIGTERM first and SIGKILL after a grace period."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess  # the benchmark is run with an argument list, never a shell  # nosec B404
import time

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when the process that forked it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def start(arguments: list[str], cwd: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """`env`: what the benchmark needs beyond PATH and the C locale (a private server's
    password: servers.PrivateServer.client_environment)."""
    # No shell: the argument list goes to execve as is. start_new_session puts the benchmark in
    # its own process group, so stopping it stops everything it started.
    return subprocess.Popen(  # noqa: S603 - fixed binary, arguments from settings and the contest  # nosec B603
        arguments,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=die_with_parent,  # only prctl: safe between fork and exec
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", **(env or {})},
    )


def stop(process: subprocess.Popen, grace_seconds: float) -> None:
    """SIGTERM the process group (the benchmark prints a last report), SIGKILL if it lingers."""
    _signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if process.poll() is None:
        _signal_group(process, signal.SIGKILL)
        process.wait()


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)
