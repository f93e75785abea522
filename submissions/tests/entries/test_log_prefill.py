"""The declaration a log states, read before the entry is stored: the pure reading of a real C
benchmark log, and `POST /api/submissions/preview/`, which answers it and stores nothing."""

import gzip
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from rest_framework.test import APIClient

from submissions.contests.rule_versions import contest_rule_set
from submissions.entries.from_log import declaration_caps, declaration_from_log
from submissions.logparse import parse_log
from submissions.models import SampleSeries, ServerSetting, Submission
from testing.entries import upload
from testing.logs import python_log

LOGS = Path(__file__).parents[1] / "fixtures" / "logs"
MARIADB_LOG = LOGS / "iibench-c-format3-mariadb.log"


def parsed(data: bytes):
    from io import BytesIO

    return parse_log(BytesIO(data))


def test_a_c_log_states_its_machine_server_and_engine_each_with_its_line():
    found = declaration_from_log(parsed(MARIADB_LOG.read_bytes()))

    assert found.values == {
        "cpu_model": "AMD EPYC",
        "cores": 2,
        "sockets": 1,
        "memory_gb": 23.5,
        "drive_kind": "virtual",
        "server_family": "mariadb",
        "server_version": "10.11.19-MariaDB-0+deb12u1",
        "storage_engine": "InnoDB",
    }
    assert found.sources["cores"] == "line 25: # machine cores 2"
    assert found.sources["memory_gb"] == ("line 26: # machine memory_bytes 25274793984 (23.5 GiB)")
    assert found.sources["server_family"] == (
        "line 19: # backend mysql; line 20: # server 10.11.19-MariaDB-0+deb12u1"
    )
    assert found.sources["storage_engine"] == "line 10: # param engine=InnoDB"


def test_a_virtual_disk_proposes_a_virtual_volume_and_a_real_one_its_kind():
    text = MARIADB_LOG.read_text()
    # The fixture ran on a VM's vda: a virtual volume, whatever its rotational flag says.
    found = declaration_from_log(parsed(text.encode()))
    assert found.values["drive_kind"] == "virtual"
    assert found.sources["drive_kind"].startswith("line 27: # machine data_device vda")

    on_nvme = text.replace("data_device vda", "data_device nvme0n1").replace(
        "data_device_rotational yes", "data_device_rotational no"
    )
    found = declaration_from_log(parsed(on_nvme.encode()))
    assert found.values["drive_kind"] == "nvme"
    assert found.sources["drive_kind"] == (
        "line 29: # machine data_device_rotational no (nvme0n1, line 27)"
    )
    on_disk = text.replace("data_device vda", "data_device sda")
    assert declaration_from_log(parsed(on_disk.encode())).values["drive_kind"] == "hdd"


def test_a_postgresql_log_states_its_server_and_no_storage_engine():
    log = Path(__file__).parents[2] / "demo_logs" / "c-query-postgresql-1m.log"
    found = declaration_from_log(parsed(log.read_bytes()))
    assert found.values == {
        "server_family": "postgresql",
        "server_version": "15.20 (Debian 15.20-0+deb12u1)",
    }


def test_a_python_log_states_nothing_of_the_declaration():
    assert declaration_from_log(parsed(python_log())).values == {}


@pytest.mark.django_db
def test_the_contest_caps_are_stated_in_words(contest):
    caps = declaration_caps(contest_rule_set(contest))
    assert caps["cores"] == "The contest's cap: at most 8 cores in total."
    assert caps["memory_gb"] == "The contest's cap: at most 16 GB."
    assert caps["drives"] == "The contest's cap: at most 8 drives."


def preview(client, log, **extra):
    return client.post("/api/submissions/preview/", {"log": log, **extra}, format="multipart")


def stored_files() -> list[str]:
    def walk(folder: str) -> list[str]:
        if not default_storage.exists(folder or "."):
            return []
        folders, files = default_storage.listdir(folder)
        found = [f"{folder}/{name}" for name in files]
        for sub in folders:
            found += walk(f"{folder}/{sub}" if folder else sub)
        return found

    return walk("")


@pytest.mark.django_db
def test_the_preview_api_answers_what_the_log_states_and_stores_nothing(contest, entrant):
    client = APIClient()
    client.force_authenticate(entrant)
    before = stored_files()

    response = preview(
        client, upload(gzip.compress(MARIADB_LOG.read_bytes()), "run.log.gz"), contest=contest.slug
    )

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["from_log"]["cores"] == 2
    assert body["from_log"]["cpu_model"] == "AMD EPYC"
    assert body["from_log"]["server_family"] == "mariadb"
    assert body["sources"]["cores"] == "line 25: # machine cores 2"
    assert body["caps"]["cores"] == "The contest's cap: at most 8 cores in total."
    assert Submission.objects.count() == 0
    assert SampleSeries.objects.count() == 0 and ServerSetting.objects.count() == 0
    assert stored_files() == before


@pytest.mark.django_db
def test_the_preview_api_refuses_a_bad_log_naming_its_line(entrant):
    client = APIClient()
    client.force_authenticate(entrant)
    broken = MARIADB_LOG.read_text().replace("# param rows=100000", "# param rows=lots")

    response = preview(client, upload(broken.encode()))

    assert response.status_code == 400
    assert response.json()["log"] == ["line 4: param rows='lots' is not a whole number"]
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_the_preview_api_takes_the_upload_caps_and_names_what_is_missing(entrant, settings):
    client = APIClient()
    client.force_authenticate(entrant)
    settings.LOG_UPLOAD_MAX_BYTES = 1000

    too_large = preview(client, upload(MARIADB_LOG.read_bytes()))
    empty = preview(client, upload(b""))
    none = client.post("/api/submissions/preview/", {}, format="multipart")
    unknown = preview(client, upload(b"x"), contest="no-such-contest")

    assert too_large.status_code == 413
    assert "logs are limited to 1,000 bytes" in too_large.json()["log"][0]
    assert (empty.status_code, empty.json()) == (
        400,
        {"log": ["The file is empty: attach the iiBench output."]},
    )
    assert (none.status_code, none.json()) == (
        400,
        {"log": ["Attach the log (multipart field `log`)."]},
    )
    assert (unknown.status_code, unknown.json()) == (
        400,
        {"contest": ["No contest 'no-such-contest'."]},
    )


@pytest.mark.django_db
def test_the_preview_api_wants_an_entrant(contest):
    response = preview(APIClient(), upload(MARIADB_LOG.read_bytes()))
    assert response.status_code in (401, 403)
    assert Submission.objects.count() == 0


@pytest.mark.django_db
def test_the_stream_page_names_the_declaration_fields_and_the_preview(client, contest, entrant):
    client.force_login(entrant)
    page = client.get(f"/contests/{contest.slug}/stream/").content.decode()
    assert "mysql_version" not in page
    assert "server_family, server_version" in page
    assert "/api/submissions/preview/" in page
