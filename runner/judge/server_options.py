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

from submissions.setup.server_settings import (
    MYSQL,
    PG_UNITS,
    POSTGRESQL,
    BadSize,
    read_config,
    size_in_bytes,
)

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
    # The option this one is another name for (MariaDB's "Alias for x", "Same as x",
    # "Deprecated; use --x instead"): the same server variable; "" for none.
    alias_of: str = ""


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
            alias_of=_mariadb_alias(name, " ".join(text)),
        )
    return _aliases_checked(options)


# How mariadbd's help names another option as the same variable under another name.
_ALIAS = re.compile(
    r"(?:^|\. )(?:Alias for|Same as) (?P<name>[a-z0-9_]+)(?:\.|$| )"
    r"|Deprecated[;,.] [Uu]se --(?P<dashed>[a-z0-9-]+) instead"
)


def _mariadb_alias(name: str, text: str) -> str:
    found = _ALIAS.search(text)
    if not found:
        return ""
    target = (found.group("name") or found.group("dashed")).replace("-", "_")
    return target if target != name else ""


def _aliases_checked(options: dict[str, ServerOption]) -> dict[str, ServerOption]:
    """Keep an alias only where it names an option of the same kind (the help's "Deprecated,
    use --debug-gdb instead" on --gdb is another switch, not another name); of two options
    naming each other (tmp_table_size and tmp_memory_table_size), the one the memory budget
    knows is the name, so only the other stays an alias."""
    checked = {}
    for name, option in options.items():
        target = options.get(option.alias_of)
        keep = target is not None and target.kind == option.kind
        if keep and target.alias_of == name and name in BUDGET_NAMES.get(MYSQL, ()):
            keep = False
        if keep and target.alias_of == name and option.alias_of not in BUDGET_NAMES[MYSQL]:
            keep = name > option.alias_of  # neither known: one name, the first in order
        checked[name] = option if keep else _without_alias(option)
    return checked


def _without_alias(option: ServerOption) -> ServerOption:
    return ServerOption(**{**option.__dict__, "alias_of": ""})


# Memory each server holds once, and memory each connection may hold (its own sort, join,
# read and temporary-table buffers, its stack). Exact names: only those the server lists count.
# The memory budget's (memory_budget.py) counts; here because an alias pair is named by the
# one of them the budget knows, and the option table is read here.
PER_SERVER = {
    MYSQL: [
        "innodb_buffer_pool_size",
        "key_buffer_size",
        "aria_pagecache_buffer_size",
        "innodb_log_buffer_size",
        "query_cache_size",
        "innodb_ft_total_cache_size",
        "myisam_sort_buffer_size",
        "aria_sort_buffer_size",
        "innodb_sort_buffer_size",
        # MyRocks' (its plugin loaded): the block cache and the memtables' total.
        "rocksdb_block_cache_size",
        "rocksdb_db_write_buffer_size",
    ],
    POSTGRESQL: [
        "shared_buffers",
        "wal_buffers",
        "maintenance_work_mem",
        "autovacuum_work_mem",
        # Dynamic shared memory made at start, whatever the queries need.
        "min_dynamic_shared_memory",
    ],
}
PER_CONNECTION = {
    # What a connection allocates as it runs a statement. Limits only reached by rare statements
    # (max_allowed_packet, max_heap_table_size, bulk_insert_buffer_size for MyISAM) are left
    # out: counted for every connection they would call every default server too big; they
    # are held at the server's default instead (UNCOUNTED_MEMORY below).
    MYSQL: [
        "sort_buffer_size",
        "join_buffer_size",
        "read_buffer_size",
        "read_rnd_buffer_size",
        "tmp_table_size",
        "binlog_cache_size",
        "net_buffer_length",
        "thread_stack",
    ],
    # A query's sort and its hash table may each take work_mem (the hash work_mem times
    # hash_mem_multiplier, capped at 2: memory_budget.CAPS).
    POSTGRESQL: ["work_mem", "work_mem", "work_mem", "temp_buffers"],
}
BUDGET_NAMES = {
    family: frozenset(PER_SERVER[family]) | frozenset(PER_CONNECTION[family])
    for family in PER_SERVER
}
# PostgreSQL's old names it still takes (guc.c, map_old_guc_names); its --describe-config does
# not list them.
POSTGRESQL_ALIASES = {"sort_mem": "work_mem", "vacuum_mem": "maintenance_work_mem"}


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
_PG_TIME = re.compile(r"^-?\d+(?:\.\d+)?\s*(?P<unit>us|ms|s|min|h|d)?$")
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
        return _typed_number(option, value, family)
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


def memory_sized(name: str, family: str) -> bool:
    """Whether the option sizes memory the server allocates (the budget counts it, or holds it
    at the server's default: memory_budget.UNCOUNTED), so a negative size is no size."""
    return name in BUDGET_NAMES.get(family, ()) or name in UNCOUNTED_MEMORY.get(family, ())


