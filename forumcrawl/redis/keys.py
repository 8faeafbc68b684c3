"""Redis key names of one crawl, the client factory (scrapy-redis's settings), seeding.

The keys a scrapy-redis project already has keep their names and templates (``SCHEDULER_QUEUE_KEY``
``%(spider)s:requests``, ``SCHEDULER_DUPEFILTER_KEY``, ``REDIS_START_URLS_KEY``
``%(name)s:start_urls``, ``REDIS_ITEMS_KEY``, ``STATS_KEY``), so a project switching its
``SCHEDULER`` keeps its seeds, items and stats. What scrapy-redis has no notion of (leases, the
cluster's sites, content dedup, rules) lives under FORUMCRAWL_REDIS_PREFIX.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis
from scrapy_redis import defaults as scrapy_redis_defaults

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

__all__ = [
    "REDIS_ERRORS",
    "ClusterKeys",
    "client_from_settings",
    "connect",
    "push_seeds",
    "redis_url_from_settings",
    "roundtrips",
]

#: What a lost or unreachable server raises; every caller treats these as an outage.
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)

#: Client parameters under scrapy-redis's REDIS_PARAMS: short timeouts, so an outage is noticed in
#: seconds (scrapy-redis's 30 s timeouts with ``retry_on_timeout`` stall a worker instead).
CLIENT_PARAMS: dict[str, Any] = {"socket_connect_timeout": 2, "socket_timeout": 5}

_lock = threading.Lock()
_roundtrips = 0


def roundtrips() -> int:
    """Round trips (commands or pipelines sent) of every client :func:`connect` made in this process."""
    return _roundtrips


def _count() -> None:
    global _roundtrips
    with _lock:
        _roundtrips += 1


class _CountingConnection(redis.Connection):
    """A TCP connection that counts what it sends: a pipeline is one packed send, one round trip."""

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        _count()
        super().send_packed_command(command, check_health)


class _CountingUnixConnection(redis.UnixDomainSocketConnection):
    """:class:`_CountingConnection` for ``unix://`` URLs."""

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        _count()
        super().send_packed_command(command, check_health)


def connect(url_or_client: str | redis.Redis, params: dict[str, Any] | None = None) -> redis.Redis:
    """A client for ``redis://…``/``unix://…`` (bytes replies, counted round trips).

    ``params`` are REDIS_PARAMS; ``decode_responses`` and ``redis_cls`` are ignored because every
    caller here reads bytes from a plain client.
    """
    if isinstance(url_or_client, redis.Redis):
        return url_or_client
    kwargs = {**CLIENT_PARAMS, **(params or {})}
    for ignored in ("decode_responses", "redis_cls", "encoding"):
        kwargs.pop(ignored, None)
    unix = url_or_client.startswith("unix:")
    kwargs["connection_class"] = _CountingUnixConnection if unix else _CountingConnection
    return redis.Redis.from_url(url_or_client, **kwargs)


def redis_url_from_settings(settings: BaseSettings) -> str:
    """The cluster's Redis: FORUMCRAWL_REDIS_URL, else scrapy-redis's REDIS_URL, else REDIS_HOST/
    REDIS_PORT/REDIS_DB; empty when none is set (an embedded crawl)."""
    url = settings.get("FORUMCRAWL_REDIS_URL") or settings.get("REDIS_URL")
    if url:
        return str(url)
    host = settings.get("REDIS_HOST")
    if not host:
        return ""
    return f"redis://{host}:{settings.getint('REDIS_PORT', 6379)}/{settings.getint('REDIS_DB', 0)}"


def client_from_settings(settings: BaseSettings) -> redis.Redis:
    """The client of :func:`redis_url_from_settings` with REDIS_PARAMS (no I/O until first used)."""
    return connect(redis_url_from_settings(settings), settings.getdict("REDIS_PARAMS"))


