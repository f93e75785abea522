"""After an upload the worker hands back what reading it freed (iibench_site/middleware.py):
glibc keeps freed blocks in its heaps otherwise, and the next upload peaks that much higher."""

from __future__ import annotations

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from iibench_site import middleware


@pytest.fixture
def trims(monkeypatch):
    calls = []
    monkeypatch.setattr(middleware, "MALLOC_TRIM", lambda pad: calls.append(pad))
    return calls


def respond(body: bytes):
    answer = HttpResponse("stored", status=201)
    request = RequestFactory().post("/api/submissions/", body, content_type="application/gzip")
    return middleware.FreedMemoryMiddleware(lambda request: answer)(request), answer


def test_an_upload_gives_back_the_memory_it_freed_after_its_answer(trims):
    response, answer = respond(bytes(2 << 20))
    assert response is answer and response.status_code == 201
    assert trims == [0]


def test_a_small_request_leaves_the_heap_alone(trims):
    respond(b"contest=1")
    assert trims == []


def test_the_c_library_of_this_machine_has_malloc_trim():
    # Debian's glibc: the production image and every machine the suite runs on.
    assert middleware.MALLOC_TRIM is not None
    assert middleware.MALLOC_TRIM(0) in (0, 1)
