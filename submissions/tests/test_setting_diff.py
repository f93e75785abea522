"""Settings side by side: the differences first, a setting one entry lacks counts as one."""

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


def test_a_setting_one_entry_does_not_list_is_a_difference_shown_as_missing():
    rows = settings_side_by_side([{"shared_buffers": "128MB"}, {}])
    assert rows[0].differs and rows[0].values == ("128MB", None)


def test_nothing_to_compare_gives_no_rows():
    assert settings_side_by_side([]) == []
    assert settings_side_by_side([{}, {}]) == []
