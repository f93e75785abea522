"""An entry's badge (rank, terminal rate, trust level) and a contest leader's, as SVG to embed in
a README or a blog. Every text in them is escaped here: an entrant's name and engine are theirs."""

from __future__ import annotations

from html import escape

from submissions.entries.trust import TRUST_SENTENCES, entry_trust
from submissions.templatetags.registry import duration, rate

# Flat two-part badge, 20 px high, Verdana/DejaVu 11 px.
HEIGHT = 20
PADDING = 6
MAX_TEXT = 60

COLOURS = {
    "verified": "#15803d",
    "streamed": "#0369a1",
    "self-reported": "#6b7280",
    "not eligible": "#b91c1c",
    "no results yet": "#6b7280",
}

_NARROW = set("iIl.,:;|!'`() ")
_WIDE = set("mwMW@%")


def text_width(text: str) -> int:
    """Pixels the text takes at 11 px: close enough for a badge that must not clip."""
    width = 0.0
    for char in text:
        if char in _NARROW:
            width += 3.6
        elif char in _WIDE:
            width += 10.0
        elif char.isupper() or char.isdigit():
            width += 7.2
        else:
            width += 6.4
    return round(width)


def trust_of(entry) -> str:
    """The entry's trust level: verified, streamed or self-reported (submissions/live)."""
    return entry_trust(entry)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def badge_svg(label: str, value: str, colour: str, meaning: str = "") -> str:
    """A two-part badge; label and value are escaped (they may hold what a user typed).
    `meaning` joins the title (the tooltip): what the trust level shown proves and does not."""
    label, value = _clip(label), _clip(value)
    left = text_width(label) + 2 * PADDING
    right = text_width(value) + 2 * PADDING
    total = left + right
    title = escape(f"{label}: {value}" + (f". {meaning}" if meaning else ""))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{HEIGHT}" '
        f'role="img" aria-label="{title}">'
        f"<title>{title}</title>"
        f'<rect width="{left}" height="{HEIGHT}" fill="#374151"/>'
        f'<rect x="{left}" width="{right}" height="{HEIGHT}" fill="{colour}"/>'
        f'<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">'
        f'<text x="{PADDING}" y="14">{escape(label)}</text>'
        f'<text x="{left + PADDING}" y="14">{escape(value)}</text>'
        f"</g></svg>"
    )


def _outcome_part(outcome, *, trust_shown: bool) -> str:
    """The verification's outcome named on the badge, where the trust level beside it does not
    already say it ("verified")."""
    if not outcome.verdict or (outcome.verified and trust_shown):
        return ""
    return f" · {'verified' if outcome.verified else outcome.label.lower()}"


def entry_badge(entry) -> str:
    trust = trust_of(entry)
    outcome = entry.verification_outcome
    public = entry.contest.results_are_public()
    if not entry.eligible:
        value, colour = (
            f"{rate(entry.terminal_rate)} rows/s · not eligible"
            f"{_outcome_part(outcome, trust_shown=False)}",
            COLOURS["not eligible"],
        )
    else:
        rank = f"#{entry.rank} · " if public and entry.rank else ""
        outcome_part = _outcome_part(outcome, trust_shown=True)
        value = f"{rank}{rate(entry.terminal_rate)} rows/s · {trust}{outcome_part}"
        colour = COLOURS.get(trust, COLOURS["self-reported"])
    # The verification's outcome first (what it reproduced, at which scale, how finely; or
    # that an edit came after it), then what the trust level proves and does not.
    meaning = f"{outcome.words} {TRUST_SENTENCES[trust]}".strip()
    return badge_svg(f"iiBench #{entry.pk} {entry.storage_engine}", value, colour, meaning)


def contest_badge(contest, leader) -> str:
    if leader is None:
        return badge_svg(contest.title, "no results yet", COLOURS["no results yet"])
    trust = trust_of(leader)
    elapsed = duration(leader.seconds_to_target, leader.estimated)
    value = f"leader {leader.public_name}, {leader.storage_engine}: {elapsed}"
    return badge_svg(
        contest.title,
        value,
        COLOURS.get(trust, COLOURS["self-reported"]),
        TRUST_SENTENCES[trust],
    )
