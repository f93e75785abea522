"""How fast the host was while a verification ran, from reference runs beside its repeats.

A busy host only slows a rerun, and by an amount no calibration made days before can know. So a
verification runs a fixed reference workload (the same rows and settings every time, on a
private server of its own) before each repeat of the claim and after the last (R C R C R C R):
each repeat is set against the references on either side of it, run minutes apart on the same
host. With the host's quiet reference rate (its calibration's), a repeat's time is scaled by how
much slower than quiet the host was around it; the references' own spread, measured in this
job, widens the rate's band. A ratio measured side by side holds on a noisy host where an
absolute figure does not.

And one bound needs no calibration at all: the benchmark and its server cannot do a rerun's CPU
work faster than all of this host's cores doing nothing else would (`cpu_floor_rate`), so a
claim faster than that, by more than the judge's resolution, is refuted however busy the host.
A tighter one holds for a run with one writer: the writer waits for each statement, so the run
took at least the CPU seconds of the benchmark's threads and its server's busiest thread
(`critical_path_rate`), however long other work or the disk made it wait besides.

Pure: numpy and the standard library."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from runner.judge.resolution import HostSpread

# The fixed workload, the same on every host and in every job: a claim of 1,000,000 rows on a
# 64 MB pool with the log flushed once a second, at 1/10 (100,000 rows on a 6.4 MB pool). Like a
# verification's run it outgrows its pool (at about 70% of its rows), so its rate measures the
# host's disk past the cliff as well as its CPU before it; seconds long.
REFERENCE_DECLARED = {"innodb_buffer_pool_size": "64M", "innodb_flush_log_at_trx_commit": "2"}
REFERENCE_CLAIMED_ROWS = 1_000_000
REFERENCE_SCALE = 10

# The host's speed may move this much between the references around a repeat (the faster over
# the slower, less one) and the repeat still be scaled by their mean; more, and the load changed
# within the repeat too fast for two references to say how much it slowed it.
MOVED_LIMIT = 0.5
# References this many times slower than quiet around a repeat say other work slowed the host,
# whatever its CPU waits say: beside a disk writer (the quick confusion table, 29 Nov) they ran
# 2.8-3.6x slower than quiet while the server's busiest thread waited 1.6-3.9% of a run for a
# CPU, and the honest claim was refuted as on a quiet host; beside nothing they wandered to
# 1.17x.
SLOWED = 1.3
# A quiet host whose references ran this much faster or slower than its calibration's (the
# median of this job against the calibration's rate) has changed: its calibration is stale.
DRIFT_LIMIT = 0.2


@dataclass(frozen=True)
class HostSpeed:
    """The reference runs' rates (rows/s) in the order they ran, one before each repeat and
    one after the last; the host's quiet reference rate (None: not calibrated) and where it
    came from, for people."""

    during: tuple[float, ...]
    quiet: float | None = None
    quiet_source: str = ""
    reference: str = ""  # "20,000 rows on the reference server" (what each reference ran)

    def complete(self, repeats: int) -> bool:
        """A reference on either side of every repeat, each of them measured."""
        return len(self.during) == repeats + 1 and all(rate > 0 for rate in self.during)

    def around(self, repeat: int) -> float:
        """The host's reference rate around repeat `repeat` (0-based): the geometric mean of
        the references before and after it."""
        return math.sqrt(self.during[repeat] * self.during[repeat + 1])

    def slowdowns(self, repeats: int) -> list[float] | None:
        """How many times slower than quiet the host ran around each repeat (at least 1: a host
        faster than its calibration is not scaled up, its calibration is stale instead); None
        without a quiet rate or a reference around every repeat."""
        if self.quiet is None or self.quiet <= 0 or not self.complete(repeats):
            return None
        return [max(1.0, self.quiet / self.around(each)) for each in range(repeats)]

    def scaled(self, repeats: int, caps: list[float | None] | None) -> list[float] | None:
        """Each repeat's slowdown as the judge divides its time by it: at most its cap (how
        many times its own waits for a CPU stretched it; None: no cap). References slowed more
        than a repeat would scale it past the quiet host's speed, and a claim too fast look
        reproduced."""
        slowdowns = self.slowdowns(repeats)
        if slowdowns is None or caps is None:
            return slowdowns
        return [
            each if cap is None else min(each, max(1.0, cap))
            for each, cap in zip(slowdowns, caps, strict=True)
        ]

    def slowest(self, repeats: int) -> float:
        """The most slower than quiet the host ran around any repeat; 1 where not known."""
        return max(self.slowdowns(repeats) or [1.0])

    @property
    def moved(self) -> float:
        """How much the host's speed moved during the job: the fastest reference over the
        slowest, less one."""
        return max(self.during) / min(self.during) - 1

    def moved_within(self, repeats: int) -> float:
        """The most the speed moved across one repeat (its two references)."""
        return max(
            max(self.during[each], self.during[each + 1])
            / min(self.during[each], self.during[each + 1])
            - 1
            for each in range(repeats)
        )

    def spread(self) -> HostSpread | None:
        """The references' spread (a standard deviation of the log rate, n - 1 degrees of
        freedom): how much this host's speed wandered in this job."""
        if len(self.during) < 2:
            return None
        logs = np.log(np.asarray(self.during, dtype=np.float64))
        return HostSpread(float(np.std(logs, ddof=1)), len(self.during) - 1)

    def usable(self, repeats: int) -> bool:
        """The repeats can be scaled: a quiet rate, a reference around each repeat, and no
        repeat across which the speed moved more than MOVED_LIMIT."""
        return self.slowdowns(repeats) is not None and self.moved_within(repeats) <= MOVED_LIMIT

    def drift(self) -> float | None:
        """This job's median reference rate over the quiet one, less one (None: no quiet rate)."""
        if self.quiet is None or self.quiet <= 0 or not self.during:
            return None
        return float(np.median(self.during)) / self.quiet - 1

    def as_dict(self, repeats: int, scaled: bool) -> dict:
        slowdowns = self.slowdowns(repeats)
        return {
            "during": [round(each, 1) for each in self.during],
            "quiet": None if self.quiet is None else round(self.quiet, 1),
            "moved": round(self.moved, 3) if self.during else None,
            "slowdowns": None if slowdowns is None else [round(each, 3) for each in slowdowns],
            "scaled": scaled,
        }

    def sentence(self, repeats: int, scaled: bool = True, divided: tuple[float, ...] = ()) -> str:
        """What the references measured, in one sentence or two, for the verdict; `scaled`:
        whether the judge divided the repeats' times by their slowdowns (a busy host), each by
        `divided` (at most its slowdown: `scaled`)."""
        if not self.complete(repeats):
            return (
                f" Reference runs beside the repeats: {len(self.during)} of {repeats + 1} "
                "measured, so the host's speed during the job is not known."
            )
        span = _rates(self.during)
        what = f" ({self.reference})" if self.reference else ""
        said = (
            f" The host's speed during the job, from {len(self.during)} reference runs{what} "
            f"before each repeat and after the last: {span} rows/s, so it moved {self.moved:.0%}."
        )
        slowdowns = self.slowdowns(repeats)
        if slowdowns is None:
            return said + (
                " Its quiet reference rate is not known (the host is not calibrated), so the "
                "repeats could not be set against a quiet host's."
            )
        quiet = f"{self.quiet:,.0f} rows/s ({self.quiet_source})"
        if not self.usable(repeats):
            return said + (
                f" Quiet, it runs {quiet}; its speed moved {self.moved_within(repeats):.0%} "
                f"across one repeat (more than {MOVED_LIMIT:.0%}), so the repeats were not scaled."
            )
        if not scaled and max(slowdowns) >= SLOWED:
            return said + (
                f" Quiet, it runs {quiet}: the host ran up to {max(slowdowns):.2f}x slower than "
                "quiet while its server hardly waited for a CPU (other work on the disk, most "
                "likely), which slows a rerun past its cliff more than before it, so the "
                "repeats were judged as they ran, what differed a doubt."
            )
        if not scaled:
            return said + (
                f" Quiet, it runs {quiet}; the host was quiet, so the repeats were judged as "
                "they ran."
            )
        if divided and list(divided) != slowdowns:
            return said + (
                f" Quiet, it runs {quiet}: the host ran {_factors(slowdowns)} slower than quiet "
                "around the repeats, but each repeat's time was divided by no more than its "
                "own measures allow, its waits for a CPU and its writer's CPU seconds slowed as "
                f"the references were, the rest of it as quiet ({_factors(divided)}: "
                "references slowed more than a repeat would make a claim too fast look "
                "reproduced), and the references' spread widens the rate's band."
            )
        return said + (
            f" Quiet, it runs {quiet}: each repeat's time was divided by how much slower than "
            f"quiet the host ran around it ({_factors(slowdowns)}), and the references' spread "
            "widens the rate's band."
        )


