"""The leaderboard: what the URL asks of it (`query`), the SQL order of its entries and
where the reference rows fall among them (`order`), its rows (`rows`), the reads that
feed the contest page, the API and the downloads (`reads`), who may see it
(`visibility`), its cache (`cache`), its queries compiled once per process (`compiled`) and
the home page's comparison across boards (`summary`).

May import the models, `measures`, `contests`, `setup` (the engines' and CPU models' names),
`entries.trust`, `entries.verification` and `entries.selectors` (who sees what); never `web`,
`live` or `runner`.
"""
