"""CSV and XML exporters that keep nested fields readable.

Scrapy's CSV and XML exporters write lists of dataclasses as Python ``repr``. We write one CSV row
per page and JSON-encode nested cells (``posts`` becomes a JSON array of objects), so a spreadsheet
keeps one line per thread page and a program can still read every post back with ``json.loads``;
in XML each post is an element with one child per field, and a missing value an empty element
(not the text ``None``). :func:`forumcrawl.feeds.read_feed` reads both back.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from scrapy.exporters import CsvItemExporter, XmlItemExporter

from forumcrawl.items import plain

__all__ = ["ForumCsvItemExporter", "ForumXmlItemExporter"]


class ForumCsvItemExporter(CsvItemExporter):
    """CSV with lists and mappings written as JSON cells."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)) or dataclasses.is_dataclass(value):
            return json.dumps(plain(value), ensure_ascii=False)
        return super().serialize_field(field, name, value)


class ForumXmlItemExporter(XmlItemExporter):
    """XML with nested dataclasses as elements and None as an empty element."""

    def serialize_field(self, field: Any, name: str, value: Any) -> Any:
        return super().serialize_field(field, name, _blank_none(plain(value)))


def _blank_none(value: Any) -> Any:
    """``value`` with every None, however deep, as an empty string (an empty XML element)."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return {k: _blank_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blank_none(v) for v in value]
    return value
