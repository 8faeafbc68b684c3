"""A Scrapy scheduler on the cluster's leased Redis frontier that survives outages.

* Requests are JSON (``Request.to_dict``), never pickle. ``data:`` requests (the spider's local
  learning triggers, our wake-ups) stay in this worker.
* A popped request is leased (:mod:`forumcrawl.redis.queue`) and acknowledged when
  :data:`lease_finished` says its results are durable (:mod:`forumcrawl.redis.middleware`), when a
  request derived from it (retry, redirect) has been enqueued, or when its download failed for
  good. Leases are renewed while held, so only a dead worker's leases expire and return.
* Follow-up requests are buffered and written in the same round trip as their parent's ack,
  follow-ups first, so a request is never done before its children are safe.
* On a Redis connection error the worker stops taking requests, keeps what it must write, retries
  with exponential backoff, and closes with reason ``redis_unavailable`` once the outage has lasted
  FORUMCRAWL_REDIS_MAX_OUTAGE seconds; when Redis returns in time the crawl goes on.
* The spider closes only when the cluster is idle: no queued and no leased request anywhere.

Redis calls are synchronous round trips of a fraction of a millisecond on the reactor thread,
bounded by the client's timeouts. Settings: FORUMCRAWL_REDIS_URL, FORUMCRAWL_REDIS_PREFIX,
FORUMCRAWL_REDIS_LEASE_SECONDS, FORUMCRAWL_REDIS_MAX_OUTAGE, FORUMCRAWL_REDIS_POLL_SECONDS,
FORUMCRAWL_REDIS_DEDUP_TTL. Stats: ``forumcrawl/redis/*``.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections import defaultdict, deque
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.core.scheduler import BaseScheduler
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.request import request_from_dict
from twisted.internet.task import LoopingCall

from forumcrawl.redis.keys import REDIS_ERRORS, ClusterKeys
from forumcrawl.redis.queue import LeasedQueue, Push

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from twisted.python.failure import Failure

__all__ = ["LEASE_META", "LeasedRedisScheduler", "lease_finished", "wake_engine"]

logger = logging.getLogger(__name__)

#: ``request.meta`` key holding the lease (the request's exact JSON in the leases ZSET).
LEASE_META = "forumcrawl_lease"
#: Signal ``(lease, park, release, abandon)``: a leased request's results are durable (ack it), or
#: its page is held until site ``park``'s held pages are exported, or (``abandon``) its results were
#: lost and the lease is left to expire; ``release``: this response exported that site's held pages,
#: so their leases share its fate (acknowledged, or left to expire with ``abandon``).
lease_finished = object()

#: Longest pause between reconnection attempts during an outage (seconds).
MAX_BACKOFF = 4.0
#: Outbox size at which follow-up requests are written without waiting for their parent's ack.
FLUSH_AT = 500


def encode_request(data: dict[str, Any]) -> str:
    """``Request.to_dict()`` as JSON: body in base64, header bytes as Latin-1 text (exact both ways)."""
    data = dict(data)
    data["body"] = base64.b64encode(data.get("body") or b"").decode("ascii")
    data["headers"] = {
        k.decode("latin-1"): [v.decode("latin-1") for v in values] for k, values in (data.get("headers") or {}).items()
    }
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def decode_request(member: str) -> dict[str, Any]:
    """Inverse of :func:`encode_request`, ready for ``request_from_dict``."""
    data = json.loads(member)
    data["body"] = base64.b64decode(data["body"])
    data["headers"] = {k.encode("latin-1"): [v.encode("latin-1") for v in vs] for k, vs in data["headers"].items()}
    return data


def _noop(response: Any) -> None:
    """Callback of the wake-up request: nothing to do, the engine just runs its loop again."""


def wake_engine(crawler: Crawler) -> None:
    """Make a running engine run its loop (and signal idle again) now rather than at its next
    5-second heartbeat: schedule a local ``data:`` request that does nothing."""
    engine = crawler.engine
    if engine is not None and engine.running:
        engine.crawl(Request("data:,", callback=_noop, dont_filter=True, meta={"allow_offsite": True}))


class LeasedRedisScheduler(BaseScheduler):
    """Scheduler of a forumcrawl worker: shared leased frontier, local ``data:`` requests."""

    def __init__(
        self,
        crawler: Crawler,
        *,
        url: str,
        prefix: str,
        lease_seconds: float,
        max_outage: float,
        poll_seconds: float,
        dedup_ttl: int,
        idle_close: float = 0.0,
    ) -> None:
        self.crawler = crawler
        self.idle_close = idle_close
        self._idle_since: float | None = None
        self.url = url
        self.prefix = prefix
        self.lease_seconds = lease_seconds
        self.max_outage = max_outage
        self.poll_seconds = poll_seconds
        self.dedup_ttl = dedup_ttl
        self.queue: LeasedQueue | None = None
        self.spider: Spider | None = None
        self._local: deque[Request] = deque()
        self._outbox: list[Push] = []
        self._acks: list[str] = []
        self._held: set[str] = set()
        self._parked: defaultdict[str, set[str]] = defaultdict(set)
        self._released: dict[str, bool] = {}
        self._remote_empty = False
        self._outage_since: float | None = None
        self._retry_at = 0.0
        self._backoff = poll_seconds
        self._renew_at = 0.0
        self._woken_at = 0.0
        self._closing = False
        self._loop = LoopingCall(self._tick)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LeasedRedisScheduler:
        settings = crawler.settings
        return cls(
            crawler,
            url=settings["FORUMCRAWL_REDIS_URL"],
            prefix=settings["FORUMCRAWL_REDIS_PREFIX"],
            lease_seconds=settings.getfloat("FORUMCRAWL_REDIS_LEASE_SECONDS"),
            max_outage=settings.getfloat("FORUMCRAWL_REDIS_MAX_OUTAGE"),
            poll_seconds=settings.getfloat("FORUMCRAWL_REDIS_POLL_SECONDS"),
            dedup_ttl=settings.getint("FORUMCRAWL_REDIS_DEDUP_TTL"),
            idle_close=settings.getfloat("FORUMCRAWL_REDIS_IDLE_CLOSE"),
        )

    def _inc(self, key: str, count: int = 1) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"forumcrawl/redis/{key}", count)

    def open(self, spider: Spider) -> None:
        self.spider = spider
        self.queue = LeasedQueue(self.url, ClusterKeys(self.prefix, spider.name), dedup_ttl=self.dedup_ttl)
        self.crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        self.crawler.signals.connect(self._on_lease_finished, signal=lease_finished)
        self._loop.start(self.poll_seconds, now=False)

    def close(self, reason: str) -> None:
        self._closing = True
        if self._loop.running:
            self._loop.stop()
        if self._outage_since is None:
            self._flush()
        if self._outbox or self._acks:
            logger.warning(
                "closing with %d requests and %d acks not written to Redis: their parents' leases "
                "will expire and be crawled again",
                len(self._outbox),
                len(self._acks),
            )
        assert self.queue is not None and self.crawler.stats is not None
        self.crawler.stats.set_value("forumcrawl/redis/roundtrips", self.queue.roundtrips)

    # -- outage ----------------------------------------------------------------------------------

    def _redis_failed(self, exc: Exception) -> None:
        self._inc("errors")
        now = time.monotonic()
        if self._outage_since is None:
            self._outage_since = now
            self._backoff = self.poll_seconds
            logger.error(
                "Redis unavailable (%s): retrying for up to %.0fs", exc, self.max_outage,
                extra={"spider": self.spider},
            )
        else:
            self._backoff = min(self._backoff * 2, MAX_BACKOFF)
        self._retry_at = now + self._backoff

    def _reconnect(self) -> None:
        assert self.queue is not None and self._outage_since is not None
        try:
            self.queue.client.ping()
        except REDIS_ERRORS as exc:
            self._redis_failed(exc)
            return
        seconds = time.monotonic() - self._outage_since
        self._outage_since = None
        self._inc("outages")
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value("forumcrawl/redis/outage_seconds", round(seconds, 3))
        logger.info("Redis is back after %.1fs", seconds, extra={"spider": self.spider})
        self._flush()
        self._remote_empty = False

    def _give_up(self) -> None:
        logger.error(
            "Redis unavailable for more than %.0fs: closing the spider", self.max_outage,
            extra={"spider": self.spider},
        )
        self._closing = True
        if self._loop.running:
            self._loop.stop()
        assert self.crawler.engine is not None
        deferred_from_coro(self.crawler.engine.close_spider_async(reason="redis_unavailable"))

    # -- queue operations ------------------------------------------------------------------------

    def _flush(self) -> bool:
        """Write buffered follow-ups then acks; False (and an outage) if Redis is unreachable."""
        if not self._outbox and not self._acks:
            return True
        assert self.queue is not None
        outbox, acks = self._outbox, self._acks
        try:
            new = self.queue.push(outbox, acks)
        except REDIS_ERRORS as exc:
            self._redis_failed(exc)
            return False
        self._outbox, self._acks = [], []
        self._inc("pushed", new)
        if len(outbox) > new:
            self._inc("duplicates", len(outbox) - new)
        if acks:
            self._inc("acked", len(acks))
        if new:
            self._remote_empty = False
        return True

    def _encode(self, request: Request) -> str:
        if request.errback == self._failed:
            request = request.replace(errback=None)
        return encode_request(request.to_dict(spider=self.spider))

    def enqueue_request(self, request: Request) -> bool:
        parent = request.meta.pop(LEASE_META, None)
        if parent is not None:  # a retry or redirect replaces its parent request
            self._done(parent)
        if request.url.startswith("data:"):
            self._local.append(request)
            return True
        fingerprint = None if request.dont_filter else self.crawler.request_fingerprinter.fingerprint(request)[:8]
        try:
            member = self._encode(request)
        except (TypeError, ValueError) as exc:
            self._inc("unserialisable")
            logger.warning("dropped %s: cannot be serialised: %s", request, exc, extra={"spider": self.spider})
            return False
        self._outbox.append(Push(member, -request.priority, fingerprint))
        if len(self._outbox) >= FLUSH_AT and self._outage_since is None:
            self._flush()
        return True

    def next_request(self) -> Request | None:
        if self._local:
            return self._local.popleft()
        if self._outage_since is not None or self._closing or not self._flush():
            return None
        assert self.queue is not None
        try:
            member, requeued = self.queue.pop(self.lease_seconds)
        except REDIS_ERRORS as exc:
            self._redis_failed(exc)
            return None
        if requeued:
            self._inc("requeued", requeued)
            logger.info("%d expired leases returned to the queue", requeued, extra={"spider": self.spider})
        if member is None:
            self._remote_empty = True
            return None
        self._inc("popped")
        request = request_from_dict(decode_request(member), spider=self.spider)
        request.meta[LEASE_META] = member
        if request.errback is None:
            request.errback = self._failed
        self._held.add(member)
        return request

    def has_pending_requests(self) -> bool:
        return bool(self._local) or (self._outage_since is None and not self._remote_empty)

    def _done(self, lease: str) -> None:
        if lease in self._held:
            self._held.discard(lease)
            self._acks.append(lease)

    def _failed(self, failure: Failure) -> Failure:
        """Errback of leased requests: a download that failed for good is done (then logged as usual)."""
        lease = failure.request.meta.pop(LEASE_META, None)  # type: ignore[attr-defined]
        if lease is not None:
            self._done(lease)
            self._flush()
        return failure

    def _on_lease_finished(
        self, lease: str | None = None, park: str | None = None, release: str | None = None, abandon: bool = False
    ) -> None:
        if release is not None:
            self._released[release] = not abandon
            for parked in self._parked.pop(release, ()):
                self._settle(parked, durable=not abandon)
        if lease is not None:
            if park is not None and park not in self._released:
                self._parked[park].add(lease)
            else:  # a held page whose releasing response was settled first shares its fate
                self._settle(lease, durable=not abandon and self._released.get(park or "", True))
        if self._outage_since is None:
            self._flush()

    def _settle(self, lease: str, *, durable: bool) -> None:
        """Acknowledge ``lease``, or stop renewing it so that it expires and is crawled again."""
        if durable:
            self._done(lease)
        else:
            self._held.discard(lease)

    # -- idle, renewal, wake-up ------------------------------------------------------------------

    def _wake(self) -> None:
        """Make the engine run its loop now rather than at its next 5-second heartbeat."""
        self._woken_at = time.monotonic()
        wake_engine(self.crawler)

    def _tick(self) -> None:
        now = time.monotonic()
        if self._outage_since is not None:
            if now - self._outage_since > self.max_outage:
                self._give_up()
            elif now >= self._retry_at:
                self._reconnect()
            return
        assert self.queue is not None
        try:
            if self._held and now >= self._renew_at:
                self._renew_at = now + self.lease_seconds / 3
                self.queue.renew(sorted(self._held), self.lease_seconds)
            if not self._remote_empty or self._local:
                return
            queued, leased, _ = self.queue.status()
        except REDIS_ERRORS as exc:
            self._redis_failed(exc)
            return
        if queued:
            self._remote_empty = False
            self._wake()
        elif not leased and now - self._woken_at >= 1.0:
            self._wake()  # the cluster is idle: let the engine notice and close

    def _on_idle(self) -> None:
        if self._outage_since is not None:
            raise DontCloseSpider
        assert self.queue is not None
        if not self._flush():
            raise DontCloseSpider
        try:
            queued, leased, requeued = self.queue.status()
        except REDIS_ERRORS as exc:
            self._redis_failed(exc)
            raise DontCloseSpider from exc
        if requeued:
            self._inc("requeued", requeued)
        if queued or leased or self._local:
            if queued:
                self._remote_empty = False
            self._idle_since = None
            raise DontCloseSpider
        # The cluster looks idle, but another worker may be between taking a seed and queueing
        # its request: close only when it has stayed idle for FORUMCRAWL_REDIS_IDLE_CLOSE.
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        if now - self._idle_since < self.idle_close:
            raise DontCloseSpider
