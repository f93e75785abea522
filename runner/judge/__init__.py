"""Verification's pure core: what a rerun of an entry runs and how its output is judged against
the claim. No Django: plain data in, plain data out, so the worker, the benches and the tests
share one judge (a purity test keeps it so).

`RERUNS` is the one table of the tracks that can be rerun: a track's workload and its `Rerun`
(its plan and its judge). A track missing here (the toy track) cannot be rerun; the registry's
`Track` says nothing of reruns.

May import the registry's pure rooms (`logparse`, `measures`, `setup.server_settings`,
`setup.page_cache`); never Django, `runner`'s other modules, `live` or DRF.
"""

from __future__ import annotations

from runner.judge.bulk_load import RERUN as BULK_LOAD
from runner.judge.classic import RERUN as CLASSIC
from runner.judge.crash_recovery import RERUN as CRASH_RECOVERY
from runner.judge.fifo import RERUN as FIFO
from runner.judge.pk_types import RERUN as PK_TYPES
from runner.judge.query import RERUN as QUERY
from runner.judge.rerun import Rerun

# One line per track that can be rerun: its workload (submissions.tracks.TRACKS) and its rerun.
RERUNS: dict[str, Rerun] = {
    "classic": CLASSIC,
    "fifo": FIFO,
    "query": QUERY,
    "pk_types": PK_TYPES,
    "bulk_load": BULK_LOAD,
    "crash_recovery": CRASH_RECOVERY,
}


def rerun_for(workload: str) -> Rerun | None:
    """The rerun of a track's workload; None: the track cannot be rerun."""
    return RERUNS.get(workload)
