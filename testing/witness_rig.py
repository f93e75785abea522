"""What the witness client's end-to-end tests share: a contest open for streaming, a witness
token for it, the client run as a subprocess, and a loopback TCP proxy that can cut the
network (drop every connection and refuse new ones) or point at a restarted registry."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from submissions.live import services as live
from submissions.live.models import LiveRun
from testing.factories import ContestFactory, UserFactory

ROOT = Path(__file__).resolve().parents[1]
CLIENT = ROOT / "witness" / "iibench_witness.py"
IIBENCH = ROOT / "runner" / "iibench" / "iibench"


def this_machine(declared: dict) -> dict:
    """The declaration with this machine's cores, memory and drive, as the client sees them,
    and the SQLite the C benchmark runs on here (the client reads its version with --db)."""
    import sqlite3

    sys.path.insert(0, str(CLIENT.parent))
    import iibench_witness

    cpu = iibench_witness.cpu_facts()
    memory_gib = iibench_witness.memory_bytes() / 2**30
    drive = iibench_witness.datadir_facts(str(ROOT)).get("kind", "hdd")
    return {
        **declared,
        "sockets": cpu["sockets"],
        "cores": cpu["logical_cpus"],
        "memory_gb": round(memory_gib),
        "drive_kind": drive,
        "storage_engine": "SQLite",
        "server_family": "sqlite",
        "server_version": sqlite3.sqlite_version,
    }


def streaming_contest(**fields):
    """A contest that is open and public, with loose hardware caps so any test machine fits."""
    defaults = {
        "target_rows": 1_000_000,
        "report_every_rows": 10_000,
        "max_cores": None,
        "max_memory_gb": None,
        "max_sockets": None,
        "required_mysql_version": "",
        "results_published_at": timezone.now() - timedelta(days=1),
    }
    return ContestFactory(**{**defaults, **fields})


def witness_token(contest) -> tuple[object, str]:
    user = UserFactory()
    _, key = live.witness_token_create(user=user, contest=contest)
    return user, key


def run_client(
    *, registry: str, key: str, contest, declared: dict, tmp_path: Path, command: list[str],
    interval: float = 1.0, timeout: float = 180, options: tuple[str, ...] = (),
) -> subprocess.CompletedProcess:  # fmt: skip
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(declared))
    return subprocess.run(
        [sys.executable, str(CLIENT), "--registry", registry, "--token", key,
         "--contest", contest.slug, "--declare", str(setup), "--datadir", str(tmp_path),
         "--interval", str(interval), "--log", str(tmp_path / "local.log"),
         "--spool", str(tmp_path / "spool"), *options, "--", *command],
        capture_output=True, timeout=timeout, cwd=tmp_path,
    )  # fmt: skip


def start_client(
    *, registry: str, key: str, contest, declared: dict, tmp_path: Path, command: list[str],
    interval: float = 1.0,
) -> subprocess.Popen:  # fmt: skip
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(declared))
    return subprocess.Popen(
        [sys.executable, str(CLIENT), "--registry", registry, "--token", key,
         "--contest", contest.slug, "--declare", str(setup), "--datadir", str(tmp_path),
         "--interval", str(interval), "--log", str(tmp_path / "local.log"),
         "--spool", str(tmp_path / "spool"), "--", *command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip


def the_run(contest) -> LiveRun:
    return LiveRun.objects.select_related("submission").get(contest=contest)


class CuttableProxy:
    """A loopback TCP proxy to `upstream` (host, port). `cut()` drops every open connection
    and answers new ones by closing them at once, as a network loss does; `mend()` lets them
    through again, possibly to a new upstream (a restarted registry)."""

    def __init__(self, upstream: tuple[str, int]):
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.cut_off = threading.Event()
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut_off.is_set():
                self.refused += 1
                client.close()
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                self.refused += 1
                client.close()
                continue
            with self.lock:
                self.open |= {client, server}
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, target), daemon=True).start()

    def _pipe(self, source: socket.socket, target: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                target.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, target):
                with contextlib.suppress(OSError):
                    end.close()

    def cut(self) -> None:
        self.cut_off.set()
        with self.lock:
            for end in self.open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
            self.open.clear()

    def mend(self, upstream: tuple[str, int] | None = None) -> None:
        if upstream is not None:
            self.upstream = upstream
        self.cut_off.clear()

    def close(self) -> None:
        self.cut()
        self.listener.close()


MACHINE = {
    "cores": 8,
    "logical_cpus": 16,
    "memory_bytes": 16 * 2**30,
    "datadir": {"path": "/var/lib/mysql", "kind": "hdd"},
}


def api_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def witness_client(user, contest) -> APIClient:
    response = api_client(user).post("/api/witness-tokens/", {"contest": contest.slug})
    assert response.status_code == 201, response.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['token']}")
    return client


def open_run(client, declared, run_key="run-key-0001", machine=MACHINE):
    return client.post(
        "/api/live/", {**declared, "run_key": run_key, "machine": machine}, format="json"
    )


def append(client, run_id, seq, lines):
    return client.post(f"/api/live/{run_id}/batches/", {"seq": seq, "lines": lines}, format="json")


def c_benchmark(tmp_path, rows: int, rate: int = 0) -> list[str]:
    command = [str(IIBENCH), "--db", f"sqlite:///{tmp_path / 'bench.db'}", "--rows", str(rows),
               "--report-every", "10000", "--seed", "7"]  # fmt: skip
    return [*command, "--max-rate", str(rate)] if rate else command
