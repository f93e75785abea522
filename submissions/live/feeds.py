"""The Atom feed of streamed runs as they start and as they are sealed: /feeds/live.atom."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from submissions.entries.selectors import published_q
from submissions.entries.trust import STREAMED, TRUST_SENTENCES
from submissions.live.models import LiveRun

FEED_ITEMS = 50


@dataclass(frozen=True)
class RunEvent:
    run: LiveRun
    what: str  # "started" or "sealed"
    at: datetime


class LiveRunsFeed(Feed):
    feed_type = Atom1Feed
    title = "iiBench registry: live runs"
    subtitle = "Streamed runs of published contests as they start and as they are sealed."

    def link(self) -> str:
        return reverse("home")

    def items(self) -> list[RunEvent]:
        runs = list(
            LiveRun.objects.filter(published_q())
            .select_related("contest", "submission")
            .order_by("-opened_at")[:FEED_ITEMS]
        )
        events = [RunEvent(run, "started", run.opened_at) for run in runs]
        events += [RunEvent(run, "sealed", run.sealed_at) for run in runs if run.sealed_at]
        return sorted(events, key=lambda event: event.at, reverse=True)[:FEED_ITEMS]

    def item_title(self, event: RunEvent) -> str:
        run = event.run
        engine = run.declared.get("storage_engine", "")
        if event.what == "started":
            return f"{run.contest.title}: live run #{run.pk} ({engine}) started"
        # LiveRun.witnessed is the field's old name for the level now called streamed.
        trust = STREAMED if run.witnessed else f"not {STREAMED}"
        return f"{run.contest.title}: live run #{run.pk} ({engine}) sealed, {trust}"

    def item_description(self, event: RunEvent) -> str:
        run = event.run
        if event.what == "started":
            return f"Streaming now: {run.command or 'an iiBench run'}."
        said = f"{run.rows:,} rows; exit status {run.exit_status}. {run.seal_message}".strip()
        return f"{said} {TRUST_SENTENCES[STREAMED]}" if run.witnessed else said

    def item_link(self, event: RunEvent) -> str:
        return event.run.get_absolute_url()

    def item_guid(self, event: RunEvent) -> str:
        return f"live-run-{event.run.pk}-{event.what}"

    def item_guid_is_permalink(self, event: RunEvent) -> bool:
        return False

    def item_pubdate(self, event: RunEvent) -> datetime:
        return event.at

    def item_updateddate(self, event: RunEvent) -> datetime:
        return event.at
