import os

# Arrow's own default allocator (mimalloc) keeps what it freed: a worker held ~10 MB more after
# reading one large log, and 15-25 MB more at its peak, than with malloc, which gives large
# blocks back (MALLOC_MMAP_THRESHOLD_). Arrow reads this once, before its first allocation:
# hence here, before anything imports it (the parser also passes malloc's pool where it can).
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from .celery import app as celery_app

__all__ = ("celery_app",)
