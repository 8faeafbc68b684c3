"""Rows the commands print for other programs: JSON Lines or TSV, nothing cut.

The ``table`` output of ``links`` and ``urls`` is for a terminal and shortens long values to keep
its columns; ``--format jsonl`` and ``--format tsv`` write every value whole, one record a line.
"""

from __future__ import annotations

import argparse
import json
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

__all__ = ["FORMATS", "add_format_option", "fit", "write_rows"]

FORMATS = ("table", "tsv", "jsonl")


def add_format_option(parser: argparse.ArgumentParser, table: str, rows: str) -> None:
    """``--format table|tsv|jsonl``, saying what the table and the rows hold."""
    parser.add_argument(
        "--format", choices=FORMATS, default="table",
        help=f"table (default, for reading): {table}; tsv or jsonl: {rows}, nothing cut (the "
        "summary goes to standard error)",
    )


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def fit(text: str, width: int) -> str:
    """``text`` cut (with "…") and padded to ``width`` terminal columns: a Chinese character
    takes two, so a table of Chinese anchors keeps its columns."""
    text = " ".join(text.split())
    if sum(map(_columns, text)) > width:
        used, kept = 1, []
        for ch in text:
            if used + _columns(ch) > width:
                break
            used += _columns(ch)
            kept.append(ch)
        text = "".join(kept) + "…"
    return text + " " * (width - sum(map(_columns, text)))


def _tsv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    # a tab or line break inside a value would shift the columns
    return " ".join(str(value).split())


def write_rows(rows: Iterable[Mapping[str, Any]], fmt: str, out: TextIO) -> None:
    """Write flat records as ``jsonl`` (one object a line) or ``tsv`` (a header, then the rows)."""
    header: list[str] | None = None
    for row in rows:
        if fmt == "jsonl":
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            continue
        if header is None:
            header = list(row)
            out.write("\t".join(header) + "\n")
        out.write("\t".join(_tsv_cell(row.get(name)) for name in header) + "\n")
