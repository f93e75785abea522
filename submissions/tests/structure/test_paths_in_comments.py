"""A path a comment or docstring cites is checked like an import: every path of folders and a
.py (.md, .c, .h, .html, .sh) file named in the code's comments and docstrings exists, read from
the repository root, from the citing file's folder or any folder above it, or from a top folder
(`submissions/`, `runner/`, `docs/`). A pattern (`runner/judge/<workload>.py`) must match at
least one file. Pure: reads files only."""

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# A path's folders and file name; a <placeholder> stands for any one (tracks/<workload>/).
PART = r"(?:[\w.-]+|<\w+>)"
CITED = re.compile(rf"(?<![\w./<>-])((?:{PART}/)+{PART}\.(?:py|md|c|h|html|sh|toml|yml))\b")
TOPS = ("submissions", "runner", "docs", "submissions/tracks", "runner/iibench")
# Paths in other repositories that comments cite as such.
EXTERNAL = {"bench/ibench/iibench.py"}  # mdcallag/mytools' Python iibench, not in this repository


def python_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in listed if "/migrations/" not in name]


def comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring:
                found.append((getattr(node, "lineno", 1), docstring))
    return found


def exists(cited: str, citing: Path) -> bool:
    if cited in EXTERNAL:
        return True
    folders = [ROOT, *(ROOT / top for top in TOPS), *citing.parents]
    if "<" in cited:  # a pattern (runner/judge/<workload>.py): one file at least
        pattern = re.sub(r"<\w+>", "*", cited)
        return any(next(folder.glob(pattern), None) for folder in folders)
    return any((folder / cited).exists() for folder in folders)


def missing_paths() -> list[str]:
    missing = []
    for path in python_files():
        if not path.exists():
            continue
        for line, text in comments_and_docstrings(path):
            for cited in CITED.findall(text):
                if not exists(cited, path):
                    missing.append(f"{path.relative_to(ROOT)}:{line}: {cited}")
    return sorted(set(missing))


def test_every_path_a_comment_cites_exists():
    assert missing_paths() == []


def test_a_pattern_is_checked_and_a_missing_path_found():
    assert exists("runner/judge/<workload>.py", ROOT / "runner" / "services.py")
    assert not exists("submissions/tracks/<track>/rerun.py", ROOT / "runner" / "services.py")
    assert CITED.findall("judged by its track (submissions/tracks/<track>/rerun.py).") == [
        "submissions/tracks/<track>/rerun.py"
    ]
