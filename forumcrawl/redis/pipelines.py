"""Item pipelines of a cluster: content dedup shared by all workers, and items kept in Redis.

Both do their Redis call in a thread, never on the reactor. When Redis is unreachable the call
is tried again (0.25 s, doubling to 4 s) until it returns or FORUMCRAWL_REDIS_MAX_OUTAGE has
passed: the item waits in memory meanwhile instead of failing (it failed with a traceback, and came
back only when its page's lease expired, two minutes later). Only an outage longer than that
fails the item, which abandons its page's lease (:mod:`forumcrawl.redis.middleware`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import load_object
from scrapy_redis.pipelines import RedisPipeline, default_serialize
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread

from forumcrawl.document import site_of
from forumcrawl.pipelines.dedup import DedupPipeline, dedup_keys
from forumcrawl.redis.keys import REDIS_ERRORS, ClusterKeys, client_from_settings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["RedisDedupPipeline", "RedisItemsPipeline", "until_redis_answers"]

T = TypeVar("T")

#: First and longest pause between two tries of an item's Redis call during an outage (seconds).
FIRST_PAUSE, LONGEST_PAUSE = 0.25, 4.0


async def until_redis_answers(crawler: Crawler, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a thread, tried again while Redis is unreachable, for up to
    FORUMCRAWL_REDIS_MAX_OUTAGE seconds; then its Redis error is raised."""
    from twisted.internet import reactor  # the installed one

    max_outage = crawler.settings.getfloat("FORUMCRAWL_REDIS_MAX_OUTAGE")
    since: float | None = None
    pause = FIRST_PAUSE
    while True:
        try:
            return await maybe_deferred_to_future(deferToThread(function, *args))
        except REDIS_ERRORS:
            now = time.monotonic()
            if since is None:
                since = now
                assert crawler.stats is not None
                crawler.stats.inc_value("forumcrawl/redis/items_waited")
            elif now - since > max_outage:
                raise
        await maybe_deferred_to_future(deferLater(reactor, pause, lambda: None))
        pause = min(pause * 2, LONGEST_PAUSE)


# KEYS: the hash. ARGV: the URL, then the item's dedup keys. The URL that has one of the keys
# already, or this URL after it took them all: one atomic look, so that two workers exporting
# one thread page under two URLs at once cannot both win.
_CLAIM = """
for i = 2, #ARGV do
  local first = redis.call('HGET', KEYS[1], ARGV[i])
  if first and first ~= ARGV[1] then return first end
end
for i = 2, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], ARGV[1]) end
return ARGV[1]
"""


def _keys(crawler: Crawler) -> ClusterKeys:
    assert crawler.spider is not None
    return ClusterKeys.from_settings(crawler.settings, crawler.spider.name)


class RedisDedupPipeline(DedupPipeline):
    """:class:`DedupPipeline` across workers: the first URL of each content fingerprint and thread
    page is in Redis.

    A page exported again under the *same* URL passes (a request crawled twice after a worker died
    must not lose its item to its own earlier, possibly unwritten, copy).
    """

    def open_spider(self) -> None:
        self.client = client_from_settings(self.crawler.settings)
        self.key = _keys(self.crawler).contents
        self._claim = self.client.register_script(_CLAIM)

    async def process_item(self, item: Any) -> Any:
        url = ItemAdapter(item).get("url") or ""
        keys = dedup_keys(item)
        first = next((self.seen[k] for k in keys if self.seen.get(k, url) != url), None)
        if first is None:
            first = await until_redis_answers(self.crawler, self.first_url, keys, url)
        return self._check(first, item, keys, url)

    def first_url(self, keys: list[bytes], url: str) -> str:
        """The URL exported first with one of ``keys`` (:func:`~forumcrawl.pipelines.dedup.
        dedup_keys`) in the cluster: another's, or ``url`` once it holds them all. Blocking."""
        stored = self._claim(keys=[self.key], args=[url, *keys])
        return str(stored.decode("utf-8"))

    def _check(self, first: str, item: Any, keys: list[bytes], url: str) -> Any:
        if first == url:
            self.seen.update(dict.fromkeys(keys, url))
        else:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/drop/duplicate")
            self._hand_over(url, first)
            raise DropItem(f"duplicate of {first}: {url}", log_level="DEBUG")
        return item


    def _hand_over(self, url: str, first: str) -> None:
        """Tell this worker's navigation that ``first`` owns the thread page: the worker that
        registered it may die before writing it out, and its request must then be crawled here."""
        spider: Any = self.crawler.spider
        learner = getattr(spider, "learner", None)
        if learner is None or not hasattr(spider, "navigator"):
            return
        navigator = spider.navigator(learner.model(site_of(url)))
        if navigator is not None:
            navigator.hand_over(url, first)


class RedisItemsPipeline(RedisPipeline):
    """scrapy-redis's RedisPipeline: each item as JSON appended to REDIS_ITEMS_KEY (``<spider>:items``).

    On with FORUMCRAWL_REDIS_ITEMS (the add-on also puts it in place of scrapy-redis's own when a
    project lists that). The append happens before the request is acknowledged, so an item in
    this list survives the worker; a feed's write buffer does not. Unlike scrapy-redis's, it is
    built from the crawler (no deprecated ``from_settings``, no ``spider`` argument).
    """

    crawler: Crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisItemsPipeline:
        if not crawler.settings.getbool("FORUMCRAWL_REDIS_ITEMS"):
            raise NotConfigured("FORUMCRAWL_REDIS_ITEMS is off")
        assert crawler.spidercls is not None
        serialize = crawler.settings.get("REDIS_ITEMS_SERIALIZER")
        pipeline = cls(
            client_from_settings(crawler.settings),
            ClusterKeys.from_settings(crawler.settings, crawler.spidercls.name).items,
            load_object(serialize) if serialize else default_serialize,
        )
        pipeline.crawler = crawler
        return pipeline

    async def process_item(self, item: Any) -> Any:  # type: ignore[override]
        return await until_redis_answers(self.crawler, self._push, item)

    def _push(self, item: Any) -> Any:
        self.server.rpush(self.key, self.serialize(item))
        return item
