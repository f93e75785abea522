"""The one error the parser raises, and how it writes numbers for people."""

from __future__ import annotations

import math

# A quoted line in a message is cut to this many characters.
QUOTE_CHARS = 80


class LogError(ValueError):
    """A log the registry cannot accept; str() says where and what to fix.

    >>> str(LogError("rows went down from 5,000,000 to 4,000,000", line=1204))
    'line 1,204: rows went down from 5,000,000 to 4,000,000'
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"line {self.line:,}: {self.message}"


class LogTooLarge(LogError):
    """A log refused for the work it would take, not for what it says: more lines, bytes,
    reports or statements than a limit, or longer to read than the deadline. `limit` names
    which (a key of LIMITS), so the registry can answer 413 and name its setting; `line` is
    the first line past the limit, where the read stopped."""

    def __init__(self, message: str, line: int | None, limit: str) -> None:
        self.limit = limit
        super().__init__(message, line=line)


# The limits a LogTooLarge may name.
LIMITS = ("lines", "expanded_bytes", "reports", "statements", "seconds")


def num(value: int | float) -> str:
    """A number with thousands separators and no needless decimals: 5,000,000 / 48.3."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value.is_integer():
        return f"{value:,.0f}"
    text = f"{value:,.3f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") else f"{value:.3g}"


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """A line quoted for a message, cut to `limit` characters, control characters escaped."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)
