"""The leaderboard: what the URL asks of it (`query`), the SQL order of its entries and
where the reference rows fall among them (`order`), its rows (`rows`), the reads that
feed the contest page, the API and the downloads (`reads`), who may see it
(`visibility`), its cache (`cache`), its ranking keys kept per process (`kept_ranks`) and the
home page's comparison across boards (`summary`); its queries are compiled once per process in
`caches.compiled`.

May import the models, `measures`, `contests`, `tracks`, `setup.engines`, `setup.cpus` (the CPU
models' names), `caches`, `entries.trust` and `entries.outcome`; never `web`, `live` or
`runner`.
"""
