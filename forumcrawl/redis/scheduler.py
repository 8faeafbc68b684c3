"""scrapy-redis's scheduler on a leased frontier that survives outages and never blocks the reactor.

A scrapy-redis project switches with one line, ``SCHEDULER =
"forumcrawl.redis.scheduler.LeasedRedisScheduler"``, and keeps its connection settings and keys
(:mod:`forumcrawl.redis.keys`). What differs from :class:`scrapy_redis.scheduler.Scheduler`, and why:

* A popped request is leased (:mod:`forumcrawl.redis.queue`) and acknowledged when
  :data:`lease_finished` says its results are durable (:mod:`forumcrawl.redis.middleware`), when a
  request derived from it (retry, redirect) has been enqueued, or when its download failed for
  good. Leases are renewed while held, so only a dead worker's leases expire and return.
  scrapy-redis deletes on pop: a killed worker's requests are lost.
* Requests are JSON (:mod:`forumcrawl.redis.serializer`), not pickle; ``data:`` requests (the
  spider's local learning triggers, our wake-ups) stay in this worker.
* Redis I/O runs in one thread of its own, never on the reactor: requests are leased in batches
  (FORUMCRAWL_REDIS_BATCH) ahead of need, and follow-ups and acknowledgements are buffered and
  written with the next batch, follow-ups first, so a request is never done before its children
  are safe. scrapy-redis makes one blocking round trip per enqueue and per pop.
* On a Redis connection error the worker stops taking requests, keeps what it must write, retries
  with exponential backoff, and closes with reason ``redis_unavailable`` once the outage has lasted
  FORUMCRAWL_REDIS_MAX_OUTAGE seconds; when Redis returns in time the crawl goes on. scrapy-redis
  raises into the engine and hangs.
* The spider closes only when the cluster is idle: no queued, leased or seed request anywhere, for
  FORUMCRAWL_REDIS_IDLE_CLOSE seconds. SCHEDULER_PERSIST and SCHEDULER_FLUSH_ON_START are not
  honoured: one worker flushing the shared frontier would throw away the others' work (reset a
  crawl with ``forumcrawl push --reset``).

Settings: FORUMCRAWL_REDIS_URL (or REDIS_URL, REDIS_HOST/REDIS_PORT, with REDIS_PARAMS),
SCHEDULER_QUEUE_KEY, SCHEDULER_DUPEFILTER_KEY, DUPEFILTER_CLASS (a
:class:`~forumcrawl.redis.dupefilter.LeasedDupeFilter`), FORUMCRAWL_REDIS_PREFIX,
FORUMCRAWL_REDIS_BATCH, FORUMCRAWL_REDIS_LEASE_SECONDS, FORUMCRAWL_REDIS_MAX_OUTAGE,
FORUMCRAWL_REDIS_POLL_SECONDS, FORUMCRAWL_REDIS_IDLE_CLOSE, FORUMCRAWL_REDIS_DEDUP_TTL.
Stats: ``forumcrawl/redis/*``.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections import defaultdict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy import Request, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import load_object
from scrapy_redis.scheduler import Scheduler
from twisted.internet.task import LoopingCall
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

from forumcrawl.local import is_local, local_request
from forumcrawl.redis import serializer as json_serializer
from forumcrawl.redis.dupefilter import LeasedDupeFilter
from forumcrawl.redis.keys import REDIS_ERRORS, ClusterKeys, client_from_settings, roundtrips
from forumcrawl.redis.queue import Exchange, LeasedQueue, Push

if TYPE_CHECKING:
    import redis
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred
    from twisted.python.failure import Failure

__all__ = ["LEASE_META", "SAMPLE_META", "WAIT_META", "LeasedRedisScheduler", "lease_finished", "wake_engine"]

T = TypeVar("T")

logger = logging.getLogger(__name__)

#: ``request.meta`` key holding the lease (the request's exact JSON in the leases ZSET).
LEASE_META = "forumcrawl_lease"
#: ``request.meta`` key naming the site whose rules a request waits for: it is written to that
#: site's waiting list (:meth:`ClusterKeys.waiting`), not to the queue, until a worker that has
#: the rules takes it (:meth:`LeasedQueue.take_waiting`).
WAIT_META = "forumcrawl_wait_rules"
#: ``request.meta`` key of a link fetched to sample a site before its rules exist: ``[site,
#: pattern, cap]``. It is queued while fewer than ``cap`` links of its URL pattern were, by any
#: worker; else it waits for the rules (each worker's own cap would let N workers sample N times
#: as many pages of a kind as one).
SAMPLE_META = "forumcrawl_sample"
#: Signal ``(lease, park, release, abandon)``: a leased request's results are durable (ack it), or
#: its page is held until site ``park``'s held pages are exported, or (``abandon``) its results were
#: lost and the lease is left to expire; ``release``: this response exported that site's held pages,
#: so their leases share its fate (acknowledged, or left to expire with ``abandon``).
lease_finished = object()

#: Longest pause between reconnection attempts during an outage (seconds).
MAX_BACKOFF = 4.0
#: Outbox size at which follow-up requests are written without waiting for their parent's ack.
FLUSH_AT = 500
#: Fingerprints a worker remembers pushing before it starts afresh (8 bytes each, about 80 MB
#: of Python set at most): a cache in front of the cluster's seen set, never its substitute.
PUSHED_MEMORY = 1_000_000


def _noop(response: Any) -> None:
    """Callback of the wake-up request: nothing to do, the engine just runs its loop again."""


def wake_engine(crawler: Crawler, callback: Callable[[Any], None] = _noop) -> None:
    """Make a running engine run its loop (and signal idle again) now rather than at its next
    5-second heartbeat: schedule a local request (:mod:`forumcrawl.local`) that does nothing."""
    engine = crawler.engine
    if engine is not None and engine.running:
        engine.crawl(local_request(callback))


class LeasedRedisScheduler(Scheduler):
    """Scheduler of a forumcrawl worker: shared leased frontier, local ``data:`` requests."""

    def __init__(
        self,
        crawler: Crawler,
        server: redis.Redis,
        *,
        keys: ClusterKeys,
        dupefilter: LeasedDupeFilter,
        batch: int,
        lease_seconds: float,
        max_outage: float,
        poll_seconds: float,
        dedup_ttl: int,
        idle_close: float = 0.0,
    ) -> None:
        super().__init__(
            server,
            persist=True,
            queue_key=keys.queue_template,
            queue_cls=f"{LeasedQueue.__module__}.{LeasedQueue.__qualname__}",
            dupefilter=dupefilter,
            dupefilter_key=keys.dupefilter_template,
            serializer=json_serializer,
        )
        self.crawler = crawler
        self.stats = crawler.stats
        self.keys = keys
        self.batch = max(1, batch)
        self.lease_seconds = lease_seconds
        self.max_outage = max_outage
        self.poll_seconds = poll_seconds
        self.dedup_ttl = dedup_ttl
        self.idle_close = idle_close
        self.queue: LeasedQueue | None = None
        self.spider: Spider | None = None
        self._local: deque[Request] = deque()
        self._ready: deque[Request] = deque()
        self._outbox: list[Push] = []
        #: The requests of ``_outbox``, in order: those the frontier refuses as seen are dropped
        #: requests, signalled as Scrapy's engine signals a refusal of its own scheduler.
        self._pushed: list[Request] = []
        #: Fingerprints this worker pushed: the cluster's seen set holds them, so a repeat is
        #: refused here as Scrapy's own scheduler refuses one (the engine signals
        #: ``request_dropped``) without encoding it, a Lua call and a signal per repeat. None
        #: when the seen set expires (``FORUMCRAWL_REDIS_DEDUP_TTL``): it may forget them.
        self._pushed_fps: set[bytes] | None = None if dedup_ttl else set()
        self._acks: list[str] = []
        #: Leases parked since the last exchange, to be marked so in Redis (see ``Exchange.stalled``).
        self._parks: list[str] = []
        self._held: set[str] = set()
        self._parked: defaultdict[str, set[str]] = defaultdict(set)
        self._released: dict[str, bool] = {}
        self._busy = False
        self._renewing = False
        self._starved = False
        self._status: Exchange | None = None
        self._status_at = 0.0
        self._idle_since: float | None = None
        self._seen_work = False
        self._remote_empty = False
        self._outage_since: float | None = None
        self._retry_at = 0.0
        self._backoff = poll_seconds
        self._renew_at = 0.0
        self._woken_at = 0.0
        self._waking = False
        self._closing = False
        self._pool = ThreadPool(minthreads=1, maxthreads=1, name="forumcrawl-redis")
        self._loop = LoopingCall(self._tick)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LeasedRedisScheduler:
        settings = crawler.settings
        assert crawler.spidercls is not None
        dupefilter_cls = load_object(settings["DUPEFILTER_CLASS"])
        if not (isinstance(dupefilter_cls, type) and issubclass(dupefilter_cls, LeasedDupeFilter)):
            # The seen test must run inside the frontier's push script, on the crawler's fingerprints.
            logger.info("DUPEFILTER_CLASS %s replaced by LeasedDupeFilter", settings["DUPEFILTER_CLASS"])
            dupefilter_cls = LeasedDupeFilter
        return cls(
            crawler,
            client_from_settings(settings),
            keys=ClusterKeys.from_settings(settings, crawler.spidercls.name),
            dupefilter=dupefilter_cls.from_crawler(crawler),
            batch=settings.getint("FORUMCRAWL_REDIS_BATCH"),
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
        self.queue = load_object(self.queue_cls)(
            self.server,
            spider,
            self.queue_key,
            self.serializer,
            leases_key=self.keys.leases,
            dupefilter_key=self.df.key,
            seeds_key=self.keys.seeds,
            waiting_key=self.keys.waiting_lists,
            workers_key=self.keys.workers,
            parked_key=self.keys.parked,
            worker=f"{socket.gethostname()}:{os.getpid()}:{id(self):x}",
            dedup_ttl=self.dedup_ttl,
        )
        self._pool.start()
        self.crawler.signals.connect(self._on_idle, signal=signals.spider_idle)
        self.crawler.signals.connect(self._on_lease_finished, signal=lease_finished)
        self._loop.start(self.poll_seconds, now=False)
        self._exchange(status=True)

    def close(self, reason: str) -> None:
        """Stop the Redis thread, then write what is left and give back leases never crawled."""
        self._closing = True
        if self._loop.running:
            self._loop.stop()
        self._pool.stop()
        assert self.queue is not None and self.crawler.stats is not None
        if self._outage_since is None:
            unused = [request.meta[LEASE_META] for request in self._ready]
            try:
                self.queue.exchange(self._outbox, self._acks)
                self._outbox, self._acks, self._pushed = [], [], []
                self._inc("given_back", self.queue.give_back(unused))
            except REDIS_ERRORS as exc:
                logger.warning("could not write to Redis on closing: %s", exc, extra={"spider": self.spider})
        if self._outbox or self._acks:
            logger.warning(
                "closing with %d requests and %d acks not written to Redis: their parents' leases "
                "will expire and be crawled again",
                len(self._outbox),
                len(self._acks),
            )
        self.crawler.stats.set_value("forumcrawl/redis/roundtrips", roundtrips())

    def _in_thread(self, function: Callable[..., T], *args: Any) -> Deferred[T]:
        """Run a Redis call in this scheduler's one thread (calls stay in order)."""
        from twisted.internet import reactor  # the installed one: importing it early would install one

        return deferToThreadPool(reactor, self._pool, function, *args)

    # -- outage ----------------------------------------------------------------------------------

    def _redis_failed(self, exc: BaseException) -> None:
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

    def _failed_call(self, failure: Failure) -> None:
        self._busy = False
        if not failure.check(*REDIS_ERRORS):
            logger.error("Redis call failed: %s", failure.getTraceback(), extra={"spider": self.spider})
        self._redis_failed(failure.value)

    def _reconnect(self) -> None:
        assert self.queue is not None
        self._busy = True
        self._in_thread(self.server.ping).addCallbacks(self._reconnected, self._failed_call)

    def _reconnected(self, _: Any) -> None:
        self._busy = False
        if self._outage_since is None:
            return
        seconds = time.monotonic() - self._outage_since
        self._outage_since = None
        self._inc("outages")
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value("forumcrawl/redis/outage_seconds", round(seconds, 3))
        logger.info("Redis is back after %.1fs", seconds, extra={"spider": self.spider})
        self._remote_empty = False
        self._exchange(status=True)

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

    def _exchange(self, *, status: bool = False) -> None:
        """Write buffered follow-ups and acks, and lease a batch when few requests are ready.

        One round trip, in the Redis thread; ``status`` makes the call even with nothing to write
        or take, to refresh the cluster's state.
        """
        if self._busy or self._outage_since is not None or self.queue is None:
            return
        want = 0 if self._closing else self.batch - len(self._ready)
        if not (want or status or self._outbox or self._acks or self._parks):
            return
        outbox, acks, requests, parks = self._outbox, self._acks, self._pushed, self._parks
        self._outbox, self._acks, self._pushed, self._parks = [], [], [], []
        self._busy = True
        d = self._in_thread(self.queue.exchange, outbox, acks, want, self.lease_seconds, parks)
        d.addCallbacks(self._exchanged, self._exchange_failed, callbackArgs=(requests, len(acks)),
                       errbackArgs=(outbox, acks, requests, parks))

    def _exchange_failed(
        self, failure: Failure, outbox: list[Push], acks: list[str], requests: list[Request], parks: list[str]
    ) -> None:
        self._outbox[:0] = outbox
        self._acks[:0] = acks
        self._pushed[:0] = requests
        self._parks[:0] = parks
        self._failed_call(failure)

    def _exchanged(self, result: Exchange, requests: list[Request], acked: int) -> None:
        self._busy = False
        self._status, self._status_at = result, time.monotonic()
        self._inc("pushed", result.new)
        if result.refused:
            self._inc("duplicates", len(result.refused))
        # A redirect whose target was queued already led nowhere new: its requester's navigation
        # learns it here, as an embedded crawl learns it from the engine.
        for position in result.refused:
            self.crawler.signals.send_catch_log(
                signals.request_dropped, request=requests[position], spider=self.spider
            )
        if acked:
            self._inc("acked", acked)
        if result.requeued:
            self._inc("requeued", result.requeued)
            logger.info("%d expired leases returned to the queue", result.requeued, extra={"spider": self.spider})
        for member in result.members:
            self._lease(member)
        self._seen_work = self._seen_work or not result.idle or bool(result.members)
        self._remote_empty = not result.members and not result.queued and not self._outbox
        if self._closing:
            return
        if self._ready and self._starved:
            self._starved = False
            self._wake()
        elif (result.idle or result.stalled) and not self._ready and time.monotonic() - self._woken_at >= self.poll_seconds:
            # the cluster is idle, or stalled until a site is learned: let the engine notice and
            # close, or run its idle handlers (learning from a sample that will not fill) now
            # rather than at its next 5-second heartbeat
            self._wake()

    def _lease(self, member: str) -> None:
        """Make a leased member a ready request (or drop it if it is not ours to read)."""
        assert self.queue is not None
        try:
            request = self.queue.decode(member)
        except (ValueError, KeyError, TypeError) as exc:
            # e.g. pickled by scrapy-redis's own scheduler before the switch: never unpickled here
            self._inc("undecodable")
            logger.warning("dropped an unreadable queued request: %s", exc, extra={"spider": self.spider})
            self._acks.append(member)
            return
        self._inc("popped")
        request.meta[LEASE_META] = member
        if request.errback is None:
            request.errback = self._failed
        self._held.add(member)
        self._ready.append(request)

    def _encode(self, request: Request) -> str:
        assert self.queue is not None
        if request.errback == self._failed:
            request = request.replace(errback=None)
        return self.queue.encode(request)

    def enqueue_request(self, request: Request) -> bool:
        parent = request.meta.pop(LEASE_META, None)
        if parent is not None:  # a retry or redirect replaces its parent request
            self._done(parent)
        if is_local(request) or request.url.startswith("data:"):
            self._local.append(request)
            return True
        fingerprint = None if request.dont_filter else self.df.request_fingerprint(request)
        if fingerprint is not None and self._pushed_fps is not None:
            if fingerprint in self._pushed_fps:
                self._inc("duplicates")
                return False
            if len(self._pushed_fps) >= PUSHED_MEMORY:
                self._pushed_fps.clear()
            self._pushed_fps.add(fingerprint)
        # popped before encoding: once released, the request is queued like any other
        site = request.meta.pop(WAIT_META, None)
        sample = request.meta.pop(SAMPLE_META, None)
        try:
            member = self._encode(request)
        except (TypeError, ValueError) as exc:
            self._inc("unserialisable")
            logger.warning("dropped %s: cannot be serialised: %s", request, exc, extra={"spider": self.spider})
            return False
        if sample and not site:
            sampled, pattern, cap = sample
            push = Push(member, -request.priority, fingerprint, self.keys.waiting(sampled),
                        self.keys.sampled(sampled), pattern, int(cap))
        else:
            push = Push(member, -request.priority, fingerprint, self.keys.waiting(site) if site else "")
        self._outbox.append(push)
        self._pushed.append(request)
        self._remote_empty = False
        if len(self._outbox) >= FLUSH_AT:
            self._exchange()
        return True

    def next_request(self) -> Request | None:
        if self._local:
            return self._local.popleft()
        if self._ready:
            request = self._ready.popleft()
            self._exchange()
            return request
        self._starved = True
        if not self._remote_empty:  # otherwise the tick polls the cluster
            self._exchange()
        return None

    def has_pending_requests(self) -> bool:
        return bool(self._local or self._ready) or (self._outage_since is None and not self._remote_empty)

    def _done(self, lease: str) -> None:
        if lease in self._held:
            self._held.discard(lease)
            self._acks.append(lease)

    def _failed(self, failure: Failure) -> Failure:
        """Errback of leased requests: a download that failed for good is done (then logged as usual)."""
        lease = failure.request.meta.pop(LEASE_META, None)  # type: ignore[attr-defined]
        if lease is not None:
            self._done(lease)
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
                self._parks.append(lease)
            else:  # a held page whose releasing response was settled first shares its fate
                self._settle(lease, durable=not abandon and self._released.get(park or "", True))

    def _settle(self, lease: str, *, durable: bool) -> None:
        """Acknowledge ``lease``, or stop renewing it so that it expires and is crawled again."""
        if durable:
            self._done(lease)
        else:
            self._held.discard(lease)

    # -- idle, renewal, wake-up ------------------------------------------------------------------

    def _wake(self) -> None:
        """Make the engine run its loop now rather than at its next 5-second heartbeat; one
        wake-up at a time (another one queued behind it would wake nothing more)."""
        self._woken_at = time.monotonic()
        if not self._waking:
            self._waking = True
            wake_engine(self.crawler, self._woken)

    def _woken(self, response: Any) -> None:
        """Callback of the wake-up request: the engine has run its loop."""
        self._waking = False

    def _renew(self) -> None:
        """Extend this worker's leases; queued behind any exchange, never skipped for one."""
        assert self.queue is not None
        self._renewing = True
        self._renew_at = time.monotonic() + self.lease_seconds / 3
        d = self._in_thread(self.queue.renew, sorted(self._held), self.lease_seconds)
        d.addCallbacks(self._renewed, self._renew_failed)

    def _renewed(self, _: int) -> None:
        self._renewing = False

    def _renew_failed(self, failure: Failure) -> None:
        self._renewing = False
        if not failure.check(*REDIS_ERRORS):
            logger.error("Redis call failed: %s", failure.getTraceback(), extra={"spider": self.spider})
        if self._outage_since is None:
            self._redis_failed(failure.value)

    def _tick(self) -> None:
        """Every FORUMCRAWL_REDIS_POLL_SECONDS: reconnect, renew leases, write what waits, poll."""
        now = time.monotonic()
        if self._outage_since is not None:
            if now - self._outage_since > self.max_outage:
                self._give_up()
            elif now >= self._retry_at and not self._busy:
                self._reconnect()
            return
        if self._held and now >= self._renew_at and not self._renewing:
            self._renew()
        self._exchange(status=self._remote_empty or self._starved)

    def _on_idle(self) -> None:
        if self._outage_since is not None:
            raise DontCloseSpider
        if self._outbox or self._acks or self._local or self._ready:
            self._idle_since = None
            self._exchange(status=True)
            raise DontCloseSpider
        status = self._status
        if status is None or time.monotonic() - self._status_at > max(1.0, 4 * self.poll_seconds):
            self._exchange(status=True)  # decide on a fresh look at the cluster
            raise DontCloseSpider
        if not status.idle:
            if status.queued:
                self._remote_empty = False
            self._idle_since = None
            self._exchange(status=True)
            raise DontCloseSpider
        # The cluster looks idle. A worker that has never seen it busy may have started before
        # the seeds were pushed: it waits FORUMCRAWL_REDIS_IDLE_CLOSE for work to appear. Once
        # the cluster has been busy, one idle look is final: it is one atomic read
        # of queue, leases, seeds and waiting links, a page keeps its lease until its follow-ups
        # are written, and only a leased page makes new work. A second look would cost every
        # worker a poll or two at the end of each crawl and could not see anything new.
        if not self._seen_work:
            if self._idle_since is None:
                self._idle_since = self._status_at
            if self._status_at - self._idle_since < self.idle_close:
                raise DontCloseSpider
