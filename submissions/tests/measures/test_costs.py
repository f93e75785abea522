"""What each row cost: the per-interval curves and the entry's cost figures, from the C
benchmark's cost columns, stored with the entry and shown on its page; absent stays absent."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from submissions.entries import services
from submissions.logparse import parse_log
from submissions.measures.costs import cost_figures, per_row_curves, read_pace
from submissions.measures.series import series_columns, unpack_columns
from submissions.models import SampleSeries
from testing.entries import DECLARED, upload
from testing.factories import ContestFactory, SubmissionFactory, UserFactory
from testing.logs import python_log
from testing.pages import table_rows

FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "iibench-c-format2-mariadb.log"
)
# Format 3 (machine_cpu_s): `iibench --db mysql://... --rows 100000 --report-every 20000`.
FORMAT3 = FIXTURE.with_name("iibench-c-format3-mariadb.log")
NAN = math.nan


def columns(**extra) -> dict[str, np.ndarray]:
    rows = np.array([1000, 2000, 4000], dtype=np.int64)
    return {"rows": rows, **{name: np.array(values) for name, values in extra.items()}}


def test_a_rows_cost_is_its_intervals_total_over_the_rows_the_interval_inserted():
    curves = per_row_curves(
        columns(
            server_cpu_s=[0.01, 0.02, 0.08],
            write_bytes=[1024 * 1000, 2048 * 1000, 1024 * 4000],
            read_ops=[0.0, 10.0, 20.0],
            db_size_bytes=[1e6, 2e6, 4e6],
        )
    )
    assert curves["server_cpu_us_per_row"].tolist() == pytest.approx([10, 20, 40])
    assert curves["write_kb_per_row"].tolist() == pytest.approx([1, 2, 2])
    assert curves["reads_per_row"].tolist() == pytest.approx([0, 0.01, 0.01])
    # 4 MB for 4,000 rows: 100 GB per 100M rows.
    assert curves["gb_per_100m_rows"][-1] == pytest.approx(100)
    assert "client_cpu_us_per_row" not in curves


def test_an_unmeasured_interval_stays_unmeasured():
    curves = per_row_curves(columns(write_bytes=[1024.0, NAN, 2048.0]))
    assert math.isnan(curves["write_kb_per_row"][1])


def test_the_figures_cover_the_terminal_window_and_are_absent_when_it_was_not_measured():
    measured = columns(server_cpu_s=[1.0, 0.01, 0.04], write_bytes=[NAN, 1024 * 1000, 1024 * 2000])
    figures = cost_figures(measured, window_start_row=1000)
    # The window is the last 3,000 rows: two intervals, the first (unmeasured) one left out.
    assert figures.server_cpu_us_per_row == pytest.approx(0.05e6 / 3000)
    # A window starting between two reports takes the interval it starts in whole.
    assert cost_figures(measured, window_start_row=1500).server_cpu_us_per_row == pytest.approx(
        0.05e6 / 3000
    )
    assert figures.write_kb_per_row == pytest.approx(1)
    assert figures.db_size_bytes is None and figures.client_cpu_us_per_row is None
    # A window reaching an unmeasured interval has no figure rather than a short one.
    assert cost_figures(measured, window_start_row=0).write_kb_per_row is None


def test_the_pace_of_reads_is_the_runs_time_over_its_device_reads_past_a_row():
    rows = np.array([1000, 2000, 3000, 4000], dtype=np.int64)
    seconds = np.array([1.0, 2.0, 5.0, 9.0])
    reads = np.array([0.0, 0.0, 1500.0, 2500.0])
    pace = read_pace(rows, seconds, reads, from_row=2000)
    # 7 s over 4,000 reads, 2,000 rows: whole intervals, as the cost figures take them.
    assert pace.ms_per_read == pytest.approx(7e3 / 4000)
    assert pace.reads_per_row == pytest.approx(2.0)
    assert read_pace(rows, seconds, reads, from_row=2500) == read_pace(
        rows, seconds, reads, from_row=2000
    )
    # A log that does not count reads, an unmeasured interval, a run that hardly read (its
    # time per read would measure the CPU, not a disk): no figure rather than a false one.
    assert read_pace(rows, seconds, None, from_row=2000) is None
    assert read_pace(rows, seconds, np.array([0.0, 0.0, NAN, 2500.0]), from_row=2000) is None
    assert read_pace(rows, seconds, np.array([0.0, 0.0, 50.0, 40.0]), from_row=2000) is None
    assert read_pace(rows, seconds, reads, from_row=4000) is None


def test_the_cost_arithmetic_is_pure_python_the_worker_can_import_without_django():
    code = (
        "import sys; import submissions.measures.costs; "
        "sys.exit(any(name.startswith('django') for name in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_the_fixture_is_read_to_its_machine_and_settings():
    with FIXTURE.open("rb") as source:
        parsed = parse_log(source)
    assert parsed.machine["cpus"].value == "2"
    assert parsed.settings["pid_file"].state == "changed"
    assert parsed.settings["innodb_buffer_pool_size"].state == "default"
    packed = series_columns(parsed.series)
    assert {"latency_p99_ms", "server_cpu_s", "write_bytes", "db_size_bytes"} <= set(packed)


@pytest.fixture
def c_entry(db):
    contest = ContestFactory(target_rows=100_000)
    return services.entry_create(
        contest=contest,
        owner=UserFactory(),
        declared=DECLARED,
        log_file=upload(FIXTURE.read_bytes(), "mariadb.log"),
    )


def test_an_entry_stores_its_cost_figures_and_series(c_entry):
    with FIXTURE.open("rb") as source:
        series = parse_log(source).series
    assert c_entry.db_size_bytes == int(series.db_size_bytes[-1])
    window = [i for i, rows in enumerate(series.rows) if rows > c_entry.terminal_window_start_row]
    written = sum(series.write_bytes[i] for i in window)
    window_rows = series.rows[-1] - (series.rows[window[0] - 1] if window[0] else 0)
    assert c_entry.write_kb_per_row == pytest.approx(written / 1024 / window_rows)
    assert c_entry.server_cpu_us_per_row > 0
    # As stored: the packed series is written apart from the object services return.
    stored = unpack_columns(SampleSeries.objects.get(submission=c_entry).columns)
    assert stored["latency_max_ms"].tolist() == list(series.latency_max_ms)
    assert set(c_entry.series.preview["cost"]) >= {
        "latency_p99_ms",
        "latency_max_ms",
        "server_cpu_us_per_row",
        "write_kb_per_row",
        "db_size_gib",
    }


def test_the_entry_page_shows_what_each_row_cost(client, c_entry):
    page = client.get(c_entry.get_absolute_url()).content.decode()
    assert "What each row cost" in page
    assert f"{c_entry.db_size_bytes / 1024**3:,.2f} GiB" in page
    assert f"{c_entry.write_kb_per_row:,.2f} KiB" in page
    assert 'id="cost-curves-data"' in page
    assert "js/cost-curves" in page


def test_an_entry_whose_log_has_no_costs_shows_none_rather_than_zeros(client, db):
    entry = services.entry_create(
        contest=ContestFactory(target_rows=5_000_000),
        owner=UserFactory(),
        declared=DECLARED,
        log_file=upload(python_log()),
    )
    assert entry.db_size_bytes is None and entry.write_kb_per_row is None
    assert "cost" not in entry.series.preview
    page = client.get(entry.get_absolute_url()).content.decode()
    assert "What each row cost" not in page


@pytest.fixture
def two_c_entries(db):
    """The fixture's run, and the same log as if the server had an 8 GiB buffer pool."""
    contest = ContestFactory(target_rows=100_000)
    text = FIXTURE.read_bytes()
    bigger = text.replace(
        b"# setting innodb_buffer_pool_size default 134217728",
        b"# setting innodb_buffer_pool_size changed 8589934592",
    )
    assert bigger != text
    # Another run, not the same one again: its first INSERTs took a little longer.
    first = next(line for line in bigger.split(b"\n") if line[:1].isdigit())
    fields = first.split(b"\t")
    fields[8] = b"%.3f" % (float(fields[8]) + 1)
    bigger = bigger.replace(first, b"\t".join(fields))
    return [
        services.entry_create(
            contest=contest,
            owner=UserFactory(),
            declared=DECLARED,
            log_file=upload(log, name),
        )
        for log, name in ((text, "small.log"), (bigger, "big.log"))
    ]


