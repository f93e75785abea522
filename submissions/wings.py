"""The doors the registry's wings plug into. A wing (the runner's verification reruns, the live
streams) registers here what it adds when its app loads (`AppConfig.ready`); the registry reads
these lists and never imports a wing. A test keeps it so (test_floor_plan.py).

What a wing may add:
- a section of the entry page or of a contest's page (`Panel`) and an admin action on entries;
- what it knows of an entry's run as it was streamed (`StreamedRun`, through `entry_stream`);
- sentences of rules it judges itself (a stream's seal rules);
- tokens of its own in an account's token list;
- what a verification does with an entry's declared settings (the runner, by the option lists
  its workers read from their server binaries).

A verification's outcome is not read through a door: the runner stores it on the entry
(Submission.verification...), and entries/outcome.py reads it for every page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Panel:
    """A section of a page (an entry's, a contest's): its template, and the context it needs
    for this viewer (`context(entry_or_contest, user)`), merged into the page's."""

    template: str
    context: Callable[..., dict]
    # The keys of the compiled statements `context` reads (caches/compiled.py), by contest id:
    # read ahead with the rest of the page.
    reads: Callable[[int], list] | None = None


@dataclass(frozen=True)
class StreamedRun:
    """What a wing that received an entry's run line by line knows of it."""

    streamed: bool  # sealed with its clock agreeing and the client's machine facts agreeing
    state: str  # "streaming", "silent", "sealed", ...
    seal_verdicts: list[dict] = field(default_factory=list)  # the seal rules' verdicts, stored
    command: str = ""  # the command line the witness client ran, as it reported it


EntryPanel = Panel  # the name the runner registers its rerun panel under

ENTRY_PANELS: list[Panel] = []
# Admin actions on entries (the Submission admin's `actions` is this list).
ENTRY_ADMIN_ACTIONS: list[Callable] = []
# (submission) -> StreamedRun | None
ENTRY_STREAMS: list[Callable] = []
# Sections of a contest's page above its board (the runs streaming into it now)
CONTEST_PANELS: list[Panel] = []
# rule id -> sentence, for rules a wing judges itself
RULE_SENTENCES: dict[str, str] = {}
# (user) -> list of token listings
TOKEN_LISTERS: list[Callable] = []
# (declared settings, family) -> {key: its fate (scaling.SettingFate: applied, and the page's
# sentence)} | None: what a verification does with an entry's declared settings, by its
# servers' own option lists
SETTING_DECIDERS: list[Callable] = []
# (config_text, family) -> str | None: the first declared size the verification wing's one size
# grammar cannot read, as the upload's refusal naming its line (None: every size reads). A rerun
# would refuse it; the upload refuses it where the entrant can fix it.
SIZE_CHECKS: list[Callable] = []
# The lookup from an entry to whether it was streamed with the registry's clock agreeing (the
# live wing's "live_run__witnessed"), for reads that filter and show trust in SQL
# (entries/trust.py); none: no wing streams runs.
STREAMED_LOOKUPS: list[str] = []


def _register(plugs: list, plug) -> None:
    if plug not in plugs:
        plugs.append(plug)


def register_entry_panel(panel: Panel) -> None:
    _register(ENTRY_PANELS, panel)


def register_entry_admin_action(action: Callable) -> None:
    _register(ENTRY_ADMIN_ACTIONS, action)


def register_entry_stream(reader: Callable) -> None:
    _register(ENTRY_STREAMS, reader)


def register_contest_panel(panel: Panel) -> None:
    _register(CONTEST_PANELS, panel)


def register_rule_sentences(sentences: dict[str, str]) -> None:
    RULE_SENTENCES.update(sentences)


def register_token_lister(lister: Callable) -> None:
    _register(TOKEN_LISTERS, lister)


def register_setting_decider(decider: Callable) -> None:
    _register(SETTING_DECIDERS, decider)


def register_size_check(check: Callable) -> None:
    _register(SIZE_CHECKS, check)


def unreadable_size(config_text: str, family: str) -> str | None:
    """The refusal of a declared size no rerun could read (see SIZE_CHECKS); None when every size
    reads, or no wing checks sizes."""
    for check in SIZE_CHECKS:
        found = check(config_text, family)
        if found is not None:
            return found
    return None


def register_streamed_lookup(lookup: str) -> None:
    _register(STREAMED_LOOKUPS, lookup)


def streamed_lookup() -> str:
    """The ORM lookup of an entry's stream sealed as streamed; "" when no wing streams runs."""
    return STREAMED_LOOKUPS[0] if STREAMED_LOOKUPS else ""


def entry_panels_context(submission, user) -> dict:
    """Every registered panel's context for the entry page, and the panels to include."""
    context: dict = {"entry_panels": list(ENTRY_PANELS)}
    for panel in ENTRY_PANELS:
        context.update(panel.context(submission, user))
    return context


def entry_stream(submission) -> StreamedRun | None:
    """The entry's streamed run as a wing knows it; None for an uploaded file."""
    for reader in ENTRY_STREAMS:
        found = reader(submission)
        if found is not None:
            return found
    return None


def contest_panels_context(contest, user) -> dict:
    """Every registered contest panel's context, and the panels to include."""
    context: dict = {"contest_panels": list(CONTEST_PANELS)}
    for panel in CONTEST_PANELS:
        context.update(panel.context(contest, user))
    return context


def contest_panels_reads(contest_id: int) -> list:
    """The compiled statements every contest panel reads (Panel.reads)."""
    return [key for panel in CONTEST_PANELS if panel.reads for key in panel.reads(contest_id)]


def setting_decisions(declared: dict[str, str], family: str) -> dict | None:
    """What a verification would do with each declared setting (see SETTING_DECIDERS): key ->
    its fate (`.applied`, `.sentence`); None when no wing knows yet."""
    for decider in SETTING_DECIDERS:
        found = decider(declared, family)
        if found is not None:
            return found
    return None


def wing_tokens(user) -> list:
    return [token for lister in TOKEN_LISTERS for token in lister(user)]
