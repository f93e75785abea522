"""The Atom feed of newly published results: /feeds/results.atom."""

from __future__ import annotations

from datetime import datetime

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from submissions.contests import rule_versions
from submissions.contests.ranks import ranks_known
from submissions.entries import selectors
from submissions.entries.outcome import OUTCOME_FIELDS
from submissions.measures import numbers
from submissions.measures.figures import format_exact_duration
from submissions.models import Submission
from submissions.web.serializers import entry_path

FEED_ITEMS = 50
# What an item says of its entry (title, description, author, dates) and its rank reads: an item
# reads these columns, not the entry's seventy (test_results_feed.py counts the reads).
FEED_FIELDS = (
    "id", "contest_id", "entrant_name", "publish", "storage_engine", "demo", "eligible",
    "ineligible_reason", "estimated", "estimate_basis", "seconds_to_target", "elapsed_seconds",
    "terminal_rate", "average_rate", "track_metric", "track_class", "track_figures",
    "sockets", "cpu_model", "cores", "memory_gb", "drives", "drive_kind", "raid_level",
    "submitted_at", *OUTCOME_FIELDS,
)  # fmt: skip
# The verified state said the same as on the entry page, before the outcome's own sentence.
VERIFICATION_SAYS = {
    "reproduced": (
        " Verified: an organizer's rerun reproduced its curve and found the solution no faster "
        "than claimed."
    ),
    "shape_only": " Shape only: a rerun on a host unlike the entry's reproduced its curve's shape.",
}


class PublishedResultsFeed(Feed):
    feed_type = Atom1Feed
    title = "iiBench registry: published results"
    subtitle = "Entries whose contest has published its results, newest first."

    def link(self) -> str:
        return reverse("home")

    def items(self):
        return ranks_known(selectors.published_results(FEED_ITEMS, fields=FEED_FIELDS))

    def item_title(self, entry: Submission) -> str:
        track = entry.contest.track
        if not track.shows_run_figures:
            metric = numbers.display(entry.track_metric, track.columns[0].style)
            standing = (
                f"rank {entry.rank}, {track.ranking.metric_label} {metric}"
                if entry.rank is not None
                else "not ranked"
            )
        elif entry.rank is not None and entry.seconds_to_target is not None:
            to_target = format_exact_duration(entry.seconds_to_target, estimated=entry.estimated)
            standing = f"rank {entry.rank}, {to_target} to {entry.contest.target_rows:,} rows"
        else:
            standing = "not ranked"
        demo = f" [{entry.demo}]" if entry.demo else ""
        return f"{entry.contest.title}: #{entry.pk} {entry.storage_engine}{demo}, {standing}"

    def item_description(self, entry: Submission) -> str:
        outcome = entry.verification_outcome
        said = VERIFICATION_SAYS.get(outcome.state, "")
        words = f" {outcome.words}" if outcome.words else ""
        return self._description(entry) + said + words

    def _description(self, entry: Submission) -> str:
        track = entry.contest.track
        if not track.shows_run_figures:
            rules = rule_versions.contest_rule_set(entry.contest)
            figures = "; ".join(
                f"{column.title(rules)} "
                f"{numbers.display(column.value_of(entry.track_figures), column.style)}"
                for column in track.columns
            )
            reason = f" Not ranked: {entry.ineligible_reason}" if entry.rank is None else ""
            return f"{entry.public_name}, {entry.hardware_summary}. {figures}.{reason}"
        rate = f"{entry.terminal_rate:,.0f} rows/s" if entry.terminal_rate is not None else "—"
        reason = f" Not ranked: {entry.ineligible_reason}" if entry.rank is None else ""
        estimate = f" Time to target estimated: {entry.estimate_basis}." if entry.estimated else ""
        return (
            f"{entry.public_name}, {entry.hardware_summary}. Elapsed "
            f"{format_exact_duration(entry.elapsed_seconds)} (measured), terminal rate {rate}, "
            f"average {entry.average_rate:,.0f} rows/s.{estimate}{reason}"
        )

    def item_link(self, entry: Submission) -> str:
        return entry_path(entry.pk)  # entry.get_absolute_url(), reversed once

    def item_author_name(self, entry: Submission) -> str:
        return entry.public_name

    def item_pubdate(self, entry: Submission) -> datetime:
        return entry.published_at

    def item_updateddate(self, entry: Submission) -> datetime:
        return entry.published_at
