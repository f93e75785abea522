"""The board's verified sort, filter and trust level read the one stored outcome: a reproduction
edited since is neither verified nor sorted with the verified (issue 40)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

DAY = 86_400.0


def test_the_verified_sort_filter_and_trust_leave_out_a_verification_before_an_edit(client):
    contest = ContestFactory()
    judged = timezone.now() - timedelta(days=2)
    current = SubmissionFactory(
        contest=contest, seconds_to_target=3 * DAY, verified=True, verification_at=judged
    )
    edited = SubmissionFactory(
        contest=contest, seconds_to_target=DAY, verified=True, verification_at=judged,
        setup_edited_at=judged + timedelta(days=1),
    )  # fmt: skip
    refuted = SubmissionFactory(
        contest=contest, seconds_to_target=2 * DAY, verification="not_reproduced",
        verification_at=judged, verification_headline="Not reproduced at 1/10 on mariadb: x.",
    )  # fmt: skip
    # An organizer's mark from before the outcome had a date, then an edit.
    undated = SubmissionFactory(
        contest=contest, seconds_to_target=4 * DAY, verified=True, setup_edited_at=judged
    )
    board = f"/api/contests/{contest.slug}/leaderboard/"

    by_verified = client.get(f"{board}?sort=-verified").json()["results"]
    only = client.get(f"{board}?verified=1").json()["results"]
    trusted = client.get(f"{board}?trust=verified").json()["results"]
    reported = client.get(f"{board}?trust=self-reported").json()["results"]

    assert by_verified[0]["id"] == current.pk
    assert [row["id"] for row in only] == [row["id"] for row in trusted] == [current.pk]
    assert {row["id"] for row in reported} == {edited.pk, refuted.pk, undated.pk}
    states = {row["id"]: row["verification"] for row in by_verified}
    assert states == {
        current.pk: "reproduced",
        edited.pk: "before_edit",
        refuted.pk: "not_reproduced",
        undated.pk: "before_edit",
    }
    words = {row["id"]: row["verification_outcome"] for row in by_verified}
    assert words[refuted.pk] == "Not reproduced at 1/10 on mariadb: x."
    page = client.get(f"/contests/{contest.slug}/").content.decode()
    assert (
        'data-verification="not_reproduced"' in page and 'data-verification="before_edit"' in page
    )
