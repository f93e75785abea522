"""Figures no server can produce are refused, naming the line."""

import pytest
from rest_framework.test import APIClient

from submissions.logparse import parse_log
from submissions.measures.plausibility import implausible
from submissions.models import Submission
from testing.entries import upload
from testing.logs import python_log

HEADER = "#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps last_qps"


def log(*reports: str) -> bytes:
    return ("\n".join([HEADER, *reports]) + "\n").encode()


def first_problem(data: bytes) -> str | None:
    import io

    return implausible(parse_log(io.BytesIO(data)).series)


def test_an_honest_log_passes():
    assert first_problem(python_log()) is None


def test_a_rate_over_a_hundred_million_rows_per_second_is_named_with_its_line():
    data = log(
        "1000000 10.0 10.0 100000.0 1000000 100000.0 0 0.0 0.0",
        "2000000 10.0 20.0 100000.0 2000000 1e300 0 0.0 0.0",
    )
    problem = first_problem(data)
    assert problem.startswith("line 3: an interval rate of")
    assert "100,000,000 rows/s" in problem


def test_a_rate_that_disagrees_with_its_rows_and_seconds_is_named_with_its_line():
    data = log(
        "1000000 20.0 20.0 50000.0 1000000 50000.0 0 0.0 0.0",
        "2000000 20.0 40.0 900000.0 2000000 50000.0 0 0.0 0.0",
    )
    problem = first_problem(data)
    assert problem.startswith("line 3: the cumulative rate 900,000.0 rows/s disagrees")
    assert "2,000,000 rows in 40.0 s" in problem


def test_the_first_impossible_line_is_named_when_several_are():
    data = log(
        "1000000 20.0 20.0 50000.0 1000000 50000.0 0 0.0 0.0",
        "2000000 20.0 40.0 900000.0 2000000 50000.0 0 0.0 0.0",
        "3000000 20.0 60.0 50000.0 3000000 1e300 0 0.0 0.0",
        "4000000 20.0 80.0 50000.0 4000000 1e300 0 0.0 0.0",
    )
    assert first_problem(data).startswith("line 3: the cumulative rate 900,000.0 rows/s")
    assert first_problem(data.replace(b"900000.0", b"50000.0")).startswith(
        "line 4: an interval rate of"
    )


def test_rounded_seconds_early_in_a_run_are_not_held_against_it():
    # 1 s printed for 1.4 s: the rate is 30% off what the printed figures give.
    data = log("1000 1 1 714.3 1000 714.3 0 0.0 0.0")
    assert first_problem(data) is None


@pytest.mark.django_db
def test_the_api_refuses_an_impossible_log_and_stores_nothing(contest, entrant, declared):
    api = APIClient()
    api.force_authenticate(entrant)
    data = log(
        "1000000 10.0 10.0 100000.0 1000000 100000.0 0 0.0 0.0",
        "2000000 0.00000001 10.00000001 1e300 2000000 1e300 0 0.0 0.0",
    )
    response = api.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": upload(data)},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["log"][0].startswith("line 3: an interval rate of")
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_a_stored_entry_with_an_impossible_rate_fails_the_recheck_naming_the_line(
    contest, entrant, declared
):
    from django.core.files.base import ContentFile

    from submissions.entries import services

    entry = services.entry_create(
        contest=contest, owner=entrant, declared=declared, log_file=upload(python_log())
    )
    # As stored before the check existed: a forged rate on line 3.
    forged = python_log().decode().splitlines()
    forged[2] = forged[2].rsplit(" ", 4)[0] + " 1e300 0 0.0 0.0"
    entry.log.storage.delete(entry.log.name)
    entry.log.storage.save(entry.log.name, ContentFile("\n".join(forged).encode() + b"\n"))
    services.contest_recheck(contest=contest)
    entry.refresh_from_db()
    assert entry.eligible is False
    assert entry.rank is None
    assert entry.ineligible_reason.startswith(
        "The stored log no longer passes the checks: line 3: an interval rate of"
    )
