"""nginx in front of a test's gunicorn, with the production configuration
(deploy/nginx.conf.template), in a folder of its own on a free port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

TEMPLATE = Path(settings.BASE_DIR) / "deploy" / "nginx.conf.template"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


@dataclass
class Proxy:
    url: str
    port: int
    folder: Path
    process: subprocess.Popen

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def start_proxy(upstream_url: str) -> Proxy:
    # Its own folder under /tmp, readable by nginx's worker whatever user that runs as.
    folder = Path(tempfile.mkdtemp(prefix="iibench-nginx-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = (
        TEMPLATE.read_text()
        .replace("${IIBENCH_UPSTREAM}", upstream_url.removeprefix("http://"))
        .replace("${IIBENCH_LISTEN}", f"127.0.0.1:{port}")
    )
    (folder / "site.conf").write_text(server)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp_paths = "".join(
        f"{kind}_temp_path {folder / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (folder / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 1024; }\n"
        f"http {{\naccess_log off;\n{temp_paths}include {folder / 'site.conf'};\n}}\n"
    )
    process = subprocess.Popen(
        [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(folder / "error.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    proxy = Proxy(f"http://127.0.0.1:{port}", port, folder, process)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proxy
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                errors = process.stderr.read().decode() if process.poll() is not None else ""
                proxy.stop()
                pytest.fail(f"nginx did not start: {errors}")
            time.sleep(0.1)
