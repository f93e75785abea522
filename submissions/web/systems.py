"""Finding entries: the search box over the entries a visitor may see, and a page per engine and
per CPU model with its results across contests and its best terminal rate over time."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from submissions.contests.ranks import ranks_known
from submissions.entries import selectors
from submissions.measures.history import Result, best_over_time
from submissions.measures.numbers import rate
from submissions.models import Submission
from submissions.setup.cpus import cpu_model_name

# A query longer than this is not a search a person typed.
MAX_QUERY_CHARS = 200


def search(request: HttpRequest) -> HttpResponse:
    words = request.GET.get("q", "").strip()[:MAX_QUERY_CHARS]
    entries = selectors.entries_matching(words=words, user=request.user)
    found = ranks_known(entries[: selectors.SEARCH_LIMIT]) if words else []
    context = {"words": words, "entries": found, "limit": selectors.SEARCH_LIMIT}
    return render(request, "submissions/search.html", context)


def engine_page(request: HttpRequest, engine: str) -> HttpResponse:
    entries = ranks_known(selectors.entries_of_system(user=request.user, engine=engine))
    if not entries:
        raise Http404("No entry of this engine.")
    return _system_page(request, f"{entries[0].engine}", "engine", entries)


def cpu_page(request: HttpRequest, cpu_model: str) -> HttpResponse:
    entries = ranks_known(selectors.entries_of_system(user=request.user, cpu_model=cpu_model))
    if not entries:
        raise Http404("No entry on this CPU model.")
    # One machine, one page: the model's name, and the spellings its entries gave.
    variants = sorted({entry.cpu_model for entry in entries}, key=str.lower)
    return _system_page(request, cpu_model_name(cpu_model), "CPU model", entries, variants=variants)


def _label(entry: Submission) -> str:
    return f"#{entry.pk} {entry.public_name}, {entry.contest.title}"


def _system_page(
    request: HttpRequest,
    name: str,
    kind: str,
    entries: list[Submission],
    *,
    variants: list[str] = (),
):
    results = [
        Result(entry.submitted_at.isoformat(), entry.terminal_rate, _label(entry))
        for entry in entries
        if entry.terminal_rate is not None
    ]
    best = best_over_time(results)
    contests = sorted({entry.contest.title for entry in entries})
    context = {
        "name": name,
        "kind": kind,
        "variants": variants if len(variants) > 1 or (variants and variants[0] != name) else [],
        "entries": sorted(entries, key=lambda entry: entry.submitted_at, reverse=True),
        "contests": contests,
        "best": best[-1] if best else None,
        "best_rate": rate(best[-1].rate) if best else None,
        "first": entries[0].submitted_at,
        "last": entries[-1].submitted_at,
        "history": {
            "entries": [vars(result) for result in results],
            "best": [vars(result) for result in best],
            "until": entries[-1].submitted_at.isoformat(),
        },
    }
    return render(request, "submissions/system.html", context)
