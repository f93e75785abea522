import html
from collections.abc import Callable
from functools import lru_cache

from django import template
from django.conf import settings
from django.contrib.humanize.templatetags.humanize import intcomma
from django.template.base import render_value_in_context
from django.template.defaultfilters import date as date_filter
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime

from submissions import tracks
from submissions.entries.trust import STREAMED, TRUST_SENTENCES
from submissions.measures import numbers
from submissions.measures.figures import format_exact_duration
from submissions.setup.cpus import cpu_model_name
from submissions.web.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text: str) -> str:
    # nh3 has already removed scripts, handlers and unsafe URLs in render_markdown.
    return mark_safe(render_markdown(text))  # noqa: S308  # nosec B308, B703


@register.filter
def duration(seconds: float | None, estimated: bool = False) -> str:
    """One duration format on every page ("3d 8h 27m 24s", "38.0 s"): the board's, to the
    second, so a time reads the same on the board, the entry, the check and compare."""
    if seconds is None:
        return "—"
    return format_exact_duration(seconds, estimated=estimated)


@register.filter
def exact_duration(seconds: float | None, estimated: bool = False) -> str:
    """To the second ("10d 7h 04m 12s"): neighbouring ranks differ by minutes over days."""
    if seconds is None:
        return "—"
    return format_exact_duration(seconds, estimated=estimated)


def demo_badge(kind: str) -> str:
    """A flag, not prose: demo data is marked wherever an entry is listed."""
    if not kind:
        return ""
    return format_html(' <span class="badge demo" title="{}">{}</span>', DEMO_TITLES[kind], kind)


DEMO_TITLES = {
    "demo": "Demo data: a real run loaded with the demo, not an entrant's result",
    "synthetic": "Synthetic: a made-up log, not a real run",
}


def _time_cells(row) -> dict:
    return {
        "elapsed": exact_duration(row.elapsed_seconds),  # the not-ranked table's
        "to_target": exact_duration(row.seconds_to_target, row.estimated),
        "basis": row.estimate_basis if row.estimated else "measured",
    }


@register.filter
def track_result(entry) -> str:
    """What an entry achieved, as its contest's track measures it: the time to the
    target rows, or the track's own metric ("recovery time 0.35 s")."""
    track = entry.contest.track
    if track.shows_run_figures:
        return duration(entry.seconds_to_target, entry.estimated)
    value = numbers.display(entry.track_metric, track.columns[0].style)
    return f"{track.ranking.metric_label} {value}"


@register.filter
def rate(value: float | None) -> str:
    return numbers.rate(value)


@register.filter
def size_gib(size_bytes: int | None) -> str:
    return "—" if size_bytes is None else f"{size_bytes / 1024**3:,.2f} GiB"


@register.filter
def gb_per_100m_rows(entry) -> str:
    if entry.db_size_bytes is None or not entry.rows:
        return "—"
    return f"{entry.db_size_bytes / entry.rows * 1e8 / 1e9:,.1f}"


@register.filter
def per_row(value: float | None) -> str:
    return "—" if value is None else f"{value:,.2f}"


def row_html(template: str, **values) -> SafeString:
    """`format_html` for a board's rows: every value escaped as it escapes them (HTML kept,
    anything else through `html.escape`), without its lazy-string wrapper around each value,
    which cost a board page of 50 rows as much as the rest of its rows' work."""
    escaped = {name: _escaped(value) for name, value in values.items()}
    return mark_safe(template.format(**escaped))  # noqa: S308  # nosec B308, B703


def _escaped(value) -> str:
    """As `conditional_escape`, without its lazy-string wrapper. The kinds a row holds most
    (text, HTML made here, ids and ranks) are told by their exact type first: a board of 50
    rows escapes some 750 values."""
    kind = type(value)
    if kind is str:
        return html.escape(value)
    if kind is SafeString:
        return value
    if kind is int:  # an id or a rank: nothing to escape
        return str(value)
    if isinstance(value, Promise):
        value = str(value)
    return value.__html__() if hasattr(value, "__html__") else html.escape(str(value))


