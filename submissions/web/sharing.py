"""Compare and share: the compare page (entries and the seeds' reference rows overlaid, a
baseline, axes and zooms, repeats as a band, all in its address), an entry's badge and its
figures as a small JSON for blog posts."""

from __future__ import annotations

import hashlib

import numpy as np
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import quote_etag
from django.views.decorators.http import condition

from submissions.caches.compiled import (
    PLACEHOLDER_ID,
    compiled_instances,
    for_values,
    instances_at_once,
    instances_of,
    reading_ahead,
)
from submissions.contests import rule_versions
from submissions.contests.ranks import contest_leader, rank_checks, ranks_known
from submissions.entries import selectors
from submissions.entries.outcome import outcome_public
from submissions.measures import comparison
from submissions.models import (
    CheckedVerdicts,
    Contest,
    ReferenceResult,
    SampleSeries,
    Submission,
)
from submissions.setup.entry_settings import compared_settings, compared_settings_read
from submissions.web import badges
from submissions.web.views import judged_under_version, verdict_rows

# Badges and the figures JSON are embedded in other people's pages: let caches keep them a
# while, and revalidate cheaply (the ETag moves with the contest's board_version).
SHARE_MAX_AGE = 300


def compare(request: HttpRequest) -> HttpResponse:
    """/compare/?ids=3,7&refs=2&base=r2&x=time&zoom=terminal&group=3+7 (shareable)."""
    state = comparison.parse_state(dict(request.GET.lists()))
    canonical = state.query()
    if request.GET and sorted(request.GET.lists()) != sorted(QueryDict(canonical).lists()):
        # The board's checkboxes send ids=3&ids=7; the address to share reads ids=3,7.
        return redirect(f"{reverse('compare')}?{canonical}" if canonical else reverse("compare"))
    wanted = state.ids[: comparison.MAX_ITEMS]
    entries = selectors.entries_to_compare(ids=list(wanted), user=request.user)
    # What the page reads besides the entries, in one round trip (instances_at_once): the
    # references asked for, those of the entries' contests to pick from, the entries' server
    # settings, and the check of the kept ranks the entries' ranks are read from.
    reference_ids = state.refs[: comparison.MAX_ITEMS - len(entries)]
    choices_read, settings_read = _kept_reads(entries)
    with reading_ahead([]):
        (references,) = instances_at_once(
            [ReferenceResult.objects.filter(pk__in=reference_ids)],
            [choices_read, settings_read, *rank_checks(entries)],
        )
        choices, settings = instances_of(choices_read), instances_of(settings_read)
        entries = ranks_known(entries)
    references = _references(reference_ids, references)
    items = [_entry_item(entry) for entry in entries] + [_reference_item(r) for r in references]
    baseline = next((item for item in items if item["key"] == state.base), None)
    baseline_figures = baseline["figures"] if baseline else None
    for item in items:
        item["ratios"] = comparison.ratios(item["figures"], baseline_figures)
    by_id = {entry.pk: item for entry, item in zip(entries, items, strict=False)}
    bands = [_band(group, by_id) for group in state.groups]
    found = {entry.pk for entry in entries}
    context = {
        "state": state,
        "items": items,
        "entries": entries,
        "bands": [band for band in bands if band],
        "baseline": baseline,
        "left_out": [pk for pk in wanted if pk not in found],
        "beyond_limit": state.ids[comparison.MAX_ITEMS :],
        "max_entries": comparison.MAX_ITEMS,
        "plot": _plot_data(state, items, bands),
        "reference_choices": _reference_choices(choices, references),
        "grouped": {pk for group in state.groups for pk in group},
        "state_without_groups": state.hidden_fields(),
        **compared_settings(entries, settings),
    }
    return render(request, "submissions/compare.html", context)


def _kept_reads(entries: list[Submission]) -> list:
    """The reference rows of the entries' contests (`_reference_choices_read`) and the
    entries' server settings (`compared_settings_read`), as statements compiled once per
    process for as many contests and entries, their ids in placeholders (for_values)."""
    contest_ids = sorted({entry.contest_id for entry in entries})
    contest_places = [PLACEHOLDER_ID - number for number in range(len(contest_ids))]
    entry_places = [PLACEHOLDER_ID - number for number in range(len(entries))]
    choices = compiled_instances(
        ("compare", "choices", len(contest_places)),
        lambda: _reference_choices_read([Submission(contest_id=place) for place in contest_places]),
    )
    settings = compiled_instances(
        ("compare", "settings", len(entry_places)),
        lambda: compared_settings_read([Submission(pk=place) for place in entry_places]),
    )
    return [
        for_values(choices, dict(zip(contest_places, contest_ids, strict=True))),
        for_values(settings, dict(zip(entry_places, [entry.pk for entry in entries], strict=True))),
    ]


