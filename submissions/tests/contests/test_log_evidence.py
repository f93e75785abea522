"""What the log itself says, uploaded through the API: a real C benchmark log made here against
the shared MariaDB is checked against the declared machine (machine_in_log) and against what
no machine can do (the physics rules). The same log with its times divided by 3 (rates
multiplied, its arithmetic consistent, its cost columns untouched) is a careless fake."""

import os

import pytest
from django.conf import settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from submissions.contests.physics import PHYSICS_RULES
from submissions.logparse import parse_log
from submissions.models import Submission
from testing.factories import ContestFactory, UserFactory
from testing.logs import c_log_faster, c_log_made_here

pytestmark = pytest.mark.django_db

PHYSICS = [rule.id for rule in PHYSICS_RULES]


@pytest.fixture(scope="module")
def real_log() -> bytes:
    return c_log_made_here(str(settings.IIBENCH_BINARY), database=f"iibench_evidence_{os.getpid()}")


def this_machine(log: bytes) -> dict:
    """A truthful declaration of the machine the log states (its drive is a VM's virtual disk:
    declared ssd, which the log neither confirms nor contradicts)."""
    import io

    machine = parse_log(io.BytesIO(log)).machine
    return {
        "sockets": int(machine["sockets"].value),
        "cores": int(machine["cores"].value),
        "memory_gb": round(int(machine["memory_bytes"].value) / 2**30),
        "drives": 1,
        "drive_kind": "ssd",
    }


def upload(declared: dict, log: bytes) -> dict:
    contest = ContestFactory(
        target_rows=300_000, report_every_rows=100_000, max_cores=None, max_memory_gb=None
    )
    client = APIClient()
    user = UserFactory()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = client.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "log": SimpleUploadedFile("run.log", log)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return response.json()


def verdicts(body: dict) -> dict:
    return {verdict["rule"]: verdict for verdict in body["verdicts"]}


def test_the_untouched_log_passes_every_physics_rule_and_its_machine_agrees(
    real_log, declared, client
):
    body = upload({**declared, **this_machine(real_log)}, real_log)
    found = verdicts(body)
    assert {rule: found[rule]["status"] for rule in PHYSICS} == dict.fromkeys(PHYSICS, "pass")
    assert found["machine_in_log"]["status"] == "pass"
    # Declared ssd on the VM's vda: the volume says nothing of the drive beneath (issue 42).
    assert "drive (vda is a virtual volume" in found["machine_in_log"]["message"]
    page = client.get(Submission.objects.get(pk=body["id"]).get_absolute_url()).content.decode()
    assert "The log says" in page and 'data-fact="memory"' in page
    assert "agrees" in page and "not stated: vda is a virtual" in page


def test_a_wrong_memory_declaration_fails_the_machine_rule_naming_both_values(real_log, declared):
    truthful = this_machine(real_log)
    body = upload({**declared, **truthful, "memory_gb": 16}, real_log)
    verdict = verdicts(body)["machine_in_log"]
    assert verdict["status"] == "fail"
    log_gib = f"{int(parse_machine(real_log)['memory_bytes']) / 2**30:.1f} GiB"
    assert "memory: declared 16 GB (the entry's declaration), the log says " in verdict["message"]
    assert log_gib in verdict["message"] and "`# machine`" in verdict["message"]
    assert verdict["line"] is not None
    assert body["eligible"] is False


def test_a_log_with_its_times_divided_by_3_fails_a_cpu_rule_naming_the_interval(real_log, declared):
    faked = c_log_faster(real_log, 3)
    body = upload({**declared, **this_machine(real_log)}, faked)
    found = verdicts(body)
    # The log still adds up: the fake is consistent with itself.
    assert found["interval_rate"]["status"] == "pass"
    assert found["cumulative_rate"]["status"] == "pass"
    cpu = found["physics_cpu"]
    assert cpu["status"] == "fail", cpu
    assert cpu["message"].startswith(f"line {cpu['line']:,}: ")
    assert "logical CPUs (the log's line" in cpu["message"]
    line = faked.decode().splitlines()[cpu["line"] - 1]
    assert line[0].isdigit()  # a report line, the interval's own
    assert body["eligible"] is False


def test_a_log_that_states_no_machine_gets_not_stated_never_a_pass(declared):
    from testing.logs import c_log

    body = upload(declared, c_log(rows=300_000, every=50_000))
    found = verdicts(body)
    assert found["machine_in_log"]["status"] == "unverified"
    assert found["machine_in_log"]["message"].startswith("Not stated:")
    assert found["physics_cpu"]["status"] == "unverified"


def parse_machine(log: bytes) -> dict:
    import io

    return {key: stated.value for key, stated in parse_log(io.BytesIO(log)).machine.items()}
