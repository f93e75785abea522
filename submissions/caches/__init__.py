"""Caches: what the pages, the board and the live wing keep between requests, one room below
every room that reads them. The soft cache on Redis, which never fails a page when Redis is
down (`soft_cache`), and the board's queries compiled once per process (`compiled`).

May import nothing of the registry (Django's cache and database layers only); never `web`,
`live` or `runner`.
"""
