"""The open dataset's page (/open-data/), its files (/open-data/<file>, sent in chunks, with
Range, ETag and Content-Length) and its API (/api/dataset/: the manifest and the download URLs).
What is built and when is submissions/opendata."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import quote_etag
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from submissions.opendata import build, parts, writing
from submissions.opendata.state import (
    BUILDING,
    DatasetStatus,
    contests_still_public,
    open_dataset_status,
)

CHUNK = 1 << 16
RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def _unservable(status: DatasetStatus) -> tuple[int, str] | None:
    """(HTTP status, message) when no build can be sent, else None."""
    if not status.manifest:
        if status.state == BUILDING:
            return 503, (
                "The open dataset is being built for the first time: try again in "
                f"{status.retry_after} s."
            )
        return 404, (
            "The open dataset has not been built yet: the background worker builds it within "
            f"about {status.retry_after} s."
        )
    if "parts" not in status.manifest:  # made before the dataset had parts
        return 503, (
            "The open dataset is being rebuilt in parts: try again in "
            f"{status.retry_after or 60} s."
        )
    if not contests_still_public(status.manifest):
        return 503, (
            "The open dataset is being rebuilt: a contest in the last build is no longer public. "
            f"Try again in {status.retry_after or 60} s."
        )
    return None


def _file_urls(request: HttpRequest, files: list[dict]) -> list[dict]:
    return [
        {
            **described,
            "url": request.build_absolute_uri(reverse("open_data_file", args=[described["name"]])),
        }
        for described in files
    ]


def _parts(request: HttpRequest, manifest: dict) -> list[dict]:
    """The parts, each with its files' and its deltas' files' download URLs (the manifest's
    "parts"); `listed`: the part's files and its deltas', for the page."""
    shown = []
    for held in manifest.get("parts", []):
        deltas = [
            {**delta, "files": _file_urls(request, delta["files"])}
            for delta in held.get("deltas", [])
        ]
        files = _file_urls(request, held["files"])
        listed = files + [d for delta in deltas for d in delta["files"]]
        shown.append({**held, "files": files, "deltas": deltas, "listed": listed})
    return shown


def _ranks(request: HttpRequest, manifest: dict) -> list[dict]:
    """Each contest's ranks files with their download URLs (the manifest's "ranks")."""
    return [
        {**held, "files": _file_urls(request, held["files"])} for held in manifest.get("ranks", [])
    ]


def open_data_page(request: HttpRequest) -> HttpResponse:
    status = open_dataset_status()
    refused = _unservable(status)
    context = {
        "status": status,
        "manifest": status.manifest,
        "files": _file_urls(request, status.manifest["files"]) if status.manifest else [],
        "parts": _parts(request, status.manifest) if status.manifest else [],
        "ranks": _ranks(request, status.manifest) if status.manifest else [],
        "whole": _file_urls(request, status.manifest["whole"]) if status.manifest else [],
        "refused": refused[1] if refused else "",
        "api_url": reverse("api_dataset"),
        "built_at": datetime.fromisoformat(status.manifest["built_at"])
        if status.manifest
        else None,
    }
    response = render(request, "submissions/open_data.html", context)
    if refused and refused[0] == 503:
        response["Retry-After"] = str(status.retry_after or 60)
    return response


def open_data_file(request: HttpRequest, name: str) -> HttpResponse:
    whole = name in WHOLE
    if not whole and parts.table_of(name) is None:
        return _plain(404, _no_such_file(name))
    status = open_dataset_status()
    refused = _unservable(status)
    if refused:
        response = _plain(*refused)
        if refused[0] == 503:
            response["Retry-After"] = str(status.retry_after or 60)
        return response
    folder = build.build_folder(status.manifest["build"])
    try:
        if whole:
            return whole_csv_response(request, folder, status.manifest)
        described = next((d for d in status.manifest["files"] if d["name"] == name), None)
        if described is None:
            return _plain(404, f"This build of the open dataset has no part file {name!r}.")
        return file_response(request, folder / name, described)
    except FileNotFoundError:
        # The build's folder went away (removed by hand, a volume not shared with the worker).
        response = _plain(
            503, "The open dataset's files are missing on this server: it is being rebuilt."
        )
        response["Retry-After"] = str(status.retry_after or 60)
        return response


# The whole-registry downloads (build.whole_files); every other file is a part's.
WHOLE = ("entries.csv",)


def _no_such_file(name: str) -> str:
    if name in build.FILES:
        return (
            f"The open dataset's {name} comes in parts by entry id (entries-000000.parquet, ...): "
            "/api/dataset/ and /open-data/ list them with their checksums; entries.csv is "
            "also sent whole."
        )
    return (
        f"The open dataset has no file {name!r}: it has entries.csv whole and its parts "
        "(entries-NNNNNN.parquet, verdicts-NNNNNN.parquet, series-NNNNNN.parquet, "
        "entries-NNNNNN.csv) as /api/dataset/ lists them."
    )


def whole_csv_response(request: HttpRequest, folder: Path, manifest: dict) -> HttpResponse:
    """The entries CSV of the whole registry: the parts' CSV rows (their deltas applied, in id
    order) one after another under one header, streamed as they are read (no part is copied
    into a whole file). Sent whole; its ETag digests the parts' and deltas' checksums."""
    whole = manifest["whole"][0]
    etag = quote_etag(whole["etag"])
    if etag in _etags(request.headers.get("If-None-Match", "")):
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    header = len(build.csv_header())
    # Cut before the first byte is sent: a part gone is a 503 now, not a download cut short.
    pieces = [
        piece for part in manifest["parts"] for piece in writing.csv_pieces(folder, part, header)
    ]
    response = StreamingHttpResponse(_concatenated_csv(pieces))
    response["Content-Length"] = str(whole["bytes"])
    response["Content-Type"] = whole["media_type"]
    response["Content-Disposition"] = 'attachment; filename="entries.csv"'
    response["ETag"] = etag
    response["Accept-Ranges"] = "none"
    response["Cache-Control"] = "public, max-age=60"
    return response


def _concatenated_csv(pieces: list[tuple[Path, int, int]]) -> Iterator[bytes]:
    """The header, then each piece's bytes (writing.csv_pieces: the live rows of each part)."""
    header = build.csv_header()
    yield header
    for path, first, end in pieces:
        with path.open("rb") as file:
            if file.read(len(header)) != header:
                raise ValueError(f"{path.name} does not start with the entries CSV's header")
            yield from _read_span(path, first, end - 1, file)