# Memory-sized options the budget does not count (rare statements' limits, a table's or a
# feature's own cache, address space reserved, not used): a rerun holds each at most at the
# server's default (memory_budget), the memory every default server is started with.
UNCOUNTED_MEMORY = {
    MYSQL: frozenset(
        [
            "binlog_stmt_cache_size",
            "bulk_insert_buffer_size",
            "innodb_buffer_pool_chunk_size",
            "innodb_buffer_pool_size_max",
            "innodb_buffer_pool_size_auto_min",
            "innodb_ft_cache_size",
            "innodb_ft_result_cache_limit",
            "join_buffer_space_limit",
            "max_allowed_packet",
            "max_heap_table_size",
            "mrr_buffer_size",
            "myisam_mmap_size",
            "preload_buffer_size",
            "query_alloc_block_size",
            "query_cache_limit",
            "query_prealloc_size",
            "range_alloc_block_size",
            "transaction_alloc_block_size",
            "transaction_prealloc_size",
            "rocksdb_write_batch_max_bytes",
        ]
    ),
    # Memory of logical decoding only (a rerun's server has no replication).
    POSTGRESQL: frozenset(["logical_decoding_work_mem"]),
}


def _typed_number(option: ServerOption, value: str, family: str) -> tuple[str | None, str]:
    """A whole number, or a size read by the one size grammar (server_settings.size_in_bytes):
    MariaDB takes K M G T P E on any number; PostgreSQL B kB MB GB TB on its size parameters
    (given on in its own unit and case, as the server reads them) and time units on the rest."""
    if family == POSTGRESQL and option.name not in PG_UNITS:
        found = _PG_TIME.match(value)
        if not found:
            return None, "it is a number (a size unit only on a size parameter)"
        if not found.group("unit"):
            return _within(option, float(value), value)
        return value, ""
    try:
        size = size_in_bytes(value, family=family, key=option.name)
    except BadSize as error:
        return None, error.reason
    # PostgreSQL's -1 ("derive it", where its minimum allows it) is the server's own value.
    special = family == POSTGRESQL and option.minimum is not None and option.minimum < 0
    if size < 0 and memory_sized(option.name, family) and not special:
        return None, "a memory size is not negative"
    if family == MYSQL:
        return value, ""
    # The server rounds a size to its own unit and checks its bounds there; it reads units
    # in one case only (64MB, not 64mb), so it is given the unit as it spells it.
    typed, why = _within(option, round(size / PG_UNITS[option.name]), value)
    return (typed, why) if typed is None else (_pg_unit_spelled(value), "")


_PG_SPELLING = {"b": "B", "kb": "kB", "mb": "MB", "gb": "GB", "tb": "TB"}


def _pg_unit_spelled(value: str) -> str:
    found = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value)
    number, unit = found.group(1), found.group(2).lower()
    return number + _PG_SPELLING.get(unit, "")


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


def canonical_name(key: str, options: dict[str, ServerOption], family: str) -> str:
    """The name the server's variable goes by, the one the memory budget knows: an alias
    (tmp_memory_table_size, sort_mem) is mapped to it before anything is decided, so a
    declared alias can never pass beside the scaled setting and override it at start."""
    if family == POSTGRESQL:
        return POSTGRESQL_ALIASES.get(key, key)
    option = options.get(key)
    return option.alias_of if option is not None and option.alias_of in options else key


def decide(declared: dict[str, str], options: dict[str, ServerOption], family: str) -> Decision:
    applied, refused, renamed = {}, {}, {}
    given_as: dict[str, str] = {}  # applied name -> the declared key it came from
    for key, value in declared.items():
        name, as_value = canonical_name(key, options, family), value
        if name not in options and family == MYSQL and key.startswith("skip_"):
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
        earlier = given_as.get(name)
        if earlier is not None and applied[name] != typed:
            # The server takes the last value given for a variable, under either name.
            refused[earlier] = (
                f"{earlier} is not applied: {key}, given after it, sets the same server "
                f"variable ({name}) and the server takes the last value."
            )
            renamed.pop(earlier, None)
        applied[name] = typed
        given_as[name] = key
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


# Sizes known by name, for the upload's check (no server's option table at hand): MariaDB's
# memory sizes and their aliases, every size parameter of PostgreSQL and its old names.
MARIADB_SIZE_ALIASES = {"tmp_memory_table_size": "tmp_table_size"}


def size_names(family: str) -> frozenset[str]:
    if family == POSTGRESQL:
        return frozenset(PG_UNITS) | frozenset(POSTGRESQL_ALIASES)
    if family == MYSQL:
        return BUDGET_NAMES[MYSQL] | UNCOUNTED_MEMORY[MYSQL] | frozenset(MARIADB_SIZE_ALIASES)
    return frozenset()


def unreadable_size(config_text: str, family: str) -> str | None:
    """The first setting of a declared configuration that names a size the one size grammar
    cannot read, as the upload's refusal ("line 3: key_buffer_size = '1X': ..."); None when
    every size reads. A rerun would refuse it too: it is refused where the entrant can fix it."""
    names = size_names(family)
    for setting in read_config(config_text, family).settings:
        if setting.key not in names:
            continue
        try:
            size_in_bytes(setting.value, family=family, key=setting.key)
        except BadSize as error:
            return f"Server configuration line {setting.line}: {error}."
    return None
