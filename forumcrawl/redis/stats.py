"""Cluster-wide stats: scrapy-redis's RedisStatsCollector idea, without a round trip per stat call.

scrapy-redis keeps every stat only in Redis, so each ``inc_value`` (dozens per page) is two or
three blocking round trips, and a worker's ``close_spider`` deletes the cluster's stats unless
SCHEDULER_PERSIST. Here stats stay local (as Scrapy's collector) and the increments of counters
are added to the HASH ``STATS_KEY`` (``<spider>:stats``) from a thread every
:data:`FLUSH_SECONDS`, in one pipeline, and once more on closing; ``forumcrawl cluster status``
reads that HASH. Values that are not counters (times, reasons) stay per worker.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

from scrapy.statscollectors import MemoryStatsCollector
from twisted.internet.task import LoopingCall
from twisted.internet.threads import deferToThread

from forumcrawl.redis.keys import REDIS_ERRORS, ClusterKeys, client_from_settings

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from twisted.python.failure import Failure

__all__ = ["FLUSH_SECONDS", "ClusterStatsCollector"]

logger = logging.getLogger(__name__)

#: Seconds between writes of the counters' increments to Redis.
FLUSH_SECONDS = 1.0


class ClusterStatsCollector(MemoryStatsCollector):
    """Scrapy's stats, with counters also summed over the cluster in Redis (STATS_CLASS)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        assert crawler.spidercls is not None
        self.client = client_from_settings(crawler.settings)
        self.key = ClusterKeys.from_settings(crawler.settings, crawler.spidercls.name).stats
        self._pending: Counter[str] = Counter()
        self._writing = False
        self._loop: LoopingCall | None = None

    def inc_value(self, key: str, count: int = 1, start: int = 0, spider: Spider | None = None) -> None:
        super().inc_value(key, count, start)
        if isinstance(count, int):
            self._pending[key] += count

    def open_spider(self, spider: Spider | None = None) -> None:
        # built here: LoopingCall takes the reactor, which is installed after stats are created
        self._loop = LoopingCall(self._flush)
        self._loop.start(FLUSH_SECONDS, now=False)

    def close_spider(self, spider: Spider | None = None, reason: str | None = None) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        try:
            self._write(self._take())
        except REDIS_ERRORS as exc:
            logger.warning("cluster stats not written: %s", exc)
        super().close_spider(reason=reason)

    def _take(self) -> dict[str, int]:
        pending, self._pending = dict(self._pending), Counter()
        return pending

    def _write(self, increments: dict[str, int]) -> None:
        if not increments:
            return
        pipe = self.client.pipeline(transaction=False)
        for key, count in increments.items():
            pipe.hincrby(self.key, key, count)
        pipe.execute()

    def _flush(self) -> None:
        if self._writing or not self._pending:
            return
        increments = self._take()
        self._writing = True
        deferToThread(self._write, increments).addBoth(self._written, increments)

    def _written(self, result: Failure | None, increments: dict[str, int]) -> None:
        self._writing = False
        if result is not None and result.check(*REDIS_ERRORS):
            self._pending.update(increments)  # written with the next flush, once Redis is back
        elif result is not None:
            logger.error("cluster stats not written: %s", result.getTraceback())
