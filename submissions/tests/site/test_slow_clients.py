"""Slow clients cannot starve the site: 50 connections that send their headers or their body a
byte at a time leave GET / answering within a second behind nginx (deploy/), where gunicorn's
sync workers alone are tied up by them."""

from __future__ import annotations

import contextlib
import socket
import statistics
import threading
import time
import urllib.error
import urllib.request

import pytest

from testing.proxy import start_proxy

SLOW_CLIENTS = 50
DRIP_SECONDS = 0.5
BOUND_SECONDS = 1.0

# It serves the production server behind nginx, as the browser tests do, with no browser.
pytestmark = [pytest.mark.server, pytest.mark.django_db(transaction=True)]


class SlowClients:
    """Half send their headers a byte at a time (never finishing them), half send whole
    headers and then a form body a byte at a time, to a page whose CSRF check reads it."""

    def __init__(self, port: int, count: int = SLOW_CLIENTS):
        self.port = port
        self.count = count
        self.sockets: list[tuple[socket.socket, bytes]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drip, daemon=True)

    def __enter__(self) -> SlowClients:
        for index in range(self.count):
            connection = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            if index % 2:
                connection.sendall(
                    b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 100000\r\n\r\n"
                )
                drip = b"u"
            else:
                connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                drip = b"X"
            self.sockets.append((connection, drip))
        self.thread.start()
        time.sleep(1)  # every worker that will take one of them has
        return self

    def _drip(self) -> None:
        while not self.stop.wait(DRIP_SECONDS):
            for connection, drip in self.sockets:
                with contextlib.suppress(OSError):  # one nginx dropped: the others go on
                    connection.send(drip)

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        for connection, _ in self.sockets:
            connection.close()


def timed_get(url: str, timeout: float) -> float:
    """Seconds GET / took, or `timeout` when it did not answer in time."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(url + "/", timeout=timeout) as response:  # noqa: S310
            assert response.status == 200
    except (urllib.error.URLError, TimeoutError, ConnectionError):
        return timeout
    return time.monotonic() - started


def test_fifty_slow_clients_leave_the_home_page_answering_within_a_second(production_server):
    proxy = start_proxy(production_server.url)
    try:
        with SlowClients(proxy.port):
            behind_nginx = [timed_get(proxy.url, 5) for _ in range(10)]
        with SlowClients(int(production_server.url.rsplit(":", 1)[1])):
            alone = [timed_get(production_server.url, 3) for _ in range(2)]
    finally:
        proxy.stop()
    print(
        f"\nslow clients: GET / with {SLOW_CLIENTS} slow-drip clients: behind nginx median "
        f"{statistics.median(behind_nginx):.3f} s, max {max(behind_nginx):.3f} s "
        f"({len(behind_nginx)} requests: {', '.join(f'{t:.3f}' for t in behind_nginx)}); "
        f"gunicorn alone: {min(alone):.1f} s or more (gave up at 3 s)"
    )
    assert max(behind_nginx) < BOUND_SECONDS, behind_nginx
    # The clients are hostile enough: without the proxy they starve the workers.
    assert min(alone) >= 3