def test_compare_lists_the_settings_side_by_side_with_the_differences_first(client, two_c_entries):
    """The header's settings override the declared ones (both entries declare a 12G pool)."""
    first, second = two_c_entries
    html = client.get(f"/compare/?ids={first.pk},{second.pk}").content.decode()

    differing = table_rows(html, "settings-diff")
    assert [row["cells"] for row in differing] == [
        ["innodb_buffer_pool_size", "134217728", "8589934592"]
    ]
    same = table_rows(html, "settings-same")
    assert len(same) == len(parse_fixture_settings()) - 1
    assert ["pid_file", "/run/mysqld/mysqld.pid"] in [row["cells"] for row in same]


def test_compare_shows_each_entrys_costs_beside_its_rates(client, two_c_entries):
    first, second = two_c_entries
    html = client.get(f"/compare/?ids={first.pk},{second.pk}").content.decode()

    rows = table_rows(html, "compare-costs")
    assert len(rows) == 2
    cells = rows[0]["cells"]
    assert cells[0].startswith(f"#{first.pk}")
    assert cells[3] == f"{first.db_size_bytes / 1024**3:,.2f} GiB"
    assert cells[5] == f"{first.write_kb_per_row:,.2f}"


def test_compare_of_logs_without_costs_or_settings_says_so(client, db):
    contest = ContestFactory(target_rows=5_000_000)
    entries = [
        services.entry_create(
            contest=contest, owner=UserFactory(), declared=DECLARED, log_file=upload(log)
        )
        for log in (python_log(), python_log(rows=4_000_000))
    ]
    html = client.get(f"/compare/?ids={entries[0].pk},{entries[1].pk}").content.decode()
    assert table_rows(html, "compare-costs")[0]["cells"][3:] == ["—"] * 6
    # No header settings: the declared configuration is what there is to compare.
    assert table_rows(html, "settings-diff") == []
    assert ["innodb_buffer_pool_size", "12G"] in [
        row["cells"] for row in table_rows(html, "settings-same")
    ]


