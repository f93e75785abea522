"""Every option the installed MariaDB and PostgreSQL list, each declared with a value of its
type: applied under its exact name, or refused with a reason naming it; nothing that takes a
path, a library, a user, a file, a command or SQL is ever applied; every prefix of an option
name that is not itself one is refused, naming the option it would abbreviate. The option
tables are read from the real binaries, as the worker reads them."""

from __future__ import annotations

import re
import tempfile
import time

import pytest

from runner import servers
from runner.judge.server_options import (
    BOOLEAN,
    ENUM,
    NUMBER,
    REAL,
    SET,
    TEXT,
    ServerOption,
    decide,
)
from runner.option_tables import described_options
from submissions.setup.server_settings import MYSQL, POSTGRESQL

FAMILY = {"mariadb": MYSQL, "postgresql": POSTGRESQL}
# Names whose option reaches outside the server's directory or runs code: checked apart from
# the option's type, so a mistyped table cannot let one through.
HOSTILE_NAME = re.compile(
    r"(^|_)(dir|path|directory|filename|file|files|home|socket|plugin|plugins|library|"
    r"libraries|command|user|users|password|init|include|ssl|datadir|basedir|tmpdir)($|_)"
)
ISSUE_PREFIXES = {
    "mariadb": {
        "innodb_buffer_pool_filenam": "innodb_buffer_pool_filename",
        "innodb_tmpdi": "innodb_tmpdir",
        "innodb_undo_direct": "innodb_undo_directory",
        "innodb_data_home_d": "innodb_data_home_dir",
        "innodb_log_group_home_d": "innodb_log_group_home_dir",
        "aria_log_dir_pat": "aria_log_dir_path",
        "innodb_data_file_pat": "innodb_data_file_path",
    },
    "postgresql": {
        "archive_comm": "archive_command",
        "shared_preload_librar": "shared_preload_libraries",
        "ssl_passphrase_comm": "ssl_passphrase_command",
        "data_direct": "data_directory",
        "hba_fil": "hba_file",
    },
}
ISSUE_REFUSED = {
    "mariadb": [
        "innodb_buffer_pool_load_at_startup",
        "innodb_buffer_pool_dump_at_shutdown",
        "innodb_buffer_pool_filename",
        "innodb_tmpdir",
        "innodb_undo_directory",
        "innodb_data_home_dir",
        "innodb_log_group_home_dir",
        "aria_log_dir_path",
        "innodb_data_file_path",
        "plugin_load_add",
        "init_file",
        "user",
        "skip_grant_tables",
    ],
    "postgresql": [
        "archive_command",
        "archive_library",
        "shared_preload_libraries",
        "local_preload_libraries",
        "session_preload_libraries",
        "ssl_passphrase_command",
        "data_directory",
        "hba_file",
        "include",
        "include_dir",
        "include_if_exists",
        "archive_mode",
    ],
}


# MariaDB with MyRocks loaded: its rocksdb_* options exist only then, and are judged alike.
PLUGINS = {"mariadb+rocksdb": ("ha_rocksdb.so",)}


@pytest.fixture(scope="module", params=["mariadb", "mariadb+rocksdb", "postgresql"])
def table(request):
    kind = request.param.partition("+")[0]
    config = servers.ServerConfig(
        kind=kind, base_dir=tempfile.gettempdir(), plugins=PLUGINS.get(request.param, ())
    )
    return kind, described_options(config)


def typed_value(option: ServerOption) -> str:
    """A value of the option's type, as an entrant's config would give it."""
    if option.kind == BOOLEAN:
        return "ON"
    if option.kind == NUMBER:
        if option.minimum is not None:  # PostgreSQL: in range, in its own unit
            return str(int(max(option.minimum, min(option.maximum or 1, 1))))
        return option.default if option.default.isdigit() else "1"
    if option.kind == REAL:
        return str(option.minimum if option.minimum is not None else 1)
    if option.kind in (ENUM, SET):
        if option.choices:
            return option.choices[0]
        return option.default if re.fullmatch(r"\w+", option.default) else "on"
    return "anything"