# Leaderboard rows are built here rather than in the template: the template language spends
# about 70 µs on each row (measured by bench/leaderboard_speed.py), these about 15 µs.
# The elapsed time and the costs are "more columns" (?costs=1); the time to the target carries
# the row's share of the best's speed.
RANKED_ROW = (
    '<tr><td class="pick"><input type="checkbox" name="ids" value="{id}" '
    'aria-label="Compare entry #{id}"></td><td class="num">{rank}</td>'
    '<td><a href="{url}">{entrant}</a>{demo}</td><td>{engine}</td><td class="hardware">{hardware}</td>'
    '{elapsed}<td class="num" title="{basis}">{to_target}{relative}</td>'
    '<td class="num">{terminal}{tie_break}</td><td class="num">{average}</td>'
    "{costs}<td>{verified}</td></tr>"
)
REFERENCE_ROW = (
    '<tr class="reference"><td class="pick"><input type="checkbox" name="refs" value="{id}" '
    'aria-label="Compare with the reference {entrant}"></td>'
    '<td class="num"><span class="badge reference">reference</span></td>'
    '<td title="{source}">{entrant}</td><td>{engine}</td><td class="hardware">{hardware}</td>'
    '{elapsed}<td class="num" title="{basis}">{to_target}{relative}</td>'
    '<td class="num">{terminal}</td><td class="num">{average}</td>{costs}<td></td></tr>'
)
ELAPSED_CELL = '<td class="num" title="{}">{}</td>'
RELATIVE = (
    '<span class="relative" title="{title}"><span class="bar"><span style="width:{width}%">'
    "</span></span> {share} of the best</span>"
)


def share_of_best(row, track: tracks.Track, best) -> float | None:
    """The row's result as a share of the best's: for a time (less is better), the best's time
    over the row's, so 0.5 is half the best's speed; for a figure ranked highest first, the
    row's over the best's. `best`: a number, or by class label on a board ranked in classes."""
    if isinstance(best, dict):
        best = best.get(row.track_class)
    if best is None:
        return None
    value = row.seconds_to_target if track.shows_run_figures else row.track_metric
    if value is None or value <= 0 or best <= 0:
        return None
    return best / value if _less_is_better(track) else value / best


def _less_is_better(track: tracks.Track) -> bool:
    """A time (to the target, to recover, to query) ranks the least first."""
    return track.shows_run_figures or not track.ranking.descending


def _relative(row, track: tracks.Track, best) -> str:
    share = share_of_best(row, track, best)
    if share is None:
        return ""
    shown = f"{share:.2f}" if share < 10 else f"{share:,.0f}"
    # Numbers and the track's own label only: escaped once here, not by format_html per row
    # (a board of 50 rows writes 50 of these).
    return SafeString(  # nosec B703: numbers and a title html.escape'd in _relative_title
        RELATIVE.format(
            title=_relative_title(
                track.ranking.metric_label, _less_is_better(track), shown, share > 1
            ),
            width=f"{min(share, 1.0) * 100:.1f}",
            share=f"{shown}\N{MULTIPLICATION SIGN}",
        )
    )


@lru_cache(maxsize=256)
def _relative_title(label: str, less_is_better: bool, shown: str, ahead: bool) -> str:
    times = f"{shown}\N{MULTIPLICATION SIGN}"
    if less_is_better:
        title = f"The best entry's {label} is {times} this row's"
    else:
        title = f"This row's {label} is {times} the best entry's"
    if ahead:
        title += " (a reference row ahead of every entry)"
    return html.escape(title)


COST_CELLS = '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>'


def _cost_cells(row) -> str:
    size = "—" if row.db_size_bytes is None else f"{row.db_size_bytes / 1024**3:,.2f}"
    return format_html(
        COST_CELLS,
        size,
        per_row(row.costs.get("write_kb_per_row")),
        per_row(row.costs.get("server_cpu_us_per_row")),
    )


