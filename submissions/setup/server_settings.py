"""An entry's declared server configuration (my.cnf or postgresql.conf text) read into
key = value settings, and the allow-list that decides which of them a verification rerun may
apply to its private server. Pure: text in, dataclasses out; no Django.

The text is free-form and was optional for years, so reading it never fails: a line that is
not a setting is kept as a `Skipped` with its line number and why, and shown on the entry page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MYSQL = "mysql"  # MySQL and MariaDB read the same my.cnf
POSTGRESQL = "postgresql"

# my.cnf groups the server reads; [client], [mysqldump]... are for other programs.
_SERVER_GROUPS = re.compile(r"^(mysqld|mariadb|mariadbd|server|embedded)(-[\w.]+)?$")


@dataclass(frozen=True)
class Setting:
    key: str  # normalised: lower case, underscores, no `loose-` prefix
    value: str  # as declared, quotes and comments removed ("" for a bare flag)
    line: int


@dataclass(frozen=True)
class Skipped:
    line: int
    text: str
    reason: str


@dataclass(frozen=True)
class ReadConfig:
    settings: list[Setting]
    skipped: list[Skipped]


# The entry's declared server (submissions/setup/engines.py SERVER_FAMILIES) -> the configuration
# family: MySQL, MariaDB and Percona Server read the same my.cnf and run the same engines.
_FAMILIES = {"mysql": MYSQL, "mariadb": MYSQL, "percona": MYSQL, "postgresql": POSTGRESQL}


def family_of(*, server_family: str, storage_engine: str = "") -> str:
    """The server family an entry ran, from its declared server; for an "other" server, what
    its engine names."""
    if server_family in _FAMILIES or server_family == "sqlite":
        return _FAMILIES.get(server_family, server_family)
    engine = storage_engine.lower()
    if "postgres" in engine:
        return POSTGRESQL
    return "sqlite" if "sqlite" in engine else server_family or "other"


def normalise_key(key: str) -> str:
    key = key.strip().lower().replace("-", "_")
    # `loose-` asks the server to ignore an option it does not know: the option is the same.
    return key.removeprefix("loose_")


def read_config(text: str, family: str = MYSQL) -> ReadConfig:
    settings: dict[str, Setting] = {}
    skipped: list[Skipped] = []
    # Without any [group] line (a pasted excerpt, or postgresql.conf) every line is the server's.
    in_server_group = not any(_group(line) for line in text.splitlines())
    for number, raw in enumerate(text.splitlines(), 1):
        line = _without_comment(raw, family).strip()
        if not line:
            continue
        group = _group(line)
        if group is not None:
            in_server_group = family == POSTGRESQL or bool(_SERVER_GROUPS.match(group))
            continue
        if not in_server_group:
            continue
        if line.startswith("!"):  # !include, !includedir: files we do not have
            skipped.append(Skipped(number, raw.strip(), "an include directive names files"))
            continue
        setting = _setting(line, number, family)
        if setting is None:
            skipped.append(Skipped(number, raw.strip()[:200], "not a key = value setting"))
            continue
        # The server takes the last value given for an option; so do we.
        settings[setting.key] = setting
    return ReadConfig(sorted(settings.values(), key=lambda s: s.line), skipped)


def _group(line: str) -> str | None:
    line = line.strip()
    if line.startswith("[") and line.endswith("]"):
        return line[1:-1].strip().lower()
    return None


def _without_comment(line: str, family: str) -> str:
    stripped = line.lstrip()
    if stripped.startswith(";") and family == MYSQL:
        return ""
    quote = None
    for index, char in enumerate(line):
        if char in "'\"" and quote in (None, char):
            quote = None if quote else char
        elif char == "#" and quote is None:
            return line[:index]
    return line


_KEY = re.compile(r"^[A-Za-z_][\w.-]*$")


def _setting(line: str, number: int, family: str) -> Setting | None:
    key, separator, value = line.partition("=")
    if not separator and family == POSTGRESQL:
        key, _, value = line.partition(" ")  # postgresql.conf allows `key value`
    key = key.strip()
    if normalise_key(key) == "set_variable" and "=" in value:
        # MySQL 4/5.0's `set-variable = key=value`, still found in 5.1 era configs.
        return _setting(value.strip(), number, family)
    if not _KEY.match(key):
        return None
    return Setting(normalise_key(key), _unquote(value.strip()), number)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


# --- sizes ---------------------------------------------------------------------------------
# One grammar for every size: the declaration's check at upload, the option's type check
# (server_options.typed_value) and the memory budget all read a size with `size_in_bytes`, so a
# size one of them cannot read is refused by all, never "not declared" to one and applied by
# another.

# mariadbd's getopt (my_getopt.c eval_num_suffix): a whole number and one suffix, either case.
_MYSQL_SUFFIX = {
    "": 1,
    "k": 1 << 10,
    "m": 1 << 20,
    "g": 1 << 30,
    "t": 1 << 40,
    "p": 1 << 50,
    "e": 1 << 60,
}
_PG_SUFFIX = {"b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}
# PostgreSQL's size parameters (pg_settings.unit B, kB, MB, 8kB) in bytes of their own unit: a
# value without a unit counts in it. From PostgreSQL 15's pg_settings; a parameter not here
# takes no size unit.
PG_UNITS = {
    "autovacuum_work_mem": 1024,
    "backend_flush_after": 8192,
    "bgwriter_flush_after": 8192,
    "checkpoint_flush_after": 8192,
    "effective_cache_size": 8192,
    "gin_pending_list_limit": 1024,
    "huge_page_size": 1024,
    "log_parameter_max_length": 1,
    "log_parameter_max_length_on_error": 1,
    "log_rotation_size": 1024,
    "log_temp_files": 1024,
    "logical_decoding_work_mem": 1024,
    "maintenance_work_mem": 1024,
    "max_slot_wal_keep_size": 1 << 20,
    "max_stack_depth": 1024,
    "max_wal_size": 1 << 20,
    "min_dynamic_shared_memory": 1 << 20,
    "min_parallel_index_scan_size": 8192,
    "min_parallel_table_scan_size": 8192,
    "min_wal_size": 1 << 20,
    "shared_buffers": 8192,
    "temp_buffers": 8192,
    "temp_file_limit": 1024,
    "track_activity_query_size": 1,
    "wal_buffers": 8192,
    "wal_decode_buffer_size": 1,
    "wal_keep_size": 1 << 20,
    "wal_skip_threshold": 1024,
    "wal_writer_flush_after": 8192,
    "work_mem": 1024,
}
# The largest number mariadbd's getopt reads (an unsigned 64-bit integer): past it the server
# would wrap or stop at start.
MYSQL_LARGEST = (1 << 64) - 1

_MYSQL_SIZE = re.compile(r"\s*(-?\d+)([A-Za-z]?)\s*")
_PG_SIZE = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")


class BadSize(ValueError):
    """A size the grammar cannot read: the message names the setting and the value, `reason`
    says why in a phrase ("it is not a size (...)")."""

    def __init__(self, name: str, value: str, reason: str):
        super().__init__(f"{name} = {value!r}: {reason}")
        self.reason = reason


def size_in_bytes(value: str, *, family: str = MYSQL, key: str = "") -> int:
    """'128M' (my.cnf: a whole number, one of K M G T P E), '128MB' or '16384' 8 kB pages
    (postgresql.conf: B kB MB GB TB, a bare number in the parameter's own unit) in bytes.
    Negative numbers are read (-1 means "the server derives it" for some); a caller that
    wants a size refuses them. Raises BadSize naming the setting and the value."""
    name = key or "size"
    found = (_PG_SIZE if family == POSTGRESQL else _MYSQL_SIZE).fullmatch(value)
    if not found:
        units = "B, kB, MB, GB, TB" if family == POSTGRESQL else "K, M, G, T, P, E"
        raise BadSize(name, value, f"it is not a size (a number, optionally one of {units})")
    suffix = found.group(2).lower()
    factor = (_PG_SUFFIX if family == POSTGRESQL else _MYSQL_SUFFIX).get(suffix)
    if family == POSTGRESQL and not suffix:
        factor = PG_UNITS.get(key, 1)
    if factor is None:
        raise BadSize(name, value, f"{found.group(2)!r} is not a unit this server reads")
    if family == POSTGRESQL:
        return round(float(found.group(1)) * factor)
    size = int(found.group(1)) * factor
    if abs(size) > MYSQL_LARGEST:
        raise BadSize(name, value, "it is larger than the server can read (2^64 - 1 bytes)")
    return size


def size_text(size: int, family: str = MYSQL) -> str:
    """Bytes as the server's config writes them: whole MB (or kB) where that is exact."""
    unit = ("MB", "kB") if family == POSTGRESQL else ("M", "K")
    if size % (1 << 20) == 0:
        return f"{size >> 20}{unit[0]}"
    return f"{max(1, size >> 10)}{unit[1]}"


# --- what may be applied ---------------------------------------------------------------------

# Each refused setting and why, named for the organizer: it would let an entry's text reach
# outside the private server (files, plugins, users, the network, SQL run at start).
_REFUSED_MYSQL = {
    "names files": (
        "datadir basedir tmpdir secure_file_priv pid_file socket log_error general_log_file "
        "slow_query_log_file log_bin log_bin_index relay_log relay_log_index character_sets_dir "
        "lc_messages_dir innodb_data_home_dir innodb_log_group_home_dir innodb_undo_directory "
        "innodb_data_file_path innodb_temp_data_file_path innodb_tmpdir "
        "innodb_buffer_pool_filename aria_log_dir_path ssl_ca ssl_cert ssl_key ssl_capath "
        "ssl_crl ssl_crlpath log_tc open_files_limit rocksdb_datadir rocksdb_wal_dir "
        "rocksdb_log_dir rocksdb_tmpdir rocksdb_persistent_cache_path rocksdb_create_checkpoint"
    ),
    "loads plugins": "plugin_load plugin_load_add plugin_dir plugin_maturity early_plugin_load",
    "names users": "user skip_grant_tables admin_address",
    "opens the network": (
        "port bind_address skip_networking extra_port report_host report_port "
        "proxy_protocol_networks skip_name_resolve"
    ),
    "runs SQL at start": "init_file init_connect init_slave init_rpl_role",
}
_REFUSED_POSTGRESQL = {
    "names files": (
        "data_directory config_file hba_file ident_file external_pid_file log_directory "
        "log_filename stats_temp_directory ssl_cert_file ssl_key_file ssl_ca_file "
        "ssl_crl_file krb_server_keyfile archive_command restore_command archive_library "
        "include include_dir include_if_exists unix_socket_directories"
    ),
    "loads plugins": (
        "shared_preload_libraries local_preload_libraries session_preload_libraries "
        "dynamic_library_path"
    ),
    "names users": "superuser_reserved_connections unix_socket_group unix_socket_permissions",
    "opens the network": "listen_addresses port ssl",
    "runs SQL at start": "",
}
_REFUSED = {
    MYSQL: {key: why for why, keys in _REFUSED_MYSQL.items() for key in keys.split()},
    POSTGRESQL: {key: why for why, keys in _REFUSED_POSTGRESQL.items() for key in keys.split()},
}
_FILE_LIKE = re.compile(r"(_dir|_file|_path|_directory|_filename|_home|_socket)$")

# What may be applied: memory, flushing, logging, I/O and engine tuning.
_ALLOWED_MYSQL = re.compile(
    r"^(innodb_\w+|myisam_\w+|aria_\w+|rocksdb_\w+|key_buffer_size|key_cache_\w+|sort_buffer_size"
    r"|join_buffer_size|read_buffer_size|read_rnd_buffer_size|tmp_table_size"
    r"|max_heap_table_size|bulk_insert_buffer_size|table_open_cache|table_definition_cache"
    r"|query_cache_\w+|thread_cache_size|thread_stack|max_connections|max_allowed_packet"
    r"|sync_binlog|binlog_format|binlog_cache_size|sync_frm|flush|flush_time"
    r"|default_storage_engine|transaction_isolation|tx_isolation|concurrent_insert"
    r"|delay_key_write|low_priority_updates|thread_handling|thread_pool_\w+)$"
)
_ALLOWED_POSTGRESQL = re.compile(
    r"^(shared_buffers|effective_cache_size|work_mem|maintenance_work_mem|temp_buffers"
    r"|wal_buffers|huge_pages|synchronous_commit|fsync|full_page_writes|wal_level"
    r"|wal_sync_method|wal_compression|wal_writer_\w+|commit_delay|commit_siblings"
    r"|checkpoint_\w+|max_wal_size|min_wal_size|bgwriter_\w+|autovacuum(_\w+)?"
    r"|effective_io_concurrency|maintenance_io_concurrency|random_page_cost|seq_page_cost"
    r"|max_connections|max_worker_processes|max_parallel_\w+|default_statistics_target"
    r"|enable_\w+|jit|backend_flush_after|fillfactor|vacuum_\w+)$"
)
_ALLOWED = {MYSQL: _ALLOWED_MYSQL, POSTGRESQL: _ALLOWED_POSTGRESQL}


def refusal(key: str, family: str) -> str | None:
    """Why a setting is not applied to a verification server, naming it; None if it may be."""
    reason = _REFUSED.get(family, {}).get(key)
    if reason is None and _FILE_LIKE.search(key):
        reason = "names files"
    if reason is not None:
        return f"{key} is refused: it {reason}."
    pattern = _ALLOWED.get(family)
    if pattern is None or not pattern.match(key):
        return f"{key} is not applied: not on the allow-list (memory, flushing, I/O, engine)."
    return None


@dataclass(frozen=True)
class Applicable:
    applied: dict[str, str]
    refused: dict[str, str]  # key -> the message naming it


def applicable(settings: dict[str, str], family: str) -> Applicable:
    applied, refused = {}, {}
    for key, value in settings.items():
        reason = refusal(key, family)
        if reason is None:
            applied[key] = value
        else:
            refused[key] = reason
    return Applicable(applied, refused)