def parse_fixture_settings() -> dict:
    with FIXTURE.open("rb") as source:
        return parse_log(source).settings


def test_the_samples_api_serves_the_cost_columns_with_null_where_unmeasured(client, db):
    # A report whose latency and size were not measured (e.g. an interval without an INSERT).
    text = FIXTURE.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(text) if line.startswith("40000\t"))
    fields = text[at].rstrip("\n").split("\t")
    fields[8:11] = ["-", "-", "-"]
    text[at] = "\t".join(fields) + "\n"
    entry = services.entry_create(
        contest=ContestFactory(target_rows=100_000),
        owner=UserFactory(),
        declared=DECLARED,
        log_file=upload("".join(text).encode(), "gap.log"),
    )

    body = b"".join(client.get(f"/api/submissions/{entry.pk}/samples/").streaming_content)
    columns = json.loads(body)["columns"]
    assert columns["latency_max_ms"][1] is None
    assert columns["latency_max_ms"][0] > 0
    assert len(columns["db_size_bytes"]) == len(columns["rows"])
    # The page leaves the gap out of the curve rather than drawing a zero.
    assert len(entry.series.preview["cost"]["latency_max_ms"]["x"]) == len(columns["rows"]) - 1


def test_the_api_gives_an_entrys_cost_figures_and_null_for_a_log_without(client, c_entry):
    summary = client.get(f"/api/submissions/{c_entry.pk}/").json()["summary"]
    assert summary["db_size_bytes"] == c_entry.db_size_bytes
    assert summary["server_cpu_us_per_row"] == pytest.approx(c_entry.server_cpu_us_per_row)
    other = services.entry_create(
        contest=c_entry.contest,
        owner=UserFactory(),
        declared=DECLARED,
        log_file=upload(python_log(rows=100_000, every=10_000)),
    )
    assert client.get(f"/api/submissions/{other.pk}/").json()["summary"]["write_kb_per_row"] is None