UNRANKED_ROW = (
    '<tr><td class="pick"><input type="checkbox" name="ids" value="{id}" '
    'aria-label="Compare entry #{id}"></td><td class="num"><a href="{url}">#{id}</a></td>'
    '<td>{entrant}{demo}{trust}</td><td>{engine}</td><td class="hardware">{hardware}</td>'
    '<td class="num">{elapsed}</td><td class="num" title="{basis}">{to_target}</td>'
    '<td class="num">{terminal}</td><td class="reason">{reason}</td></tr>'
)
# Constants: nothing from a user goes into them.
TIE_BREAK = mark_safe(  # nosec B308
    ' <span class="badge muted" title="Same time to the second as a neighbour: the higher '
    'terminal rate ranks first">tie-break</span>'
)
# A verification's outcome (entries/outcome.py) by its state: the badge's word and class;
# its title is the outcome's sentence (the verdict's headline, or when the edit came).
OUTCOME_BADGES = {
    "reproduced": ("verified", "verified"),
    "shape_only": ("shape only", "shape-only"),
    "not_reproduced": ("not reproduced", "verdict not_reproduced"),
    "inconclusive": ("inconclusive", "verdict inconclusive"),
    "before_edit": ("verified before an edit", "warn before-edit"),
}
OUTCOME_BADGE = '<span class="badge {}" data-verification="{}" title="{}">{}</span>'


@register.filter
def outcome_class(state: str) -> str:
    """The badge class of a verification outcome's state (entries/outcome.py)."""
    return OUTCOME_BADGES.get(state, ("", "muted"))[1]


def _verification_badge(row) -> str:
    """The verification's outcome: the verified badge only for a reproduction of the entry as
    declared now; any other outcome named apart, its sentence in the title."""
    state = "reproduced" if row.verified else row.verification
    word, css = OUTCOME_BADGES.get(state, ("", ""))
    if not word:
        return ""
    if state == "before_edit" and not row.verification_words.startswith("Verified"):
        word = "before an edit"  # a shape, or a refutation, of the declaration as it was
    return format_html(OUTCOME_BADGE, css, state, row.verification_words, word)


# A streamed entry (entries/trust.py) gets its badge where a verified one would; an uploaded one
# (self-reported) none: the exports and the API name its level. A constant, its title the
# level's sentence (what it proves and what it does not).
STREAMED_BADGE = format_html(
    '<span class="badge trust streamed" title="{}">streamed</span>', TRUST_SENTENCES[STREAMED]
)


def _trust_badge(row) -> str:
    """The verification badge, else the streamed one."""
    badge = _verification_badge(row)
    if row.trust == STREAMED:  # not verified now: its stream still vouches for it
        return format_html("{} {}", badge, STREAMED_BADGE) if badge else STREAMED_BADGE
    return badge


def _unranked_trust_badge(row) -> str:
    """Beside the name in the not-ranked table, which has no column for it."""
    badge = _trust_badge(row)
    return format_html(" {}", badge) if badge else ""


_MARK = 987_654_321


def _entry_urls() -> Callable[[int], str]:
    """An entry page's address by its id, from the pattern reversed once per URLconf and
    script prefix (a board page has up to 200 rows, and reverse() per row was a tenth of its
    time); both are read once per table, each a look-up in a context-local."""
    head, tail = _entry_url_parts(get_urlconf() or settings.ROOT_URLCONF, get_script_prefix())
    return lambda pk: f"{head}{pk}{tail}"


@lru_cache(maxsize=16)
def _entry_url_parts(urlconf, prefix: str) -> tuple[str, str]:
    head, tail = reverse("submission_detail", args=[_MARK], urlconf=urlconf).split(str(_MARK))
    return head, tail


TRACK_RANKED_ROW = (
    '<tr><td class="pick">{pick}</td><td class="num">{rank}</td>{track_class}'
    '<td><a href="{url}">{entrant}</a>{demo}</td><td>{engine}</td><td class="hardware">{hardware}</td>'
    "{figures}<td>{verified}</td></tr>"
)
TRACK_REFERENCE_ROW = (
    '<tr class="reference"><td class="pick"><input type="checkbox" name="refs" value="{id}" '
    'aria-label="Compare with the reference {entrant}"></td>'
    '<td class="num"><span class="badge reference">reference</span></td>{track_class}'
    '<td title="{source}">{entrant}</td><td>{engine}</td><td class="hardware">{hardware}</td>'
    "{figures}<td></td></tr>"
)
TRACK_UNRANKED_ROW = (
    '<tr><td class="pick">{pick}</td><td class="num"><a href="{url}">#{id}</a></td>'
    '<td>{entrant}{demo}{trust}</td><td>{engine}</td><td class="hardware">{hardware}</td>'
    '{figures}<td class="reason">{reason}</td></tr>'
)


