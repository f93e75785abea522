"""Which rerun queues a live worker serves. Every worker writes a heartbeat row per queue it
consumes as it starts and then every RERUN_WORKER_BEAT_SECONDS (a thread of the worker's main
process); it removes them as it shuts down. A queue with no beat newer than
RERUN_WORKER_BEAT_STALE_SECONDS has no worker: a run sent there would sit queued."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from runner.models import WorkerBeat


def worker_beat(*, worker: str, queues: list[str], now=None) -> None:
    now = now or timezone.now()
    with transaction.atomic():  # a reader sees every queue of the worker's beat, or none
        for queue in queues:
            WorkerBeat.objects.update_or_create(
                worker=worker, queue=queue, defaults={"beat_at": now}
            )


def worker_gone(*, worker: str) -> None:
    WorkerBeat.objects.filter(worker=worker).delete()


def served_queues(now=None) -> set[str]:
    """The queues some worker beat for within the stale limit."""
    now = now or timezone.now()
    since = now - timedelta(seconds=settings.RERUN_WORKER_BEAT_STALE_SECONDS)
    return set(WorkerBeat.objects.filter(beat_at__gte=since).values_list("queue", flat=True))


def is_served(queue: str, now=None) -> bool:
    return queue in served_queues(now)


def no_worker_warning(target: str) -> str:
    return (
        f"No live worker serves the rerun.{target} queue: the run stays queued until a worker "
        f"consuming it starts (celery worker --queues=rerun.{target})."
    )


def queued_without_worker(run, served: set[str] | None = None) -> str:
    """The warning for a queued run whose queue no live worker consumes (it would wait for
    ever without a word), else "". The page, the form's message and the API say the same."""
    from runner.models import RerunStatus

    if run.status != RerunStatus.QUEUED:
        return ""
    served = served_queues() if served is None else served
    return "" if f"rerun.{run.target}" in served else no_worker_warning(run.target)


class Beating:
    """The worker's heartbeat thread: beats at once, then every RERUN_WORKER_BEAT_SECONDS until
    stopped. A beat that fails (the database away for a moment) is tried again next time.
    `also` beats with it: the worker's host in the fleet (runner/fleet.py)."""

    def __init__(self, worker: str, queues: list[str], also: Callable[[], None] | None = None):
        self.worker, self.queues, self.also = worker, queues, also
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="rerun-heartbeat", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=10)
        try:
            worker_gone(worker=self.worker)
        finally:
            close_old_connections()

    def _run(self) -> None:
        while not self.stopped.is_set():
            try:
                worker_beat(worker=self.worker, queues=self.queues)
                if self.also is not None:
                    self.also()
            except Exception:  # noqa: S110 - a missed beat only ages the row; the next one writes it  # nosec B110
                pass
            finally:
                close_old_connections()
            self.stopped.wait(settings.RERUN_WORKER_BEAT_SECONDS)
