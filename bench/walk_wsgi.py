"""The production WSGI application (iibench_site/wsgi.py) with the walk's floors beside the
site's URLs (walk_urls.py): wrk measures a page and the bare view on the same gunicorn."""

import os

import django
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "iibench_site.settings.production")
django.setup()
settings.ROOT_URLCONF = "bench.walk_urls"  # before the first request resolves a URL

from iibench_site.wsgi import application  # noqa: E402

__all__ = ["application"]