def _references(ids: tuple[int, ...], read: list[ReferenceResult]) -> list[ReferenceResult]:
    """The reference rows asked for (`read`: those of `ids` found), in order. They are public
    facts from the seeds, shown with any contest's board, so every visitor may add them."""
    found = {ref.pk: ref for ref in read}
    return [found[pk] for pk in ids if pk in found]


def _reference_choices_read(entries: list[Submission]):
    """The reference rows of the compared entries' contests, by label."""
    contests = {entry.contest_id for entry in entries}
    return ReferenceResult.objects.filter(contest__in=contests).order_by("label")


def _reference_choices(choices: list[ReferenceResult], chosen: list[ReferenceResult]) -> list:
    """The compared entries' contests' references (`_reference_choices_read`) not chosen yet,
    for the "add a reference" picker."""
    taken = {ref.pk for ref in chosen}
    return [ref for ref in choices if ref.pk not in taken]


def _entry_item(entry: Submission) -> dict:
    figures = comparison.Figures(
        key=f"e{entry.pk}",
        rows=entry.rows,
        time_to_target=entry.seconds_to_target,
        terminal_rate=entry.terminal_rate,
        average_rate=entry.average_rate,
    )
    return {
        "key": figures.key,
        "kind": "entry",
        "id": entry.pk,
        "label": f"#{entry.pk} {entry.storage_engine} ({entry.public_name})",
        "entry": entry,
        "figures": figures,
        "curves": _curves(entry),
        "elapsed": entry.elapsed_seconds,
        "terminal_start": entry.terminal_window_start_row,
    }


def _reference_item(reference: ReferenceResult) -> dict:
    figures = comparison.Figures(
        key=f"r{reference.pk}",
        rows=reference.rows,
        time_to_target=reference.elapsed_seconds,
        terminal_rate=reference.terminal_rate,
        average_rate=reference.average_rate,
    )
    return {
        "key": figures.key,
        "kind": "reference",
        "id": reference.pk,
        "label": f"{reference.label} (reference)",
        "reference": reference,
        "figures": figures,
        "curves": {},
        "elapsed": reference.measured_elapsed_seconds,  # an estimate is not an elapsed time
        "terminal_start": None,
    }


def _curves(entry: Submission) -> dict:
    """The entry's interval and cumulative rate curves, each point with its rows and its
    elapsed seconds, so the page can switch the x axis without asking again."""
    try:
        preview = entry.series.preview if entry.series else {}
    except SampleSeries.DoesNotExist:
        return {}
    seconds = preview.get("seconds")
    curves = {}
    for mode, name in (("interval", "interval_rate"), ("cumulative", "cumulative_rate")):
        curve = preview.get(name)
        if not curve or not seconds:
            continue
        at = np.interp(curve["x"], seconds["x"], seconds["y"]) if curve["x"] else []
        curves[mode] = {"x": curve["x"], "t": [round(float(s), 3) for s in at], "y": curve["y"]}
    return curves


def _band(group: tuple[int, ...], by_id: dict[int, dict]) -> dict | None:
    members = [by_id[pk] for pk in group if pk in by_id and by_id[pk]["curves"]]
    if len(members) < 2:
        return None
    variants = {}
    spread = None
    for mode in ("interval", "cumulative"):
        for axis, key in (("rows", "x"), ("time", "t")):
            curves = [
                (m["curves"][mode][key], m["curves"][mode]["y"])
                for m in members
                if mode in m["curves"]
            ]
            found = comparison.band(
                [m["id"] for m in members], curves, [m["figures"].terminal_rate for m in members]
            )
            if found:
                variants[f"{mode}-{axis}"] = {
                    "x": found.x,
                    "low": found.low,
                    "median": found.median,
                    "high": found.high,
                }
                spread = found.spread if spread is None else spread
    if not variants:
        return None
    return {
        "members": [m["id"] for m in members],
        "label": "repeats " + ", ".join(f"#{m['id']}" for m in members),
        "variants": variants,
        "spread": spread,
    }


