"""What a benchmark's command line proves about its secondary indexes. Pure: no Django.

A streamed run knows the command the witness client ran (LiveRun.command); an upload does not.
The Python iibench's log never says whether its table had secondary indexes while it loaded
(docs/IIBENCH.md, "What each client's log can prove"), and its flags do:

- since mdcallag/mytools 78887ab4 (2023-08-08) `--setup` creates only the primary key; the
  secondary indexes come before the first row only with `--secondary_at_start`, after the last
  one with `--secondary_at_end`;
- before that, `--setup` created them with the table, unless `--secondary_at_end`;
- `--num_secondary_indexes` (default 3, since 2016) says how many;
- without `--setup` the run used a table made before it, which the command cannot show.

optparse, which the client parses its flags with, accepts any unambiguous prefix of a long
option (`--secondary_at_s`) and `--name value` as well as `--name=value`: both are read here.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

# The client's table has three secondary indexes, as the 2008 table does.
CONTEST_SECONDARY_INDEXES = 3
SECONDARY_AT_START_SINCE = "78887ab4 (2023-08-08)"


@dataclass(frozen=True)
class IndexFlags:
    """The flags of one Python iibench command line that decide its indexes."""

    setup: bool
    secondary_at_start: bool
    secondary_at_end: bool
    num_secondary_indexes: int  # the client's default when the command does not set it
    shown: str  # the flags as the command wrote them, for a verdict to quote


@dataclass(frozen=True)
class CommandIndexes:
    """What the command proves: `status` is "pass", "fail" or "unverified"."""

    status: str
    message: str
    shown: str


def _flag(word: str, name: str, shortest: int) -> bool:
    """`word` names the long option `name`, whole or by an unambiguous prefix of it."""
    option = word.split("=", 1)[0]
    return len(option) >= shortest and name.startswith(option)


def python_index_flags(command: str) -> IndexFlags | None:
    """The index flags of a Python iibench command line; None when it is not one."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not any(word.endswith("iibench.py") for word in words):
        return None
    setup = start = end = False
    count, shown = CONTEST_SECONDARY_INDEXES, []
    for at, word in enumerate(words):
        # "--setup" shares no prefix with another option the client defines.
        if _flag(word, "--setup", len("--se")) and not word.startswith("--sec"):
            setup = True
        elif _flag(word, "--secondary_at_start", len("--secondary_at_s")):
            start = True
        elif _flag(word, "--secondary_at_end", len("--secondary_at_e")):
            end = True
        elif _flag(word, "--num_secondary_indexes", len("--num")):
            value = word.split("=", 1)[1] if "=" in word else _next(words, at)
            count = int(value) if value.isdigit() else count
        else:
            continue
        shown.append(word if "=" in word or not word.startswith("--num") else f"{word} {count}")
    return IndexFlags(setup, start, end, count, " ".join(shown) or "(no index flag)")


def _next(words: list[str], at: int) -> str:
    return words[at + 1] if at + 1 < len(words) else ""


def python_command_indexes(command: str, *, client_since_2023_08: bool) -> CommandIndexes | None:
    """What a Python iibench command line proves about its indexes; None for another command.
    `client_since_2023_08`: the log is of the format today's client prints (2023 on), whose
    `--setup` alone makes no secondary index."""
    flags = python_index_flags(command)
    if flags is None:
        return None
    said = f"The command the witness ran has `{flags.shown}`"
    if flags.num_secondary_indexes < CONTEST_SECONDARY_INDEXES:
        return CommandIndexes(
            "fail",
            f"{said}: {flags.num_secondary_indexes} secondary indexes, not the "
            f"{CONTEST_SECONDARY_INDEXES} of the contest's table.",
            flags.shown,
        )
    if flags.secondary_at_end:
        return CommandIndexes(
            "fail",
            f"{said}: the secondary indexes were built after the load (bulk load followed by "
            "index creation is not allowed).",
            flags.shown,
        )
    if not flags.setup:
        return CommandIndexes(
            "unverified",
            f"{said}: without `--setup` the run loaded a table made before it, whose indexes "
            "neither the command nor the log shows.",
            flags.shown,
        )
    if flags.secondary_at_start:
        return CommandIndexes(
            "pass",
            f"{said}: the table and its {flags.num_secondary_indexes} secondary indexes were "
            "created before the first row.",
            flags.shown,
        )
    if client_since_2023_08:
        return CommandIndexes(
            "fail",
            f"{said} and no `--secondary_at_start`: since {SECONDARY_AT_START_SINCE} the "
            "Python iibench's `--setup` creates only the primary key, so the rows went into a "
            "table without its secondary indexes.",
            flags.shown,
        )
    return CommandIndexes(
        "pass",
        f"{said}: the Python iibench of this log's format (before 2023) created its secondary "
        "indexes with the table.",
        flags.shown,
    )


@dataclass(frozen=True)
class CommandBatch:
    """Rows per commit, and per INSERT, as a Python iibench command line sets them."""

    rows: int
    shown: str


PYTHON_ROWS_PER_COMMIT = 1000  # the client's default


def python_command_batch(command: str) -> CommandBatch | None:
    """The Python iibench sends each commit as one INSERT of `--rows_per_commit` rows (default
    1,000), fewer when `--inserts_per_second` is smaller: both figures come from the command.
    None for another command."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if not any(word.endswith("iibench.py") for word in words):
        return None
    rows, cap, shown = PYTHON_ROWS_PER_COMMIT, 0, []
    for at, word in enumerate(words):
        for name, shortest in (
            ("--rows_per_commit", len("--rows_per_c")),
            ("--inserts_per_second", len("--ins")),
        ):
            if _flag(word, name, shortest):
                value = word.split("=", 1)[1] if "=" in word else _next(words, at)
                if value.isdigit():
                    shown.append(word if "=" in word else f"{word} {value}")
                    if name == "--rows_per_commit":
                        rows = int(value)
                    else:
                        cap = int(value)
    if cap and cap < rows:
        rows = cap
    return CommandBatch(rows, " ".join(shown) or f"no --rows_per_commit (default {rows:,})")
