"""`make bench`: run every bench/*_speed.py in turn and report which ones failed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(BENCH_DIR.glob("*_speed.py"))
    failed = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        started = time.perf_counter()
        # Each script in its own interpreter: they configure Django and databases their own way.
        result = subprocess.run([sys.executable, str(script)], cwd=BENCH_DIR.parent, check=False)
        print(f"=== {script.name}: exit {result.returncode}, {time.perf_counter() - started:.0f} s")
        if result.returncode:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
