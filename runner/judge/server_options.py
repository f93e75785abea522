"""Which of an entry's declared settings a verification's private server may take, decided
against the option table the server binary itself describes (`mariadbd --no-defaults --verbose
--help`, `postgres --describe-config`), never by a name pattern. Pure: the table is text in,
the decision dataclasses out; the worker reads the binary (runner/option_tables.py).

Every declared setting is hostile until shown otherwise. A setting is applied only when its
name is exactly one the server lists, the option is for tuning (on the allow-list by name, or
in a category the server's own description gives: its type, its engine, its group), and its
value has the option's type (a size, a number, a boolean, one of the server's choices). A name
the server would take as an abbreviation of another (MariaDB's getopt matches unique prefixes)
is refused naming the option it abbreviates; an option that takes free text (a path, a
library, a user, a command, SQL) is never applied, whatever its name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from submissions.setup.server_settings import MYSQL, POSTGRESQL

SIZE = "size"  # a number of bytes, with a unit suffix allowed
NUMBER = "number"
REAL = "real"
BOOLEAN = "boolean"
ENUM = "enum"
SET = "set"  # MariaDB: any combination of the choices, comma-separated
TEXT = "text"  # free text: paths, libraries, users, commands, SQL
FLAG = "flag"  # a command-line switch with no value and no variable (--bootstrap)


@dataclass(frozen=True)
class ServerOption:
    name: str  # canonical: lower case, underscores
    kind: str
    group: str = ""  # PostgreSQL's group ("Resource Usage / Memory"); "" for MariaDB
    context: str = ""  # PostgreSQL's context (postmaster, sighup, user, internal...)
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()  # lower case; empty when the server does not list them
    default: str = ""  # as the server prints it ("" when it does not)


# --- reading the server's own description ------------------------------------------------------

_MARIADB_OPTION = re.compile(
    r"^  (?:-\w, )?--(?P<name>[a-z0-9][a-z0-9-]*)(?P<argument>\[?=(?:#|name)\]?)?(?:\s+(?P<text>.*))?$"
)
_CHOICES = re.compile(r"(One of|Any combination of):\s*(?P<choices>[^.]*?)(?:\.|$)", re.S)


def mariadb_options(help_text: str) -> dict[str, ServerOption]:
    """The options `mariadbd --no-defaults --verbose --help` lists, typed from their argument
    (`=#` a number, `=name` text or the choices its description names) and the variables
    table at the end (TRUE/FALSE: a boolean)."""
    head, _, table = help_text.partition("\nVariables (--variable-name=value)")
    defaults = _mariadb_defaults(table)
    described: dict[str, tuple[str, list[str]]] = {}
    current = None
    for line in head.splitlines():
        found = _MARIADB_OPTION.match(line)
        if found:
            current = found.group("name").replace("-", "_")
            described[current] = (found.group("argument") or "", [found.group("text") or ""])
        elif current and line.startswith(" " * 10):
            described[current][1].append(line.strip())
        elif line.strip() == "":
            current = None
    options = {}
    for name in described.keys() | defaults.keys():
        argument, text = described.get(name, ("", []))
        default = defaults.get(name, "")
        options[name] = ServerOption(
            name=name,
            kind=_mariadb_kind(argument, " ".join(text), default),
            choices=_mariadb_choices(" ".join(text)),
            default=default,
        )
    return options


def _mariadb_defaults(table: str) -> dict[str, str]:
    defaults, started = {}, False
    for line in table.splitlines():
        if line.startswith("----"):
            started = True
            continue
        if started:
            if not line.strip():
                break
            name, _, value = line.partition(" ")
            defaults[name.replace("-", "_")] = value.strip()
    return defaults


def _mariadb_kind(argument: str, text: str, default: str) -> str:
    if default in ("TRUE", "FALSE"):
        return BOOLEAN
    if "#" in argument:
        return NUMBER
    if "name" in argument:
        found = _CHOICES.search(text)
        if found:
            return SET if found.group(1) == "Any combination of" else ENUM
        return TEXT
    return FLAG if not default else TEXT


def _mariadb_choices(text: str) -> tuple[str, ...]:
    found = _CHOICES.search(text)
    if not found:
        return ()
    return tuple(c.strip().lower() for c in found.group("choices").split(",") if c.strip())


# `postgres --describe-config` names an enum's default but not its choices: those of the
# enums a verification may set, from PostgreSQL's documentation (fsync_writethrough, for
# Windows and macOS, left out). An enum not here is refused: its choices are unknown.
_PG_ENUM_CHOICES = {
    "constraint_exclusion": ("on", "off", "partition"),
    "huge_pages": ("try", "on", "off"),
    "plan_cache_mode": ("auto", "force_custom_plan", "force_generic_plan"),
    "synchronous_commit": ("on", "off", "local", "remote_write", "remote_apply"),
    "wal_compression": ("on", "off", "pglz", "lz4", "zstd"),
    "wal_sync_method": ("fsync", "fdatasync", "open_sync", "open_datasync"),
}
_PG_KINDS = {"BOOLEAN": BOOLEAN, "INTEGER": NUMBER, "REAL": REAL, "ENUM": ENUM, "STRING": TEXT}


def postgresql_options(described: str) -> dict[str, ServerOption]:
    """The parameters `postgres --describe-config` lists: name, context, group, type, reset
    value, minimum, maximum, descriptions, tab-separated."""
    options = {}
    for number, line in enumerate(described.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 7 or fields[3] not in _PG_KINDS:
            raise ValueError(f"postgres --describe-config line {number}: not a parameter: {line!r}")
        name, context, group, kind, reset, low, high = fields[:7]
        options[name] = ServerOption(
            name=name,
            kind=_PG_KINDS[kind],
            group=group,
            context=context,
            minimum=float(low) if low else None,
            maximum=float(high) if high else None,
            choices=_PG_ENUM_CHOICES.get(name, ()),
            default=reset,
        )
    return options


# --- what is for tuning ----------------------------------------------------------------------

# MariaDB's engines and caches: a non-text option of one of them tunes it (the option's own
# name says its engine; the server lists each exactly).
# MyRocks' rocksdb_* options exist only when the server loads its plugin (runner/servers.py).
_MARIADB_ENGINES = (
    "innodb_",
    "aria_",
    "myisam_",
    "rocksdb_",
    "key_cache_",
    "query_cache_",
    "thread_pool_",
)
_MARIADB_TUNING = set(
    [
        "key_buffer_size",
        "sort_buffer_size",
        "join_buffer_size",
        "join_buffer_space_limit",
        "read_buffer_size",
        "read_rnd_buffer_size",
        "tmp_table_size",
        "tmp_memory_table_size",
        "max_heap_table_size",
        "bulk_insert_buffer_size",
        "table_open_cache",
        "table_definition_cache",
        "thread_cache_size",
        "thread_stack",
        "max_connections",
        "max_allowed_packet",
        "net_buffer_length",
        "sync_binlog",
        "binlog_format",
        "binlog_cache_size",
        "binlog_stmt_cache_size",
        "sync_frm",
        "flush",
        "flush_time",
        "default_storage_engine",
        "transaction_isolation",
        "tx_isolation",
        "concurrent_insert",
        "delay_key_write",
        "low_priority_updates",
        "thread_handling",
        "max_sort_length",
        "optimizer_switch",
        "optimizer_search_depth",
        "preload_buffer_size",
        "query_prealloc_size",
        "transaction_prealloc_size",
        "transaction_alloc_block_size",
        "query_alloc_block_size",
        "range_alloc_block_size",
        "mrr_buffer_size",
    ]
)
# Tuning-looking options that reach files, warm the pool from one, or weaken the server.
_MARIADB_REFUSED = {
    "innodb_buffer_pool_load_at_startup": "reads a file of pages (a warm start the claim lacked)",
    "innodb_buffer_pool_dump_at_shutdown": "writes a file of the pool's pages",
    "innodb_buffer_pool_dump_now": "writes a file of the pool's pages",
    "innodb_buffer_pool_load_now": "reads a file of pages",
    "innodb_buffer_pool_load_abort": "acts on the file of pages",
    "innodb_buffer_pool_dump_pct": "sizes the file of pages",
    "innodb_force_recovery": "runs the server damaged, not tuned",
    "innodb_read_only": "runs the server read-only, not tuned",
    "innodb_encrypt_tables": "needs a key file",
    "innodb_encrypt_log": "needs a key file",
    "innodb_encrypt_temporary_tables": "needs a key file",
    "aria_recover_options": "repairs tables, not tuning",
    "myisam_recover_options": "repairs tables, not tuning",
    "innodb_status_output": "writes to the server's error log on a timer",
    "innodb_status_output_locks": "writes to the server's error log on a timer",
    "innodb_fatal_semaphore_wait_threshold": "kills the server on a timer",
    "innodb_undo_tablespaces": "creates tablespace files",
    "innodb_log_file_size": "sizes a file on disk, not memory",
    "innodb_log_file_buffering": "is not tuning",
    "aria_log_file_size": "sizes a file on disk, not memory",
    "aria_used_for_temp_tables": "is fixed at build",
    # MyRocks: switches that act once (flush, pause, drop, reset), load in bulk outside
    # transactions, or run the server past damage.
    "rocksdb_force_flush_memtable_now": "acts once (a flush), not tuning",
    "rocksdb_force_flush_memtable_and_lzero_now": "acts once (a flush), not tuning",
    "rocksdb_pause_background_work": "stops compaction and flushes, not tuning",
    "rocksdb_signal_drop_index_thread": "acts once, not tuning",
    "rocksdb_reset_stats": "acts once, not tuning",
    "rocksdb_remove_mariabackup_checkpoint": "acts once on files, not tuning",
    "rocksdb_bulk_load": "loads outside transactions and skips checks (bulk load)",
    "rocksdb_bulk_load_allow_sk": "loads outside transactions and skips checks (bulk load)",
    "rocksdb_bulk_load_allow_unsorted": "loads outside transactions and skips checks (bulk load)",
    "rocksdb_commit_in_the_middle": "commits inside statements, not the benchmark's transactions",
    "rocksdb_master_skip_tx_api": "skips the transaction API (no row locks)",
    "rocksdb_allow_to_start_after_corruption": "runs the server damaged, not tuned",
    "rocksdb_ignore_datadic_errors": "runs the server damaged, not tuned",
    "rocksdb_wal_recovery_mode": "decides what a recovery drops, not tuning",
    "rocksdb_validate_tables": "checks the files at start, not tuning",
    "rocksdb_error_if_exists": "is not tuning",
    "rocksdb_create_if_missing": "is not tuning",
    "rocksdb_create_missing_column_families": "is not tuning",
    "rocksdb_io_write_timeout": "kills the server on a timer",
    "rocksdb_trace_sst_api": "is a debugging aid",
}
# Option names starting so are debugging aids, whatever follows.
_MARIADB_REFUSED_PREFIXES = {"rocksdb_debug_": "is a debugging aid"}
_PG_TUNING_GROUPS = {
    "Resource Usage / Memory",
    "Resource Usage / Asynchronous Behavior",
    "Resource Usage / Background Writer",
    "Resource Usage / Cost-Based Vacuum Delay",
    "Write-Ahead Log / Settings",
    "Write-Ahead Log / Checkpoints",
    "Query Tuning / Genetic Query Optimizer",
    "Query Tuning / Other Planner Options",
    "Query Tuning / Planner Cost Constants",
    "Query Tuning / Planner Method Configuration",
    "Autovacuum",
    "Lock Management",
}
_PG_TUNING = {"max_connections", "default_statistics_target", "vacuum_cost_limit", "jit"}
_PG_REFUSED = {
    "huge_page_size": "needs the host's huge pages",
    "shared_memory_type": "is the host's, not tuning",
    "dynamic_shared_memory_type": "is the host's, not tuning",
    "max_stack_depth": "can crash the server past the host's stack limit",
    "wal_level": "changes what the WAL holds (replication), not tuning",
    "wal_consistency_checking": "is a debugging aid",
    "wal_init_zero": "is not tuning",
}


def _reason_not_tuning(option: ServerOption, family: str) -> str | None:
    if option.kind == TEXT:
        return "it takes free text (a path, a library, a user, a command or SQL)"
    if option.kind == FLAG:
        return "it is a command-line switch, not a setting"
    if family == MYSQL:
        if option.name in _MARIADB_REFUSED:
            return f"it {_MARIADB_REFUSED[option.name]}"
        for prefix, why in _MARIADB_REFUSED_PREFIXES.items():
            if option.name.startswith(prefix):
                return f"it {why}"
        if any(choice.startswith("force") for choice in option.choices):
            return "it turns a plugin (or a part of one) on or off, not tuning"
        if option.name in _MARIADB_TUNING or option.name.startswith(_MARIADB_ENGINES):
            return None
        return "it is not on the allow-list (memory, flushing, I/O, engine)"
    if option.name in _PG_REFUSED:
        return f"it {_PG_REFUSED[option.name]}"
    if option.context == "internal":
        return "the server fixes it at build"
    if option.name in _PG_TUNING or option.group in _PG_TUNING_GROUPS:
        return None
    return f"its group ({option.group}) is not tuning"


# --- values ----------------------------------------------------------------------------------

_UNSAFE_VALUE = re.compile(r"[/\\'\"`\n\r\x00]")
_MYSQL_NUMBER = re.compile(r"^-?\d+[kmgtpe]?$", re.I)
_PG_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?\s*(?P<unit>b|kb|mb|gb|tb|us|ms|s|min|h|d)?$", re.I)
_REAL = re.compile(r"^-?\d+(?:\.\d+)?(?:e[-+]?\d+)?$", re.I)
_TRUE = {"on", "true", "yes", "1", ""}
_FALSE = {"off", "false", "no", "0"}


def typed_value(option: ServerOption, value: str, family: str) -> tuple[str | None, str]:
    """(the value as the server is given it, "") or (None, why it is refused)."""
    value = value.strip()
    if _UNSAFE_VALUE.search(value) or value.startswith(("~", ".")):
        return None, "its value has a path separator, a quote, a newline or a NUL"
    lowered = value.lower()
    if option.kind == BOOLEAN:
        if lowered in _TRUE or lowered in _FALSE:
            on = lowered in _TRUE
            return ("ON" if on else "OFF") if family == MYSQL else ("on" if on else "off"), ""
        return None, "it is a boolean (ON or OFF)"
    if option.kind == NUMBER:
        found = (_MYSQL_NUMBER if family == MYSQL else _PG_NUMBER).match(lowered)
        if not found:
            return None, "it is a number" + (" or a size (128M)" if family == MYSQL else "")
        if family == POSTGRESQL and not found.group("unit"):
            return _within(option, float(value), value)
        return value, ""
    if option.kind == REAL:
        if not _REAL.match(value):
            return None, "it is a number"
        return _within(option, float(value), value)
    if option.kind == ENUM:
        if not option.choices:
            return None, "the server does not list its choices"
        if lowered not in option.choices:
            return None, f"it is one of {', '.join(option.choices)}"
        return value, ""
    if option.kind == SET:
        items = [item.strip().lower() for item in value.split(",") if item.strip()]
        wrong = [item for item in items if item not in option.choices and "=" not in item]
        if wrong or not all(re.match(r"^[a-z0-9_=]+$", item) for item in items):
            return None, f"its items are among {', '.join(option.choices)}"
        return value, ""
    return None, "it takes free text"


def _within(option: ServerOption, number: float, value: str) -> tuple[str | None, str]:
    if option.minimum is not None and number < option.minimum:
        return None, f"it is at least {option.minimum:g}"
    if option.maximum is not None and number > option.maximum:
        return None, f"it is at most {option.maximum:g}"
    return value, ""


# --- the decision -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    applied: dict[str, str]  # exact name -> typed value
    refused: dict[str, str]  # declared key -> the message naming it
    renamed: dict[str, str] = field(default_factory=dict)  # declared key -> name applied as


def abbreviated(key: str, options: dict[str, ServerOption]) -> list[str]:
    """The options `key` is a prefix of (the server would take a unique one for it)."""
    return sorted(name for name in options if name.startswith(key) and name != key)


def decide(declared: dict[str, str], options: dict[str, ServerOption], family: str) -> Decision:
    applied, refused, renamed = {}, {}, {}
    for key, value in declared.items():
        name, as_value = key, value
        if key not in options and family == MYSQL and key.startswith("skip_"):
            # `skip-x` is MariaDB's way to turn the boolean x off: the same option.
            name, as_value = key.removeprefix("skip_"), "OFF"
            if options.get(name, ServerOption(name, TEXT)).kind != BOOLEAN:
                name, as_value = key, value
        option = options.get(name)
        if option is None:
            refused[key] = f"{key} is refused: {_not_listed(key, options)}."
            continue
        reason = _reason_not_tuning(option, family)
        typed = None
        if reason is None:
            typed, reason = typed_value(option, as_value, family)
        if typed is None:
            refused[key] = f"{key} = {value!r} is refused: {reason}."
            continue
        applied[name] = typed
        if name != key:
            renamed[key] = name
    return Decision(applied, refused, renamed)


def _not_listed(key: str, options: dict[str, ServerOption]) -> str:
    longer = abbreviated(key, options)
    if len(longer) == 1:
        return (
            f"not an option of this server; the server would have taken it as an "
            f"abbreviation of {longer[0]}, and only exact names are applied"
        )
    if longer:
        shown = ", ".join(longer[:5]) + (", ..." if len(longer) > 5 else "")
        return f"not an option of this server; it abbreviates several ({shown})"
    if key.startswith("include"):
        return "an include directive names files; not an option of this server"
    return "not an option this server lists"
