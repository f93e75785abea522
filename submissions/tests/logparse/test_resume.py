"""A C benchmark log's new reports read behind its head (logparse/resume.py) are what the whole
parse reads from them, and a batch that is anything but plain reports is left to the parse."""

import io
import math

import pytest

from submissions.logparse import parse_log
from submissions.logparse.c_format import settings_dropped
from submissions.logparse.model import COST_FIELDS
from submissions.logparse.resume import plain_reports, report_layout
from testing.logs import c_mariadb_head_and_reports


def parsed_reports(head: str, reports: list[str]):
    series = parse_log(io.BytesIO((head + "\n".join(reports) + "\n").encode())).series
    return series, len(head.splitlines())


def test_the_reports_behind_the_head_are_those_the_whole_parse_reads():
    head, reports = c_mariadb_head_and_reports(40)
    series, head_lines = parsed_reports(head, reports)

    read = plain_reports(report_layout(settings_dropped(head)), reports, 100_000, 0.663)

    assert read is not None and len(read) == 40
    for offset, report in enumerate(read, 1):  # the head holds the first report
        assert int(series.line[offset]) == head_lines + offset
        assert report.rows == series.rows[offset]
        assert report.seconds == series.seconds[offset]
        assert report.interval_rate == series.interval_rate[offset]
        assert report.cumulative_rate == series.cumulative_rate[offset]
        measured = {
            name: getattr(series, name)[offset]
            for name in COST_FIELDS
            if getattr(series, name) is not None and math.isfinite(getattr(series, name)[offset])
        }
        assert report.cost == measured, offset
    assert "read_bytes" not in read[3].cost  # the 5th report's "-": unmeasured


@pytest.mark.parametrize(
    "change",
    [
        lambda line: "# flushed tables in 0.000 s",
        lambda line: "",
        lambda line: line.replace("\t", "\t-", 1),  # a sign where the parser reads a number
        lambda line: line.replace("0\t", "1e3\t", 1),
        lambda line: line.replace("\t0.0\t", "\tnan\t", 1),
        lambda line: line + "\r",
        lambda line: line + "\t1",  # a column more than the header
        lambda line: line.split("\t", 1)[1],  # one less
        lambda line: "10\t" + line.split("\t", 1)[1],  # fewer rows than the report before
    ],
)
def test_a_batch_that_is_not_plain_reports_in_order_is_left_to_the_parse(change):
    head, reports = c_mariadb_head_and_reports(5)
    layout = report_layout(settings_dropped(head))
    assert plain_reports(layout, reports, 100_000, 0.663) is not None

    reports[2] = change(reports[2])

    assert plain_reports(layout, reports, 100_000, 0.663) is None


def test_a_head_the_parser_cannot_read_to_its_end_has_no_layout():
    head, _ = c_mariadb_head_and_reports(1)
    summary = "# summary status=completed rows=100000 seconds=0.663 average_ips=150829.6\n"

    assert report_layout(settings_dropped(head)) is not None
    assert report_layout(head.replace("rows\tseconds", "rows\tsecs")) is None
    assert report_layout(head + summary) is None  # a report after it would be refused
    assert report_layout(head.rstrip("\n")) is None  # a cut last line
    assert report_layout("123 45.6\n") is None  # not the C benchmark's
