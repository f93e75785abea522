"""The slow-client figure: GET / with 50 slow-drip clients holding connections, behind nginx
(deploy/nginx.conf.template) and against gunicorn alone. Runs the test that asserts it
(submissions/tests/site/test_slow_clients.py) and prints its measurement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "submissions/tests/site/test_slow_clients.py", "-q", "-s",
         "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    figures = [line for line in result.stdout.splitlines() if line.startswith("slow clients:")]
    print("\n".join(figures) or result.stdout[-3000:] + result.stderr[-3000:])
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