def _pick(row, track: tracks.Track) -> str:
    """The compare checkbox, for tracks whose entries have a rate curve to overlay."""
    if not track.has_curve:
        return ""
    return format_html(
        '<input type="checkbox" name="ids" value="{}" aria-label="Compare entry #{}">',
        row.id,
        row.id,
    )


def _figure_cells(row, columns, note: str = "", relative: str = ""):
    """One cell per track column; a reference row's note is the first cell's tooltip, and the
    ranked figure's cell carries the row's share of the best (`relative`)."""
    cells = []
    for index, column in enumerate(columns):
        text = numbers.display(column.value_of(row.track_figures), column.style)
        title = note if index == 0 else ""
        css = "" if column.style == "text" else "num"
        cells.append((css, title, text, relative if column.metric else ""))
    return format_html_join("", '<td class="{}" title="{}">{}{}</td>', cells)


def _track_board_row(
    row, track: tracks.Track, entry_url: Callable[[int], str], best: float | None = None
) -> str:
    common = {
        "entrant": row.entrant,
        "engine": row.storage_engine,
        "hardware": row.hardware,
        "track_class": format_html("<td>{}</td>", row.track_class)
        if track.ranking.class_key
        else "",
    }
    relative = _relative(row, track, best)
    if row.reference:
        figures = _figure_cells(row, track.columns, row.reason, relative)
        return row_html(
            TRACK_REFERENCE_ROW, id=row.id, source=row.source, figures=figures, **common
        )
    return row_html(
        TRACK_RANKED_ROW,
        pick=_pick(row, track),
        rank=row.rank,
        url=entry_url(row.id),
        verified=_trust_badge(row),
        figures=_figure_cells(row, track.columns, relative=relative),
        demo=demo_badge(row.demo),
        **common,
    )


@register.simple_tag
def board_row(row, track: tracks.Track | None = None, costs: bool = False) -> str:
    """A row of the ranking table: a ranked entry or a reference result; `costs` adds the
    optional cost cells."""
    return _board_row(row, track, costs, _entry_urls())


def _board_row(
    row,
    track: tracks.Track | None,
    costs: bool,
    entry_url: Callable[[int], str],
    best: float | None = None,
):
    if track is not None and not track.shows_run_figures:
        return _track_board_row(row, track, entry_url, best)
    times = _time_cells(row)
    common = {
        **times,
        "costs": _cost_cells(row) if costs else "",
        # On the main board, behind "more columns".
        "elapsed": format_html(ELAPSED_CELL, row.reason if row.reference else "", times["elapsed"])
        if costs
        else "",
        "relative": _relative(row, track or tracks.DEFAULT_TRACK, best),
        "entrant": row.entrant,
        "engine": row.storage_engine,
        "hardware": row.hardware,
        "terminal": rate(row.terminal_rate),
        "average": rate(row.average_rate),
    }
    if row.reference:
        # Its note (the seed's caveat, or the scale it was published at) on its time.
        common["basis"] = row.reason or common["basis"]
        return row_html(REFERENCE_ROW, id=row.id, source=row.source, **common)
    return row_html(
        RANKED_ROW,
        tie_break=TIE_BREAK if row.tie_break else "",
        demo=demo_badge(row.demo),
        id=row.id,
        rank=row.rank,
        url=entry_url(row.id),
        verified=_trust_badge(row),
        **common,
    )


