"""A declared size the one size grammar cannot read is refused where the entrant can fix it
(a 400 naming the line, the setting and the value, at upload and at edit), and a readable one
is stored; the entry page then says, for each setting, what every verification does with it:
the sentence decided by the rerun's own decision and memory budget, read against the option
table the worker read from the installed server."""

from __future__ import annotations

import tempfile

import pytest
from rest_framework.test import APIClient

from runner import servers
from runner.option_tables import options_kept
from submissions.models import Submission
from testing.entries import upload

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def post(client, contest, declared, config: str):
    return client.post(
        "/api/submissions/",
        {"contest": contest.slug, **declared, "server_config": config, "log": upload()},
        format="multipart",
    )


@pytest.mark.parametrize(
    ("family", "config", "named"),
    [
        ("mysql", "[mysqld]\ninnodb_buffer_pool_size = 1G\nkey_buffer_size = 1X\n", "line 3"),
        ("mysql", "[mysqld]\nsort_buffer_size = 16E\n", "larger than the server can read"),
        ("mysql", "tmp_memory_table_size = 1.5G\n", "line 1"),
        ("postgresql", "shared_buffers = 8GB\nwork_mem = 1PB\n", "line 2"),
        ("postgresql", "sort_mem = lots\n", "sort_mem = 'lots'"),
    ],
)
def test_an_unreadable_size_is_refused_at_upload_naming_it(
    contest, entrant, declared, family, config, named
):
    if family == "postgresql":
        declared = {**declared, "server_family": "postgresql", "storage_engine": "heap"}
    response = post(api(entrant), contest, declared, config)
    assert response.status_code == 400, response.content
    message = response.json()["server_config"][0]
    assert named in message and "Server configuration line" in message, message
    assert not Submission.objects.exists()


def test_a_readable_size_is_stored_and_an_edit_to_an_unreadable_one_refused(
    contest, entrant, declared
):
    client = api(entrant)
    response = post(client, contest, declared, "[mysqld]\nkey_buffer_size = 1E\n")
    assert response.status_code == 201, response.content
    entry = response.json()["id"]
    edited = client.patch(
        f"/api/submissions/{entry}/", {"server_config": "key_buffer_size = 1e9"}, format="json"
    )
    assert edited.status_code == 400, edited.content
    assert "key_buffer_size = '1e9'" in edited.json()["server_config"][0]
    assert Submission.objects.get(pk=entry).server_config.strip().endswith("= 1E")


def test_the_entry_page_says_what_a_rerun_does_with_each_setting(
    client, contest, entrant, declared
):
    options_kept(servers.ServerConfig(kind="mariadb", base_dir=tempfile.gettempdir()))
    config = (
        "[mysqld]\nkey_buffer_size = 1E\ntmp_memory_table_size = 64G\n"
        "max_heap_table_size = 64G\ninnodb_flush_log_at_trx_commit = 2\n"
        "innodb_buffer_pool_filename = /etc/passwd\n"
    )
    response = post(api(entrant), contest, declared, config)
    assert response.status_code == 201, response.content
    page = client.get(Submission.objects.get().get_absolute_url()).content.decode()
    assert "applied, scaled 1/k with the rerun" in page  # key_buffer_size, not "applied"
    assert "applied as tmp_table_size, scaled 1/k with the rerun" in page
    assert "applied as 16M, the server&#x27;s default (the memory budget does not count it)" in page
    assert "innodb_buffer_pool_filename = &#x27;/etc/passwd&#x27; is refused" in page
