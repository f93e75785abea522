"""The open dataset: every published entry of the registry in one download for people who
analyse results (issue 31). Its tables and their columns (`tables`, pure: pyarrow and numpy),
what it reads of the registry (`reads`: published entries of contests whose results are
public, their series one at a time), a part's deltas (`deltas`, pure: which to write, their
row indexes, a part as a reader reads it), writing a part whole, amended by a delta or kept
(`writing`), writing a build's files beside the one served and switching to it at once
(`build`), and when a build is due, running or done (`state`).

May import: the models, `logparse.model`, `measures`, `contests.ranks`, `entries.trust` and
`entries.outcome`; never `web`, `live` or `runner`. `tables` and `deltas` are pure (no Django).
"""
