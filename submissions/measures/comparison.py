"""What the compare page shows, as plain data: the view's state as read from (and written back
to) its address, each figure as a ratio to the baseline the reader picked, and the band of
runs grouped as repeats. Pure: numpy and dataclasses, no Django."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

X_AXES = ("rows", "time")
ZOOMS = ("all", "start", "terminal")
RATES = ("interval", "cumulative")

# Entries and reference rows one page overlays; more would not be readable in one plot.
MAX_ITEMS = 12


@dataclass(frozen=True)
class CompareState:
    """Everything the compare page's view depends on; its address holds all of it, so a link
    shows the same view in a fresh browser."""

    ids: tuple[int, ...] = ()
    refs: tuple[int, ...] = ()
    base: str = ""  # "e3" (entry #3), "r5" (reference row 5) or "" for none
    x: str = "rows"
    xlog: bool = False
    ylog: bool = False
    zoom: str = "all"
    rate: str = "interval"
    groups: tuple[tuple[int, ...], ...] = ()

    def query(self) -> str:
        """The canonical address query: only what differs from the defaults, in a fixed order."""
        parts = []
        if self.ids:
            parts.append("ids=" + ",".join(map(str, self.ids)))
        if self.refs:
            parts.append("refs=" + ",".join(map(str, self.refs)))
        defaults = CompareState()
        for name in ("base", "x", "zoom", "rate"):
            value = getattr(self, name)
            if value != getattr(defaults, name):
                parts.append(f"{name}={value}")
        for name in ("xlog", "ylog"):
            if getattr(self, name):
                parts.append(f"{name}=1")
        for group in self.groups:
            parts.append("group=" + ",".join(map(str, group)))
        return "&".join(parts)

    def with_base(self, base: str) -> str:
        return replace(self, base=base).query()

    def hidden_fields(self) -> list[tuple[str, str]]:
        """The state but its groups, as form fields: the repeats form sends new ones."""
        query = replace(self, groups=()).query()
        return [tuple(part.split("=", 1)) for part in query.split("&") if part]


# Numbers an address may carry at all; the page shows the first MAX_ITEMS and names the rest.
MAX_ASKED = 100


def _numbers(values: Sequence[str], limit: int = MAX_ASKED) -> tuple[int, ...]:
    """Numbers from "3,7" or repeated parameters, in order, once each; junk is skipped."""
    found: list[int] = []
    for value in values:
        for part in value.replace("+", ",").replace(" ", ",").split(","):
            part = part.strip().lstrip("#")
            if part.isdigit() and len(part) < 19 and int(part) not in found:
                found.append(int(part))
    return tuple(found[:limit])


def _choice(values: Sequence[str], allowed: tuple[str, ...]) -> str:
    value = values[-1] if values else ""
    return value if value in allowed else allowed[0]


def _flag(values: Sequence[str]) -> bool:
    return bool(values) and values[-1] in ("1", "true", "on", "yes")


def parse_state(query: Mapping[str, Sequence[str]]) -> CompareState:
    """The state from an address's query (a mapping of name to its values, as Django's
    QueryDict.lists() gives). Unknown values fall back to the defaults; nothing raises."""
    ids = _numbers(query.get("ids", ()))
    refs = _numbers(query.get("refs", ()))
    base = (query.get("base") or [""])[-1]
    if not (
        (base.startswith("e") and base[1:].isdigit() and int(base[1:]) in ids)
        or (base.startswith("r") and base[1:].isdigit() and int(base[1:]) in refs)
    ):
        base = ""
    groups = []
    grouped: set[int] = set()
    # The compare table's form sends its ticked entries as repeat=3&repeat=7: one group.
    asked = list(query.get("group", ()))
    if "repeat" in query:
        asked = [",".join(query["repeat"])]
    for value in asked:
        members = tuple(pk for pk in _numbers([value]) if pk in ids and pk not in grouped)
        if len(members) >= 2:
            groups.append(members)
            grouped.update(members)
    return CompareState(
        ids=ids,
        refs=refs,
        base=base,
        x=_choice(query.get("x", ()), X_AXES),
        xlog=_flag(query.get("xlog", ())),
        ylog=_flag(query.get("ylog", ())),
        zoom=_choice(query.get("zoom", ()), ZOOMS),
        rate=_choice(query.get("rate", ()), RATES),
        groups=tuple(groups),
    )


@dataclass(frozen=True)
class Figures:
    """The figures the compare table lines up; None where the item does not state one."""

    key: str  # "e3" or "r5", as in CompareState.base
    rows: int | None
    time_to_target: float | None  # measured or, where the run stopped short, extrapolated
    terminal_rate: float | None
    average_rate: float | None


@dataclass(frozen=True)
class Ratio:
    """A figure over the baseline's. `better` says which way the reader wins (a shorter time
    and a higher rate are better); `strength` 0-3 says how far, for the colour."""

    value: float
    better: bool
    strength: int

    @property
    def css(self) -> str:
        if self.strength == 0:
            return "ratio-even"
        return f"ratio-{'better' if self.better else 'worse'}-{self.strength}"

    @property
    def text(self) -> str:
        if self.value >= 100:
            return f"{self.value:,.0f}x"
        if self.value >= 10:
            return f"{self.value:.1f}x"
        return f"{self.value:.2f}x"


# Higher is better for rates and rows, lower for time.
FIGURE_DIRECTIONS = {
    "rows": True,
    "time_to_target": False,
    "terminal_rate": True,
    "average_rate": True,
}


def ratio(value: float | None, baseline: float | None, *, higher_is_better: bool) -> Ratio | None:
    """value / baseline, or None when either is missing or not a positive finite number."""
    if value is None or baseline is None:
        return None
    if not (math.isfinite(value) and math.isfinite(baseline)) or value <= 0 or baseline <= 0:
        return None
    quotient = value / baseline
    better = quotient > 1 if higher_is_better else quotient < 1
    # Within 5% reads as even; then steps at 1.5x and 4x either way.
    distance = abs(math.log(quotient))
    strength = 0 if distance < math.log(1.05) else 1 if distance < math.log(1.5) else 2
    if distance >= math.log(4):
        strength = 3
    return Ratio(value=quotient, better=better, strength=strength)


def ratios(item: Figures, baseline: Figures | None) -> dict[str, Ratio | None]:
    """Each figure of `item` over the baseline's (all None without a baseline)."""
    return {
        name: ratio(
            getattr(item, name),
            getattr(baseline, name) if baseline else None,
            higher_is_better=higher,
        )
        for name, higher in FIGURE_DIRECTIONS.items()
    }


