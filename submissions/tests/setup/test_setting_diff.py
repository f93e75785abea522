"""Settings side by side: the differences first, counted among the entries that list a
setting (one that does not list it says nothing of it)."""

from submissions.setup.diff import settings_side_by_side


def test_the_differences_come_first_then_the_shared_settings_by_name():
    rows = settings_side_by_side(
        [
            {"innodb_buffer_pool_size": "134217728", "port": "3306", "autocommit": "ON"},
            {"innodb_buffer_pool_size": "8589934592", "port": "3306", "autocommit": "ON"},
        ]
    )
    assert [(row.key, row.differs) for row in rows] == [
        ("innodb_buffer_pool_size", True),
        ("autocommit", False),
        ("port", False),
    ]
    assert rows[0].values == ("134217728", "8589934592")


def test_a_setting_one_entry_does_not_list_is_shown_missing_and_not_counted_a_difference():
    rows = settings_side_by_side([{"shared_buffers": "128MB"}, {}])
    assert not rows[0].differs and rows[0].values == ("128MB", None)
    assert rows[0].stated == "128MB"


def test_another_servers_settings_follow_the_differences_apart_from_the_shared_ones():
    mariadb = {"innodb_buffer_pool_size": "134217728", "autocommit": "ON", "port": "3306"}
    postgresql = {"shared_buffers": "128MB", "autocommit": "ON", "port": "5432"}
    rows = settings_side_by_side([mariadb, postgresql, {}])
    assert [(row.key, row.differs, row.partial) for row in rows] == [
        ("port", True, False),
        ("innodb_buffer_pool_size", False, True),
        ("shared_buffers", False, True),
        ("autocommit", False, False),
    ]


def test_a_third_entry_listing_no_settings_leaves_the_others_differences_first():
    # /compare/?ids=12,13 said "11 of 675 differ"; with a third entry whose log lists no
    # settings it said "675 of 675 differ", the real difference at row ~204.
    two = [
        {"innodb_buffer_pool_size": "134217728", "port": "3306", "autocommit": "ON"},
        {"innodb_buffer_pool_size": "8589934592", "port": "3306", "autocommit": "ON"},
    ]
    rows = settings_side_by_side([*two, {}])
    assert [(row.key, row.differs) for row in rows] == [
        ("innodb_buffer_pool_size", True),
        ("autocommit", False),
        ("port", False),
    ]
    assert rows[0].values == ("134217728", "8589934592", None)


def test_nothing_to_compare_gives_no_rows():
    assert settings_side_by_side([]) == []
    assert settings_side_by_side([{}, {}]) == []
