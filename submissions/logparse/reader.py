"""Turn an uploaded file object into blocks of text lines, streaming.

The upload is read in blocks of about a megabyte; a .gz is recognised by its magic bytes and
decompressed as it is read. Nothing holds more than one block plus one unfinished line, so a
log of any length costs the same memory. Every line counts against `max_lines` (comments,
blanks and trailers as much as reports) and every expanded byte against `max_expanded_bytes`,
each checked block by block before the block is handed on: the first block past a limit ends
the read (LogTooLarge, naming the first line past it). A deadline, when given, is checked at
each block too, so a log that is slow to read is refused in time, whatever makes it slow. Each block is checked as bytes (NUL bytes, UTF-8,
line length) and split into lines only when a parser reads it line by line: the columnar fast
path (columnar.py) reads the block's bytes directly.
"""

from __future__ import annotations

import contextlib
import gzip
import queue
import threading
import time
import zlib
from collections.abc import Iterator, Sequence
from typing import BinaryIO

from .errors import LogError, LogTooLarge, num
from .model import MAX_LINES

BLOCK_BYTES = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"

# Files people upload by mistake, recognised by their first bytes.
NOT_TEXT_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive; upload the log itself or a .gz of it"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive; upload the log itself or a .gz of it"),
    (b"\xfd7zXZ\x00", "xz-compressed; only gzip (.gz) is accepted"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed; only gzip (.gz) is accepted"),
    (b"BZh", "bzip2-compressed; only gzip (.gz) is accepted"),
    (b"\x7fELF", "a program (ELF executable)"),
)
UTF_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
UTF8_BOM = b"\xef\xbb\xbf"


_END = object()


def read_ahead(pieces: Iterator[bytes], depth: int = 2) -> Iterator[bytes]:
    """The pieces, produced by a thread of their own up to `depth` pieces ahead: zlib lets go of
    the interpreter while it inflates, so on two cores a .gz is inflated while the previous
    block is parsed. An error the producer meets is raised here, where its piece would have
    come; stopping early (the parser refused a line) stops the producer."""
    handoff: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def hand(item) -> bool:
        while not stop.is_set():
            try:
                handoff.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for piece in pieces:
                if not hand(piece):
                    return
            hand(_END)
        except BaseException as error:  # handed over and raised in the reading thread
            hand(error)

    producer = threading.Thread(target=produce, name="log-inflate", daemon=True)
    producer.start()
    try:
        while True:
            item = handoff.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        producer.join()


class _GzipTruncated(Exception):
    pass


class _GzipDamaged(Exception):
    pass


class TextBlock(Sequence[str]):
    """The lines of one block (no line ends), split from its bytes on first use.

    `data` is the block's checked UTF-8 bytes without the last line end, `first_line` the
    1-based number of its first line. Slicing gives a plain list.
    """

    __slots__ = ("_lines", "count", "data", "first_line", "plain")

    def __init__(self, data: bytes, first_line: int, count: int, lines: list[str] | None = None):
        self.data = data
        self.first_line = first_line
        self.count = count
        self._lines = lines
        # Set by columnar.pieces once it has seen only report bytes in `data`.
        self.plain = False

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.data.decode("utf-8").split("\n")
        return self._lines

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[str]:
        return iter(self.lines)

    def __getitem__(self, index):
        return self.lines[index]

    def lines_from(self, index: int) -> TextBlock:
        """The block's lines from `index` on, as a block of their own (no split into lines)."""
        if self._lines is not None or index <= 0 or index >= self.count:
            return TextBlock(
                "\n".join(self.lines[index:]).encode(),
                self.first_line + max(index, 0),
                max(self.count - max(index, 0), 0),
            )
        at = -1
        for _ in range(index):
            at = self.data.index(b"\n", at + 1)
        return TextBlock(self.data[at + 1 :], self.first_line + index, self.count - index)


