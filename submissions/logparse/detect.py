"""Which implementation printed a log, from its first meaningful lines (never its file name)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .common import Detection, command_parameters
from .errors import LogError, num, quote
from .model import Stated

# How far to look for a header. The seed's markdown write-up has 130 lines of prose and
# tables before its first console capture; nothing else needs more than a few lines.
SCAN_LINES = 2_000

# The header line of each era, as iibench.py prints it.
PYTHON_HEADER_LINES = (
    ("#rows #seconds cum_ips last_ips #queries cum_qps last_qps", "python-iibench-2009-03"),
    (
        "#rows #seconds cum_ips table_size last_ips #queries cum_qps last_qps",
        "python-iibench-2009-03b",
    ),
    (
        "#rows #seconds #total_seconds cum_ips table_size last_ips #queries cum_qps last_qps",
        "python-iibench-2009-04",
    ),
    (
        "i_sec\tt_sec\ti_ips\tt_ips\ti_qps\tt_qps\tmax_i\tmax_q\tt_ins\tt_query",
        "python-iibench-2020-06",
    ),
    (
        "i_sec\tt_sec\ti_ips\tt_ips\ti_qps\tt_qps\tmax_i\tmax_q\tt_ins\tt_query\tretry_i\tretry_q",
        "python-iibench-2020-09",
    ),
    (
        "i_sec\tt_sec\ti_ips\tt_ips\ti_dps\tt_dps\ti_qps\tt_qps\tmax_i\tmax_d\tmax_q"
        "\tt_ins\tt_del\tt_query\tretry_i\tretry_d\tretry_q",
        "python-iibench-2023",
    ),
)
# Matched as a set of names: the columns are picked by name, whatever their order.
PYTHON_HEADERS = {frozenset(line.split()): fmt for line, fmt in PYTHON_HEADER_LINES}
PYTHON_HEADER_STARTS = ("#rows", "i_sec")

JAVA_REPORT = re.compile(r"\binserts : .*\bseconds : cum ips=")
SYSBENCH_BANNER = re.compile(r"^sysbench \d+\.\d+")
SYSBENCH_REPORT = re.compile(r"^\[\s*\d+(?:\.\d+)?s\s*\]\s+thds:")
METRICS_START = re.compile(r"^Starting (\S+)\.\.\.$")
MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+\S")

# Lines a run's output may begin with before the benchmark speaks.
PREAMBLE_STARTS = ("Picked up ", "WARNING", "OpenJDK", "log4j:", "NOTE:", "Note:", "Using Mongo")

EXPECTED = (
    "expected a header such as '#rows #seconds ...' or 'i_sec t_sec ...' (Python iibench), "
    "'Application Parameters' or 'tot_inserts elap_secs ...' (Java iibench), "
    "'sysbench 1.0 ...' (sysbench iibench), '# iibench-c ...' (this project's benchmark) "
    "or 'Starting BASELINE...' (metrics console)"
)


def not_iibench(line: int, text: str) -> LogError:
    return LogError(f"not an iiBench log: {EXPECTED}; found {quote(text.strip())}", line=line)


def detect(blocks: Iterator[list[str]]) -> tuple[Detection, list[list[str]]]:
    """The detection and the blocks it read, to be read again by the format's parser."""
    scan = _Scan()
    seen: list[list[str]] = []
    line = 0
    for block in blocks:
        seen.append(block)
        for text in block:
            line += 1
            found = scan.feed(line, text)
            if found is not None:
                return found, seen
            if line >= SCAN_LINES:
                raise scan.nothing_found(line)
    raise scan.nothing_found(line)


class _Scan:
    def __init__(self) -> None:
        self.first: tuple[int, str] | None = None
        self.markdown = False
        self.in_fence = False
        self.fence_opened = False
        self.parameters: dict[str, Stated] = {}

    def feed(self, line: int, text: str) -> Detection | None:
        stripped = text.strip()
        if not stripped:
            return None
        if self.first is None:
            self.first = (line, text)
            if MARKDOWN_HEADING.match(stripped) and not stripped.startswith("# iibench-c"):
                self.markdown = True
        if self.markdown:
            return self._markdown(line, text, stripped)
        found = self._signature(line, text, stripped)
        if found is not None:
            return found
        if self._preamble(line, stripped):
            return None
        raise not_iibench(line, text)

    def _signature(self, line: int, text: str, stripped: str) -> Detection | None:
        def found(fmt: str) -> Detection:
            return Detection(fmt, line, text, dict(self.parameters))

        if stripped.startswith("# iibench-c"):
            return found("iibench-c")
        words = stripped.split()
        if words[0] in PYTHON_HEADER_STARTS:
            fmt = PYTHON_HEADERS.get(frozenset(words))
            if fmt is None or len(set(words)) != len(words):
                raise LogError(
                    f"a Python iibench header with columns this parser does not know: "
                    f"{quote(stripped)}; upload the output of the unmodified iibench.py",
                    line=line,
                )
            return found(fmt)
        if words[0] == "tot_inserts":
            return found("java-iibench-tsv")
        if "Application Parameters" in stripped or JAVA_REPORT.search(stripped):
            return found("java-iibench")
        if (
            SYSBENCH_BANNER.match(stripped)
            or stripped == "Running the test with following options:"
            or SYSBENCH_REPORT.match(stripped)
        ):
            return found("sysbench-iibench")
        if METRICS_START.match(stripped):
            return found("metrics-console")
        return None

    def _preamble(self, line: int, stripped: str) -> bool:
        """A line that may come before the header: a command line echo or a runtime notice."""
        lowered = stripped.lower()
        if ("iibench" in lowered or "sysbench" in lowered) and "--" in stripped:
            for key, stated in command_parameters(stripped, line).items():
                self.parameters.setdefault(key, stated)
            return True
        return stripped.startswith(PREAMBLE_STARTS)

    def _markdown(self, line: int, text: str, stripped: str) -> Detection | None:
        """The seed's write-up: prose, then console captures in ``` fences."""
        if stripped.startswith("```"):
            self.in_fence = not self.in_fence
            self.fence_opened = self.in_fence
            return None
        if self.in_fence and self.fence_opened:
            self.fence_opened = False
            if METRICS_START.match(stripped):
                return Detection("metrics-console", line, text, {}, markdown=True)
        return None

    def nothing_found(self, last_line: int) -> LogError:
        if self.first is None:
            if last_line:
                return LogError(f"the log is empty ({num(last_line)} blank lines)")
            return LogError("the log is empty")
        line, text = self.first
        return not_iibench(line, text)
