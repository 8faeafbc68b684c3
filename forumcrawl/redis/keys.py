"""Redis key names of one crawl (all under one prefix), the client factory, seeding."""

from __future__ import annotations

from dataclasses import dataclass

import redis

__all__ = ["REDIS_ERRORS", "ClusterKeys", "connect", "push_seeds"]

#: What a lost or unreachable server raises; every caller treats these as an outage.
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.ConnectionError, redis.TimeoutError)


def connect(url_or_client: str | redis.Redis) -> redis.Redis:
    """A client for ``redis://…``/``unix://…`` with short timeouts, so an outage fails fast."""
    if isinstance(url_or_client, redis.Redis):
        return url_or_client
    return redis.Redis.from_url(url_or_client, socket_connect_timeout=2, socket_timeout=5)


@dataclass(frozen=True)
class ClusterKeys:
    """The keys one spider's workers share: ``<prefix>:<spider>:…``."""

    prefix: str
    spider: str

    def _key(self, name: str) -> str:
        return f"{self.prefix}:{self.spider}:{name}"

    @property
    def queue(self) -> str:
        """ZSET of serialised requests waiting, scored by ``-priority``."""
        return self._key("queue")

    @property
    def leases(self) -> str:
        """ZSET of serialised requests a worker holds, scored by the lease deadline (Redis time)."""
        return self._key("leases")

    @property
    def seen(self) -> str:
        """SET of 8-byte request fingerprints (the cluster's dupefilter)."""
        return self._key("seen")

    @property
    def seeds(self) -> str:
        """LIST of start URLs pushed by ``forumcrawl push``."""
        return self._key("seeds")

    @property
    def sites(self) -> str:
        """SET of the sites (``host[:port]``) the seeds belong to; links elsewhere are not followed."""
        return self._key("sites")

    @property
    def items(self) -> str:
        """LIST of exported items as JSON (with FORUMCRAWL_REDIS_ITEMS)."""
        return self._key("items")

    @property
    def contents(self) -> str:
        """HASH content fingerprint → first URL exported with it (cluster-wide DedupPipeline)."""
        return self._key("contents")

    def all(self) -> list[str]:
        """Every key of the crawl (to reset it)."""
        return [self.queue, self.leases, self.seen, self.seeds, self.sites, self.items, self.contents]


def push_seeds(client: redis.Redis, keys: ClusterKeys, urls: list[str], sites: list[str]) -> None:
    """Queue start URLs for the workers and allow their sites, in one round trip."""
    pipe = client.pipeline()
    if sites:
        pipe.sadd(keys.sites, *sites)
    if urls:
        pipe.rpush(keys.seeds, *urls)
    pipe.execute()
