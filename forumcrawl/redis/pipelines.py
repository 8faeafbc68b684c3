"""Item pipelines of a cluster: content dedup shared by all workers, and items kept in Redis."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured

from forumcrawl.pipelines.dedup import DedupPipeline, content_fingerprint
from forumcrawl.redis.keys import ClusterKeys, connect

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["RedisDedupPipeline", "RedisItemsPipeline"]


def _keys(crawler: Crawler) -> ClusterKeys:
    assert crawler.spider is not None
    return ClusterKeys(crawler.settings["FORUMCRAWL_REDIS_PREFIX"], crawler.spider.name)


class RedisDedupPipeline(DedupPipeline):
    """:class:`DedupPipeline` across workers: the first URL of each content fingerprint is in Redis.

    A page exported again under the *same* URL passes (a request crawled twice after a worker died
    must not lose its item to its own earlier, possibly unwritten, copy).
    """

    def open_spider(self) -> None:
        self.client = connect(self.crawler.settings["FORUMCRAWL_REDIS_URL"])
        self.key = _keys(self.crawler).contents

    def process_item(self, item: Any) -> Any:
        url = ItemAdapter(item).get("url") or ""
        key = content_fingerprint(item)
        first = self.seen.get(key)
        if first is None:
            pipe = self.client.pipeline()
            pipe.hsetnx(self.key, key, url)
            pipe.hget(self.key, key)
            _, stored = pipe.execute()
            first = self.seen[key] = stored.decode("utf-8")
        if first != url:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/drop/duplicate")
            raise DropItem(f"duplicate of {first}: {url}")
        return item


class RedisItemsPipeline:
    """Appends each item as JSON to ``<prefix>:<spider>:items`` (FORUMCRAWL_REDIS_ITEMS).

    The append happens before the request is acknowledged, so an item in this list survives the
    worker; a feed's write buffer does not.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisItemsPipeline:
        if not crawler.settings.getbool("FORUMCRAWL_REDIS_ITEMS"):
            raise NotConfigured("FORUMCRAWL_REDIS_ITEMS is off")
        return cls(crawler)

    def open_spider(self) -> None:
        self.client = connect(self.crawler.settings["FORUMCRAWL_REDIS_URL"])
        self.key = _keys(self.crawler).items

    def process_item(self, item: Any) -> Any:
        self.client.rpush(self.key, json.dumps(ItemAdapter(item).asdict(), ensure_ascii=False, default=str))
        return item
