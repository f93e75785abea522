"""An entry's verification outcome, one concept read in one place (pure: no Django).

The registry stores one outcome per entry (Submission.verification, .verification_at,
.verification_headline), written by the runner wing when an organizer's verification is judged
(runner/verdicts.py `entry_verification_refresh`): the verdict of its verifications that
the entry shows, when that verification finished, and its headline in words. What the entrant
declared can change after: an edit of the machine, the server, the engine or the settings
(Submission.setup_edited_at) means the verification was of another declaration, so the outcome
is said to be "before an edit" until an organizer verifies again.

Every output (entry page, board row, API, figures.json, badge, feed, CSV and open dataset) reads
the outcome through `outcome_of` and shows `words`, so the word "verified" means one thing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

REPRODUCED = "reproduced"
SHAPE_ONLY = "shape_only"
NOT_REPRODUCED = "not_reproduced"
INCONCLUSIVE = "inconclusive"
# The state of an outcome that speaks of a declaration since edited.
BEFORE_EDIT = "before_edit"

# The verdicts an entry's outcome can hold, and their labels: the judge's own vocabulary
# (a comparison run never verifies, so its verdict is never an entry's outcome).
OUTCOME_LABELS = {
    REPRODUCED: "Reproduced",
    SHAPE_ONLY: "Shape only",
    NOT_REPRODUCED: "Not reproduced",
    INCONCLUSIVE: "Inconclusive",
}
OUTCOME_CHOICES = list(OUTCOME_LABELS.items())

# The fields of a declaration a verification reran: the machine, the server, the engine and
# its settings. An edit of any of them leaves the verification behind; a new name, e-mail or
# description does not.
SETUP_FIELDS = (
    "cpu_model", "sockets", "cores", "cpu_ghz", "memory_gb", "drives", "drive_kind",
    "raid_level", "direct_attached", "os", "server_family", "server_version", "storage_engine",
    "storage_engine_version", "server_config",
)  # fmt: skip

# The word where a verdict was judged on a declaration since edited.
BEFORE_EDIT_WORDS = {
    REPRODUCED: "Verified before an edit",
    SHAPE_ONLY: "Shape only before an edit",
    NOT_REPRODUCED: "Not reproduced before an edit",
    INCONCLUSIVE: "Inconclusive before an edit",
}


@dataclass(frozen=True)
class VerificationOutcome:
    """What the organizers' verifications say of an entry as it is declared now."""

    verdict: str = ""  # one of OUTCOME_LABELS, "" when none was judged
    judged_at: datetime | None = None  # when the verification behind it finished
    headline: str = ""  # the verification's headline, as its judge worded it
    setup_edited_at: datetime | None = None  # the last edit of what a verification reruns

    @property
    def before_edit(self) -> bool:
        """Judged on a declaration whose machine, server, engine or settings changed since."""
        if not self.verdict or self.setup_edited_at is None:
            return False
        return self.judged_at is None or self.judged_at < self.setup_edited_at

    @property
    def verified(self) -> bool:
        """Reproduced, and of the declaration as it stands: the only state worth the word."""
        return self.verdict == REPRODUCED and not self.before_edit

    @property
    def state(self) -> str:
        """The verdict, BEFORE_EDIT when an edit came after it, "" without one."""
        return BEFORE_EDIT if self.before_edit else self.verdict

    @property
    def label(self) -> str:
        """The short word a badge or a board cell shows."""
        if self.before_edit:
            return BEFORE_EDIT_WORDS[self.verdict]
        return OUTCOME_LABELS.get(self.verdict, "")

    @property
    def words(self) -> str:
        """The outcome in one sentence: the verification's headline ("Reproduced at 1/10 on
        mariadb: within the host's resolution of ±14%; ..."), or "Verified before an edit on
        29 Nov 2026: ..." once the declaration changed; "" without a verification."""
        if not self.verdict:
            return ""
        said = self.headline or f"{OUTCOME_LABELS[self.verdict]} by an organizer's rerun."
        if not self.before_edit:
            return said
        edited = self.setup_edited_at
        day = f"{edited.day} {edited:%b %Y}" if edited else ""
        return (
            f"{BEFORE_EDIT_WORDS[self.verdict]} on {day}: the machine, server, engine or "
            f"settings were changed after this verification ({said}). Not verified until an "
            "organizer verifies it again."
        )


def outcome_of(values) -> VerificationOutcome:
    """The outcome of an entry, from its stored fields (a Submission, or a board's values
    dict): the one function every output reads."""
    read = values.get if isinstance(values, dict) else lambda name: getattr(values, name)
    verdict = read("verification") or ""
    return VerificationOutcome(
        verdict=verdict if verdict in OUTCOME_LABELS else "",
        judged_at=read("verification_at"),
        headline=read("verification_headline") or "",
        setup_edited_at=read("setup_edited_at"),
    )


# What a Submission's board and exports read to build its outcome.
OUTCOME_FIELDS = ("verification", "verification_at", "verification_headline", "setup_edited_at")


def setup_changed(before: dict, after: dict) -> bool:
    """Whether a declaration's edit touched what a verification reruns."""
    return any(before.get(name) != after.get(name) for name in SETUP_FIELDS if name in after)


# What every output names of the outcome, under the same public names: `verified` (true only
# for a reproduction of the declaration as it stands), `verification` (the state) and
# `verification_outcome` (the sentence).
OUTCOME_STATE_HELP = (
    '"reproduced", "shape_only" (a host unlike the entry\'s reproduced the curve\'s shape), '
    '"not_reproduced", "inconclusive", "before_edit" (judged before an edit of the machine, '
    'server, engine or settings: no longer verifies) or "" (never verified).'
)
OUTCOME_WORDS_HELP = (
    "The verification's outcome in words: its headline (scale, target, resolution), or when "
    'the edit that left it behind came; "" when never verified.'
)


def outcome_public(outcome: VerificationOutcome) -> dict:
    """The outcome as the API, the exports, figures.json and the open dataset name it."""
    return {
        "verified": outcome.verified,
        "verification": outcome.state,
        "verification_outcome": outcome.words,
    }