def _plain(status: int, message: str) -> HttpResponse:
    return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")


def file_response(request: HttpRequest, path: Path, described: dict) -> HttpResponse:
    """The file whole (200), a byte range of it (206), 304 when the client has it, or 416 for
    a range past its end. Its ETag is its checksum, so a download resumed with If-Range after
    a newer build gets the whole new file, never a splice of two."""
    etag = quote_etag(described["sha256"])
    size = described["bytes"]
    if etag in _etags(request.headers.get("If-None-Match", "")):
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    wanted = request.headers.get("Range", "")
    if_range = request.headers.get("If-Range")
    span = requested_range(wanted, size) if wanted and if_range in (None, etag) else None
    if span == "unsatisfiable":
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
    elif span is None:
        response = FileResponse(path.open("rb"), as_attachment=True, filename=path.name)
    else:
        first, last = span
        response = StreamingHttpResponse(_read_span(path, first, last), status=206)
        response["Content-Range"] = f"bytes {first}-{last}/{size}"
        response["Content-Length"] = str(last - first + 1)
        response["Content-Disposition"] = f'attachment; filename="{path.name}"'
    response["Content-Type"] = described["media_type"]
    response["ETag"] = etag
    response["Accept-Ranges"] = "bytes"
    response["Cache-Control"] = "public, max-age=60"
    return response


def _etags(header: str) -> set[str]:
    return {tag.strip() for tag in header.split(",") if tag.strip()}


def requested_range(header: str, size: int) -> tuple[int, int] | str | None:
    """(first, last) byte of one range ("bytes=0-99", "bytes=100-", "bytes=-500"),
    "unsatisfiable" when it starts past the end, None for what this server sends whole
    (several ranges, another unit, a malformed header: RFC 9110 lets it ignore those)."""
    found = RANGE.match(header.strip())
    if not found or found.groups() == ("", ""):
        return None
    start, end = found.groups()
    if start == "":
        first, last = max(0, size - int(end)), size - 1
        return (first, last) if int(end) > 0 and size > 0 else "unsatisfiable"
    first = int(start)
    last = min(int(end), size - 1) if end else size - 1
    if end and int(end) < first:
        return None
    return "unsatisfiable" if first >= size else (first, last)


def _read_span(path: Path, first: int, last: int, opened=None) -> Iterator[bytes]:
    with opened or path.open("rb") as file:
        file.seek(first)
        left = last - first + 1
        while left > 0:
            block = file.read(min(CHUNK, left))
            if not block:
                return
            left -= len(block)
            yield block


class DatasetManifest(APIView):
    """The open dataset: its manifest (built_at, the registry version it reflects, each
    file's size, checksum, rows and download URL, every column's meaning) and whether a newer
    build is being made. 404 before the first build; 503 with Retry-After while the first is
    being built."""

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT, 503: OpenApiTypes.OBJECT}
    )
    def get(self, request: Request) -> Response:
        status = open_dataset_status()
        body = {
            "state": status.state,
            "state_means": status.words,
            "page": request.build_absolute_uri(reverse("open_data")),
        }
        refused = _unservable(status)
        if refused:
            headers = {"Retry-After": str(status.retry_after or 60)} if refused[0] == 503 else {}
            return Response({"detail": refused[1], **body}, status=refused[0], headers=headers)
        manifest = status.manifest
        return Response(
            {
                **manifest,
                **body,
                "building_since": status.building_since,
                "files": _file_urls(request, manifest["files"]),
                "parts": _parts(request, manifest),
                "ranks": _ranks(request, manifest),
                "whole": _file_urls(request, manifest["whole"]),
            }
        )


class ApiRoot(APIView):
    """Where the API starts: the contests, the entries, the open dataset and the schema."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        names = {
            "contests": "api_contests",
            "submissions": "api_submissions",
            "dataset": "api_dataset",
            "schema": "schema",
            "docs": "swagger-ui",
        }
        return Response(
            {key: request.build_absolute_uri(reverse(name)) for key, name in names.items()}
        )
