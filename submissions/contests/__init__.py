"""Contests over time: the ground rules as data (`rules`), the versions of a contest's rules and
what changed between them (`rule_versions`, `rule_changes`; re-checking its entries when the
rules change is `entries.rechecks`), the ranks of its board, derived where they are read and
never stored (`ranks`, `rank_query`), what a rule judges and returns (`rule_types`), and the seeds' published results shown as reference rows (`reference_rows`).

`rules` is pure (no Django). May import: the models, `measures`, `setup.engines`, `logparse`,
`tracks`, `board.versions` and `caches`; never `entries`' services, `web`, `live` or `runner`.

`machine` (the machine the log states) and `physics` (what no machine can do) are rules too:
they use the verdict types of `rule_types` (pure), and `rules` lists them.
"""

from submissions.contests import rules as rules
