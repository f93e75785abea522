"""Entries: what an entrant sends and the registry keeps. Storing an entry (`services`), who may
see what (`selectors`), judging a stored entry again (`checks`), reading its kept log (`logs`),
edits that wait for an organizer (`edits`), why an entry is refused (`refusals`), a log kept for
a form's retry (`kept_logs`), API tokens (`tokens`), how far the registry vouches for an entry
(`trust`), its verification outcome (`outcome`, pure), a contest's background re-check of
its entries when its rules change (`rechecks`), the entry page's server settings
(`settings_panel`) and the demo data (`demo`).

May import: the models, `contests`, `measures`, `setup`, `logparse`, `tracks`, `board` and the
wings' door (`submissions/wings.py`); never `web`, `live` or `runner`.
"""
