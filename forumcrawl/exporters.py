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

from forumcrawl.items import plain

__all__ = ["ForumCsvItemExporter"]


class ForumCsvItemExporter(CsvItemExporter):
    """CSV with lists and mappings written as JSON cells."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)) or dataclasses.is_dataclass(value):
            return json.dumps(plain(value), ensure_ascii=False)
        return super().serialize_field(field, name, value)
