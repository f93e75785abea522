"""The web: every way a person or a program reads and writes the registry. Pages (`views`,
`urls`), the REST API (`api`, `api_urls`, `serializers`), the entry form (`forms`), sharing and
badges (`sharing`, `badges`), feeds and downloads (`feeds`, `exports`), entrant Markdown
(`markdown`) and upload limits (`middleware`, `throttle`); the cache that only saves work is
`caches.soft_cache`.

Views and API views parse input and call `entries`, `contests` and `board`. May import every
room of the registry and the wings' door; never `live` or `runner` (they plug in through
`submissions/wings.py`).
"""
