"""Reads the output format of FORMAT.md, for the tests' own checks.

This is not the registry's parser (submissions/logparse/): it is small and
strict on purpose, so that a test fails when the benchmark drifts from the
format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COLUMNS = [
    "rows",
    "seconds",
    "interval_ips",
    "cumulative_ips",
    "deleted",
    "interval_dps",
    "queries",
    "interval_qps",
]
# Format 2 and 3: what each interval cost; "-" (None here) where the run cannot measure it.
COST_COLUMNS = [
    "latency_p50_ms",
    "latency_p99_ms",
    "latency_max_ms",
    "client_cpu_s",
    "server_cpu_s",
    "server_rss_bytes",
    "read_bytes",
    "write_bytes",
    "read_ops",
    "write_ops",
    "db_size_bytes",
    # Format 3.
    "machine_cpu_s",
]
ALL_COLUMNS = COLUMNS + COST_COLUMNS


@dataclass
class Report:
    rows: int
    seconds: float
    interval_ips: float
    cumulative_ips: float
    deleted: int
    interval_dps: float
    queries: int
    interval_qps: float
    text: list[str]
    cost: dict[str, float | int | None] = field(default_factory=dict)


@dataclass
class Index:
    name: str
    columns: list[str]
    unique: bool
    created: str


@dataclass
class Output:
    lines: list[str]
    params: dict[str, str] = field(default_factory=dict)
    indexes: list[Index] = field(default_factory=list)
    reports: list[Report] = field(default_factory=list)
    summary: dict[str, str] = field(default_factory=dict)
    comments: dict[str, str] = field(default_factory=dict)
    machine: dict[str, str] = field(default_factory=dict)
    # name -> (state, value): state is default, changed or unknown
    settings: dict[str, tuple[str, str]] = field(default_factory=dict)

    @property
    def column_header_index(self) -> int:
        return self.lines.index("\t".join(ALL_COLUMNS))


def parse_pairs(text: str) -> dict[str, str]:
    """key=value pairs; `error=` takes the rest of the line."""
    pairs: dict[str, str] = {}
    rest = text
    while rest:
        if rest.startswith("error="):
            pairs["error"] = rest[len("error=") :]
            break
        word, _, rest = rest.partition(" ")
        key, _, value = word.partition("=")
        pairs[key] = value
    return pairs


def parse_report(line: str) -> Report:
    fields = line.split("\t")
    assert len(fields) == len(ALL_COLUMNS), f"report line with {len(fields)} fields: {line!r}"
    cost = {}
    for name, text in zip(COST_COLUMNS, fields[len(COLUMNS) :], strict=True):
        if text == "-":
            cost[name] = None
        elif name.endswith("_bytes") or name.endswith("_ops"):
            cost[name] = int(text)
        else:
            cost[name] = float(text)
    return Report(
        rows=int(fields[0]),
        seconds=float(fields[1]),
        interval_ips=float(fields[2]),
        cumulative_ips=float(fields[3]),
        deleted=int(fields[4]),
        interval_dps=float(fields[5]),
        queries=int(fields[6]),
        interval_qps=float(fields[7]),
        text=fields,
        cost=cost,
    )


def parse_index(text: str) -> Index:
    name, _, rest = text.partition(" ")
    pairs = parse_pairs(rest)
    return Index(
        name=name,
        columns=pairs["columns"].split(","),
        unique=pairs["unique"] == "yes",
        created=pairs["created"],
    )


def parse(stdout: str) -> Output:
    lines = stdout.splitlines()
    out = Output(lines=lines)
    seen_columns = False
    for line in lines:
        if line.startswith("# param "):
            key, _, value = line[len("# param ") :].partition("=")
            out.params[key] = value
        elif line.startswith("# index "):
            out.indexes.append(parse_index(line[len("# index ") :]))
        elif line.startswith("# machine "):
            key, _, value = line[len("# machine ") :].partition(" ")
            out.machine[key] = value
        elif line.startswith("# setting "):
            name, state, value = [*line[len("# setting ") :].split(" ", 2), "", ""][:3]
            out.settings[name] = (state, value)
        elif line.startswith("# summary "):
            out.summary = parse_pairs(line[len("# summary ") :])
        elif line.startswith("# "):
            key, _, value = line[2:].partition(" ")
            out.comments.setdefault(key, value)
        elif line == "\t".join(ALL_COLUMNS):
            seen_columns = True
        elif line and seen_columns:
            out.reports.append(parse_report(line))
    return out
