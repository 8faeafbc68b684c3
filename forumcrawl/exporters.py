"""A CSV exporter that keeps nested fields readable.

Scrapy's CSV exporter writes lists of dataclasses as Python ``repr``. We write one row per page
and JSON-encode nested cells (``posts`` becomes a JSON array of objects), so a spreadsheet keeps
one line per thread page and a program can still read every post back with ``json.loads``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from scrapy.exporters import CsvItemExporter

__all__ = ["ForumCsvItemExporter", "plain"]


def plain(value: Any) -> Any:
    """``value`` with dataclasses turned into dicts, recursively (JSON-ready)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class ForumCsvItemExporter(CsvItemExporter):
    """CSV with lists and mappings written as JSON cells."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)) or dataclasses.is_dataclass(value):
            return json.dumps(plain(value), ensure_ascii=False)
        return super().serialize_field(field, name, value)
