"""The rerun targets the organizer configured (settings.RERUN_TARGETS), never an entry."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings


@dataclass(frozen=True)
class Target:
    name: str
    url: str
    time_limit: int
    max_rows: int
    engines: list[str]
    # "mariadb" or "postgresql" for a crash-recovery target: the worker starts its own server.
    server: str = ""
    # Seed 004's 10 writers and 100 readers, and seed 001's query thread, scaled to this host.
    writers: int = 2
    readers: int = 2
    query_threads: int = 1

    @property
    def queue(self) -> str:
        return f"rerun.{self.name}"


def rerun_targets() -> dict[str, Target]:
    return {name: Target(name=name, **values) for name, values in settings.RERUN_TARGETS.items()}
