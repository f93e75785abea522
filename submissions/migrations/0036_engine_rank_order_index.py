"""A board filtered by its storage engine, in rank order, read from an index in that order, and
the entry page's placement among its engine's entries counted from it (issue 44): the ranked entries of one engine (`engine__iexact` is `UPPER(engine::text) =
UPPER(...)` on PostgreSQL) by the classic ranking's keys. Through the whole rank order's index
(0031's board_rank_order_idx) a page of one engine reads past the other engines' entries
ranked among its own (four rows in five at the bench's five engines); through this one it
reads its own, a further filter (a drive kind) applied to those. A filtered page in another
sort still reads that sort's index, the filter applied to its rows (board/order.py,
`filtered_counts`, says why that stays O(the page) for a filter matching a fair share).

PostgreSQL's alone, as 0031's (an expression index the models do not know): no form, copy or
`makemigrations` sees it."""

from django.db import migrations

TABLE = "submissions_submission"
# As 0031's RANK_KEYS and RANKED: the classic ranking and what it ranks (contests/rank_query.py).
RANK_KEYS = "estimated, seconds_to_target, terminal_rate DESC NULLS LAST"
RANKED = "eligible AND seconds_to_target IS NOT NULL"
# `engine` itself is included: PostgreSQL takes an index-only scan of an expression index only
# when the column under the expression is in the index too, and the entry page's placement among
# its engine's entries (contests/ranks.py `entry_placement`) counts them from this index alone
# (20,000 TokuDB entries of the 100,000-entry bench: 85-100 ms read from their rows, 6.5 ms from
# the index, under a load of 7). Still O(the engine's entries) for that count, not O(1).
CREATE = (
    f"CREATE INDEX board_engine_rank_order_idx ON {TABLE} "
    f"(contest_id, UPPER(engine::text), {RANK_KEYS}, id) INCLUDE (engine) WHERE {RANKED}"
)
DROP = "DROP INDEX IF EXISTS board_engine_rank_order_idx"


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0035_million_engine_month_best"),
    ]

    operations = [
        migrations.RunPython(_create, _drop),
    ]
