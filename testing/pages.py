"""Reading pages the way a person does: the text of a table's rows, a link's target."""

from __future__ import annotations

from html.parser import HTMLParser


class _TableReader(HTMLParser):
    def __init__(self, table_class: str):
        super().__init__()
        self.table_class = table_class
        self.depth = 0  # >0 inside the wanted table
        self.in_body = False
        self.rows: list[dict] = []
        self.cell: list[str] | None = None
        self.done = False
        # Inside a row's share of the best (span.relative): kept apart as row["relative"], so
        # a cell's text is its figure alone.
        self.relative_spans = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "table" and not self.done:
            if self.depth:
                self.depth += 1
            elif self.table_class in (attributes.get("class") or "").split():
                self.depth = 1
        if not self.depth:
            return
        relative = self.relative_spans or "relative" in (attributes.get("class") or "").split()
        if tag == "span" and self.cell is not None and relative:
            self.relative_spans += 1
            return
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append(
                {"class": attributes.get("class") or "", "cells": [], "links": [], "relative": ""}
            )
        elif tag in ("td", "th") and self.in_body and self.rows:
            self.cell = []
        elif tag == "a" and self.rows and self.in_body:
            self.rows[-1]["links"].append(attributes.get("href"))
        elif tag == "input" and self.rows and self.in_body and attributes.get("name") == "ids":
            self.rows[-1]["pick"] = attributes.get("value")

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "span" and self.relative_spans:
            self.relative_spans -= 1
            return
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1]["cells"].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tbody":
            self.in_body = False
        elif tag == "table":
            self.depth -= 1
            self.done = not self.depth

    def handle_data(self, data):
        if self.relative_spans:
            self.rows[-1]["relative"] += " ".join(data.split())
        elif self.cell is not None:
            self.cell.append(data)


def table_rows(html: str, table_class: str) -> list[dict]:
    """The body rows of the first table with that class: {"class", "cells", "links", "pick"}."""
    reader = _TableReader(table_class)
    reader.feed(html)
    return reader.rows


def board_rows(response) -> list[list[str]]:
    """The ranking table's rows as their cells' text, without the compare checkbox column."""
    return [row["cells"][1:] for row in table_rows(response.content.decode(), "ranking")]


def board_shares(response) -> list[str]:
    """Each ranking row's share of the best as it reads ("0.50x of the best", with a
    multiplication sign; "" for none)."""
    return [row["relative"] for row in table_rows(response.content.decode(), "ranking")]


def not_ranked_rows(response) -> list[list[str]]:
    return [row["cells"][1:] for row in table_rows(response.content.decode(), "not-ranked")]
