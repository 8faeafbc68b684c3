"""Cluster variants of the spiders: ``scrapy crawl forum_redis`` / ``news_redis``.

They differ from ``forum``/``news`` in where the work comes from: seeds are taken from the Redis
list ``<prefix>:<spider>:seeds`` (``forumcrawl push forum URL…``, or ``-a start=`` which pushes
first), and the sites whose links are followed are the cluster's set ``<prefix>:<spider>:sites``,
so a worker follows links of pages that another worker's seed led to. Separate spider names (rather
than a switch inside ``forum``) keep the embedded spiders' contract intact: ``forum`` always needs
``-a start=``, a Redis spider never does. They need FORUMCRAWL_REDIS_URL (which also switches the
scheduler, dupefilter, rule store and pipelines, see :mod:`forumcrawl.addon`).

Each page's response is marked for :class:`~forumcrawl.redis.middleware.LeaseAckMiddleware`: a
page held until its site's rules exist keeps its lease until the response whose callback exported
the held pages is acknowledged, so a worker killed before or during learning loses nothing.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response
from scrapy.utils.reactor import CallLaterOnce

from forumcrawl.document import Document, site_of
from forumcrawl.redis.keys import REDIS_ERRORS, ClusterKeys, connect, push_seeds
from forumcrawl.redis.middleware import PARK_META, RELEASE_META
from forumcrawl.redis.scheduler import wake_engine
from forumcrawl.spiders.base import SiteSpider, parse_start_urls
from forumcrawl.spiders.forum import ForumSpider
from forumcrawl.spiders.news import NewsSpider

__all__ = ["ForumRedisSpider", "NewsRedisSpider", "RedisSiteSpider"]

#: Seeds taken from Redis per round trip.
SEED_BATCH = 100
#: Seconds between looks at the cluster's queue while a site waits to be learned.
IDLE_RECHECK = 0.5


@dataclass(frozen=True)
class _Released:
    """Yielded by :meth:`RedisSiteSpider.learn_and_release` once the held pages are exported."""

    site: str


class RedisSiteSpider(SiteSpider):
    """A :class:`SiteSpider` fed from the cluster's seed list (mix in before a concrete spider)."""

    def __init__(self, start: str | None = None, topic_example: str | None = None, **kwargs: Any) -> None:
        # SiteSpider.__init__ insists on -a start; here seeds may all come from Redis.
        scrapy.Spider.__init__(self, **kwargs)
        self.start_urls = parse_start_urls(start) if start else []
        self.sites = {site_of(u) for u in self.start_urls}
        self.allowed_domains = []  # follow_links keeps to self.sites, which grows with the cluster
        if topic_example is not None:
            parse_start_urls(topic_example)
        self.topic_example = topic_example
        self.init_site_state()
        # Links held back in one worker's memory would be lost with it: the cluster samples
        # without the per-pattern limit.
        self.sample_per_pattern = 0
        self._empty_since: float | None = None
        self._recheck = CallLaterOnce(lambda: wake_engine(self.crawler))

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> RedisSiteSpider:
        url = crawler.settings.get("FORUMCRAWL_REDIS_URL")
        if not url:
            raise ValueError(f"the {cls.name} spider needs -s FORUMCRAWL_REDIS_URL=redis://…")
        spider = super().from_crawler(crawler, *args, **kwargs)
        assert isinstance(spider, RedisSiteSpider)
        spider.redis = connect(url)
        spider.keys = ClusterKeys(crawler.settings["FORUMCRAWL_REDIS_PREFIX"], spider.name)
        crawler.signals.connect(spider.take_new_seeds, signal=signals.spider_idle)
        return spider

    def refresh_sites(self) -> None:
        """Add the cluster's sites (other workers' seeds) to the sites whose links are followed."""
        try:
            self.sites |= {s.decode("utf-8") for s in self.redis.smembers(self.keys.sites)}
        except REDIS_ERRORS as exc:
            self.logger.warning("could not read the cluster's sites: %s", exc)

    def take_seeds(self) -> list[scrapy.Request]:
        """Requests for the seeds waiting in Redis (each seed goes to one worker)."""
        urls: list[str] = []
        try:
            while batch := self.redis.lpop(self.keys.seeds, SEED_BATCH):
                urls.extend(u.decode("utf-8") for u in batch)
        except REDIS_ERRORS as exc:
            self.logger.warning("could not read seeds: %s", exc)
        if urls:
            self.refresh_sites()
            self.sites |= {site_of(u) for u in urls}
        return [scrapy.Request(u, callback=self.parse) for u in urls]

    async def start(self) -> AsyncIterator[scrapy.Request]:
        if self.start_urls:
            push_seeds(self.redis, self.keys, self.start_urls, sorted(self.sites))
        for request in self.take_seeds():
            yield request

    def take_new_seeds(self) -> None:
        """On spider_idle: seeds pushed during the crawl are crawled too."""
        requests = self.take_seeds()
        for request in requests:
            self.crawler.engine.crawl(request)
        if requests:
            raise DontCloseSpider

    def learn_pending_sites(self) -> None:
        """On spider_idle: learn from a partial sample only once the cluster is out of pages.

        One worker with nothing to do is not a crawl out of pages: another worker may be
        fetching the boards whose threads would fill this one's queue, and a sample of the
        site's first pages alone (home, search, member list) holds no thread page to learn
        from. So sites are learned early only after the cluster's queue has stayed empty for
        ``FORUMCRAWL_REDIS_IDLE_CLOSE`` seconds (the wait a worker makes before closing).
        """
        grace = self.crawler.settings.getfloat("FORUMCRAWL_REDIS_IDLE_CLOSE")
        if self.learner is not None and self.learner.pending_sites() and self._queue_empty_for() < grace:
            self._inc("learn/waited_for_cluster")
            self._recheck.schedule(IDLE_RECHECK)
            raise DontCloseSpider
        super().learn_pending_sites()

    def _queue_empty_for(self) -> float:
        """Seconds the cluster's queue has been seen empty (0 while it holds requests, or when
        Redis cannot be read)."""
        try:
            queued = self.redis.zcard(self.keys.queue)
        except REDIS_ERRORS as exc:
            # every recheck during an outage; the scheduler reports the outage itself
            self.logger.debug("could not read the cluster's queue: %s", exc)
            queued = None
        now = time.monotonic()
        if queued != 0:
            self._empty_since = None
            return 0.0
        if self._empty_since is None:
            self._empty_since = now
        return now - self._empty_since

    def document(self, response: Response) -> Document | None:
        """Also mark a page the crawl loop is about to hold: it keeps its lease until released.

        The spider decides to hold a page right after this returns, with no await in between, so
        the mark cannot disagree with the decision.
        """
        doc = super().document(response)
        if doc is not None and doc.tree is not None and self.learner is not None:
            if self.learner.model(doc.site) is None:
                response.meta[PARK_META] = doc.site
        return doc

    async def learn_and_release(self, site: str) -> AsyncIterator[Any]:
        """As in :class:`SiteSpider`, then a marker: this callback exported the held pages."""
        async for item in super().learn_and_release(site):
            yield item
        yield _Released(site)

    async def _marked(self, response: Response, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """``output`` without release markers, which become ``RELEASE_META`` on ``response``.

        Only this response carries the held pages' items, so only its acknowledgement (after those
        items are written) may acknowledge the held pages' leases; a page parsed elsewhere after
        the model exists must not.
        """
        async for value in output:
            if isinstance(value, _Released):
                response.meta[RELEASE_META] = value.site
            else:
                yield value

    async def parse(self, response: Response, **kwargs: Any) -> AsyncIterator[Any]:
        if site_of(response.url) not in self.sites:
            self.refresh_sites()
        async for value in self._marked(response, super().parse(response, **kwargs)):
            yield value

    async def learn_now(self, response: Response, site: str) -> AsyncIterator[Any]:
        async for item in self._marked(response, super().learn_now(response, site)):
            yield item


class ForumRedisSpider(RedisSiteSpider, ForumSpider):
    """The forum spider of a cluster."""

    name = "forum_redis"


class NewsRedisSpider(RedisSiteSpider, NewsSpider):
    """The news spider of a cluster."""

    name = "news_redis"