def test_every_option_the_servers_list_is_applied_typed_or_refused_with_its_reason(table):
    kind, options = table
    family = FAMILY[kind]
    assert len(options) > (600 if kind == "mariadb" else 250)  # the whole table was read
    applied = refused = 0
    hostile_applied: list[str] = []
    for name, option in sorted(options.items()):
        value = typed_value(option)
        decision = decide({name: value}, options, family)
        # An alias is applied under the name of the variable it names (table_cache as
        # table_open_cache), of the same kind.
        as_name = decision.renamed.get(name, name)
        assert options[as_name].kind == option.kind, (name, as_name)
        if as_name in decision.applied:
            applied += 1
            assert option.kind in (BOOLEAN, NUMBER, REAL, ENUM, SET), (name, option)
            # A file-like name may only be a switch or one of the server's own words
            # (aria_sync_log_dir: NEWFILE, ALWAYS, NEVER), never a value an entrant writes.
            assert (
                not HOSTILE_NAME.search(name)
                or option.kind in (BOOLEAN, NUMBER, REAL)
                or (option.kind == ENUM and option.choices)
            ), (name, option)
            hostile_applied.append(name) if HOSTILE_NAME.search(name) else None
            assert not re.search(r"[/\\'\"\n\x00]", decision.applied[as_name]), name
        else:
            refused += 1
            message = decision.refused[name]
            assert message.startswith(f"{name} = {value!r} is refused: "), message
            assert len(message) > len(name) + 20  # a reason, not just "refused"
        if option.kind == TEXT:
            assert name not in decision.applied, name
    assert applied > 100 and refused > 100, (applied, refused)
    print(f"{kind}: {len(options)} options, {applied} applied, {refused} refused")
    print(f"{kind}: file-like names applied (typed, no free text): {hostile_applied}")


def test_every_prefix_of_every_option_name_is_refused_naming_what_it_abbreviates(table):
    kind, options = table
    family = FAMILY[kind]
    started = time.monotonic()
    prefixes: set[str] = {
        name[:end] for name in options for end in range(1, len(name)) if name[:end] not in options
    }
    for prefix in sorted(prefixes):
        decision = decide({prefix: "1"}, options, family)
        assert not decision.applied, prefix
        longer = [name for name in options if name.startswith(prefix)]
        message = decision.refused[prefix]
        if len(longer) == 1:
            assert f"abbreviation of {longer[0]}" in message, message
    print(f"{kind}: {len(prefixes)} prefixes refused in {time.monotonic() - started:.1f} s")


def test_the_issues_prefixes_and_hostile_names_are_refused(table):
    kind, options = table
    family = FAMILY[kind]
    for prefix, full in ISSUE_PREFIXES[kind].items():
        assert full in options, full  # the server lists the option the prefix abbreviates
        decision = decide({prefix: "../../../some/where.txt"}, options, family)
        assert not decision.applied
        # Named as the one it abbreviates, or among the several it could (ssl_passphrase_comm).
        assert re.search(rf"(abbreviation of |several \(.*){full}\b", decision.refused[prefix])
    for name in ISSUE_REFUSED[kind]:
        decision = decide({name: "ON" if kind == "mariadb" else "on"}, options, family)
        assert name in decision.refused and not decision.applied, name


def test_values_are_typed_and_never_a_path(table):
    kind, options = table
    family = FAMILY[kind]
    pool, commit = (
        ("innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit")
        if kind == "mariadb"
        else ("shared_buffers", "synchronous_commit")
    )
    good = decide({pool: "128M" if kind == "mariadb" else "128MB"}, options, family)
    assert pool in good.applied
    for hostile in ("../x", "/tmp/x", "1'; DROP", "1\nx", "1\x00", "lots", "~x"):
        decision = decide({pool: hostile, commit: hostile}, options, family)
        assert not decision.applied, hostile
        assert pool in decision.refused[pool]


def test_mariadb_itself_refuses_an_abbreviated_option(recovery_dir):
    """Belt and braces: were a prefix ever passed, --skip-getopt-prefix-matching (right
    after --no-defaults) makes the server refuse it rather than take the full option."""
    config = servers.ServerConfig(kind="mariadb", base_dir=recovery_dir)
    with servers.PrivateServer(
        config, "prefix", settings={"innodb_buffer_pool_filenam": "evil"}
    ) as server:
        server.initialize()
        server.start()
        with pytest.raises(
            servers.ServerError, match="unknown variable 'innodb-buffer-pool-filenam"
        ):
            server.wait_until_answering(deadline=time.monotonic() + 60)
