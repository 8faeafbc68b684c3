"""Feeds that cannot lose items silently.

Scrapy opens a feed file once the crawl runs and logs a traceback per item it cannot write, then
ends the crawl as ``finished``: an unwritable path lost a whole crawl with exit status 0, and two
workers given one file name (``$$`` of one shell) wrote over each other's items. Here:

* :func:`check_feeds` (run before the crawl by ``forumcrawl crawl`` and ``scrapy crawl``) opens
  every local feed file for appending, so a folder that cannot be made or a file that cannot be
  written stops the command at once, and takes an exclusive lock on it for the life of the
  process, so a second crawl writing the same file is refused instead of mixing its lines in;
* :class:`FeedExporter` ends the crawl with reason ``feed_error`` (exit status 1) at the first
  item it cannot write (a full disk);
* ``%(worker)s`` in a feed URI is this process's name, ``<host>-<pid>``, unique among the workers
  of a cluster (``-O 'threads-%(worker)s.jsonl'``): :attr:`forumcrawl.spiders.base.SiteSpider.worker`;
* appending (``-o``) to a non-empty ``.json`` or ``.xml`` file, which would leave a file no reader
  accepts, is refused; appending to a CSV file that has rows leaves out the second header line;
* :func:`read_feed` reads back every format the crawl writes (``forumcrawl report`` read only
  JSON lines).
"""

from __future__ import annotations

import csv
import fcntl
import json
import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlparse

from lxml import etree

from scrapy.extensions.feedexport import FeedExporter as ScrapyFeedExporter
from scrapy.extensions.feedexport import apply_uri_params
from scrapy.utils.defer import deferred_from_coro

from forumcrawl.evaluation import read_jsonl

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.settings import BaseSettings

__all__ = ["FEED_ERROR", "READABLE", "FeedError", "FeedExporter", "check_feeds", "read_feed", "worker_name"]

logger = logging.getLogger(__name__)

#: Finish reason of a crawl stopped because its feed could not be written.
FEED_ERROR = "feed_error"
#: Formats whose file is one document: appending a second crawl's items makes it unreadable.
WHOLE_DOCUMENT_FORMATS = frozenset({"json", "xml"})

#: Locks held on this process's feed files until it exits (see :func:`check_feeds`).
_LOCKS: dict[str, IO[bytes]] = {}


class FeedError(Exception):
    """A feed the crawl cannot write; the message is one line."""


def worker_name() -> str:
    """This process's name among a cluster's workers: ``<host>-<pid>``."""
    return f"{socket.gethostname()}-{os.getpid()}"