@dataclass(frozen=True)
class Band:
    """Runs of one configuration drawn as one: min-max band and the median line over the rows
    all of them reached, and the spread of their terminal rates."""

    members: tuple[int, ...]
    x: list[float]
    low: list[float]
    median: list[float]
    high: list[float]
    terminal_rates: tuple[float, ...] = field(default=())

    @property
    def spread(self) -> float | None:
        """(max - min) / median of the members' terminal rates: 0.04 reads "4% spread"."""
        rates = [rate for rate in self.terminal_rates if rate and math.isfinite(rate)]
        if len(rates) < 2:
            return None
        middle = float(np.median(rates))
        return (max(rates) - min(rates)) / middle if middle > 0 else None


def band(
    members: Sequence[int],
    curves: Sequence[tuple[Sequence[float], Sequence[float]]],
    terminal_rates: Sequence[float | None] = (),
    points: int = 500,
) -> Band | None:
    """The band of `curves` (x ascending, y) on a common grid over the x range every curve
    covers, each interpolated linearly; None when they share no range."""
    usable = [(np.asarray(x, float), np.asarray(y, float)) for x, y in curves if len(x) >= 2]
    if len(usable) < 2:
        return None
    start = max(float(x[0]) for x, _ in usable)
    end = min(float(x[-1]) for x, _ in usable)
    if not end > start:
        return None
    grid = np.linspace(start, end, points)
    stacked = np.vstack([np.interp(grid, x, y) for x, y in usable])
    return Band(
        members=tuple(members),
        x=grid.tolist(),
        low=stacked.min(axis=0).tolist(),
        median=np.median(stacked, axis=0).tolist(),
        high=stacked.max(axis=0).tolist(),
        terminal_rates=tuple(rate for rate in terminal_rates if rate is not None),
    )