def _plot_data(state: comparison.CompareState, items: list[dict], bands: list) -> dict:
    grouped = {pk for band in bands if band for pk in band["members"]}
    return {
        "state": {
            "base": state.base,
            "x": state.x,
            "xlog": state.xlog,
            "ylog": state.ylog,
            "zoom": state.zoom,
            "rate": state.rate,
        },
        "items": [
            {
                "key": item["key"],
                "kind": item["kind"],
                "label": item["label"],
                "grouped": item["kind"] == "entry" and item["id"] in grouped,
                "curves": item["curves"],
                "rows": item["figures"].rows,
                "elapsed": item["elapsed"],
                "terminal_rate": item["figures"].terminal_rate,
                "average_rate": item["figures"].average_rate,
                "terminal_start": item["terminal_start"],
            }
            for item in items
        ],
        "bands": [band for band in bands if band],
    }


def _visible_or_404(request: HttpRequest, pk: int) -> Submission:
    """An entry a visitor may not see does not exist for them (no 403 that tells it does)."""
    entry = _entry_read(request, pk)
    if entry is None or not selectors.entry_visible(entry, request.user):
        raise Http404("No such entry.")
    return entry


def _entry_read(request: HttpRequest, pk: int) -> Submission | None:
    """The entry with its contest and its stream (which its trust level reads), read once per
    request: the ETag's check and the view share it."""
    kept = getattr(request, "_entry_read", None)
    if kept is None or kept[0] != pk:
        entry = Submission.objects.select_related("contest", "live_run").filter(pk=pk).first()
        kept = request._entry_read = (pk, entry)
    return kept[1]


def _etag(request: HttpRequest, pk: int) -> str | None:
    entry = _entry_read(request, pk)
    # No ETag for an entry this visitor may not see: its 404 must be a missing entry's, header
    # for header.
    if entry is None or not selectors.entry_visible(entry, request.user):
        return None
    version = (entry.contest.board_version, entry.contest.results_published_at)
    digest = hashlib.sha256(f"{pk}:{version}:{request.user.is_authenticated}".encode())
    return quote_etag(digest.hexdigest()[:20])


def _cacheable(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = f"public, max-age={SHARE_MAX_AGE}"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@condition(etag_func=lambda request, pk: _etag(request, pk))
def entry_badge(request: HttpRequest, pk: int) -> HttpResponse:
    entry = _visible_or_404(request, pk)
    svg = badges.entry_badge(entry)
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    # An SVG opened on its own could run script: forbid every script and active content.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return _cacheable(response)


def contest_badge(request: HttpRequest, slug: str) -> HttpResponse:
    contest = get_object_or_404(Contest, slug=slug)
    leader = None
    if contest.results_are_public():
        leader = contest_leader(contest=contest)
    svg = badges.contest_badge(contest, leader)
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    response["ETag"] = quote_etag(f"c{contest.pk}-{contest.board_version}")
    return _cacheable(response)


@condition(etag_func=lambda request, pk: _etag(request, pk))
def entry_figures(request: HttpRequest, pk: int) -> JsonResponse:
    """The figures a blog post quotes, with where they come from."""
    entry = _visible_or_404(request, pk)
    page = request.build_absolute_uri(entry.get_absolute_url())
    body = {
        "id": entry.pk,
        "url": page,
        "contest": entry.contest.slug,
        "entrant": entry.public_name,
        "storage_engine": entry.storage_engine,
        "rows": entry.rows,
        "elapsed_seconds": entry.elapsed_seconds,
        "elapsed_source": entry.elapsed_source,
        "seconds_to_target": entry.seconds_to_target,
        "estimated": entry.estimated,
        "estimate_basis": entry.estimate_basis,
        "terminal_rate": entry.terminal_rate,
        "terminal_window_basis": entry.terminal_window_basis,
        "excerpt": entry.excerpt,
        "demo": entry.demo,
        "average_rate": entry.average_rate,
        "rank": entry.rank if entry.contest.results_are_public() else None,
        "eligible": entry.eligible,
        "trust": badges.trust_of(entry),
        **outcome_public(entry.verification_outcome),
        "badge": request.build_absolute_uri(reverse("entry_badge", args=[entry.pk])),
    }
    return _cacheable(JsonResponse(body))


def entry_checked(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The entry's verdicts as checked under rule version `number`: a link that keeps showing
    them after the rules change (each sentence stated as that version's rules say it)."""
    entry = _visible_or_404(request, pk)
    checked = get_object_or_404(
        CheckedVerdicts.objects.select_related("rules_version"),
        submission=entry,
        rules_version__number=number,
    )
    track, rules = judged_under_version(checked.rules_version)
    context = {
        "submission": entry,
        "checked": checked,
        "verdicts": verdict_rows(track, rules, checked.verdicts),
        "caption": rule_versions.version_caption(checked.rules_version),
        "current": entry.rules_version_id == checked.rules_version_id,
        "current_caption": rule_versions.version_caption(entry.rules_version),
    }
    return render(request, "submissions/submission_checked.html", context)
