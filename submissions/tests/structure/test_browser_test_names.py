"""One name for the tests that drive Chromium: test_<what>_in_browser.py, marked `browser`,
so `ls */tests/*/*_in_browser.py */*/tests/*_in_browser.py` finds them all and nothing else."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
MARKED = re.compile(r"pytest\.mark\.browser\b")


def test_every_browser_test_file_is_named_in_browser_and_only_those():
    files = [
        path
        for folder in ("submissions", "runner", "witness")
        for path in (ROOT / folder).glob("**/tests/**/test_*.py")
    ]
    marked = {path.name for path in files if MARKED.search(path.read_text())}
    named = {path.name for path in files if path.stem.endswith("_in_browser")}

    assert marked, "no browser tests found: the search is wrong"
    assert marked == named
