"""The leaderboard's rows and the rules' list are written in Python (templatetags/registry.py),
not by the template language: every value an entrant or a seed wrote reaches the page escaped
exactly as Django's `format_html` escapes it, and the links and badges are those the template
wrote."""

import pytest
from django.template import Context, Template
from django.utils.html import conditional_escape, escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from submissions import tracks
from submissions.board.rows import BoardRow
from submissions.templatetags import registry

HOSTILE = "<script>alert(\"x\")</script> & 'q' {id} {0}"
E = escape(HOSTILE)  # as the page must show it


def entry(**changed) -> BoardRow:
    values = dict(
        id=7, rank=1, entrant=HOSTILE, storage_engine=HOSTILE, hardware=HOSTILE,
        elapsed_seconds=90061.0, estimated=True, terminal_rate=1234.5, average_rate=5678.9,
        verified=False, reference=False, ranked=True, trust="", seconds_to_target=90061.4,
        estimate_basis=HOSTILE,
    )  # fmt: skip
    return BoardRow(**{**values, **changed})


@pytest.mark.parametrize(
    "value",
    [
        HOSTILE, "", "plain", 7, 0, None, 1.5, True,
        mark_safe("<b>made here</b>"),  # nosec B308
        format_html("<i>{}</i>", HOSTILE), gettext_lazy("Lazy <b>"),
    ],
)  # fmt: skip
def test_a_value_in_a_row_is_escaped_as_django_escapes_it(value):
    assert registry._escaped(value) == conditional_escape(value)


def test_a_ranked_row_shows_hostile_text_escaped_and_links_the_entry():
    html = registry.board_rows([entry(tie_break=True)], tracks.DEFAULT_TRACK)

    assert html == (
        '\n      <tr><td class="pick"><input type="checkbox" name="ids" value="7" '
        'aria-label="Compare entry #7"></td><td class="num">1</td>'
        f'<td><a href="/entries/7/">{E}</a></td><td>{E}</td><td class="hardware">{E}</td>'
        f'<td class="num" title="{E}">1d 1h 01m 01s (est.)</td>'
        f'<td class="num">1,234{registry.TIE_BREAK}</td><td class="num">5,679</td>'
        "<td></td></tr>\n    "
    )
    assert "<script>" not in html


def test_a_reference_row_and_a_not_ranked_row_show_hostile_text_escaped():
    reference = entry(id=3, rank=None, reference=True, ranked=False, source=HOSTILE, reason="")
    not_ranked = entry(
        rank=None, ranked=False, reason=HOSTILE, entrant=gettext_lazy("Lazy <b>"), verified=True,
        verification="reproduced", verification_words=HOSTILE,
    )  # fmt: skip

    ranked_table = registry.board_rows([reference], tracks.DEFAULT_TRACK)
    not_ranked_table = registry.unranked_rows([not_ranked], tracks.DEFAULT_TRACK)

    assert f'aria-label="Compare with the reference {E}"' in ranked_table
    assert f'<td title="{E}">{E}</td>' in ranked_table
    assert (
        '<td class="num"><a href="/entries/7/">#7</a></td>'
        "<td>Lazy &lt;b&gt; "
        f'<span class="badge verified" data-verification="reproduced" title="{E}">verified</span>'
        f"</td><td>{E}</td>"
    ) in not_ranked_table
    assert f'<td class="reason">{E}</td>' in not_ranked_table
    assert "<script>" not in ranked_table + not_ranked_table


def test_a_table_of_rows_is_the_rows_written_one_by_one():
    rows = [entry(id=number, rank=number) for number in (1, 2, 3)]

    for track in tracks.TRACKS.values():
        table = registry.board_rows(rows, track, True)
        assert table == "".join(
            registry.ROW_LINE.format(registry.board_row(row, track, True)) for row in rows
        )
        not_ranked = [entry(id=row.id, rank=None, ranked=False, reason=HOSTILE) for row in rows]
        assert registry.unranked_rows(not_ranked, track) == "".join(
            registry.ROW_LINE.format(registry.unranked_row(row, track)) for row in not_ranked
        )


def test_the_rules_list_is_what_the_template_loop_wrote():
    rules = [("target_rows", HOSTILE), ("max_cores", format_html("<em>{}</em>", HOSTILE))]
    loop = Template(
        "{% for rule_id, sentence in rules %}"
        "<li><code>{{ rule_id }}</code> {{ sentence }}</li>{% endfor %}"
    )

    assert registry.rule_items(rules) == loop.render(Context({"rules": rules}))
    assert "<script>" not in registry.rule_items(rules)
