"""ItemLimitPipeline: ``CLOSESPIDER_ITEMCOUNT`` as an exact number of exported items.

Scrapy's CloseSpider extension starts closing the spider when the count is reached, but the pages
already downloaded still yield their items: ``CLOSESPIDER_ITEMCOUNT=10`` exported 24. This last
pipeline lets the first N items through and drops the rest (stat ``forumcrawl/drop/over_limit``).
In a cluster the page of a dropped item is not acknowledged: its lease expires and another crawl
exports it.
"""

from __future__ import annotations

from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured

__all__ = ["ItemLimitPipeline", "ItemLimitReached"]


class ItemLimitReached(DropItem):
    """An item past CLOSESPIDER_ITEMCOUNT: not exported here, so not done for a cluster either."""


class ItemLimitPipeline:
    """Passes at most CLOSESPIDER_ITEMCOUNT items (off when it is 0)."""

    def __init__(self, crawler: Crawler, limit: int) -> None:
        self.crawler = crawler
        self.limit = limit
        self.passed = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ItemLimitPipeline:
        limit = crawler.settings.getint("CLOSESPIDER_ITEMCOUNT")
        if limit <= 0:
            raise NotConfigured  # no reason given: Scrapy would log it as a warning on every crawl
        return cls(crawler, limit)

    def process_item(self, item: Any) -> Any:
        if self.passed >= self.limit:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/drop/over_limit")
            raise ItemLimitReached(f"CLOSESPIDER_ITEMCOUNT ({self.limit}) reached", log_level="DEBUG")
        self.passed += 1
        return item
