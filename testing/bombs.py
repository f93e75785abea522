"""Hostile logs that cost little to send and much to read: a real C benchmark log (MariaDB, its
~700 `# setting` lines) with millions of lines the parser reads and no report, plain, gzipped
or as concatenated gzip members. Made as a stream of pieces, never whole: a 50,000,000-line
bomb is 100 MB plain but costs its reader only what it reads before it refuses. For the tests
(`submissions/tests/web/test_upload_bombs.py`) and `bench/hostile_uploads.py`."""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from pathlib import Path

REAL_LOG = (
    Path(__file__).resolve().parent.parent
    / "submissions/tests/fixtures/logs/iibench-c-mariadb-100k-cadence.log"
)

# What each bomb repeats, and where: after the header (before the column header), or after
# the summary (a trailer). `settings` gives each line a name of its own, so a parser that
# keeps what a header states keeps one more thing a line.
FILLERS = {
    "comment": ("header", b"#\n"),
    "blank": ("header", b"\n"),
    "trailer": ("trailer", b"# flushed tables in 0.000 s\n"),
    "settings": ("header", None),
}
KINDS = tuple(FILLERS)
PACKINGS = ("plain", "gzip", "members")
PIECE_LINES = 1 << 16


def real_log() -> bytes:
    return REAL_LOG.read_bytes()


def _parts() -> tuple[bytes, bytes, bytes]:
    """The real log as (header, reports and summary, nothing): split before its column
    header."""
    text = real_log()
    at = text.index(b"\nrows\t") + 1
    return text[:at], text[at:], b""


def _filler(kind: str, lines: int) -> Iterator[bytes]:
    _, line = FILLERS[kind]
    done = 0
    while done < lines:
        count = min(PIECE_LINES, lines - done)
        if line is None:
            yield b"".join(
                b"# setting bomb_%d default 1\n" % number for number in range(done, done + count)
            )
        else:
            yield line * count
        done += count


def bomb_lines(kind: str, lines: int) -> Iterator[bytes]:
    """The bomb's text in pieces: the real log with `lines` more lines of `kind`."""
    header, rest, _ = _parts()
    where, _ = FILLERS[kind]
    if where == "header":
        yield header
        yield from _filler(kind, lines)
        yield rest
    else:
        yield header + rest
        yield from _filler(kind, lines)


def packed(pieces: Iterator[bytes], packing: str) -> Iterator[bytes]:
    """The pieces as sent: as they are, one gzip stream (level 1: cheap to make), or one gzip
    member per piece (a .gz may hold many; the reader must count across them)."""
    if packing == "plain":
        yield from pieces
    elif packing == "gzip":
        deflate = zlib.compressobj(1, zlib.DEFLATED, 31)
        for piece in pieces:
            yield deflate.compress(piece)
        yield deflate.flush()
    elif packing == "members":
        # The same filler piece makes the same member: compressed once.
        made: dict[bytes, bytes] = {}
        for piece in pieces:
            if piece not in made:
                deflate = zlib.compressobj(1, zlib.DEFLATED, 31)
                member = deflate.compress(piece) + deflate.flush()
                made = {piece: member}
            yield made[piece]
    else:
        raise ValueError(f"no packing {packing!r}: {', '.join(PACKINGS)}")


def bomb(kind: str, packing: str, lines: int) -> Iterator[bytes]:
    return packed(bomb_lines(kind, lines), packing)


def bomb_bytes(kind: str, packing: str, lines: int) -> bytes:
    """A small bomb whole, for a request a test client sends in one piece."""
    return b"".join(bomb(kind, packing, lines))


class PieceReader(io.RawIOBase):
    """A binary file over pieces, read as they are asked for: a parser reads a bomb of any
    size from it without it ever being whole."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self.pieces = pieces
        self.pending = b""
        self.sent = 0

    def readable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        # An upload is read from its start: going there before reading is all a reader asks.
        if (offset, whence) == (0, io.SEEK_SET) and self.sent == 0:
            return 0
        raise io.UnsupportedOperation("a stream of pieces is read once, from its start")

    def readinto(self, buffer) -> int:
        while not self.pending:
            piece = next(self.pieces, None)
            if piece is None:
                return 0
            self.pending = piece
        size = min(len(buffer), len(self.pending))
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        self.sent += size
        return size


def read_each(specs: list[tuple[str, str, int]]) -> list[dict]:
    """Each bomb read as an upload reads it (entries.logs.parsed_log: the site's limits and
    deadline), in this process: what it answered and how long it took."""
    import time

    from django.conf import settings

    from submissions import tracks
    from submissions.entries.logs import parsed_log
    from submissions.entries.refusals import LogTooLarge, SubmissionRefused

    answers = []
    for kind, packing, lines in specs:
        source = PieceReader(bomb(kind, packing, lines))
        started = time.monotonic()
        try:
            parsed = parsed_log(
                tracks.DEFAULT_TRACK, source, max_seconds=settings.LOG_PARSE_SECONDS
            )
            answer = {"accepted": True, "lines": parsed.line_count}
        except LogTooLarge as refused:
            answer = {"accepted": False, "message": refused.message, "setting": refused.setting}
        except SubmissionRefused as refused:
            answer = {"accepted": False, "message": refused.message, "setting": None}
        answer.update(
            kind=kind, packing=packing, sent=source.sent, seconds=time.monotonic() - started
        )
        answers.append(answer)
    return answers


def main() -> None:
    """`python -m testing.bombs KIND:PACKING:LINES ...`: each bomb read as an upload is, with
    the site's settings; prints one JSON object: the answers and this process's peak memory."""
    import json
    import os
    import sys

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "iibench_site.settings.test")
    django.setup()
    specs = [(k, p, int(n)) for k, p, n in (arg.split(":") for arg in sys.argv[1:])]
    answers = read_each(specs)
    print(json.dumps({"answers": answers, "peak_rss_bytes": peak_rss_bytes()}))


def peak_rss_bytes() -> int:
    """This process's own peak resident memory: VmHWM, the high-water mark of its address space
    since exec. Not getrusage's ru_maxrss, which Linux carries across exec: a child the test
    process vforks reports the test process's peak (733 MB in the whole suite), not its own."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024  # kB
    raise RuntimeError("no VmHWM in /proc/self/status")


if __name__ == "__main__":
    main()