@dataclass(frozen=True)
class ClusterKeys:
    """The keys one spider's workers share; scrapy-redis's templates for the keys it defines."""

    prefix: str
    spider: str
    queue_template: str = scrapy_redis_defaults.SCHEDULER_QUEUE_KEY
    dupefilter_template: str = scrapy_redis_defaults.SCHEDULER_DUPEFILTER_KEY
    start_urls_template: str = scrapy_redis_defaults.START_URLS_KEY
    items_template: str = scrapy_redis_defaults.PIPELINE_KEY
    stats_template: str = scrapy_redis_defaults.STATS_KEY
    seeds_as_set: bool = scrapy_redis_defaults.START_URLS_AS_SET

    @classmethod
    def from_settings(cls, settings: BaseSettings, spider: str) -> ClusterKeys:
        """The keys of ``spider`` as FORUMCRAWL_REDIS_PREFIX and scrapy-redis's key settings say."""
        return cls(
            settings.get("FORUMCRAWL_REDIS_PREFIX") or "forumcrawl",
            spider,
            settings.get("SCHEDULER_QUEUE_KEY") or cls.queue_template,
            settings.get("SCHEDULER_DUPEFILTER_KEY") or cls.dupefilter_template,
            settings.get("REDIS_START_URLS_KEY") or cls.start_urls_template,
            settings.get("REDIS_ITEMS_KEY") or cls.items_template,
            settings.get("STATS_KEY") or cls.stats_template,
            settings.getbool("REDIS_START_URLS_AS_SET"),
        )

    def _key(self, name: str) -> str:
        return f"{self.prefix}:{self.spider}:{name}"

    @property
    def queue(self) -> str:
        """ZSET of serialised requests waiting, scored by ``-priority`` (scrapy-redis's PriorityQueue)."""
        return self.queue_template % {"spider": self.spider}

    @property
    def leases(self) -> str:
        """ZSET of serialised requests a worker holds, scored by the lease deadline (Redis time)."""
        return self._key("leases")

    @property
    def parked(self) -> str:
        """SET of the leases of pages parked until their site's rules exist (sampled pages held
        for learning): leases outside it are pages in flight, which may still add to a sample."""
        return self._key("parked")

    @property
    def workers(self) -> str:
        """ZSET of the workers that lately exchanged with the frontier, scored by the Redis time of
        their last exchange: how many share a short queue (see :meth:`LeasedQueue.exchange`)."""
        return self._key("workers")

    @property
    def seen(self) -> str:
        """SET of 8-byte request fingerprints (the cluster's dupefilter)."""
        return self.dupefilter_template % {"spider": self.spider}

    @property
    def seeds(self) -> str:
        """LIST (or SET, REDIS_START_URLS_AS_SET) of start URLs or JSON requests, as in scrapy-redis."""
        return self.start_urls_template % {"name": self.spider}

    @property
    def sites(self) -> str:
        """SET of the sites (``host[:port]``) the seeds belong to; links elsewhere are not followed."""
        return self._key("sites")

    @property
    def items(self) -> str:
        """LIST of exported items as JSON (scrapy-redis's RedisPipeline format)."""
        return self.items_template % {"spider": self.spider}

    @property
    def contents(self) -> str:
        """HASH content fingerprint or thread page → first URL exported with it (cluster-wide
        DedupPipeline)."""
        return self._key("contents")

    @property
    def threads(self) -> str:
        """SET of the threads whose pages are being put together (``FORUMCRAWL_ITEM=thread``)."""
        return self._key("threads")

    def thread(self, thread: str) -> str:
        """HASH of the pages of one thread held until it is complete (``*``: a SCAN pattern)."""
        return self._key(f"thread:{thread}")

    @property
    def emitted(self) -> str:
        """HASH thread → the highest page of its record emitted whole: a page of it fetched
        again, by any worker, is no new thread (``FORUMCRAWL_ITEM=thread``)."""
        return self._key("emitted")

    @property
    def waiting_lists(self) -> str:
        """SET of the keys of the :meth:`waiting` lists that hold requests."""
        return self._key("waiting")

    def waiting(self, site: str) -> str:
        """LIST of requests for ``site``'s links held back until its rules exist (``*``: a SCAN
        pattern); queued by whichever worker has the rules first."""
        return self._key(f"waiting:{site}")

    def sample(self, site: str) -> str:
        """LIST of the pages the workers sampled of ``site`` before its rules existed (``*``: a
        SCAN pattern; see :mod:`forumcrawl.redis.pages`)."""
        return self._key(f"sample:{site}")

    def sampled(self, site: str) -> str:
        """HASH of the links queued per URL pattern to sample ``site`` before its rules existed
        (``*``: a SCAN pattern; see :meth:`LeasedQueue.exchange`'s sample cap)."""
        return self._key(f"sampled:{site}")

    def budget(self, site: str) -> str:
        """HASH of what ``site``'s URL patterns led to across the workers, fields
        ``<pattern>|<f, h, y, l, c or b>`` (``*``: a SCAN pattern; see :mod:`forumcrawl.redis.budgets`)."""
        return self._key(f"budget:{site}")

    def leads(self, site: str) -> str:
        """HASH of the thread pages some fetch of ``site`` led to: lead id → the URL pattern
        credited with it (``*``: a SCAN pattern; see :mod:`forumcrawl.redis.budgets`)."""
        return self._key(f"leads:{site}")

    def underway(self, site: str, pattern: str) -> str:
        """ZSET of the downloads under way of one URL pattern of ``site``, scored by when their
        place lapses (``*`` for both: a SCAN pattern; see :mod:`forumcrawl.redis.budgets`)."""
        return self._key(f"underway:{site}|{pattern}")

    @property
    def closed(self) -> str:
        """SET of the URL patterns the workers closed, JSON ``[site, pattern]`` (see
        :mod:`forumcrawl.redis.pages`)."""
        return self._key("closed")

    @property
    def pages(self) -> str:
        """LIST of the thread pages the workers fetched (see :mod:`forumcrawl.redis.pages`)."""
        return self._key("pages")

    @property
    def crawl(self) -> str:
        """STRING id of the crawl under way (a reset starts another): what a recrawl's state
        belongs to (:mod:`forumcrawl.redis.state`)."""
        return self._key("crawl")

    def state(self, site: str) -> str:
        """HASH of ``site``'s recrawl state (``FORUMCRAWL_INCREMENTAL``), and the prefix of its
        crawl's shares and posts (``*``: a SCAN pattern); kept by a reset, for the next crawl."""
        return self._key(f"state:{site}")

    @property
    def stats(self) -> str:
        """HASH of the cluster's summed stats counters (scrapy-redis's RedisStatsCollector key)."""
        return self.stats_template % {"spider": self.spider}

    def patterns(self) -> list[str]:
        """SCAN patterns of the crawl's keys named after a thread or a site (to reset it)."""
        return [
            self.thread("*"), self.waiting("*"), self.sample("*"), self.sampled("*"), self.budget("*"),
            self.leads("*"), self._key("underway:*"),
        ]

    def all(self) -> list[str]:
        """Every key of the crawl but those of :meth:`patterns` (to reset it)."""
        return [
            self.queue, self.leases, self.parked, self.workers, self.seen, self.seeds, self.sites, self.items, self.contents,
            self.threads, self.emitted, self.pages, self.closed, self.waiting_lists, self.crawl, self.stats,
        ]


def push_seeds(client: redis.Redis, keys: ClusterKeys, urls: list[str], sites: list[str]) -> None:
    """Queue start URLs for the workers and allow their sites, in one round trip."""
    pipe = client.pipeline()
    if sites:
        pipe.sadd(keys.sites, *sites)
    if urls and keys.seeds_as_set:
        pipe.sadd(keys.seeds, *urls)
    elif urls:
        pipe.rpush(keys.seeds, *urls)
    pipe.execute()
