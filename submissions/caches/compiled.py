"""A board's queries compiled once per process.

A board page built cold spent about as long having the ORM build and compile its queries
(cloning querysets, resolving a Case over thirty columns and a join, the ORDER BY of the
ranking) as PostgreSQL spent running them. A board's SQL depends only on what it is asked
(the contest, the track, the sort, the filters, the slice), never on the board's version or
its entries, so the SQL and its parameters are kept under a key holding all of that, and a
page asked again after a new entry runs the same statement without building it again. The
values are read as `QuerySet.values()` reads them: the same names, each column through the
same converters (booleans and JSON on SQLite, for one).

A page built cold made eight round trips to the database where a bare query of its rows makes
two, and on a busy machine each waits for the server's turn. The reads that depend only on
the contest (its row, its reference rows, its latest rules, its live runs, its engines) are
therefore sent at once on PostgreSQL, in one pipeline (`reading_ahead`), once compiled; each
is then taken by its own reader, which reads as before when it finds nothing read ahead. The
statements a page's last build read besides, those that depend on the first reads (the
reference rows' placement, with their figures as parameters) or on the request (the board's
first rows), go in the same pipeline: a board page built cold is the version's look-up and
one round trip. A statement read ahead is used only while it is still the one asked for."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from datetime import datetime

import psycopg
from django.core.exceptions import EmptyResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.db.models import Model, QuerySet

TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid
TEXT = psycopg.pq.Format.TEXT
# Contests x sorts x filters x pages: the last ones asked are kept (a few KiB each).
KEPT_QUERIES = 512
# Django turns psycopg's preparing off (prepare_threshold None, for connection poolers, which
# this project does not put between itself and PostgreSQL): then not even `prepare=True`
# prepares. With this threshold a statement executed with `prepare=True` is prepared at once
# and the ORM's (client-binding cursors) never are.
ONLY_WHEN_ASKED = 1 << 62


def preparing(driver: psycopg.Connection) -> psycopg.Connection:
    """The driver's connection, on which a statement executed with `prepare=True` is parsed
    and planned by PostgreSQL once per connection (then run from its plan)."""
    if driver.prepare_threshold is None:
        driver.prepare_threshold = ONLY_WHEN_ASKED
    return driver


@dataclass(frozen=True)
class CompiledValues:
    """A `values()` query, compiled: None as `sql` when it can match nothing."""

    sql: str | None
    params: tuple
    names: tuple[str, ...]
    converters: tuple  # (position, converter functions, expression)
    using: str
    columns: int | None = None  # the row's columns to keep, when the ORDER BY added some
    model: type[Model] | None = None  # instances of a plain query of one model
    key: Hashable = None
    # What `reading_ahead`'s `learn` keeps of a build: not a statement run for one entry
    # (`for_id`), whose kept form holds the placeholder.
    learned: bool = True


_kept: OrderedDict[Hashable, CompiledValues] = OrderedDict()
_lock = threading.Lock()


def compiled_values(key: Hashable, build: Callable[[], QuerySet]) -> CompiledValues:
    """The compiled form of `build()` (a `values()` queryset), built once per `key`: the key
    must hold everything the queryset's SQL depends on."""
    return _kept_or(key, lambda: _compile(build()))


def _kept_or(
    key: Hashable,
    make: Callable[[], CompiledValues],
    still: Callable[[CompiledValues], bool] = lambda found: True,
) -> CompiledValues:
    """The statement kept under `key` (the most recently asked kept longest), else `make()`'s,
    kept from now on; `still`: whether the kept one still answers what is asked."""
    with _lock:
        found = _kept.get(key)
        if found is not None and still(found):
            _kept.move_to_end(key)
            return found
    return _keep(key, make())


def _keep(key: Hashable, compiled: CompiledValues) -> CompiledValues:
    compiled = dataclasses.replace(compiled, key=key)
    with _lock:
        _kept[key] = compiled
        while len(_kept) > KEPT_QUERIES:
            _kept.popitem(last=False)
    return compiled


def compiled_sql(key: Hashable, sql: str, params: tuple, names: tuple[str, ...]) -> CompiledValues:
    """A statement written as SQL, kept like a compiled one (so it can be read ahead)."""
    return _kept_or(
        key,
        lambda: CompiledValues(sql, params, names, (), DEFAULT_DB_ALIAS),
        still=lambda found: found.sql == sql and found.params == params,
    )


