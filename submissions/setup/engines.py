"""The database server and storage engine an entrant declared, normalised for the board's filter:
"InnoDB", "InnoDB plugin 1.0.1" and "innodb" are one engine; "PostgreSQL heap" is PostgreSQL's
own. The free text is kept as written for the page. Pure: no Django."""

from __future__ import annotations

import re

SERVER_FAMILIES = {
    "mysql": "MySQL",
    "mariadb": "MariaDB",
    "percona": "Percona Server",
    "postgresql": "PostgreSQL",
    "sqlite": "SQLite",
    "other": "Other",
}

# The families whose versions number MySQL's releases (a "MySQL 5.1" rule accepts them).
MYSQL_NUMBERED = ("mysql", "percona")

# Normalised engine -> what its free-text spellings contain (lower case, first match wins).
ENGINE_SPELLINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("TokuDB", ("tokudb", "fractal tree", "fractal-tree", "tokutek")),
    ("MyRocks", ("myrocks", "rocksdb")),
    ("InnoDB", ("innodb", "xtradb")),
    ("MyISAM", ("myisam",)),
    ("Aria", ("aria",)),
    ("BLACKHOLE", ("blackhole",)),
    ("MEMORY", ("memory",)),
    ("PostgreSQL heap", ("postgres",)),
    ("SQLite", ("sqlite",)),
)

# What a family stores rows in when the entrant names no engine of another family.
FAMILY_ENGINES = {"postgresql": "PostgreSQL heap", "sqlite": "SQLite"}


def normalised_engine(storage_engine: str, server_family: str = "") -> str:
    """The engine the board filters by: a known name, or the entrant's first word."""
    text = storage_engine.strip().lower()
    for engine, spellings in ENGINE_SPELLINGS:
        if any(re.search(rf"\b{re.escape(spelling)}", text) for spelling in spellings):
            return engine
    if server_family in FAMILY_ENGINES:
        return FAMILY_ENGINES[server_family]
    if re.search(r"\bheap\b", text):
        return "MEMORY"  # MySQL's old name for it; PostgreSQL's heap is its family's default
    words = storage_engine.split()
    return words[0][:40] if words else ""


def guessed_family(server_version: str, storage_engine: str) -> str:
    """The server family of an entry declared before families were asked (its "MySQL version"
    free text and its engine): what the migration assumes."""
    text = f"{server_version} {storage_engine}".lower()
    for family in ("mariadb", "percona", "sqlite"):
        if family in text:
            return family
    if "postgres" in text:
        return "postgresql"
    return "mysql"
