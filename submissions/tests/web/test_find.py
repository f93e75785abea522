"""Finding entries: the search box (PostgreSQL's full-text search, a plain filter on SQLite: run
this file both ways) over the entries a visitor may see, and the pages of an engine and of a
CPU model with their best terminal rate over time."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from submissions.measures.history import Result, best_over_time
from testing.factories import ContestFactory, SubmissionFactory

pytestmark = pytest.mark.django_db

NOW = timezone.now()


@pytest.fixture
def entries():
    open_2008 = ContestFactory(title="iiBench 2008")
    later = ContestFactory(title="iiBench 2026")
    hidden = ContestFactory(title="Under embargo", results_published_at=None)
    return {
        "toku": SubmissionFactory(
            contest=open_2008,
            entrant_name="Bradley Kuszmaul",
            storage_engine="TokuDB 2.0",
            engine="TokuDB",
            cpu_model="Xeon X5460",
            terminal_rate=15_000.0,
            # Ranks are derived (contests.ranks): the faster eligible run is first.
            eligible=True,
            seconds_to_target=9.0 * 86400,
            submitted_at=NOW - timedelta(days=400),
            solution_description="Fractal tree indexes absorb the random inserts.",
        ),
        "innodb": SubmissionFactory(
            contest=open_2008,
            entrant_name="Ada Entrant",
            storage_engine="InnoDB plugin 1.0",
            engine="InnoDB",
            cpu_model="Xeon X5460",
            terminal_rate=404.0,
            eligible=True,
            seconds_to_target=19.6 * 86400,
            submitted_at=NOW - timedelta(days=300),
            solution_description="Stock settings with larger buffers.",
        ),
        "innodb_later": SubmissionFactory(
            contest=later,
            entrant_name="Grace Hopper",
            storage_engine="InnoDB",
            engine="InnoDB",
            cpu_model="AMD EPYC",
            server_family="mariadb",
            server_version="10.11.19-MariaDB",
            terminal_rate=9_000.0,
            eligible=True,
            submitted_at=NOW - timedelta(days=10),
            solution_description="A 12 GB buffer pool on NVMe.",
        ),
        "anonymous": SubmissionFactory(
            contest=later,
            entrant_name="Secret Person",
            publish=False,
            storage_engine="MyRocks",
            engine="MyRocks",
            cpu_model="AMD EPYC",
            terminal_rate=7_000.0,
            submitted_at=NOW - timedelta(days=5),
        ),
        "embargoed": SubmissionFactory(
            contest=hidden,
            entrant_name="Embargo Entrant",
            storage_engine="InnoDB",
            engine="InnoDB",
            cpu_model="Xeon X5460",
            terminal_rate=99_000.0,
            solution_description="Fractal tree indexes too.",
        ),
    }


def found(client, words: str) -> list[int]:
    response = client.get("/search/", {"q": words})
    assert response.status_code == 200
    return [entry.pk for entry in response.context["entries"]]


def test_the_search_finds_entrant_engine_cpu_server_and_solution_words(client, entries):
    assert found(client, "Kuszmaul") == [entries["toku"].pk]
    assert found(client, "tokudb") == [entries["toku"].pk]
    assert set(found(client, "X5460")) == {entries["toku"].pk, entries["innodb"].pk}
    assert found(client, "mariadb") == [entries["innodb_later"].pk]
    assert found(client, "fractal tree") == [entries["toku"].pk]
    assert found(client, "EPYC InnoDB") == [entries["innodb_later"].pk]
    assert found(client, "nothing like this") == []


def test_the_search_shows_contest_rank_and_terminal_rate(client, entries):
    page = client.get("/search/", {"q": "Kuszmaul"}).content.decode()
    assert "iiBench 2008" in page
    assert '<td class="num">1</td>' in page
    assert '<td class="num">15,000</td>' in page
    assert f'href="/entries/{entries["toku"].pk}/"' in page


def test_the_search_never_shows_an_embargoed_entry_or_an_anonymous_name(client, entries):
    assert found(client, "Embargo") == []
    assert found(client, "Secret") == []
    assert entries["anonymous"].pk in found(client, "MyRocks")
    page = client.get("/search/", {"q": "MyRocks"}).content.decode()
    assert "Secret Person" not in page and "Anonymous entrant" in page


def test_an_organizer_and_the_owner_find_the_entries_they_may_see(client, entries, organizer):
    client.force_login(organizer)
    assert found(client, "Embargo") == [entries["embargoed"].pk]
    client.force_login(entries["embargoed"].owner)
    assert set(found(client, "fractal")) == {entries["toku"].pk, entries["embargoed"].pk}


def test_every_page_has_the_search_box(client, entries):
    page = client.get("/").content.decode()
    assert 'role="search"' in page and 'name="q"' in page and 'action="/search/"' in page


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL's full-text search")
def test_on_postgresql_the_search_is_full_text_with_stemming(client, entries):
    assert connection.vendor == "postgresql"
    # "buffer" finds "buffers" (stemmed), and the better match comes first.
    assert set(found(client, "buffer")) == {entries["innodb"].pk, entries["innodb_later"].pk}
    assert found(client, "trees") == [entries["toku"].pk]
    assert found(client, '"larger buffers"') == [entries["innodb"].pk]


@pytest.mark.skipif("connection.vendor != 'sqlite'", reason="SQLite's plain filter")
def test_on_sqlite_the_search_is_a_plain_filter_of_every_word(client, entries):
    assert connection.vendor == "sqlite"
    assert set(found(client, "buffer")) == {entries["innodb"].pk, entries["innodb_later"].pk}
    assert found(client, "stock buffers") == [entries["innodb"].pk]


def test_an_engine_page_lists_its_results_across_contests_with_the_best_over_time(client, entries):
    response = client.get("/engines/InnoDB/")
    page = response.content.decode()
    shown = [entry.pk for entry in response.context["entries"]]
    history = json.loads(
        page.split('id="system-history-data" type="application/json">')[1].split("</script>")[0]
    )

    assert shown == [entries["innodb_later"].pk, entries["innodb"].pk]
    assert "iiBench 2008" in page and "iiBench 2026" in page
    assert [point["rate"] for point in history["best"]] == [404.0, 9_000.0]
    assert len(history["entries"]) == 2
    caption = page.split('id="system-history-caption">')[1].split("</figcaption>")[0]
    assert "9,000 rows/s" in caption and f"#{entries['innodb_later'].pk} Grace Hopper" in caption
    assert "vendor/plotly-basic.min.js" in page and "js/system-history.js" in page


def test_a_cpu_page_lists_the_results_on_that_cpu_model(client, entries):
    response = client.get("/cpus/Xeon X5460/")
    shown = [entry.pk for entry in response.context["entries"]]
    assert shown == [entries["innodb"].pk, entries["toku"].pk]
    assert response.context["best"].rate == 15_000.0
    assert client.get("/cpus/No such CPU/").status_code == 404
    assert client.get("/engines/Embargoed/").status_code == 404


def test_a_system_page_shows_each_viewer_the_entries_they_may_see(client, entries, organizer):
    """The pages' statements are kept once per process for every name and viewer: each
    request still reads its own name and its own viewer's entries."""

    def shown(url: str) -> set[int]:
        return {entry.pk for entry in client.get(url).context["entries"]}

    published = {entries["innodb_later"].pk, entries["innodb"].pk}
    assert shown("/engines/InnoDB/") == published
    assert shown("/engines/tokudb/") == {entries["toku"].pk}
    client.force_login(entries["embargoed"].owner)
    assert shown("/engines/InnoDB/") == published | {entries["embargoed"].pk}
    assert shown("/cpus/Xeon X5460/") == {
        entries["toku"].pk, entries["innodb"].pk, entries["embargoed"].pk
    }  # fmt: skip
    client.force_login(organizer)
    assert shown("/cpus/Xeon X5460/") == {
        entries["toku"].pk, entries["innodb"].pk, entries["embargoed"].pk
    }  # fmt: skip
    client.logout()
    assert shown("/cpus/Xeon X5460/") == {entries["toku"].pk, entries["innodb"].pk}
    # A name holding a LIKE pattern's characters matches itself alone.
    assert client.get("/cpus/Xeon_X5460/").status_code == 404
    assert client.get("/cpus/Xeon%25/").status_code == 404


def test_the_entry_page_links_its_engine_and_cpu(client, entries):
    page = client.get(entries["innodb_later"].get_absolute_url()).content.decode()
    assert 'href="/engines/InnoDB/"' in page
    assert 'href="/cpus/AMD%20EPYC/"' in page


def test_the_best_over_time_keeps_each_result_that_raised_it():
    results = [
        Result("2008-03-01", 500.0, "a"),
        Result("2008-01-01", 404.0, "b"),
        Result("2009-01-01", 450.0, "c"),
        Result("2010-01-01", float("nan"), "d"),
        Result("2011-01-01", 15_000.0, "e"),
    ]
    assert [result.label for result in best_over_time(results)] == ["b", "a", "e"]


def test_an_anonymous_visitor_searches_too(entries):
    from django.test import Client

    assert found(Client(), "tokudb") == [entries["toku"].pk]
