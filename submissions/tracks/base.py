"""What a track is, as plain data and small functions. No Django here: the web, the API and the
rerun worker all read the same registry (`submissions.tracks.TRACKS`)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from submissions.contests.rules import RULES, Rule, RuleSet
from submissions.logparse.model import ParsedLog
from submissions.measures.numbers import number
from submissions.measures.ranking import RankKey

from .published import PublishedResult

# What a track's log must hold for its figures to mean anything.
LOG_SERIES = "series"  # report lines: an insert run (classic, FIFO, query scalability)
LOG_LOAD = "load"  # the C benchmark's `mode=load` summary (bulk loading)
LOG_KEY_TYPES = "key_types"  # key-type runs: metrics console or C runs with --pk
LOG_OPTIONAL = "optional"  # declared figures; a log is kept when there is one


@dataclass(frozen=True)
class TrackField:
    """A figure the entrant declares for this track, beyond the classic declaration.
    `kind`: "int", "float" or "series" (text, one "rows, seconds" point per line)."""

    name: str
    label: str
    kind: str
    help_text: str = ""
    required: bool = True


@dataclass(frozen=True)
class TrackParameter:
    """A rule parameter organizers set per contest (Contest.track_rules)."""

    name: str
    label: str
    default: int | float
    help_text: str = ""
    integer: bool = True
    minimum: float = 0


@dataclass(frozen=True)
class Ranking:
    """How a track orders its entries: by `keys`, the entry's values compared in turn, within
    a class when the track has classes. A track with a `metric` (one number from its track
    figures, stored as the entry's track_metric) ranks by it, best first in `descending`
    order; the classic run ranks by the figures of its report lines instead (its keys).
    `class_key` gives a fixed-width key that sorts the classes the way people read them
    (keys=1 before keys=4, 64-byte rows before 256-byte rows); `class_label` shows it."""

    metric_label: str
    descending: bool
    metric: Callable[[Mapping], float | None] | None = None
    class_key: Callable[[Mapping], str] | None = None
    class_label: Callable[[str], str] | None = None
    keys: tuple[RankKey, ...] = ()

    @property
    def order(self) -> tuple[RankKey, ...]:
        """What the ranks compare, first to last: the keys, or else the track's metric."""
        return self.keys or (RankKey("track_metric", self.descending, required=True),)

    def metric_of(self, figures: Mapping) -> float | None:
        if self.metric is None:
            return None
        try:
            value = self.metric(figures)
        except (KeyError, TypeError, ZeroDivisionError):
            return None
        return float(value) if value is not None and math.isfinite(value) else None

    def class_of(self, figures: Mapping) -> str:
        if self.class_key is None:
            return ""
        try:
            return self.class_key(figures)
        except (KeyError, TypeError, ValueError):
            return ""

    def label_of(self, key: str) -> str:
        return self.class_label(key) if self.class_label and key else ""


@dataclass(frozen=True)
class TrackColumn:
    """A figure shown on the board and the entry page. `label` may name track parameters
    ("Query time at {query_at_rows} rows"); `style` decides how the value is written."""

    label: str
    value: Callable[[Mapping], Any]
    style: str  # rate | seconds | time | minutes | ratio | rows | mb | text
    metric: bool = False  # the ranking metric: the column sorts by track_metric

    def value_of(self, figures: Mapping) -> Any:
        try:
            return self.value(figures)
        except (KeyError, TypeError, IndexError, ZeroDivisionError):
            return None

    def title(self, rules: RuleSet) -> str:
        return re.sub(r"{(\w+)}", lambda match: number(rules.track.get(match[1], 0)), self.label)


Figures = Callable[[ParsedLog | None, Mapping, RuleSet], dict]
Refigure = Callable[[Mapping, RuleSet], dict]


@dataclass(frozen=True)
class Track:
    """A contest workload: what the entrant declares, which rules apply, which figures are
    computed, how entries rank and what the pages show. Adding a track is one package under
    tracks/ and one line in TRACKS; a track that can be rerun adds its rerun to `RERUNS` in
    runner/judge/."""

    workload: str
    label: str
    log: str
    figures: Figures
    classic_rules: tuple[str, ...]
    rules: tuple[Rule, ...] = ()
    fields: tuple[TrackField, ...] = ()
    parameters: tuple[TrackParameter, ...] = ()
    ranking: Ranking = field(kw_only=True)
    columns: tuple[TrackColumn, ...] = ()  # board columns after the hardware
    tiles: tuple[TrackColumn, ...] = ()  # the entry page's figures
    # What the entry page draws (static/js): rate_curve (rate-curve.js: the insertion rate, and
    # where deletes begin when the figures say), or a track-plot.js kind: query_times,
    # key_type_bars, load_rates, recovery_bars; with its heading and what it shows.
    plot: str = "rate_curve"
    plot_title: str = ""
    plot_help: str = ""
    # The contest's reference rows drawn beside the entry: "all", "same_class" (those of the
    # entry's class) or "" (none).
    plot_references: str = ""
    curve_note: str = ""  # said under the rate curve, after what every curve shows
    ranked_by: str = ""  # the leaderboard's sentence on how entries rank
    unranked_reason: str = "No time to the target rows could be measured or estimated."
    # Classic contest fields a contest of this track starts from (Contest model field names).
    contest_defaults: Mapping[str, Any] = field(default_factory=dict)
    # Figures stored without a log (the seeds' reference rows) again under a contest's rules,
    # for the keys that depend on them (the query time at the contest's table size).
    refigure: Refigure | None = None
    # The seeds' published results of this workload: reference rows on its boards.
    references: tuple[PublishedResult, ...] = ()
    # The contest the demo data opens for this track: slug, title, description and the
    # Contest fields it sets (submissions/entries/demo.py); empty: none.
    demo_contest: Mapping[str, Any] = field(default_factory=dict)

    def figures_under(self, figures: Mapping, rules: RuleSet) -> dict:
        return self.refigure(figures, rules) if self.refigure else dict(figures)

    def rule_list(self) -> tuple[Rule, ...]:
        return tuple(rule for rule in RULES if rule.id in self.classic_rules) + self.rules

    @property
    def has_curve(self) -> bool:
        """Entries have a rate curve, which the compare page overlays."""
        return self.plot == "rate_curve"

    @property
    def shows_run_figures(self) -> bool:
        """Its board, feed and entry page show the run's figures (elapsed, time to the target,
        terminal and average rates, costs), having no columns of its own."""
        return not self.columns

    @property
    def has_target(self) -> bool:
        """Entries must insert the contest's target rows (classic, FIFO)."""
        return "target_rows" in self.classic_rules

    @property
    def log_required(self) -> bool:
        return self.log != LOG_OPTIONAL

    def default_rules(self) -> dict[str, int | float]:
        return {parameter.name: parameter.default for parameter in self.parameters}


ALL_CLASSIC = tuple(rule.id for rule in RULES)
SETUP = (
    "sockets", "cores", "memory", "drives", "direct_attached", "raid", "machine_in_log",
    "mysql_version", "preferred_os", "deadline",
)  # fmt: skip
