"""A corpus of hostile submissions, each sent through the API and the web form by
test_hostile_input.py: what the internet sends a registry that takes uploads.

Each case is a request (the declared fields, the log as bytes or a file, its name) and what the
user must get back: the status of each channel, the field the refusal names and a phrase of
it. The requests are encoded here by hand, as a hostile client would send them: Django's test
client would clean file names and content types on the way.
"""

from __future__ import annotations

import gzip
import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from testing.entries import DECLARED
from testing.logs import BENCH_LOGS, c_log, long_python_log, python_log

MISSING = object()  # a declared field left out of the request
CORPUS_DIR = Path(settings.BASE_DIR) / "var" / "test-corpus"
LONG_LOG_LINES = 2_000_000


@dataclass(frozen=True)
class Log:
    """The file part of a request: bytes, or a function making them (or a file on disk) when
    the test runs, for the big ones."""

    data: bytes | Callable[[], bytes | Path]
    name: str = "iibench.log"
    content_type: str = "application/octet-stream"

    def content(self) -> bytes:
        made = self.data if isinstance(self.data, bytes) else self.data()
        return made if isinstance(made, bytes) else made.read_bytes()


@dataclass(frozen=True)
class Hostile:
    id: str
    log: Log | str | None = field(default_factory=lambda: Log(python_log()))  # str: a text part
    changes: dict = field(default_factory=dict)  # declared field -> value, or MISSING
    error_field: str = "log"  # the field the refusal names; "" for the whole request
    says: str | tuple[str, str] = ""  # a phrase of the refusal; (API's, form's) when they differ
    api: int = 400
    form: int = 200  # 200: the form is shown again with the error
    channels: tuple[str, ...] = ("api", "form")
    settings: dict = field(default_factory=dict)
    body: str = "multipart"  # or "json", "text": what the request claims to carry
    extra_parts: int = 0  # more form fields, to flood the parser
    extra_files: int = 0
    contest: str = "open"  # "open", "closed", "missing", or a slug to send as is
    existing: bool = False  # the same log is already an entry of the contest
    stored: bool = False  # an upload the registry must accept, safely
    reports: int = 5  # the reports a stored log holds

    def phrase(self, channel: str) -> str:
        return self.says if isinstance(self.says, str) else self.says[channel == "form"]

    def declared(self) -> dict:
        values = {**DECLARED, **self.changes}
        return {name: value for name, value in values.items() if value is not MISSING}


# -- logs ------------------------------------------------------------------------------------

REPORTS = python_log().decode().splitlines()  # header, 5 reports, Totals, Done


def lines(*replaced: tuple[int, str], insert: tuple[int, str] | None = None) -> bytes:
    """The 5-report Python log with lines replaced (1-based numbers) or one line inserted."""
    text = list(REPORTS)
    for number, line in replaced:
        text[number - 1] = line
    if insert:
        text.insert(insert[0] - 1, insert[1])
    return ("\n".join(text) + "\n").encode()


def report(number: int, column: int, value: str) -> tuple[int, str]:
    """Line `number` with its `column` (0-based) replaced by `value`."""
    fields = REPORTS[number - 1].split()
    fields[column] = value
    return number, " ".join(fields)


def png() -> bytes:
    header = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06"
    return header + random.Random(3).randbytes(2000)


def elf() -> bytes:
    return b"\x7fELF\x02\x01\x01\x00" + bytes(8) + random.Random(4).randbytes(4000)


def zip_archive() -> bytes:
    return b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + random.Random(5).randbytes(1000)


def pdf() -> bytes:
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"


