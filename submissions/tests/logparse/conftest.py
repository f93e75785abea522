from __future__ import annotations

import io
from pathlib import Path

import pytest

from submissions.logparse import ParsedLog, parse_log

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def parse_fixture(name: str, **options) -> ParsedLog:
    with (FIXTURES / name).open("rb") as source:
        return parse_log(source, **options)


def parse_text(text: str | bytes, **options) -> ParsedLog:
    data = text.encode() if isinstance(text, str) else text
    return parse_log(io.BytesIO(data), **options)


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text()


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
