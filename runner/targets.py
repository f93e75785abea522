"""The rerun targets the organizer configured (settings.RERUN_TARGETS), never an entry."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from runner.judge.rerun import engine_for


@dataclass(frozen=True)
class Target:
    name: str
    url: str
    time_limit: int
    max_rows: int
    engines: list[str]
    # The server family it runs: "mysql" (MySQL/MariaDB), "postgresql" or "sqlite".
    family: str = ""
    # "mariadb" or "postgresql": the worker starts a private server of its own for each rerun,
    # with the entry's allowed settings; empty, the benchmark runs against `url`.
    server: str = ""
    # The rerun procedure it runs, as a track's rerun declares it (runner/judge/rerun.py,
    # Rerun.procedure): "steps" (benchmark runs), or "crash" (its private server killed and
    # restarted). A target runs the reruns of its procedure only, and only it runs them.
    procedure: str = "steps"
    # Seed 004's 10 writers and 100 readers, and seed 001's query thread, scaled to this host.
    writers: int = 2
    readers: int = 2
    query_threads: int = 1
    # What the organizer set about the host instead of reading it (runner/host.py).
    host: dict = field(default_factory=dict)

    @property
    def queue(self) -> str:
        return f"rerun.{self.name}"

    def verification_refusal(self, *, family: str, engine: str) -> str | None:
        """Why this target cannot verify an entry of `family` and `engine`; None if it can."""
        if family != self.family:
            return (
                f"The {self.name} target runs {self.family or 'another server'}; the entry ran "
                f"{family} ({engine or 'no engine named'}): it cannot verify this entry."
            )
        if family != "postgresql" and engine_for(engine, self.engines) is None:
            return (
                f"The {self.name} target has no {engine or 'named'} engine "
                f"({', '.join(self.engines)}): it cannot verify this entry."
            )
        if family in ("mysql", "postgresql") and not self.server:
            return (
                f"The {self.name} target is a shared server: it cannot apply the entry's "
                "settings, so it cannot verify."
            )
        return None


def rerun_targets() -> dict[str, Target]:
    return {name: Target(name=name, **values) for name, values in settings.RERUN_TARGETS.items()}