def _compile(queryset: QuerySet) -> CompiledValues:
    query = queryset.query
    compiler = query.get_compiler(queryset.db)
    if query.selected:
        names = tuple(query.selected)
    else:
        names = (*query.extra_select, *query.values_select, *query.annotation_select)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return CompiledValues(None, (), names, (), queryset.db)
    fields = [select[0] for select in compiler.select[0 : compiler.col_count]]
    converters = tuple(
        (position, tuple(functions), expression)
        for position, (functions, expression) in compiler.get_converters(fields).items()
    )
    columns = compiler.col_count if compiler.has_extra_select else None
    return CompiledValues(sql, tuple(params), names, converters, queryset.db, columns)


def _rows(compiled: CompiledValues) -> list:
    if compiled.sql is None:
        return []
    if compiled.learned:
        _record(compiled.key)
    ahead = getattr(_ahead, "rows", None)
    return _converted(compiled, ahead.pop(compiled.key, None) if ahead is not None else None)


def _converted(compiled: CompiledValues, read) -> list:
    """The rows of `compiled`, from `read` ((sql, params), rows) when it read the same
    statement, else read now; converted as `values()` converts them."""
    if compiled.sql is None:
        return []
    connection = connections[compiled.using]
    if read is not None and read[0] == (compiled.sql, compiled.params):
        rows = read[1]
    else:
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, compiled.params)
            rows = cursor.fetchall()
    if compiled.columns is not None:
        rows = [row[: compiled.columns] for row in rows]
    if not compiled.converters:
        return rows
    converted = [list(row) for row in rows]
    for position, functions, expression in compiled.converters:
        # A column's values repeat down a board (the same JSON figures, "{}" on a classic
        # board): each distinct value is converted once a read, and a row gets its own copy
        # of a dict or list, never another row's.
        seen: dict = {}
        for row in converted:
            value = row[position]
            try:
                found = seen.get(value, _MISSING)
            except TypeError:  # not hashable: converted each time
                found = _MISSING
            if found is _MISSING:
                found = value
                for function in functions:
                    found = function(found, expression, connection)
                with contextlib.suppress(TypeError):
                    seen[value] = found
            row[position] = _own(found)
    return converted


_MISSING = object()


def _own(value):
    return dict(value) if type(value) is dict else list(value) if type(value) is list else value


def rows_of(compiled: CompiledValues) -> list:
    """The rows of a compiled statement, as tuples or lists."""
    return _rows(compiled)


def rows_prepared(compiled: CompiledValues) -> list:
    """`rows_of`, the statement prepared on PostgreSQL when it is not read ahead: planned once
    per connection, then run from its plan (a join of a few tables planned longer than it
    ran). Elsewhere read as `rows_of` reads it."""
    ahead = getattr(_ahead, "rows", None)
    read = ahead.pop(compiled.key, None) if ahead is not None else None
    if read is None and compiled.sql is not None:
        read = _run_at_once([compiled], single=True).get(compiled.key)
    return _converted(compiled, read)


def values_of(compiled: CompiledValues) -> list[dict]:
    """The rows of a compiled query, as `values()` gives them."""
    names = compiled.names
    return [dict(zip(names, row, strict=True)) for row in _rows(compiled)]


def values_at_once(querysets: list[QuerySet], ahead: list[CompiledValues] = ()) -> list[list]:
    """The rows of several `values_list()` querysets, as tuples (or lists) of their columns,
    read in one round trip on PostgreSQL (a pipeline, as `reading_ahead` reads), one after
    another elsewhere. Compiled at each call and never kept: for the statements of a page
    that depend on the moment (what is published by now), which no key could keep. `ahead`:
    kept statements sent in the same round trip, each taken by its next read within the
    enclosing `reading_ahead` block (as `read_now` sends them)."""
    return [rows for _, rows in _at_once(querysets, ahead, _compile)]


def instances_at_once(querysets: list[QuerySet], ahead: list[CompiledValues] = ()) -> list[list]:
    """`values_at_once` for plain querysets of one model's rows (as `compiled_instances`
    compiles them): each a list of its model's instances."""
    return [
        _instances(statement, rows)
        for statement, rows in _at_once(querysets, ahead, _compile_instances)
    ]


