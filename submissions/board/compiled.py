"""A board's queries compiled once per process.

A board page built cold spent about as long having the ORM build and compile its queries
(cloning querysets, resolving a Case over thirty columns and a join, the ORDER BY of the
ranking) as PostgreSQL spent running them. A board's SQL depends only on what it is asked
(the contest, the track, the sort, the filters, the slice), never on the board's version or
its entries, so the SQL and its parameters are kept under a key holding all of that, and a
page asked again after a new entry runs the same statement without building it again. The
values are read as `QuerySet.values()` reads them: the same names, each column through the
same converters (booleans and JSON on SQLite, for one)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import Model, QuerySet

# Contests x sorts x filters x pages: the last ones asked are kept (a few KiB each).
KEPT_QUERIES = 512


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


_kept: OrderedDict[Hashable, CompiledValues] = OrderedDict()
_lock = threading.Lock()


def compiled_values(key: Hashable, build: Callable[[], QuerySet]) -> CompiledValues:
    """The compiled form of `build()` (a `values()` queryset), built once per `key`: the key
    must hold everything the queryset's SQL depends on."""
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    found = _compile(build())
    with _lock:
        _kept[key] = found
        while len(_kept) > KEPT_QUERIES:
            _kept.popitem(last=False)
    return found


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
    connection = connections[compiled.using]
    with connection.cursor() as cursor:
        cursor.execute(compiled.sql, compiled.params)
        rows = cursor.fetchall()
    if compiled.columns is not None:
        rows = [row[: compiled.columns] for row in rows]
    if not compiled.converters:
        return rows
    converted = []
    for row in rows:
        row = list(row)
        for position, functions, expression in compiled.converters:
            value = row[position]
            for function in functions:
                value = function(value, expression, connection)
            row[position] = value
        converted.append(row)
    return converted


def values_of(compiled: CompiledValues) -> list[dict]:
    """The rows of a compiled query, as `values()` gives them."""
    names = compiled.names
    return [dict(zip(names, row, strict=True)) for row in _rows(compiled)]


def compiled_instances(key: Hashable, build: Callable[[], QuerySet]) -> CompiledValues:
    """The compiled form of `build()`, a plain query of one model's rows (no select_related,
    annotations or deferred fields), built once per `key`."""
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    found = _compile_instances(build())
    with _lock:
        _kept[key] = found
        while len(_kept) > KEPT_QUERIES:
            _kept.popitem(last=False)
    return found


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
    model, names, using = compiled.model, compiled.names, compiled.using
    return [model.from_db(using, names, row) for row in _rows(compiled)]


def sql_of(key: Hashable, build: Callable[[], QuerySet]) -> tuple[str, tuple]:
    """The SQL and parameters of `build()`, compiled once per `key`, for a caller that wraps
    it in a statement of its own (it must not match nothing)."""
    compiled = compiled_values(key, build)
    if compiled.sql is None:
        raise EmptyResultSet
    return compiled.sql, compiled.params


def forget_compiled() -> None:
    """Empties what this process keeps (tests)."""
    with _lock:
        _kept.clear()
