"""scrapy-redis's dupefilter on its key, with the crawler's request fingerprints.

:class:`scrapy_redis.dupefilter.RFPDupeFilter` hashes method, URL and body itself, so a project's
``REQUEST_FINGERPRINTER_CLASS`` never reaches Redis, and it deletes the shared SET when any worker
closes (the others then crawl everything again). Here the fingerprint is the crawler's (8 bytes of
it: a fifth of a hex SHA-1 in memory, collisions negligible at forum scale) and closing keeps the
SET; ``forumcrawl push --reset`` clears it. In the cluster the test-and-add happens inside the
frontier's push script (:mod:`forumcrawl.redis.queue`); :meth:`request_seen` serves standalone use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy_redis.dupefilter import RFPDupeFilter

from forumcrawl.redis.keys import ClusterKeys, client_from_settings

if TYPE_CHECKING:
    import redis
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.utils.request import RequestFingerprinterProtocol

__all__ = ["FINGERPRINT_BYTES", "LeasedDupeFilter"]

#: Bytes of the crawler's request fingerprint kept in the seen SET.
FINGERPRINT_BYTES = 8


class LeasedDupeFilter(RFPDupeFilter):
    """The cluster's seen SET (SCHEDULER_DUPEFILTER_KEY, default ``<spider>:dupefilter``)."""

    def __init__(
        self, server: redis.Redis, key: str, fingerprinter: RequestFingerprinterProtocol, debug: bool = False
    ) -> None:
        super().__init__(server, key, debug)
        self.fingerprinter = fingerprinter

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LeasedDupeFilter:
        assert crawler.spidercls is not None
        keys = ClusterKeys.from_settings(crawler.settings, crawler.spidercls.name)
        return cls(
            client_from_settings(crawler.settings),
            keys.seen,
            crawler.request_fingerprinter,
            crawler.settings.getbool("DUPEFILTER_DEBUG"),
        )

    def request_fingerprint(self, request: Request) -> bytes:  # type: ignore[override]
        """The crawler's fingerprint of ``request``, shortened."""
        return self.fingerprinter.fingerprint(request)[:FINGERPRINT_BYTES]

    def request_seen(self, request: Request) -> bool:
        """Add the request's fingerprint; True if it was there already."""
        return bool(self.server.sadd(self.key, self.request_fingerprint(request)) == 0)

    def close(self, reason: str = "") -> None:
        """Keep the SET: other workers still use it (scrapy-redis deletes it here)."""