@register.simple_tag
def board_head(columns: list[dict]) -> str:
    """The ranking table's header cells (views.board_columns) in one call, as the template's
    loop wrote them: each a link that sorts by it, the active one with its arrow."""
    cells = []
    for column in columns:
        numeric = ' class="num"' if column["numeric"] else ""
        arrow = column.get("arrow")
        order = ""
        if column.get("active"):
            order = f' aria-sort="{"ascending" if arrow == "▲" else "descending"}"'
        label = _escaped(column["label"])
        if column["url"]:
            shown = f"{label} {_escaped(arrow)}" if arrow else label
            label = f'<a href="{_escaped(column["url"])}#leaderboard">{shown}</a>'
        cells.append(f"<th{numeric}{order}>{label}</th>")
    return mark_safe("".join(cells))  # noqa: S308  # nosec B308, B703


RULE_ITEM = "<li><code>{}</code> {}</li>"


@register.simple_tag
def rule_items(rules: list[tuple[str, str]]) -> str:
    """The ground rules' list items, (id, sentence) each, at once: the template's loop over a
    dozen rules cost a board page as much as a tenth of its rows."""
    return mark_safe(  # noqa: S308  # nosec B308, B703
        "".join(RULE_ITEM.format(_escaped(rule_id), _escaped(text)) for rule_id, text in rules)
    )


# Each row on a line of its own, as the template's loop over `board_row` wrote them.
ROW_LINE = "\n      {}\n    "


@register.simple_tag
def board_rows(
    rows, track: tracks.Track | None = None, costs: bool = False, best: float | None = None
) -> str:
    """Every row of the ranking table at once: the template's loop and a tag per row cost about
    as much as the rows themselves. `best`: the leader's ranked figure, each row's bar a share
    of it."""
    entry_url = _entry_urls()
    return mark_safe(  # noqa: S308  # nosec B308, B703
        "".join(ROW_LINE.format(_board_row(row, track, costs, entry_url, best)) for row in rows)
    )


@register.simple_tag
def unranked_rows(rows, track: tracks.Track | None = None) -> str:
    """Every row of the not-ranked table at once (see `board_rows`)."""
    entry_url = _entry_urls()
    return mark_safe(  # noqa: S308  # nosec B308, B703
        "".join(ROW_LINE.format(_unranked_row(row, track, entry_url)) for row in rows)
    )


@register.simple_tag
def unranked_row(row, track: tracks.Track | None = None) -> str:
    """A row of the not-ranked table, with the reason."""
    return _unranked_row(row, track, _entry_urls())


def _unranked_row(row, track: tracks.Track | None, entry_url: Callable[[int], str]) -> str:
    if track is not None and not track.shows_run_figures:
        return row_html(
            TRACK_UNRANKED_ROW,
            pick=_pick(row, track),
            id=row.id,
            url=entry_url(row.id),
            entrant=row.entrant,
            engine=row.storage_engine,
            hardware=row.hardware,
            figures=_figure_cells(row, track.columns[:1]),
            reason=row.reason,
            demo=demo_badge(row.demo),
            trust=_unranked_trust_badge(row),
        )
    return row_html(
        UNRANKED_ROW,
        id=row.id,
        url=entry_url(row.id),
        entrant=row.entrant,
        engine=row.storage_engine,
        hardware=row.hardware,
        terminal=rate(row.terminal_rate),
        reason=row.reason,
        demo=demo_badge(row.demo),
        trust=_unranked_trust_badge(row),
        **_time_cells(row),
    )


# A list of entries found (the search, an engine's or a CPU model's page), written here as the
# board's rows are: the template language's loop cost these pages most of their time.
FOUND_ROW = (
    '<tr><td class="pick"><input type="checkbox" name="ids" value="{id}" '
    'aria-label="Compare entry #{id}"></td><td><a href="{url}">#{id}</a></td><td>{entrant}</td>'
    '<td><a href="{contest_url}">{contest}</a></td><td class="num">{rank}</td>'
    '<td class="num">{terminal}</td><td>{engine}</td><td>{cpu}</td><td>{submitted}</td></tr>'
)


@lru_cache(maxsize=512)
def _system_url(name: str, value: str, urlconf, prefix: str) -> str:
    return reverse(name, args=[value], urlconf=urlconf)