class LogReader:
    """Blocks of lines from a binary upload.

    After `blocks()` is exhausted, `line_count` is the number of lines and
    `unterminated_line` the number of a last line that had no newline (else None).
    """

    def __init__(
        self,
        source: BinaryIO,
        *,
        max_expanded_bytes: int,
        max_line_chars: int,
        max_lines: int = MAX_LINES,
        max_seconds: float | None = None,
    ) -> None:
        self.source = source
        self.max_expanded_bytes = max_expanded_bytes
        self.max_line_chars = max_line_chars
        # The series keeps line numbers in 4 bytes: never more than MAX_LINES, whatever is asked.
        self.max_lines = min(max_lines, MAX_LINES)
        self.max_seconds = max_seconds
        self.deadline = None if max_seconds is None else time.monotonic() + max_seconds
        self.is_gzip = False
        self.line_count = 0
        self.unterminated_line: int | None = None
        self._bytes_seen = 0

    # -- bytes ------------------------------------------------------------------------------

    def _read_start(self) -> bytes:
        """The first bytes, enough to recognise a magic number (short reads are allowed)."""
        start = b""
        while len(start) < 64:
            chunk = self.source.read(BLOCK_BYTES)
            if not chunk:
                break
            start += chunk
        return start

    def _raw_pieces(self, start: bytes) -> Iterator[bytes]:
        """Pieces of about BLOCK_BYTES: a source giving short reads (a pipe, a socket) is read
        until a block is full, so that a block holds many lines, not one."""
        if start:
            yield start
        while chunk := self.source.read(BLOCK_BYTES):
            if len(chunk) < BLOCK_BYTES:
                filled = bytearray(chunk)
                while len(filled) < BLOCK_BYTES and (
                    more := self.source.read(BLOCK_BYTES - len(filled))
                ):
                    filled += more
                chunk = bytes(filled)
                del filled
            yield chunk

    def _gunzip(self, start: bytes) -> Iterator[bytes]:
        """Decompressed pieces of at most BLOCK_BYTES each, member after member."""
        compressed = self._raw_pieces(start)
        inflater = zlib.decompressobj(31)
        pending = b""
        while True:
            if not pending:
                pending = next(compressed, b"")
                if not pending:
                    break
            try:
                out = inflater.decompress(pending, BLOCK_BYTES)
            except zlib.error as error:
                raise _GzipDamaged(str(error)) from error
            pending = inflater.unconsumed_tail
            if out:
                yield out
            if inflater.eof:
                # All the input past the member's end is in unused_data; when the call was cut
                # by the output limit, CPython leaves the same bytes in unconsumed_tail too
                # (adding both read every later member twice, without end for a bomb).
                pending = self._next_member(inflater.unused_data, compressed)
                if pending is None:
                    return
                inflater = zlib.decompressobj(31)
        tail = inflater.flush()
        if tail:
            yield tail
        if not inflater.eof:
            raise _GzipTruncated()

    @staticmethod
    def _next_member(pending: bytes, compressed: Iterator[bytes]) -> bytes | None:
        """The compressed bytes from the next member's start, or None at the file's end. A
        member may end where a piece does, and the next one's magic bytes may be split across
        two pieces: read on until there is enough to tell."""
        while len(pending) < len(GZIP_MAGIC):
            more = next(compressed, b"")
            if not more:
                break
            pending += more
        # Padding with zeros after the last member is harmless (tape and tar habits).
        if not pending.strip(b"\x00"):
            if any(p.strip(b"\x00") for p in compressed):
                raise _GzipDamaged("data after the end of the compressed stream")
            return None
        if not pending.startswith(GZIP_MAGIC):
            raise _GzipDamaged("data after the end of the compressed stream")
        return pending

    def _counted(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        limit = self.max_expanded_bytes
        for piece in pieces:
            within = limit - self._bytes_seen
            self._bytes_seen += len(piece)
            if self._bytes_seen > limit:
                what = "expands past" if self.is_gzip else "is larger than"
                # The line holding the first byte past the limit: the lines before this piece
                # are counted, the piece's line ends before that byte are not yet.
                raise LogTooLarge(
                    f"the log {what} {num(limit)} bytes: upload only this run's output",
                    line=self.line_count + 1 + piece.count(b"\n", 0, within),
                    limit="expanded_bytes",
                )
            self._check_deadline()
            yield piece

    # -- text -------------------------------------------------------------------------------

    def blocks(self) -> Iterator[TextBlock]:
        """Blocks of lines (no line ends), about a megabyte of text each."""
        start = self._read_start()
        if start.startswith(GZIP_MAGIC):
            self.is_gzip = True
            pieces = read_ahead(self._gunzip(start))
        else:
            pieces = self._raw_pieces(start)
        try:
            yield from self._split(self._counted(pieces))
        except _GzipTruncated:
            raise LogError(
                f"the .gz file is truncated after line {num(self.line_count)}: "
                "upload the complete file"
            ) from None
        except _GzipDamaged as error:
            raise LogError(
                f"the .gz file is damaged after line {num(self.line_count)} ({error}): "
                "compress the log again and upload it"
            ) from None

    def _checked_start(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        """The pieces again, the first one at least 64 bytes long and checked."""
        start = b""
        for piece in pieces:
            start += piece
            if len(start) >= 64:
                break
        if not start:
            raise LogError("the log is empty")
        yield self._check_start(start)
        yield from pieces

    def _split(self, pieces: Iterator[bytes]) -> Iterator[TextBlock]:
        carry = b""
        for piece in self._checked_start(pieces):
            data = carry + piece if carry else piece
            held_cr = b""
            if b"\r" in data:
                # A CR at the very end may be half of a CRLF split across two pieces.
                if data.endswith(b"\r"):
                    held_cr, data = b"\r", data[:-1]
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            end = data.rfind(b"\n")
            if end < 0:
                carry = data + held_cr
                self._check_unfinished(carry)
                continue
            carry = data[end + 1 :] + held_cr
            self._check_unfinished(carry)
            yield self._decode(data[:end])
        if carry.endswith(b"\r"):  # the file's last byte was a CR: a complete last line
            if len(carry) > 1:
                yield self._decode(carry[:-1])
        elif carry:
            block = self._decode(carry)
            self.unterminated_line = self.line_count
            yield block

    def _check_start(self, data: bytes) -> bytes:
        """Refuse what is not UTF-8 text by its first bytes; drop a UTF-8 byte order mark."""
        for magic, what in NOT_TEXT_MAGIC:
            if data.startswith(magic):
                raise LogError(f"not text ({what}): upload the benchmark's text output", line=1)
        for bom, encoding in UTF_BOMS:
            if data.startswith(bom):
                raise self._wide_text_error(encoding)
        if data.startswith(UTF8_BOM):
            return data[len(UTF8_BOM) :]
        head = data[:4096]
        if head.count(b"\x00") > len(head) // 4:
            # ASCII written as UTF-16 has every other byte zero.
            raise self._wide_text_error("UTF-16" if head.count(b"\x00\x00") < 2 else "UTF-32")
        return data

    def _wide_text_error(self, encoding: str) -> LogError:
        return LogError(
            f"not UTF-8 text: the file is {encoding} (Windows calls it 'Unicode'); "
            f"save it as UTF-8 and upload it again (e.g. iconv -f {encoding} -t UTF-8)",
            line=1,
        )

    def _check_unfinished(self, carry: bytes) -> None:
        """A line still without its newline must not grow past the limit."""
        limit = self.max_line_chars
        if len(carry) > limit and len(carry.decode("utf-8", "ignore")) > limit:
            raise LogError(
                f"longer than {num(limit)} characters: is this the benchmark's output?",
                line=self.line_count + 1,
            )

    def _decode(self, data: bytes) -> TextBlock:
        """Lines of one block; checks NUL bytes, UTF-8 and line length."""
        if b"\x00" in data:
            at = data.index(b"\x00")
            line = self.line_count + data.count(b"\n", 0, at) + 1
            raise LogError("not text (NUL byte): upload the benchmark's text output", line=line)
        first = self.line_count + 1
        if data.isascii():
            # One byte per character: the checks need no decoding, nor the lines a split yet.
            count = data.count(b"\n") + 1
            long_at = self._long_line_start(data)
            if long_at is not None:
                raise self._too_long(self.line_count + data.count(b"\n", 0, long_at) + 1)
            self._count_lines(count)
            return TextBlock(data, first, count)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise self._not_utf8(data, error.start) from None
        lines = text.split("\n")
        if len(data) > self.max_line_chars and max(map(len, lines)) > self.max_line_chars:
            at = next(i for i, line in enumerate(lines) if len(line) > self.max_line_chars)
            raise self._too_long(self.line_count + at + 1)
        self._count_lines(len(lines))
        return TextBlock(data, first, len(lines), lines)

    def _count_lines(self, count: int) -> None:
        limit = self.max_lines
        if self.line_count + count > limit:
            raise LogTooLarge(
                f"the log has more than {num(limit)} lines (comments and blank lines count "
                "too): upload only this run's output",
                line=limit + 1,
                limit="lines",
            )
        self.line_count += count

    def _check_deadline(self) -> None:
        """Refuse the log once reading it (and parsing what was read) took longer than allowed:
        checked before each block is handed on, so no more than a block's work follows."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise LogTooLarge(
                f"the log was not read within {num(self.max_seconds)} seconds (stopped before "
                "this line): upload only this run's output, or report less often",
                line=self.line_count + 1,
                limit="seconds",
            )

    def _long_line_start(self, data: bytes) -> int | None:
        """Where the first line longer than the limit starts in ASCII `data`, or None; hops
        from line end to line end a limit's length at a time, never line by line."""
        limit = self.max_line_chars
        start, size = 0, len(data)
        while size - start > limit:
            end = data.rfind(b"\n", start, start + limit + 1)
            if end < 0:
                return start
            start = end + 1
        return None

    def _too_long(self, line: int) -> LogError:
        return LogError(
            f"longer than {num(self.max_line_chars)} characters: is this the benchmark's output?",
            line=line,
        )

    def _not_utf8(self, data: bytes, at: int) -> LogError:
        line_start = data.rfind(b"\n", 0, at) + 1
        line = self.line_count + data.count(b"\n", 0, at) + 1
        return LogError(
            f"not UTF-8 text (byte 0x{data[at]:02X} at byte {at - line_start + 1} of the line): "
            "save the log as UTF-8 and upload it again",
            line=line,
        )


def text_lines(raw: BinaryIO) -> Iterator[str]:
    """A stored log's lines as text, gzipped or not, read as they are asked for (a caller that
    wants the header stops there): for pages, never for parsing an upload."""
    gzipped = raw.read(2) == GZIP_MAGIC
    raw.seek(0)
    with gzip.open(raw) if gzipped else contextlib.nullcontext(raw) as stream:
        for line in stream:
            yield line.decode("utf-8", "replace").rstrip("\r\n")