def _local_path(uri: str) -> Path | None:
    """The file of a feed URI written to this machine's disk, or None (stdout, remote storage)."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return Path(parsed.path)
    return Path(uri) if not parsed.scheme else None


def _path_of(uri_template: str) -> tuple[Path | None, bool]:
    """The local file a feed URI names (placeholders filled in) and whether it is one fixed file
    for the whole crawl (no time or batch placeholder)."""
    varying = any(p in uri_template for p in ("%(time)", "%(batch_time)", "%(batch_id)"))
    params: dict[str, Any] = {"worker": worker_name(), "time": "time", "batch_time": "time", "batch_id": 1}
    try:
        uri = apply_uri_params(uri_template, _Lenient(params))
    except (TypeError, ValueError) as exc:
        raise FeedError(f"feed {uri_template}: {exc}") from None
    return _local_path(uri), not varying


class _Lenient(dict):  # type: ignore[type-arg]
    """URI parameters that are spider attributes are known only once the spider runs."""

    def __missing__(self, key: str) -> str:
        return key


def check_feeds(settings: BaseSettings) -> None:
    """Raise :class:`FeedError` unless every local feed of ``settings["FEEDS"]`` can be written
    (see the module docstring); lock each fixed feed file for this process."""
    feeds = settings.getdict("FEEDS") or {}
    for uri_template, options in feeds.items():
        path, fixed = _path_of(str(uri_template))
        if path is not None:
            _check_file(path, fixed, options or {})
    if feeds:
        settings.set("FEEDS", feeds, priority=settings.getpriority("FEEDS") or "project")


def _check_file(path: Path, fixed: bool, options: dict[str, Any]) -> None:
    """Open (and, when ``fixed``, lock) one local feed file; adjust ``options`` for appending."""
    fmt = str(options.get("format", "")).lower()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "ab")  # noqa: SIM115  (held open as the lock, until exit)
    except OSError as exc:
        raise FeedError(f"cannot write the feed {path}: {exc.strerror or exc}") from None
    if fixed and path.is_file():
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise FeedError(
                f"the feed {path} is being written by another crawl; give each worker its own "
                "file, e.g. -O 'threads-%(worker)s.jsonl'"
            ) from None
        _LOCKS[str(path)] = handle
    else:
        handle.close()
    if options.get("overwrite", False) or not path.is_file() or not path.stat().st_size:
        return
    if fmt in WHOLE_DOCUMENT_FORMATS:
        raise FeedError(
            f"cannot append to {path}: a {fmt} feed is one document, and a second crawl's items "
            "would make it unreadable; use -O to replace it, or a .jsonl feed"
        )
    if fmt == "csv":
        options.setdefault("item_export_kwargs", {}).setdefault("include_headers_line", False)


class FeedExporter(ScrapyFeedExporter):
    """Scrapy's feed exporter that ends the crawl (reason ``feed_error``) when an item cannot be
    written, instead of logging a traceback per item and finishing as if nothing happened."""

    _failed = False

    def item_scraped(self, item: Any, spider: Spider) -> None:
        try:
            super().item_scraped(item, spider)
        except OSError as exc:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/feed/write_errors")
            if self._failed:
                return
            self._failed = True
            logger.error("cannot write the feed: %s; stopping the crawl", exc, extra={"spider": spider})
            assert self.crawler.engine is not None
            deferred_from_coro(self.crawler.engine.close_spider_async(reason=FEED_ERROR))


#: Fields of our items that are numbers: CSV and XML feeds write every value as text.
_NUMBERS = frozenset({"page", "last_page", "reply_count", "floor", "pages"})
#: Feed formats :func:`read_feed` reads, by file suffix.
READABLE = {".jsonl": "jsonlines", ".jl": "jsonlines", ".json": "json", ".csv": "csv", ".xml": "xml"}


def _typed(name: str, value: Any) -> Any:
    """A CSV or XML value back in its type: nested fields from their JSON cell, numbers."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("[", "{"):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return value
        if name in _NUMBERS and text.isdigit():
            return int(text)
        if value == "" and name in _NUMBERS:
            return None
    return value


def _xml_value(element: etree._Element) -> Any:
    children = list(element)
    if not children:
        return _typed(element.tag, element.text or "")
    if all(child.tag == "value" for child in children):
        return [_xml_value(child) for child in children]
    return {child.tag: _xml_value(child) for child in children}


def read_feed(path: Path) -> Iterator[dict[str, Any]]:
    """The items of a feed file the crawl wrote, in any of its formats (by suffix: ``.jsonl``,
    ``.json``, ``.csv``, ``.xml``); a ValueError names a file that cannot be read as such."""
    fmt = READABLE.get(path.suffix.lower(), "jsonlines")
    if fmt == "jsonlines":
        for _, item in read_jsonl(path):
            yield item
        return
    try:
        if fmt == "json":
            items = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                raise ValueError(f"{path}: not a JSON array of objects")
            yield from items
        elif fmt == "csv":
            with path.open(encoding="utf-8", newline="") as handle:
                for row in csv.DictReader(handle):
                    yield {name: _typed(name, value) for name, value in row.items()}
        else:
            root = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
            for element in root.iterchildren("item"):
                value = _xml_value(element)
                yield value if isinstance(value, dict) else {}
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, etree.XMLSyntaxError, csv.Error) as exc:
        raise ValueError(f"{path}: not a readable {fmt} feed: {exc}") from exc
