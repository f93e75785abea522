"""How far the registry can vouch for an entry, and what each level proves and does not.

- verified: a verification rerun reproduced the claim as it is declared now (the entry's one
  verification outcome, entries/outcome.py: an edit of its machine, server, engine or
  settings since leaves it behind);
- streamed: sent line by line while it ran, the registry's clock agreeing with the log's within
  a share of the time it watched (capped), and nothing edited after the fact. Faking it costs
  nearly as much wall-clock time as the run, however short; the machine facts are what the
  client reported, never observed by the registry;
- self-reported: an uploaded file, which anyone could have typed, or a stream whose lines did
  not keep to the registry's clock (sent faster or later than the run could have printed them).
  A stream whose clock agreed stays streamed whatever else it fails (another machine, another
  server): those are rules of their own, which make it ineligible and say why.

"witnessed" was this middle level's old name: it said more than the registry observed, and is
retired from every public word. Old links with `?trust=witnessed` are read as `streamed`
(`public_level`). The live wing's field keeps its old name (LiveRun.witnessed): renaming a
column costs a migration of every stored run and says nothing more to anyone.
"""

from __future__ import annotations

from collections.abc import Mapping

from submissions.wings import entry_stream, streamed_lookup

VERIFIED = "verified"
STREAMED = "streamed"
SELF_REPORTED = "self-reported"
TRUST_LEVELS = (SELF_REPORTED, STREAMED, VERIFIED)

# The retired public words, and the level each is read as now.
RETIRED_LEVELS = {"witnessed": STREAMED}


def streamed_sentence(*, ahead_fraction: float, ahead_seconds: float) -> str:
    """What `streamed` proves, with what the clock allowed (LIVE_CLOCK_TOLERANCE_FRACTION and
    _SECONDS: the live wing states its own settings when it starts, submissions/live/apps.py)."""
    return (
        "Streamed: sent to the registry line by line while it ran; the log's clock never ran "
        f"ahead of the registry's by more than {ahead_fraction:.0%} of the time the registry had "
        f"watched (at most {ahead_seconds:,.0f} s), and nothing was edited after the fact. "
        f"Faking it costs at least {1 / (1 + ahead_fraction):.0%} of the run's wall-clock time, "
        "however short the run. The machine facts are as reported by the client, not observed "
        "by the registry."
    )


# What each level proves, and what it does not: shown wherever the level is (entry page, badge
# title, API, board legend, help).
TRUST_SENTENCES = {
    VERIFIED: (
        "Verified: an organizer's verification rerun (the bundled C benchmark with the "
        "entry's engine and settings, on a registry host, at the scale its verdict states) "
        "reproduced the claim's curve and found the solution no faster than claimed (a claim "
        "slower than its reruns is said in the verdict, not held against it). It shows the "
        "claim does not overstate what the solution does at that scale; it does not prove the "
        "entrant's hardware is what was declared, nor say why a slower claim was slower."
    ),
    STREAMED: streamed_sentence(ahead_fraction=0.05, ahead_seconds=60),
    SELF_REPORTED: (
        "Self-reported: an uploaded file, or a stream whose lines did not keep to the "
        "registry's clock. The registry checked that it adds up and that no "
        "interval goes beyond what the stated machine's CPUs, drives and latency allow; "
        "that catches careless fakes, and it cannot tell a careful fake from a real run."
    ),
}


def public_level(word: str) -> str:
    """The level a query names, reading a retired word as its new one; "" if none."""
    word = RETIRED_LEVELS.get(word, word)
    return word if word in TRUST_LEVELS else ""


def trust_level(*, verified: bool, streamed: bool | None) -> str:
    if verified:
        return VERIFIED
    if streamed:
        return STREAMED
    return SELF_REPORTED


def entry_trust(submission) -> str:
    """The entry's level: its verification (a rerun) and its stream, as the live wing knows it."""
    stream = entry_stream(submission)
    return trust_level(verified=submission.verified, streamed=stream.streamed if stream else None)


# Reads of many entries at once (the board, the open dataset) compute the same level in SQL: the
# stream is the wing's field, named through the wings' door (`streamed_lookup`), never here.


# Verified now, as the database keeps it (Submission.verified_now: the entry's one verification
# outcome, a reproduction of its declaration as it stands).
VERIFIED_NOW = "verified_now"


def trust_columns() -> tuple[str, ...]:
    """The columns a read of entries' values needs for their level."""
    lookup = streamed_lookup()
    return (VERIFIED_NOW, lookup) if lookup else (VERIFIED_NOW,)


def trust_of(values: Mapping) -> str:
    """The level of an entry read as values (`trust_columns()`)."""
    lookup = streamed_lookup()
    return trust_level(verified=values[VERIFIED_NOW], streamed=values[lookup] if lookup else None)


def trust_lookups(level: str) -> tuple[dict, dict]:
    """(what the entries of one level match, what they must not): a rerun verifies; a stream
    sealed with its clock agreeing is streamed (the live wing's field keeps its old name,
    `witnessed`). Plain lookups, so this module stays pure; the board makes them a filter."""
    if level == VERIFIED:
        return {VERIFIED_NOW: True}, {}
    lookup = streamed_lookup()
    if level == STREAMED:
        return ({VERIFIED_NOW: False, lookup: True} if lookup else {"pk__in": []}), {}
    return {VERIFIED_NOW: False}, ({lookup: True} if lookup else {})
