"""What a verification can tell apart: the allowed band of a figure from the reruns' measured
spread and the number of repeats. Pure: the standard library only.

A claim is one more run of the solution. Where its figure may fall is a prediction interval of
one more run like the reruns: their mean, widened by Student's t at the reruns' degrees of
freedom times their spread times sqrt(1 + 1/n). Three repeats measure their spread poorly (two
degrees of freedom), so it is pooled with the host's own spread of the same figure, measured on
quiet reruns of reference claims (`HostSpread`: its degrees of freedom count as repeats
already made). On top comes what scaling itself moves between a claim and its reruns (a 1/k run
is not the claim: `systematic`), measured on claims made beside their own reruns. Not a fixed
25% on top of the range: the band narrows as the repeats agree and as more are run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Student's t, two-sided 95% (the 0.975 quantile), by degrees of freedom; past 30, 1.96.
_T_975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_975(dof: int) -> float:
    if dof < 1:
        raise ValueError("a spread needs at least one degree of freedom")
    return _T_975[dof - 1] if dof <= len(_T_975) else 1.96


@dataclass(frozen=True)
class HostSpread:
    """A host's run-to-run spread of one figure (a standard deviation, in the figure's own
    units: a log for a rate), measured over `dof` degrees of freedom (runs less their groups)."""

    sigma: float
    dof: int


@dataclass(frozen=True)
class Band:
    centre: float
    half_width: float
    sigma: float  # the pooled spread used
    dof: int

    @property
    def low(self) -> float:
        return self.centre - self.half_width

    @property
    def high(self) -> float:
        return self.centre + self.half_width

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high


def band(values: Sequence[float], *, host: HostSpread, systematic: float = 0.0) -> Band:
    """Where one more run (the claim) may fall, given these reruns' values: their mean plus or
    minus t * the pooled spread * sqrt(1 + 1/n), plus `systematic`."""
    if not values:
        raise ValueError("a band needs at least one rerun")
    count = len(values)
    centre = math.fsum(values) / count
    squares = math.fsum((value - centre) ** 2 for value in values)
    dof = host.dof + count - 1
    sigma = math.sqrt((host.dof * host.sigma**2 + squares) / dof)
    half = t_975(dof) * sigma * math.sqrt(1 + 1 / count) + systematic
    return Band(centre, half, sigma, dof)


# A verification reruns a scaled claim this many times unless the organizer asks otherwise.
# Four, not three: on two quiet VMs (docs/verification.md "The confusion table") the demo claim's
# cliff moved 20% later was refuted at 1/10 by 42 of 48 verifications of three reruns and by all
# 32 of four (every other lie and every honest claim judged right either way): three place the
# reruns' cliff too loosely when one of them falls late. A fourth run costs a tenth of the
# claim's time more at 1/10.
DEFAULT_REPEATS = 4

# A verification must at least tell a claim this many times too fast from a true one: a host
# whose spread cannot (a noisy host, too few repeats) says `inconclusive`, not `reproduced`.
TELL_APART = 1.25


def host_half_width(host: HostSpread, count: int, *, systematic: float = 0.0) -> float:
    """The half-width a band would have from the host's spread alone, with `count` reruns
    agreeing exactly: what the host can tell apart at best, whatever these reruns show."""
    dof = host.dof + count - 1
    return t_975(dof) * host.sigma * math.sqrt(1 + 1 / count) + systematic


def spread_of(values: Sequence[float]) -> HostSpread:
    """The run-to-run spread of one figure over repeats of one setup: their sample standard
    deviation, over n - 1 degrees of freedom."""
    if len(values) < 2:
        raise ValueError("a spread needs at least two runs")
    centre = math.fsum(values) / len(values)
    squares = math.fsum((value - centre) ** 2 for value in values)
    return HostSpread(math.sqrt(squares / (len(values) - 1)), len(values) - 1)


@dataclass(frozen=True)
class HostSpreads:
    """The host's spread of each figure a judge compares (by the figure's name), and where it
    came from for people ("the host's calibration of 26 Nov, 5 runs"). `unusable`: why this
    host's spread is not known (its calibration is stale, or it has none): a judge then says
    `inconclusive` with that reason, whatever the reruns show."""

    figures: dict[str, HostSpread]
    source: str
    unusable: str = ""

    def of(self, figure: str) -> HostSpread:
        return self.figures[figure]


def pooled(spreads: Sequence[HostSpread]) -> HostSpread:
    """One spread from several measured apart (setups of one host): their variances weighted
    by their degrees of freedom, which add up."""
    dof = sum(each.dof for each in spreads)
    if dof < 1:
        raise ValueError("a spread needs at least one degree of freedom")
    return HostSpread(math.sqrt(math.fsum(each.dof * each.sigma**2 for each in spreads) / dof), dof)
