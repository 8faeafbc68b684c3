"""Scrapy extension: the crawl's stats written as JSON when it ends (``FORUMCRAWL_STATS_FILE``).

Scrapy prints its stats to the log, where no program reads them. ``forumcrawl report --stats``
needs what only the crawl knows — requests made, failures, start and end — beside the feed, so a
crawl given a file name writes them there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

__all__ = ["StatsFile"]


class StatsFile:
    """Writes the crawl's stats to a JSON file once the spider has closed."""

    def __init__(self, crawler: Crawler, path: Path) -> None:
        self.crawler = crawler
        self.path = path

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StatsFile:
        name = crawler.settings.get("FORUMCRAWL_STATS_FILE")
        if not name:
            raise NotConfigured
        extension = cls(crawler, Path(name))
        # after the stats collector has set finish_time and finish_reason (its own spider_closed)
        crawler.signals.connect(extension.engine_stopped, signal=signals.engine_stopped)
        return extension

    def engine_stopped(self) -> None:
        stats: dict[str, Any] = self.crawler.stats.get_stats() if self.crawler.stats else {}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(stats, default=str, indent=1, sort_keys=True, ensure_ascii=False),
                             encoding="utf-8")