def _rates(values: tuple[float, ...]) -> str:
    low, high = f"{min(values):,.0f}", f"{max(values):,.0f}"
    return low if low == high else f"{low} to {high}"


def _factors(values: list[float]) -> str:
    low, high = f"{min(values):.2f}x", f"{max(values):.2f}x"
    return low if low == high else f"{low} to {high}"


def cpu_floor_rate(rows: int, cpu_seconds: float | None, cores: int | None) -> float | None:
    """The fastest average rate this host could run `rows` rows whose benchmark and server
    spent `cpu_seconds` of CPU, were all its `cores` doing nothing else: rows over the CPU
    seconds spread over every core. Other work only stretches the wall clock, never this."""
    if not cpu_seconds or cpu_seconds <= 0 or not cores or cores < 1 or rows <= 0:
        return None
    return rows * cores / cpu_seconds


# A claim is refuted by its reruns' critical path only past this factor over it (and the judge's
# resolution, if wider): the path's CPU seconds are measured on the host as it was, and a core's
# sibling thread or a cache shared with other work makes the same work take more of them.
CRITICAL_MARGIN = 1.5


def critical_path_rate(rows: int, cpu_seconds: float | None) -> float | None:
    """The fastest average rate a one-writer run of `rows` rows could reach on this host,
    whose benchmark threads and server's busiest thread spent `cpu_seconds` on a CPU: the writer
    waits for each statement, so the run took at least their sum, whatever else waited (other
    work, the disk). None without the seconds."""
    if not cpu_seconds or cpu_seconds <= 0 or rows <= 0:
        return None
    return rows / cpu_seconds


def work_cpu_seconds(client: np.ndarray | None, server: np.ndarray | None) -> float | None:
    """The CPU seconds the benchmark and its server spent over a run (each report's interval
    summed), None unless both are measured at every report."""
    if client is None or server is None or len(client) == 0 or len(client) != len(server):
        return None
    if not (np.isfinite(client).all() and np.isfinite(server).all()):
        return None
    return float(client.sum() + server.sum())
