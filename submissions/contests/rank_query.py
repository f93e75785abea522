"""A track's ranking said as query expressions: which entries it ranks (`ranked_q`), its order
(`key_order`) and the entries that beat given values (`beats_q`). Django's expressions only, no
model: the models (`Submission.counted_rank`) and the ranks (ranks.py) both build on them, so
neither imports the other for them.
"""

from __future__ import annotations

from django.db.models import BooleanField, ExpressionWrapper, F, Q

from submissions import tracks
from submissions.measures.ranking import RankKey


def ranked_q(track: tracks.Track) -> Q:
    """The entries the track ranks: eligible, with every value its ranking requires."""
    required = {f"{key.column}__isnull": False for key in track.ranking.order if key.required}
    return Q(eligible=True, **required)


def ranked_flag(track: tracks.Track) -> ExpressionWrapper:
    """True for the entries the track ranks, as a column of a query."""
    return ExpressionWrapper(ranked_q(track), output_field=BooleanField())


def key_order(key: RankKey, *, reverse: bool = False):
    """ORDER BY one ranking key, best first, missing values last (as RankKey.sort_value orders
    them); `reverse`: worst first, the missing ones then coming first."""
    column = F(key.column)
    if reverse:
        return column.asc(nulls_first=True) if key.descending else column.desc(nulls_first=True)
    return column.desc(nulls_last=True) if key.descending else column.asc(nulls_last=True)


def beats_q(keys: tuple[RankKey, ...], values: tuple) -> Q:
    """The entries strictly before these values in the keys' order (missing values last)."""
    beats = Q(pk__in=[])  # equal on every key: nobody beats it
    for key, value in reversed(list(zip(keys, values, strict=True))):
        if value is None:
            beats = Q(**{f"{key.column}__isnull": False}) | (
                Q(**{f"{key.column}__isnull": True}) & beats
            )
        else:
            lookup = "gt" if key.descending else "lt"
            beats = Q(**{f"{key.column}__{lookup}": value}) | (Q(**{key.column: value}) & beats)
    return beats
