"""Bulk loading (seed 003): `iibench loadgen` files and `iibench load`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Database, run_iibench


def generate(out: Path, keys: int = 3, row_length: int = 64, rows: int = 2000) -> Path:
    run_iibench(
        "loadgen",
        "--keys",
        str(keys),
        "--row-length",
        str(row_length),
        "--rows",
        str(rows),
        "--out",
        str(out),
    )
    return out


def data_lines(out: Path) -> list[list[str]]:
    return [line.split("|") for line in (out / "load_table.data").read_text().splitlines()]


def statements(path: Path) -> list[str]:
    return [s.strip() for s in path.read_text().split(";") if s.strip()]


def test_loadgen_writes_random_keys_padded_to_the_row_length(tmp_path: Path) -> None:
    lines = data_lines(generate(tmp_path, keys=3, row_length=64))

    assert len(lines) == 2000
    assert all(len(fields) == 4 for fields in lines)
    assert all(len(fields[3]) == 64 - 3 * 8 for fields in lines)
    keys = [int(k) for fields in lines for k in fields[:3]]
    assert all(0 <= k < 2**63 for k in keys)
    assert max(keys) > 2**60  # random 8-byte values, not small counters
    assert len({fields[0] for fields in lines}) == 2000  # the primary key is unique


def test_loadgen_writes_the_seed_003_create_table(tmp_path: Path) -> None:
    sql = (generate(tmp_path, keys=3, row_length=256) / "load_table.sql").read_text()

    assert "CREATE TABLE load_table (" in sql
    for column in (
        "val0 BIGINT UNSIGNED NOT NULL",
        "val2 BIGINT UNSIGNED NOT NULL",
        "pad VARCHAR(232) NOT NULL",
        "PRIMARY KEY (val0)",
        "KEY valkey1 (val1)",
        "KEY valkey2 (val2)",
        "ENGINE=InnoDB",
    ):
        assert column in sql


def test_loadgen_output_loads_into_sqlite(tmp_path: Path, sqlite_db: Database) -> None:
    out = generate(tmp_path / "data")
    conn = sqlite_db.connect()
    for statement in statements(out / "load_table.sqlite.sql"):
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO load_table VALUES (?, ?, ?, ?)",
        [(int(a), int(b), int(c), pad) for a, b, c, pad in data_lines(out)],
    )
    conn.commit()
    conn.close()

    assert sqlite_db.scalar("SELECT COUNT(*) FROM load_table") == 2000


@pytest.mark.server
def test_loadgen_output_loads_with_load_data(tmp_path: Path, mysql_db: Database) -> None:
    out = generate(tmp_path)
    conn = mysql_db.connect()
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS load_table")
        for statement in statements(out / "load_table.sql"):
            cur.execute(statement)
        cur.execute(
            f"LOAD DATA LOCAL INFILE '{out / 'load_table.data'}' INTO TABLE load_table "
            "FIELDS TERMINATED BY '|'"
        )
        assert cur.rowcount == 2000
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == ()
    conn.commit()
    conn.close()

    assert mysql_db.scalar("SELECT COUNT(DISTINCT val0) FROM load_table") == 2000


@pytest.mark.server
def test_loadgen_output_loads_with_copy(tmp_path: Path, pg_db: Database) -> None:
    out = generate(tmp_path)
    with pg_db.connect() as conn:
        conn.execute("DROP TABLE IF EXISTS load_table")
        for statement in statements(out / "load_table.postgresql.sql"):
            conn.execute(statement)
        with conn.cursor().copy(
            "COPY load_table FROM STDIN WITH (FORMAT text, DELIMITER '|')"
        ) as copy:
            copy.write((out / "load_table.data").read_bytes())

    assert pg_db.scalar("SELECT COUNT(*) FROM load_table") == 2000


def test_load_times_the_bulk_load_and_prints_its_rates(db: Database) -> None:
    out = run_iibench(
        "load", "--db", db.url, "--keys", "2", "--row-length", "64", "--rows", "3000"
    ).output

    summary = out.summary
    assert summary["status"] == "completed"
    assert summary["mode"] == "load"
    assert (summary["rows"], summary["keys"], summary["row_length"]) == ("3000", "2", "64")
    seconds = float(summary["seconds"])
    assert float(summary["rows_per_s"]) == round(3000 / seconds, 1)
    assert float(summary["kv_pairs_per_s"]) == round(6000 / seconds, 1)
    assert float(summary["mb_per_s"]) == round(int(summary["data_bytes"]) / 1e6 / seconds, 1)
    assert db.scalar("SELECT COUNT(*) FROM load_table") == 3000
    assert out.params["mode"] == "load"
    assert [(ix.name, ix.columns, ix.unique) for ix in out.indexes] == [
        ("PRIMARY", ["val0"], True),
        ("valkey1", ["val1"], False),
    ]
    assert out.lines[-1].startswith("# summary ")


def test_load_keeps_its_files_in_out(tmp_path: Path, sqlite_db: Database) -> None:
    run_iibench(
        "load",
        "--db",
        sqlite_db.url,
        "--keys",
        "1",
        "--row-length",
        "32",
        "--rows",
        "100",
        "--out",
        str(tmp_path / "files"),
    )

    assert len(data_lines(tmp_path / "files")) == 100
    assert (tmp_path / "files" / "load_table.sql").exists()


def test_load_rejects_a_row_too_short_for_its_keys() -> None:
    result = run_iibench("load", "--keys", "4", "--row-length", "32", "--rows", "10", expect=2)

    assert "--row-length (32) must exceed" in result.stderr