def test_the_headers_settings_are_stored_as_the_entrys_benchmark_header_settings(c_entry):
    from submissions.models import SettingSource

    printed = parse_fixture_settings()
    stored = c_entry.server_settings.filter(source=SettingSource.BENCHMARK_HEADER)
    assert {s.key: s.value for s in stored} == {name: s.value for name, s in printed.items()}
    assert stored.get(key="pid_file").line == printed["pid_file"].line
    # Judging the entry again replaces them rather than adding a second set.
    services.entry_rejudge(submission=c_entry)
    assert c_entry.server_settings.filter(source=SettingSource.BENCHMARK_HEADER).count() == len(
        printed
    )


def test_the_entry_page_counts_the_printed_settings_without_listing_them_for_a_rerun(
    client, c_entry
):
    html = client.get(c_entry.get_absolute_url()).content.decode()
    assert f"The benchmark's header lists {len(parse_fixture_settings())} server variables" in html
    assert "<code>pid_file</code>" not in html


def test_a_format_3_log_gives_the_machines_cpu_per_row_on_the_page_in_the_api_and_downloads(
    client, db
):
    with FORMAT3.open("rb") as source:
        series = parse_log(source).series
    entry = services.entry_create(
        contest=ContestFactory(target_rows=100_000),
        owner=UserFactory(),
        declared=DECLARED,
        log_file=upload(FORMAT3.read_bytes(), "format3.log"),
    )
    window = [i for i, rows in enumerate(series.rows) if rows > entry.terminal_window_start_row]
    window_rows = series.rows[-1] - (series.rows[window[0] - 1] if window[0] else 0)
    spent = sum(series.machine_cpu_s[i] for i in window)
    assert entry.machine_cpu_us_per_row == pytest.approx(spent * 1e6 / window_rows)
    # The machine ran the client and the server: at least their time.
    assert entry.machine_cpu_us_per_row >= entry.server_cpu_us_per_row

    page = client.get(entry.get_absolute_url()).content.decode()
    assert "Machine CPU per row" in page
    assert f"{entry.machine_cpu_us_per_row:,.2f} µs" in page
    assert "machine_cpu_us_per_row" in entry.series.preview["cost"]
    summary = client.get(f"/api/submissions/{entry.pk}/").json()["summary"]
    assert summary["machine_cpu_us_per_row"] == pytest.approx(entry.machine_cpu_us_per_row)
    samples = json.loads(
        b"".join(client.get(f"/api/submissions/{entry.pk}/samples/").streaming_content)
    )["columns"]
    assert samples["machine_cpu_s"] == list(series.machine_cpu_s)


def test_a_format_2_log_has_no_machine_cpu_and_says_so(client, c_entry):
    assert c_entry.machine_cpu_us_per_row is None
    assert "machine_cpu_us_per_row" not in c_entry.series.preview["cost"]
    page = client.get(c_entry.get_absolute_url()).content.decode()
    tile = page[page.index("Machine CPU per row") :][:200]
    assert "not in this log" in tile
    summary = client.get(f"/api/submissions/{c_entry.pk}/").json()["summary"]
    assert summary["machine_cpu_us_per_row"] is None


def test_compare_with_an_entry_listing_no_settings_keeps_the_one_difference_first(
    client, two_c_entries
):
    first, second = two_c_entries
    silent = SubmissionFactory(contest=first.contest, server_config="")
    html = client.get(f"/compare/?ids={first.pk},{second.pk},{silent.pk}").content.decode()

    differing = table_rows(html, "settings-diff")
    assert [row["cells"] for row in differing] == [
        ["innodb_buffer_pool_size", "134217728", "8589934592", "—"]
    ]
    total = len(parse_fixture_settings())
    assert f"1 of {total} settings differ among the entries that list them" in html
    assert f"#{silent.pk}</a> lists no settings." in html