@register.simple_tag
def found_rows(entries) -> str:
    """The rows of `_entries_found.html`: a box to compare it, each entry's number, entrant,
    contest, rank, terminal rate, engine and CPU (linked to their pages; a CPU to its model's
    page, every spelling's) and the day it was submitted."""
    entry_url = _entry_urls()
    urlconf, prefix = get_urlconf() or settings.ROOT_URLCONF, get_script_prefix()

    def system_link(name: str, value: str, page: str | None = None) -> SafeString:
        url = _system_url(name, value if page is None else page, urlconf, prefix)
        return row_html('<a href="{url}">{value}</a>', url=url, value=value)

    # A page's entries share a few contests and days: each contest's link and each day's
    # words are made once a page, not once a row.
    contest_urls: dict[int, str] = {}
    days: dict = {}

    def day_of(moment) -> str:
        local = template_localtime(moment)
        day = local.date()
        if day not in days:
            days[day] = date_filter(local, "j M Y")
        return days[day]

    rows = []
    for entry in entries:
        contest = entry.contest
        rank = entry.rank
        engine = entry.engine
        contest_url = contest_urls.get(contest.pk)
        if contest_url is None:
            contest_url = contest_urls[contest.pk] = contest.get_absolute_url()
        rows.append(
            row_html(
                FOUND_ROW,
                url=entry_url(entry.pk),
                id=entry.pk,
                entrant=entry.public_name,
                contest_url=contest_url,
                contest=contest.title,
                rank="—" if rank in (None, "", 0) else rank,
                terminal=numbers.rate(entry.terminal_rate),
                engine=system_link("engine_page", engine) if engine else entry.storage_engine,
                cpu=(
                    system_link("cpu_page", entry.cpu_model, cpu_model_name(entry.cpu_model))
                    if entry.cpu_model
                    else ""
                ),
                submitted=day_of(entry.submitted_at),
            )
        )
    return mark_safe("".join(rows))  # noqa: S308  # nosec B308, B703  (each row escaped)


@register.filter
def rows_per_s(value: float | None) -> str:
    """A rate with its unit: "15,780 rows/s"."""
    text = numbers.rate(value)
    return text if text == numbers.NONE else f"{text} rows/s"


@register.filter
def row_result(row, track: tracks.Track) -> str:
    """What a board row achieved, with its unit, as its track ranks it: the time to the target
    (a run's figures) or the track's metric ("Recovery 0.35 s")."""
    if track.shows_run_figures:
        return exact_duration(row.seconds_to_target, row.estimated)
    column = next((column for column in track.columns if column.metric), track.columns[0])
    value = numbers.display(row.track_metric, column.style)
    if column.style != "rate" or value == numbers.NONE:
        return f"{track.ranking.metric_label} {value}"
    label = track.ranking.metric_label
    return f"{value} rows/s" if label == "rows/s" else f"{label} {value} rows/s"


@register.filter
def cpu_name(spelled: str) -> str:
    """The CPU model a spelling names (setup/cpus.py): its page lists every variant."""
    return cpu_model_name(spelled)


# A verdict's row of `_verdicts_table.html` (an entry holds a dozen): written here as the
# board's rows are, the same HTML as the template's loop wrote.
VERDICT_ROW = (
    '\n      <tr class="{status}">\n        <td>{sentence}</td>\n        <td><span class="badge '
    '{status}">{status}</span></td>\n        <td>{message}</td>\n        <td class="num">{line}'
    "</td>\n      </tr>\n    "
)


@register.simple_tag(takes_context=True)
def verdict_rows(context, verdicts) -> str:
    """The rows of `_verdicts_table.html`: each verdict's sentence, status, evidence and log
    line, as `{{ verdict.x }}` in its loop rendered them (a missing key as nothing)."""

    def shown(value) -> str:
        return render_value_in_context(value, context)

    rows = []
    for verdict in verdicts:
        status = shown(verdict.get("status", ""))
        line = verdict.get("line", "")
        rows.append(
            VERDICT_ROW.format(
                status=status,
                sentence=shown(verdict.get("sentence", "")),
                message=shown(verdict.get("message", "")),
                line=shown(intcomma(line)) if line else "",
            )
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value escaped above  # nosec B308, B703
