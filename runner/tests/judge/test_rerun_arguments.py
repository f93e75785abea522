from runner.judge.rerun import RunPlan, benchmark_arguments, engine_for, report_every


def test_the_arguments_carry_the_contest_rules_and_never_exceed_rows_per_commit():
    plan = RunPlan(
        binary="/bin/iibench",
        db_url="sqlite:///x.db",
        rows=1_000_000,
        rows_per_commit=500,
        rows_per_insert=1_000,
        seed=7,
    )
    arguments = benchmark_arguments(plan)
    assert arguments[0] == "/bin/iibench"
    pairs = dict(zip(arguments[1::2], arguments[2::2], strict=True))
    assert pairs["--rows-per-commit"] == "500"
    assert pairs["--rows-per-insert"] == "500"
    assert pairs["--rows"] == "1000000"
    assert pairs["--report-every"] == "10000"
    assert "--engine" not in pairs


def test_hostile_text_stays_one_argument():
    plan = RunPlan("/bin/iibench", "sqlite:///x.db; rm -rf /", 1_000, 1_000, 1_000, 1, "InnoDB")
    arguments = benchmark_arguments(plan)
    assert "sqlite:///x.db; rm -rf /" in arguments
    assert arguments[-2:] == ["--engine", "InnoDB"]


def test_report_every_gives_a_live_curve_without_flooding():
    assert report_every(1_000) == 1_000
    assert report_every(50_000_000) == 500_000


def test_the_entrys_engine_is_used_only_when_the_target_has_it():
    assert engine_for("innodb", ["InnoDB", "MyISAM"]) == "InnoDB"
    assert engine_for("TokuDB", ["InnoDB", "MyISAM"]) is None
    assert engine_for("InnoDB", []) is None