def gzip_bomb(cap: int) -> bytes:
    """About 10 MB that expands to 10 GiB: a valid log past `cap`, then members of zeros (a
    gzip file may hold many members, each expanding 1,000 times)."""
    every = 1_000_000
    prefix = python_log(rows=(cap // 60) * every, trailer=False)
    assert len(prefix) > cap
    zeros = gzip.compress(bytes(64 << 20), compresslevel=9)
    return gzip.compress(prefix, compresslevel=1) + zeros * 160


def damaged_gzip() -> bytes:
    packed = bytearray(gzip.compress(python_log()))
    packed[40:60] = bytes(b ^ 0xFF for b in packed[40:60])
    return bytes(packed)


def one_long_line() -> Path:
    """100 MB without a newline, written once under var/test-corpus/."""
    path = CORPUS_DIR / "one-100MB-line.log"
    if not path.exists() or path.stat().st_size != 100_000_000:
        CORPUS_DIR.mkdir(parents=True, exist_ok=True)
        block = b"1000000 48.3 " * 80_000  # 1,040,000 bytes
        with path.open("wb") as out:
            for _ in range(96):
                out.write(block)
            out.write(b"9" * (100_000_000 - 96 * len(block)))
    return path


def long_run_gz() -> Path:
    """A 2,000,000-line Python iibench log (2023 format), gzipped: testing/logs.py's (bench/parse_speed.py's too), kept
    under var/bench/ for the benches and this test alike."""
    log = BENCH_LOGS / f"python-2023-{LONG_LOG_LINES}.log"
    packed = log.with_suffix(".log.gz")
    if not packed.exists():
        BENCH_LOGS.mkdir(parents=True, exist_ok=True)
        if not log.exists():
            long_python_log(log, LONG_LOG_LINES)
        with log.open("rb") as plain, gzip.open(packed, "wb", compresslevel=6) as out:
            while block := plain.read(1 << 20):
                out.write(block)
    return packed


# Every text field an entrant fills, with markup and script that must stay text.
SCRIPT = {
    "entrant_name": "<script>alert(1)</script>",
    "cpu_model": '<img src=x onerror="alert(2)">',
    "raid_level": "<svg onload=alert(3)>",
    "os": "</dd><script>alert(4)</script>",
    "server_version": "'\"><script>alert(5)</script>",
    "storage_engine": '<a href="javascript:alert(6)">x</a>',
    "storage_engine_version": "{{ 7*7 }}<b onmouseover=alert(7)>",
    "solution_description": "<script>alert(8)</script>[x](javascript:alert(9))",
    "server_config": "</pre><script>alert(10)</script>",
}

CAP_1_MIB = {"LOG_UPLOAD_MAX_BYTES": 1 << 20}
BOMB_CAP = 8 << 20


CORPUS = [
    # -- not a log at all ---------------------------------------------------------------------
    Hostile("empty-file", Log(b""), says="empty"),
    Hostile("random-binary", Log(random.Random(1).randbytes(4096)), says="line 1: not text"),
    Hostile("png-renamed-log", Log(png(), "run.log"), says="line 1: not text (a PNG image)"),
    Hostile("elf-program", Log(elf(), "iibench"), says="a program (ELF executable)"),
    Hostile("zip-archive", Log(zip_archive(), "run.zip"), says="a ZIP archive"),
    Hostile("pdf-document", Log(pdf(), "results.pdf"), says="a PDF document"),
    Hostile(
        "html-page", Log(b"<html><script>alert(1)</script></html>\n"), says="not an iiBench log"
    ),
    Hostile("json-document", Log(b'{"rows": 1000000000}\n'), says="not an iiBench log"),
    Hostile("header-only", Log(lines()[: len(REPORTS[0]) + 1]), says="no report lines"),
    Hostile(
        "unknown-columns",
        Log(("#rows " + " ".join(f"c{i}" for i in range(5000)) + "\n1 2\n").encode()),
        says="line 1: a Python iibench header with columns this parser does not know",
    ),
    # -- encodings and bytes ------------------------------------------------------------------
    Hostile("utf-16-with-bom", Log(python_log().decode().encode("utf-16")), says="is UTF-16"),
    Hostile("utf-16-without-bom", Log(python_log().decode().encode("utf-16-le")), says="UTF-16"),
    Hostile("utf-32", Log(python_log().decode().encode("utf-32")), says="is UTF-32"),
    Hostile("nul-bytes", Log(lines((3, REPORTS[2] + "\x00\x00"))), says="line 3: not text (NUL"),
    Hostile(
        "latin-1-byte",
        Log(lines()[:-5] + b"\xe9t\xe9\n"),
        says="line 8: not UTF-8 text (byte 0xE9",
    ),
    Hostile(
        "crlf-line-ends",
        Log(python_log().replace(b"\n", b"\r\n")),
        stored=True,
        api=201,
        form=302,
    ),
    # -- compressed ---------------------------------------------------------------------------
    Hostile(
        "gzip-bomb",
        Log(lambda: gzip_bomb(BOMB_CAP), "run.log.gz"),
        says=f"expands past {BOMB_CAP:,} bytes",
        settings={"LOG_EXPANDED_MAX_BYTES": BOMB_CAP},
        api=413,
        form=413,
    ),
    Hostile(
        "truncated-gz",
        Log(gzip.compress(python_log())[:-30], "run.log.gz"),
        says="truncated after line",
    ),
    Hostile("damaged-gz", Log(damaged_gzip(), "run.log.gz"), says=".gz file is damaged"),
    Hostile(
        "gz-with-trailing-junk",
        Log(gzip.compress(python_log()) + b"<?php system($_GET[1]); ?>", "run.log.gz"),
        says="data after the end of the compressed stream",
    ),
    Hostile(
        "gz-of-a-png",
        Log(gzip.compress(png()), "run.log.gz"),
        says="not text (a PNG image)",
    ),
    Hostile(
        "two-million-lines-gz",
        Log(long_run_gz, "python-2023.log.gz"),
        stored=True,
        reports=LONG_LOG_LINES,
        api=201,
        form=302,
    ),
    # -- sizes --------------------------------------------------------------------------------
    Hostile(
        "one-100-MB-line",
        Log(one_long_line),
        says="line 1: longer than 65,536 characters",
    ),
    Hostile(
        "upload-over-the-cap",
        Log(secrets.token_bytes(3 << 20)),
        says="logs are limited to 1,048,576 bytes",
        api=413,
        form=413,
        settings=CAP_1_MIB,
    ),
    Hostile(
        "upload-just-over-the-cap",
        Log(python_log(rows=25_000 * 1_000_000)),
        says="logs are limited to 1,048,576 bytes",
        api=413,
        settings=CAP_1_MIB,
    ),
    # -- numbers in the log -------------------------------------------------------------------
    Hostile("nan-rate", Log(lines(report(3, 5, "nan"))), says="line 3: last_ips is nan"),
    Hostile(
        "inf-total-seconds", Log(lines(report(3, 2, "inf"))), says="line 3: #total_seconds is inf"
    ),
    Hostile("nan-row-count", Log(lines(report(3, 0, "nan"))), says="line 3: #rows 'nan'"),
    Hostile("negative-rate", Log(lines(report(4, 3, "-5.0"))), says="line 4: cum_ips is -5"),
    Hostile(
        "negative-row-count", Log(lines(report(3, 0, "-2000000"))), says="line 3: rows went down"
    ),
    Hostile(
        "int64-overflowing-rows",
        Log(lines(report(3, 0, "99999999999999999999999"))),
        says="line 3: #rows 99,999,999,999,999,999,999,999 is larger than a 64-bit integer",
    ),
    Hostile(
        "int64-overflowing-totals",
        Log(lines((7, "Totals: 150.0 secs, 33333.3 rows/sec, 99999999999999999999999 rows"))),
        says="line 7: Totals rows",
    ),
    Hostile(
        "int64-overflowing-parameter",
        Log(c_log().replace(b"# param rows=5000000", b"# param rows=99999999999999999999999")),
        says="line 4: param rows=99,999,999,999,999,999,999,999 is out of the benchmark's range",
    ),
    Hostile(
        "negative-parameter",
        Log(c_log().replace(b"rows_per_commit=1000", b"rows_per_commit=-1000")),
        says="line 5: param rows_per_commit=-1,000 is out of the benchmark's range",
    ),
    # -- reports out of order -----------------------------------------------------------------
    Hostile("rows-go-backwards", Log(lines(insert=(5, REPORTS[1]))), says="line 5: rows went down"),
    Hostile(
        "duplicated-line",
        Log(lines(insert=(4, REPORTS[2]))),
        says="line 4: this report repeats line 3",
    ),
    Hostile(
        "a-second-run-appended",
        Log(python_log() + python_log(rows=2_000_000)),
        says="line 9: a second header",
    ),
    Hostile(
        "a-report-missing-a-column",
        Log(lines((4, " ".join(REPORTS[3].split()[:-1])))),
        says="line 4: a report line with 8 columns",
    ),
    # -- file names ---------------------------------------------------------------------------
    Hostile(
        "path-traversal-name",
        Log(python_log(), "../../../../etc/passwd"),
        stored=True,
        api=201,
        form=302,
    ),
    Hostile(
        "windows-traversal-name",
        Log(python_log(), "..\\..\\..\\Windows\\win.ini"),
        stored=True,
        api=201,
        form=302,
    ),
    Hostile(
        "dot-dot-name",
        Log(python_log(), ".."),
        error_field="log",
        says=("Attach the benchmark's output", "This field is required"),
    ),
    Hostile(
        "two-hundred-character-name",
        Log(python_log(), "r" * 200 + ".log"),
        stored=True,
        api=201,
        form=302,
    ),
    Hostile(
        "control-characters-in-name",
        Log(python_log(), "run\x1b[31m\t.log"),
        stored=True,
        api=201,
        form=302,
    ),
    Hostile(
        "thousand-character-name",
        Log(python_log(), "r" * 1000 + ".log"),
        error_field="",
        says=("max total header size exceeded", "The site could not read what was sent"),
        form=400,
    ),
    # -- the declared fields ------------------------------------------------------------------
    Hostile("script-in-every-text-field", changes=SCRIPT, stored=True, api=201, form=302),
    Hostile(
        "oversized-name",
        changes={"entrant_name": "A" * 201},
        error_field="entrant_name",
        says=("no more than 200 characters", "at most 200 characters"),
    ),
    Hostile(
        "oversized-solution",
        changes={"solution_description": "x" * 50_001},
        error_field="solution_description",
        says=("no more than 50000 characters", "at most 50000 characters"),
    ),
    Hostile(
        "oversized-server-config",
        changes={"server_config": "x" * 200_001},
        error_field="server_config",
        says=("no more than 200000 characters", "at most 200000 characters"),
    ),
    Hostile(
        "three-MB-text-field",
        changes={"server_config": "x" * (3 << 20)},
        error_field="",
        says=("The request could not be read", "The site could not read what was sent"),
        form=400,
    ),
    Hostile(
        "two-thousand-form-fields",
        extra_parts=2000,
        error_field="",
        says=("The request could not be read", "The site could not read what was sent"),
        form=400,
    ),
    Hostile(
        "two-hundred-files",
        extra_files=200,
        error_field="",
        says=("The request could not be read", "The site could not read what was sent"),
        form=400,
    ),
    Hostile(
        "missing-fields",
        changes={name: MISSING for name in ("entrant_name", "sockets", "os")},
        error_field="entrant_name",
        says="This field is required",
    ),
    Hostile(
        "missing-log", log=None, says=("Attach the benchmark's output", "This field is required")
    ),
    Hostile(
        "log-as-a-text-field",
        log=python_log().decode(),
        says=("The submitted data was not a file", "This field is required"),
    ),
    Hostile(
        "json-body",
        body="json",
        error_field="",
        says=("Unsupported media type", "This field is required"),
        api=415,
    ),
    Hostile(
        "text-body",
        body="text",
        error_field="",
        says=("Unsupported media type", "This field is required"),
        api=415,
    ),
    Hostile(
        "non-existent-contest",
        contest="no-such-contest",
        error_field="contest",
        says=("does not exist", "There is nothing at this address"),
        form=404,
    ),
    Hostile(
        "sql-in-the-contest",
        contest="x' OR '1'='1",
        error_field="contest",
        says=("does not exist", "There is nothing at this address"),
        form=404,
    ),
    Hostile(
        "closed-contest", contest="closed", error_field="contest", says=("closed on", "closed on")
    ),
    Hostile("the-same-log-twice", existing=True, says="already submitted"),
    Hostile(
        "zero-sockets",
        changes={"sockets": 0},
        error_field="sockets",
        says="greater than or equal to 1",
    ),
    Hostile(
        "negative-sockets",
        changes={"sockets": -2},
        error_field="sockets",
        says="greater than or equal to",
    ),
    Hostile(
        "a-billion-gb-of-memory",
        changes={"memory_gb": 10**9},
        error_field="memory_gb",
        says="less than or equal to 1048576",
    ),
    Hostile(
        "int64-overflowing-cores",
        changes={"cores": 2**63},
        error_field="cores",
        says="less than or equal to 4096",
    ),
    Hostile(
        "nan-ghz",
        changes={"cpu_ghz": "NaN"},
        error_field="cpu_ghz",
        says=("A valid number is required", "Enter a number"),
    ),
    Hostile(
        "infinite-ghz",
        changes={"cpu_ghz": "inf"},
        error_field="cpu_ghz",
        says=("A valid number is required", "Enter a number"),
    ),
    Hostile(
        "float-overflowing-memory",
        changes={"memory_gb": "1e400"},
        error_field="memory_gb",
        says=("A valid number is required", "Enter a number"),
    ),
    Hostile(
        "fractional-drives",
        changes={"drives": "2.5"},
        error_field="drives",
        says=("A valid integer is required", "Enter a whole number"),
    ),
    Hostile(
        "unknown-drive-kind",
        changes={"drive_kind": "floppy"},
        error_field="drive_kind",
        says="valid choice",
    ),
    Hostile(
        "bad-email",
        changes={"email": "ada@"},
        error_field="email",
        says="Enter a valid email address",
    ),
    Hostile(
        "not-a-boolean",
        changes={"publish": "maybe"},
        error_field="publish",
        says="Must be a valid boolean",
        channels=("api",),
    ),
]


# -- requests ---------------------------------------------------------------------------------


def form_value(name: str, value) -> str | None:
    """How a browser sends a field: checkboxes as "on" when ticked, absent when not."""
    if isinstance(value, bool):
        if name in ("publish", "direct_attached"):
            return "on" if value else None
        return str(value).lower()
    return str(value)


def multipart(parts: list[tuple[str, str | bytes, str | None, str | None]]) -> tuple[bytes, str]:
    """(name, value, file name, content type) parts, encoded as a client sends them, file names
    untouched. Returns the body and its Content-Type."""
    boundary = "----hostile" + secrets.token_hex(12)
    chunks = []
    for name, value, filename, content_type in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        head = f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
        if content_type:
            head += f"Content-Type: {content_type}\r\n"
        data = value if isinstance(value, bytes) else value.encode()
        chunks += [head.encode("utf-8", "surrogateescape"), b"\r\n", data, b"\r\n"]
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


def request_body(case: Hostile, channel: str, contest_slug: str) -> tuple[bytes, str]:
    """The body and Content-Type of `case` for the API or the form."""
    fields = case.declared()
    if channel == "api":
        fields = {"contest": contest_slug, **fields}
        values = {name: str(value).lower() if isinstance(value, bool) else str(value)
                  for name, value in fields.items()}  # fmt: skip
    else:
        values = {name: form_value(name, value) for name, value in fields.items()}
        values = {name: value for name, value in values.items() if value is not None}
    if case.body == "json":
        return json.dumps(values).encode(), "application/json"
    if case.body == "text":
        return "\n".join(f"{k}={v}" for k, v in values.items()).encode(), "text/plain"
    parts = [(name, value, None, None) for name, value in values.items()]
    parts += [(f"extra{i}", "x", None, None) for i in range(case.extra_parts)]
    parts += [(f"file{i}", b"x", f"f{i}.txt", "text/plain") for i in range(case.extra_files)]
    if isinstance(case.log, Log):
        parts.append(("log", case.log.content(), case.log.name, case.log.content_type))
    elif isinstance(case.log, str):
        parts.append(("log", case.log, None, None))
    return multipart(parts)
