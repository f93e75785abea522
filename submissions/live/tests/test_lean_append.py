"""An append on the lean path (live/batch_post.py) stores what the DRF view stored and answers
what it answered: every report once, at its own line of the log, whatever the batches' sizes;
a request the lean path does not take is answered by the DRF view exactly as before."""

from pathlib import Path

import pytest
from rest_framework.test import APIClient

from submissions.live.models import LiveBatch, LiveSample
from testing.witness_rig import append, open_run, witness_client

pytestmark = pytest.mark.django_db

MARIADB_100K = (
    Path(__file__).resolve().parents[2] / "tests/fixtures/logs/iibench-c-mariadb-100k-cadence.log"
)


@pytest.mark.parametrize("batch_lines", [7, 100, 333])
def test_every_report_of_a_mariadb_run_is_kept_once_at_its_own_line(
    contest, entrant, declared, settings, batch_lines
):
    settings.LIVE_BATCHES_PER_MINUTE = 10_000
    lines = MARIADB_100K.read_text().splitlines()
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    for seq, start in enumerate(range(0, len(lines), batch_lines)):
        assert append(client, run_id, seq, lines[start : start + batch_lines]).status_code == 200
    # A batch sent again (a lost answer) changes nothing.
    last = (len(lines) - 1) // batch_lines
    again = append(client, run_id, last, lines[last * batch_lines :])

    expected = [
        (number, int(line.split("\t")[0]))
        for number, line in enumerate(lines, 1)
        if line[:1].isdigit()
    ]
    kept = list(
        LiveSample.objects.filter(run_id=run_id).order_by("line").values_list("line", "rows")
    )
    assert again.json()["replayed"] is True
    assert kept == expected
    assert LiveBatch.objects.filter(run_id=run_id).count() == last + 1


def test_a_plain_batch_is_answered_as_the_api_documents(contest, entrant, declared):
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]

    first = append(client, run_id, 0, ["# a header line"])
    gap = append(client, run_id, 5, ["x"])

    assert first.status_code == 200
    assert first["Content-Type"] == "application/json"
    assert set(first.json()) == {"next_seq", "replayed", "received_at"}
    assert first.json()["next_seq"] == 1 and first.json()["replayed"] is False
    assert first.json()["received_at"].endswith("Z")
    assert gap.status_code == 409
    assert gap.json() == {
        "detail": "Batch 5 is out of order: the registry expects batch 1.",
        "expected_seq": 1,
    }


@pytest.mark.parametrize(
    ("body", "status", "answer"),
    [
        # Taken by the DRF view, which reads these as it always did.
        ({"seq": "0", "lines": ["a"]}, 200, None),
        ({"seq": 0, "lines": ["réglage à 5 €"]}, 200, None),
        ({"seq": -1, "lines": []}, 400, {"seq": ["Ensure this value is greater than or equal to 0."]}),
        ({"seq": 0, "lines": "a"}, 400, {"lines": ['Expected a list of items but got type "str".']}),
        # A NUL anywhere in the body is refused by the API's parser, naming where (text_input.py).
        ({"seq": 0, "lines": ["a\x00b"]}, 400, {"lines": ["lines[0] holds a NUL character (0x00), which no text here may hold."]}),
        ({"lines": ["a"]}, 400, {"seq": ["This field is required."]}),
        ({"seq": 0, "lines": [], "machine": [1]}, 400, {"machine": ["An object is required."]}),
    ],
)  # fmt: skip
def test_a_batch_the_lean_path_does_not_take_is_answered_as_before(
    contest, entrant, declared, body, status, answer
):
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]

    response = client.post(f"/api/live/{run_id}/batches/", body, format="json")

    assert response.status_code == status, response.content
    if answer is not None:
        assert response.json() == answer
    assert LiveBatch.objects.filter(run_id=run_id).count() == (status == 200)


def test_an_unknown_or_missing_token_is_refused_as_before(contest, entrant, declared):
    client = witness_client(entrant, contest)
    run_id = open_run(client, declared).json()["id"]
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Bearer iiw_not-a-token")

    unknown = append(stranger, run_id, 0, ["a"])
    missing = append(APIClient(), run_id, 0, ["a"])

    assert unknown.status_code == 401
    assert unknown.json() == {"detail": "Unknown witness token."}
    assert missing.status_code == 401
    assert missing.json() == {"detail": "Authentication credentials were not provided."}
    assert not LiveBatch.objects.filter(run_id=run_id).exists()
