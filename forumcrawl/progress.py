"""A live progress line on the terminal for ``forumcrawl crawl``.

A crawl of a real forum runs for hours; Scrapy's log says how many pages a minute, not how many
threads and posts are in the feed yet, nor how much is left. This extension redraws one line on
stderr every second from the crawl's stats and signals — pages fetched, items (thread pages or
articles) and posts exported, requests left in the queue, pages per second — and only when stderr
is a terminal, so logs and pipes are unchanged. Log lines erase the progress line before they are
written; the next tick draws it again under them.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any, TextIO

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

__all__ = ["ProgressLine"]

#: Seconds between redraws.
INTERVAL = 1.0
_ERASE = "\r\x1b[K"
#: What each spider's items are, for the line.
_KINDS = {"forum": "thread pages", "news": "articles"}


class ProgressLine:
    """Scrapy extension: one self-updating status line on a terminal's stderr."""

    def __init__(self, crawler: Crawler, stream: TextIO) -> None:
        self.crawler = crawler
        self.stream = stream
        self.posts = 0
        self.started = time.monotonic()
        self.shown = False
        self.task: Any = None
        self._handlers: list[logging.Handler] = []

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProgressLine:
        if not sys.stderr.isatty():
            raise NotConfigured  # no reason given: Scrapy would log it as a warning
        extension = cls(crawler, sys.stderr)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.item_scraped, signal=signals.item_scraped)
        # the final line after the spider's closing lines (the pages that failed, the stats)
        crawler.signals.connect(extension.engine_stopped, signal=signals.engine_stopped)
        return extension

    def spider_opened(self) -> None:
        self.started = time.monotonic()
        for handler in logging.root.handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is self.stream:
                handler.addFilter(self._erase_before_log)
                self._handlers.append(handler)
        self.task = create_looping_call(self.draw)
        self.task.start(INTERVAL)

    def item_scraped(self, item: Any) -> None:
        self.posts += len(ItemAdapter(item).get("posts") or ())

    def status(self) -> str:
        """The line as it stands: what was fetched, exported and left, and the rate."""
        stats = self.crawler.stats
        assert stats is not None
        pages = stats.get_value("response_received_count", 0)
        items = stats.get_value("item_scraped_count", 0)
        queued = stats.get_value("scheduler/enqueued", 0) - stats.get_value("scheduler/dequeued", 0)
        rate = pages / max(time.monotonic() - self.started, 1e-9)
        name = getattr(self.crawler.spider, "name", "")
        kind = _KINDS.get(name.removesuffix("_redis"), "items")
        exported = f"{items} {kind}, {self.posts} posts" if self.posts else f"{items} {kind}"
        return f"{pages} pages fetched | {exported} exported | {queued} queued | {rate:.1f} pages/s"

    def draw(self) -> None:
        self.stream.write(f"{_ERASE}{self.status()}")
        self.stream.flush()
        self.shown = True

    def _erase_before_log(self, record: logging.LogRecord) -> bool:
        if self.shown:
            self.stream.write(_ERASE)
            self.shown = False
        return True

    def engine_stopped(self) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        for handler in self._handlers:
            handler.removeFilter(self._erase_before_log)
        self.stream.write(f"{_ERASE}{self.status()}\n")
        self.stream.flush()
