"""ValidatePipeline: drop items with no text, so feeds hold only pages with content.

Settings: FORUMCRAWL_DROP_EMPTY (default True). Counts drops as ``forumcrawl/drop/<reason>``; logs
them at INFO (an empty page is expected now and then, not a fault of the crawl).
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem

__all__ = ["ValidatePipeline"]


class ValidatePipeline:
    """Refuses items without a URL, and (by default) items whose text is empty."""

    def __init__(self, crawler: Crawler, *, drop_empty: bool) -> None:
        self.crawler = crawler
        self.drop_empty = drop_empty

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ValidatePipeline:
        return cls(crawler, drop_empty=crawler.settings.getbool("FORUMCRAWL_DROP_EMPTY"))

    def _drop(self, reason: str, url: str) -> DropItem:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"forumcrawl/drop/{reason}")
        return DropItem(f"{reason}: {url}", log_level="INFO")

    def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        url = adapter.get("url") or ""
        if not url:
            raise self._drop("no_url", "<none>")
        if self.drop_empty and not (adapter.get("text") or "").strip():
            raise self._drop("empty", url)
        return item
