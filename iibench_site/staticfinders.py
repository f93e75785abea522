"""Serve plotly.min.js from the installed plotly package, so the page never needs a CDN and
the plot library always matches the Python package that builds the figures."""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).parent / "package_data"
PLOTLY_PATH = "vendor/plotly.min.js"


class PlotlyFinder(BaseFinder):
    storage = FileSystemStorage(location=str(PLOTLY_DIR))

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path != PLOTLY_PATH:
            return [] if find_all else None
        found = str(PLOTLY_DIR / "plotly.min.js")
        return [found] if find_all else found

    def list(self, ignore_patterns):
        # collectstatic copies the file under the same public path it is served at.
        yield "plotly.min.js", _PrefixedStorage(location=str(PLOTLY_DIR))


class _PrefixedStorage(FileSystemStorage):
    prefix = "vendor"