def _at_once(querysets, ahead, compile_one) -> list[tuple[CompiledValues, list]]:
    statements = [
        dataclasses.replace(compile_one(queryset), key=("at once", index))
        for index, queryset in enumerate(querysets)
    ]
    rows = getattr(_ahead, "rows", None)
    ahead = [each for each in ahead if rows is not None and not _read(rows, each)]
    read = _run_at_once([*statements, *ahead])
    if rows is not None:
        rows.update({each.key: read[each.key] for each in ahead if each.key in read})
    return [(statement, _converted(statement, read.get(statement.key))) for statement in statements]


def _instances(compiled: CompiledValues, rows: list) -> list:
    model, names, using = compiled.model, compiled.names, compiled.using
    return [model.from_db(using, names, row) for row in rows]


def compiled_instances(key: Hashable, build: Callable[[], QuerySet]) -> CompiledValues:
    """The compiled form of `build()`, a plain query of one model's rows (no select_related,
    annotations or deferred fields), built once per `key`."""
    return _kept_or(key, lambda: _compile_instances(build()))


def _compile_instances(queryset: QuerySet) -> CompiledValues:
    query = queryset.query
    if (
        query.select_related
        or query.annotation_select
        or query.extra_select
        or query.deferred_loading[0]
    ):
        raise ValueError("only a plain query of one model's rows is compiled into instances")
    compiler = query.get_compiler(queryset.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return CompiledValues(None, (), (), (), queryset.db, model=queryset.model)
    fields = compiler.klass_info["select_fields"]
    start, end = fields[0], fields[-1] + 1
    names = tuple(select[0].target.attname for select in compiler.select[start:end])
    selected = [select[0] for select in compiler.select[0 : compiler.col_count]]
    converters = tuple(
        (position, tuple(functions), expression)
        for position, (functions, expression) in compiler.get_converters(selected).items()
    )
    columns = compiler.col_count if compiler.has_extra_select else None
    return CompiledValues(
        sql, tuple(params), names, converters, queryset.db, columns, model=queryset.model
    )


def instances_of(compiled: CompiledValues) -> list:
    """The model instances of a compiled plain query, as iterating its queryset makes them."""
    return _instances(compiled, _rows(compiled))


def sql_of(key: Hashable, build: Callable[[], QuerySet]) -> tuple[str, tuple]:
    """The SQL and parameters of `build()`, compiled once per `key`, for a caller that wraps
    it in a statement of its own (it must not match nothing)."""
    compiled = compiled_values(key, build)
    if compiled.sql is None:
        raise EmptyResultSet
    return compiled.sql, compiled.params


# Where an entry's id goes in a statement compiled once for every entry (`for_id`): no row has it.
PLACEHOLDER_ID = -7_346_581_229


def for_id(compiled: CompiledValues, pk: int) -> CompiledValues:
    """`compiled`, built with PLACEHOLDER_ID where an entry's id goes, run for entry `pk`: one
    statement compiled per process, whatever the entry (not one kept per entry, which would
    push the boards' statements out)."""
    return for_values(compiled, {PLACEHOLDER_ID: pk})


def for_values(compiled: CompiledValues, values: dict) -> CompiledValues:
    """`compiled`, built with placeholders (values no row holds: PLACEHOLDER_ID, a moment long
    past) where its parameters go, run with `values` ({placeholder: value}) in their places."""
    return dataclasses.replace(
        compiled, params=tuple(_put(param, values) for param in compiled.params), learned=False
    )


def _put(param, values: dict):
    if isinstance(param, int) and not isinstance(param, bool) and param in values:
        # A bigint column's value comes wrapped (psycopg's Int8, an int): it stays so.
        value = values[param]
        return value if type(param) is int or value is None else type(param)(value)
    if isinstance(param, datetime) and param in values:
        return values[param]
    return param


def forget_compiled() -> None:
    """Empties what this process keeps (tests)."""
    with _lock:
        _kept.clear()


_ahead = threading.local()
# What the builds of a page read, by page (`reading_ahead`'s `learn`): the last few hundred.
LEARNED_PAGES = 256
_learned: OrderedDict[Hashable, tuple[Hashable, ...]] = OrderedDict()


@contextlib.contextmanager
def reading_ahead(keys: list[Hashable], *, learn: Hashable = None) -> Iterator[None]:
    """Within the block, the statements of `keys` that are compiled already have been run
    at once: on PostgreSQL, in one pipeline (one round trip) at its start. Each is taken by
    the next read of its key, if it is still the statement that was read; what the block did
    not take is dropped at its end, never served to a later read. Elsewhere (SQLite, a single
    statement) nothing is read ahead. `learn`: what the page being built is known by (its
    URL, without the board version): the statements its last build read, those that depend
    on its first reads too (the placement of the reference rows, the first rows of the
    board), are read with `keys` at the start, and what this build reads is kept for the
    next one."""
    outer = getattr(_ahead, "rows", None)
    rows = {} if outer is None else outer  # a block within another adds to its reads
    if learn is not None:
        with _lock:
            keys = [*keys, *_learned.get(learn, ())]
    rows.update(_read_at_once([key for key in dict.fromkeys(keys) if key not in rows]))
    _ahead.rows = rows
    recorders = getattr(_ahead, "recorders", None)
    if recorders is None:
        recorders = _ahead.recorders = []
    read: dict[Hashable, None] = {}
    if learn is not None:
        recorders.append(read)
    try:
        yield
    finally:
        if outer is None:
            _ahead.rows = None
        if learn is not None:
            recorders.remove(read)
            with _lock:
                _learned[learn] = tuple(read)
                _learned.move_to_end(learn)
                while len(_learned) > LEARNED_PAGES:
                    _learned.popitem(last=False)


def _record(key: Hashable) -> None:
    for read in getattr(_ahead, "recorders", ()):
        read[key] = None


def read_now(statements: list[CompiledValues]) -> None:
    """Within a `reading_ahead` block: these statements (compiled or written) run at once,
    on PostgreSQL in one pipeline; each is taken by the next read of its key in the block.
    Outside a block, or elsewhere than PostgreSQL, nothing is read."""
    rows = getattr(_ahead, "rows", None)
    if rows is not None:
        rows.update(_run_at_once([each for each in statements if not _read(rows, each)]))


def _read(rows: dict, statement: CompiledValues) -> bool:
    """Whether `rows` hold what `statement` reads (read ahead, by the same SQL)."""
    found = rows.get(statement.key)
    return found is not None and found[0] == (statement.sql, statement.params)


def _read_at_once(keys: list[Hashable]) -> dict:
    with _lock:
        statements = [_kept[key] for key in keys if key in _kept]
    return _run_at_once(statements)


def _run_at_once(statements: list[CompiledValues], *, single: bool = False) -> dict:
    """The statements' rows by key, read in one pipeline on PostgreSQL, each prepared; nothing
    elsewhere, nor for a single statement unless `single`."""
    connection = connections[DEFAULT_DB_ALIAS]
    statements = [
        each for each in statements if each.sql is not None and each.using == DEFAULT_DB_ALIAS
    ]
    if connection.vendor != "postgresql" or len(statements) < (1 if single else 2):
        return {}
    # As Django's own cursor does: a connection the server dropped is replaced first.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    started = time.monotonic()
    rows = {}
    with connection.wrap_database_errors:
        driver = preparing(connection.connection)
        cursors = []
        with driver.pipeline():
            for statement in statements:
                cursor = psycopg.Cursor(driver)
                if connection.timezone != driver.adapters.get_loader(TIMESTAMPTZ, TEXT).timezone:
                    register_tzloader(connection.timezone, cursor)  # as Django's cursor does
                # A board's statements are the same at every build: planned once (the
                # planning cost more than the running of most of them).
                cursor.execute(statement.sql, statement.params, prepare=True)
                cursors.append((statement, cursor))
        for statement, cursor in cursors:
            rows[statement.key] = ((statement.sql, statement.params), cursor.fetchall())
            cursor.close()
    if connection.queries_logged:  # as Django's cursor would: tests count the queries
        took = f"{time.monotonic() - started:.3f}"
        connection.queries_log.extend(
            {"sql": f"{statement.sql} -- {statement.params!r}", "time": took}
            for statement in statements
        )
    return rows
