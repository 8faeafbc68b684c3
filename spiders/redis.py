"""Cluster variants of the spiders: ``scrapy crawl forum_redis`` / ``news_redis``.

They take their work as scrapy-redis's RedisSpider does: seeds are the Redis list
``<spider>:start_urls`` (REDIS_START_URLS_KEY, or the spider's ``redis_key``; a SET with
REDIS_START_URLS_AS_SET), each a URL or scrapy-redis's JSON (``{"url": …, "meta": …}``,
:meth:`make_request_from_data`), pushed by ``redis-cli LPUSH forum_redis:start_urls URL``,
``forumcrawl push forum URL…`` or ``-a start=`` (which pushes first). Unlike RedisSpider, a worker
does not crawl the seeds it reads: it moves them into the shared frontier (deduplicated) and then
deletes them, in one round trip, so a worker that dies holding seeds loses none and the seeds are
spread over the workers like any request. Links are followed within the cluster's sites
(``<prefix>:<spider>:sites``: the seeds' sites), so a worker follows links of pages that another
worker's seed led to. Separate spider names (rather than a switch inside ``forum``) keep the
embedded spiders' contract intact: ``forum`` always needs ``-a start=``, a Redis spider never
does. They need a Redis URL (FORUMCRAWL_REDIS_URL or REDIS_URL), which also switches the
scheduler, dupefilter, rule store, stats and pipelines (see :mod:`forumcrawl.addon`). Their Redis
calls run in threads.

Each page's response is marked for :class:`~forumcrawl.redis.middleware.LeaseAckMiddleware`: a
page held until its site's rules exist keeps its lease until the response whose callback exported
the held pages is acknowledged, so a worker killed before or during learning loses nothing.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.reactor import CallLaterOnce
from scrapy_redis.spiders import RedisMixin
from scrapy_redis.utils import bytes_to_str, is_dict
from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall
from twisted.internet.threads import deferToThread
from twisted.python.failure import Failure

from forumcrawl.document import Document, site_of
from forumcrawl.extractors.navigation import pattern_key
from forumcrawl.redis.budgets import ClusterBudgets
from forumcrawl.redis.dupefilter import LeasedDupeFilter
from forumcrawl.redis.keys import REDIS_ERRORS, ClusterKeys, client_from_settings, push_seeds, redis_url_from_settings
from forumcrawl.redis.middleware import PARK_META, RELEASE_META
from forumcrawl.redis.pages import SHARE_SECONDS, Notes, Sampled, WorkerNotes, rules_tag
from forumcrawl.redis.queue import Exchange, LeasedQueue, Push
from forumcrawl.redis.scheduler import SAMPLE_META, WAIT_META, wake_engine
from forumcrawl.navigation import PatternBudget, SiteNavigator
from forumcrawl.spiders.base import SAMPLE_PER_PATTERN, Flips, SiteSpider, parse_start_urls
from forumcrawl.spiders.forum import ForumSpider
from forumcrawl.spiders.news import NewsSpider

__all__ = ["ForumRedisSpider", "NewsRedisSpider", "RedisSiteSpider"]

#: Seconds between looks at the cluster's queue while a site waits to be learned.
IDLE_RECHECK = 0.5


@dataclass(frozen=True)
class _Released:
    """Yielded by :meth:`RedisSiteSpider.learn_and_release` once the held pages are exported."""

    site: str


class RedisSiteSpider(RedisMixin, SiteSpider):
    """A :class:`SiteSpider` fed from the cluster's start URLs (mix in before a concrete spider).

    scrapy-redis's attributes keep their meaning: ``redis_key`` (default REDIS_START_URLS_KEY),
    ``redis_batch_size`` (default CONCURRENT_REQUESTS), ``redis_encoding`` (REDIS_ENCODING).
    """

    notes: WorkerNotes
    #: The cluster's URL pattern budgets (also read by the NavigationMiddleware).
    budgets: ClusterBudgets
    #: Every pattern sampled alike (see SAMPLE_FIRST): the links a pattern's first page would
    #: let into the sample wait in Redis, and that page may be another worker's.
    sample_first = SAMPLE_PER_PATTERN

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
        self._empty_since: float | None = None
        #: The cluster's state at the last look (None: not read yet, or Redis could not be read).
        self._cluster: Exchange | None = None
        #: When the looks first found the cluster stalled (None: not stalled at the last look).
        self._stalled_since: float | None = None
        self._counting: Deferred[Any] | None = None
        self._moving: Deferred[Any] | None = None
        # Listings whose page flips wait for the cluster's word on their leads (see page_outcome).
        self._flips_waiting = 0
        self._recheck = CallLaterOnce(lambda: wake_engine(self.crawler))
        self._share_loop: LoopingCall | None = None
        self._sharing: Deferred[Any] | None = None
        #: A share asked for while one was under way: run it as soon as that one is done.
        self._share_again = False
        self._untold = Notes()
        self._to_tell: list[Sampled] = []
        self._cleared: set[str] = set()
        # Pages told under rules this worker does not have yet (it adopts them a moment later).
        self._early: dict[tuple[str, str], list[tuple[str, int]]] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> RedisSiteSpider:
        settings = crawler.settings
        if not redis_url_from_settings(settings):
            raise ValueError(f"the {cls.name} spider needs -s FORUMCRAWL_REDIS_URL=redis://… (or REDIS_URL)")
        spider = super().from_crawler(crawler, *args, **kwargs)
        assert isinstance(spider, RedisSiteSpider)
        keys = ClusterKeys.from_settings(settings, spider.name)
        if spider.redis_key:
            keys = dataclasses.replace(keys, start_urls_template=spider.redis_key)
        spider.keys = keys
        spider.redis_key = keys.seeds
        spider.redis_batch_size = int(spider.redis_batch_size or settings.getint("CONCURRENT_REQUESTS"))
        spider.redis_encoding = spider.redis_encoding or settings.get("REDIS_ENCODING") or "utf-8"
        spider.server = client_from_settings(settings)
        spider.frontier = LeasedQueue(
            spider.server,
            spider,
            keys.queue,
            leases_key=keys.leases,
            dupefilter_key=keys.seen,
            seeds_key=keys.seeds,
            waiting_key=keys.waiting_lists,
            workers_key=keys.workers,
            parked_key=keys.parked,
            dedup_ttl=settings.getint("FORUMCRAWL_REDIS_DEDUP_TTL"),
        )
        spider.notes = WorkerNotes(spider.server, keys)
        spider.budgets = ClusterBudgets(spider.server, keys)
        crawler.signals.connect(spider.spider_idle, signal=signals.spider_idle)
        crawler.signals.connect(spider._stop_sharing, signal=signals.spider_closed)
        crawler.signals.connect(spider.queued_elsewhere, signal=signals.request_dropped)
        return spider

    def make_request_from_data(self, data: bytes) -> scrapy.Request | list[scrapy.Request]:
        """A seed as scrapy-redis reads it: its JSON format, or a plain URL (what ``redis-cli
        LPUSH`` users push, which scrapy-redis 0.9 still accepts with a deprecation warning)."""
        text = bytes_to_str(data, self.redis_encoding).strip()
        if is_dict(text):
            return super().make_request_from_data(data)
        return scrapy.Request(text, callback=self.parse)

    def _seed_requests(self, taken: list[bytes]) -> list[scrapy.Request]:
        requests: list[scrapy.Request] = []
        for data in taken:
            try:
                made = self.make_request_from_data(data)
            except (ValueError, TypeError) as exc:
                self.logger.warning("dropped seed %r: %s", data[:200], exc)
                continue
            requests.extend(made if isinstance(made, list) else [made])
        return requests

    def move_seeds(self) -> int:
        """Move a batch of waiting seeds into the frontier (blocking: runs in a thread); how many."""
        taken = self.frontier.peek_seeds(self.redis_batch_size, as_set=self.keys.seeds_as_set)
        if not taken:
            return 0
        requests = self._seed_requests(taken)
        entries = [
            Push(self.frontier.encode(r), -r.priority, self.dupefilter.request_fingerprint(r)) for r in requests
        ]
        sites = {site_of(r.url) for r in requests}
        self.frontier.move_seeds(entries, taken, as_set=self.keys.seeds_as_set, sites_key=self.keys.sites, sites=sites)
        self.sites |= sites
        return len(taken)

    def _seeds_moved(self, result: int | Failure) -> None:
        self._moving = None
        if isinstance(result, Failure):
            if not result.check(*REDIS_ERRORS):
                self.logger.error("could not move seeds: %s", result.getTraceback())
            else:
                self.logger.warning("could not move seeds: %s", result.value)
        elif result:
            self.logger.info("moved %d seeds from %s into the frontier", result, self.keys.seeds)
            self._inc("redis/seeds", result)
            wake_engine(self.crawler)

    def _read_sites(self) -> set[str]:
        return {s.decode("utf-8") for s in self.server.smembers(self.keys.sites)}

    async def refresh_sites(self) -> None:
        """Add the cluster's sites (other workers' seeds) to the sites whose links are followed."""
        try:
            self.sites |= await maybe_deferred_to_future(deferToThread(self._read_sites))
        except REDIS_ERRORS as exc:
            self.logger.warning("could not read the cluster's sites: %s", exc)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        """Push ``-a start`` seeds, then move waiting seeds into the frontier; the scheduler brings
        them back to whichever worker leases them, so nothing is yielded here."""
        # the crawler's fingerprinter exists once the crawl has started
        self.dupefilter = LeasedDupeFilter(self.server, self.keys.seen, self.crawler.request_fingerprinter)
        if self.start_urls:
            await maybe_deferred_to_future(
                deferToThread(push_seeds, self.server, self.keys, self.start_urls, sorted(self.sites))
            )
        self._start_moving()
        self._share_loop = LoopingCall(self.share_pages)
        self._share_loop.start(SHARE_SECONDS, now=False)
        return
        yield  # an async generator (Scrapy's start contract) that has nothing to yield

    def hold_back(self, site: str, request: scrapy.Request) -> scrapy.Request | None:
        """Links held back until the site's rules exist wait in Redis (a worker's memory would
        lose them with it), out of the queue, so that no worker fetches them blind; the first
        worker with the rules queues them (:meth:`share_pages`)."""
        request.meta[WAIT_META] = site
        return request

    def sample_link(self, site: str, request: scrapy.Request) -> scrapy.Request:
        """Also within its pattern's cap across the cluster (see :data:`SAMPLE_META`): each
        worker's cap alone let two workers sample ten permalinks of a kind where an embedded
        crawl samples five, each a thread page fetched again under its canonical URL later."""
        request.meta[SAMPLE_META] = [site, pattern_key(request.url), self.sample_per_pattern]
        return request

    def queued_elsewhere(self, request: scrapy.Request) -> None:
        """A thread page the frontier refused as seen was queued by another worker (this one
        queues each once), or waits in Redis for its site's rules: from now on it is no lead
        here, though its waiting link is still released (see
        :meth:`SiteNavigator.refused_there`). The notes tell fetched pages once a second; a
        page queued meanwhile counted as new on every page linking it, and a listing's
        sequence went on through pages whose threads another worker had queued."""
        if request.meta.get("forumcrawl_nav") != "thread" or self.learner is None:
            return
        navigator = self.navigator(self.learner.model(site_of(request.url)))
        if navigator is not None:
            navigator.refused_there(request.url)

    def page_outcome(
        self,
        navigator: SiteNavigator,
        site: str,
        url: str,
        leads: list[str],
        listed: bool,
        flips: Flips,
    ) -> Iterator[scrapy.Request]:
        """Whether a listing led anywhere, which decides if its sequence goes on past a closed
        pattern, is the cluster's word, not this worker's: a thread page new here may be queued
        by another worker already. Chained on this worker's leads alone, each worker took every
        sort order of one listing through to its end (qa family: 46-50 listing pages fetched by
        two workers where one fetches 27). The flips that word decides wait for the outcome."""
        held = [flip for flip in flips if flip[2].role in ("index", "other")] if leads else []
        name = navigator.outcome_pattern(url, len(leads)) if held else None
        if name is None:
            yield from super().page_outcome(navigator, site, url, leads, listed, flips)
            return
        settled = [flip for flip in flips if flip[2].role not in ("index", "other")]
        yield from self.flip_requests(navigator, settled, True)
        self._flips_waiting += 1
        self._tell_outcome(navigator, site, name, url, leads, listed, held)

    def pattern_outcome(
        self, navigator: SiteNavigator, site: str, url: str, leads: list[str], *, listed: bool = True
    ) -> None:
        """Told to the pattern's budget in Redis, in a thread (see :mod:`forumcrawl.redis.budgets`):
        it frees the download's place and may close the pattern for every worker. The leads
        are judged on the cluster's record: a worker that starts with the rules another learned
        knows none of the threads queued so far."""
        name = navigator.outcome_pattern(url, len(leads))
        if name is not None:
            self._tell_outcome(navigator, site, name, url, leads, listed, [])

    def _tell_outcome(
        self,
        navigator: SiteNavigator,
        site: str,
        name: str,
        url: str,
        leads: list[str],
        listed: bool,
        held: Flips,
    ) -> None:
        told = deferToThread(self.budgets.outcome, site, name, url, leads, listed)
        told.addCallbacks(
            self._outcome_told,
            self._budget_failed,
            callbackArgs=(navigator, site, name, held),
            errbackArgs=(navigator, held),
        )

    def _outcome_told(
        self,
        result: tuple[bool, PatternBudget, int],
        navigator: SiteNavigator,
        site: str,
        name: str,
        held: Flips,
    ) -> None:
        if held:  # first: the spider stays open while flips wait (see spider_idle)
            self._schedule_flips(navigator, held, result[2] > 0)
        if navigator.mirror(name, result[1]):
            self._inc("nav/closed_patterns")
            self.logger.info(
                "not following %s pages of the pattern %s any more: they lead to no new thread page",
                site, name,
            )

    def _budget_failed(
        self,
        failure: Failure,
        navigator: SiteNavigator | None = None,
        held: Flips | None = None,
    ) -> None:
        # the place lapses in Redis; this worker's own record goes on meanwhile, and its own
        # leads decide the flips that waited for the cluster's
        self.logger.warning("could not tell a pattern's budget: %s", failure.value)
        if navigator is not None and held:
            self._schedule_flips(navigator, held, True)

    def _schedule_flips(self, navigator: SiteNavigator, held: Flips, led: bool) -> None:
        """Queue the flips of a listing that waited for the cluster's word (``led``), counted
        out of those waiting before anything can fail: a count left behind would keep the
        spider open for ever."""
        self._flips_waiting -= 1
        engine = self.crawler.engine
        for request in self.flip_requests(navigator, held, led):
            if engine is not None:
                engine.crawl(request)

    def observe(self, doc: Document, links: list[str], fetched: datetime) -> None:
        """Also tell the other workers (see :mod:`forumcrawl.redis.pages`)."""
        super().observe(doc, links, fetched)
        self._to_tell.append((doc.site, doc.url, doc.html, links))

    def share_pages(self) -> None:
        """Once a second, in a thread, one exchange at a time: tell the other workers which
        thread pages this one fetched, which patterns it closed and which pages it sampled, hear
        theirs (see :mod:`forumcrawl.redis.pages`), take the links waiting for the rules of the
        sites learned here, and adopt the rules another worker published for a site sampled
        here."""
        if self._sharing is not None:
            return
        ours, self._untold = self._untold, Notes()
        ours.sampled, self._to_tell = self._to_tell, []
        waiting, learned = [], []
        for site, (model, navigator) in list(self._navigators.items()):
            tag = rules_tag(model.rules.get("nav"))
            ours.fetched += [(site, tag, thread, page) for thread, page in navigator.take_fetched()]
            ours.closed += [(site, name) for name in navigator.closed_patterns()]
            waiting.append(self.keys.waiting(site))
            if site not in self._cleared:
                self._cleared.add(site)
                learned.append(site)
        sampling = [s for s in self.learner.pending_sites() if s not in self._learning] if self.learner else []
        known = set(self._navigators) | set(sampling) | self._learning
        self._sharing = deferToThread(self._share, ours, sampling, learned, waiting, known, self.orphans_due())
        self._sharing.addBoth(self._shared, ours)

    def orphans_due(self) -> bool:
        """Whether the links waiting for a site no worker here samples go out without rules (its
        sampler may have died): once the cluster's queue has been empty for twice
        ``FORUMCRAWL_REDIS_IDLE_CLOSE`` and no live worker parks a page for its site's rules.
        A live sampler learns from its partial sample once the cluster is stalled
        (:meth:`learn_pending_sites`), well before; when it learned only after the queue had
        been empty for one such wait, links went out blind a second before the rules in some
        runs (a small forum's whole sample taken by one worker: phpBB 89 links, 106 requests
        instead of 85). A parked page is a sampler alive (a dead one's leases lapse and leave
        the parked SET): on a loaded machine, learning took 8-10 s while the other worker
        waited, and the 93 links it let out blind fetched 69 post permalinks (misago)."""
        grace = self.crawler.settings.getfloat("FORUMCRAWL_REDIS_IDLE_CLOSE")
        cluster = self._look()
        if cluster is None or cluster.parked:
            return False
        return self._queue_empty_for() >= 2 * grace

    def _share(
        self, ours: Notes, sampling: list[str], learned: list[str], waiting: list[str], known: set[str], stalled: bool
    ) -> tuple[Notes, list[str], list[str]]:
        assert self.learner is not None or not sampling
        # Links waiting for a site this worker neither learned nor samples: the worker that
        # sampled it may have died. Its rules, if published, are adopted here; without rules,
        # once the cluster's queue has stayed empty (``stalled``), the links are queued as they
        # were (they become the next sample) rather than wait for ever.
        prefix = self.keys.waiting("")
        orphans = [key[len(prefix) :] for key in self.frontier.waiting_lists() if key[len(prefix) :] not in known]
        published = [site for site in sampling + orphans if self.learner and self.learner.store.get(site) is not None]
        if stalled:
            waiting += [self.keys.waiting(site) for site in orphans if site not in published]
        theirs = self.notes.exchange(ours, sampling, learned)
        lease = self.crawler.settings.getfloat("FORUMCRAWL_REDIS_LEASE_SECONDS")
        return theirs, self.frontier.take_waiting(waiting, lease), published

    def navigation_ready(self, site: str, navigator: SiteNavigator) -> None:
        """The sample's records start the cluster's budgets of the patterns without one, and its
        thread pages the cluster's record of leads; then share at once rather than at the next
        tick: the share takes the links that waited for the site's rules, and until then no
        worker has anything to fetch (up to ``SHARE_SECONDS`` of the whole cluster, once per
        site)."""
        seeded = deferToThread(self.budgets.seed, site, navigator.budgets(), navigator.leads())
        seeded.addErrback(self._budget_failed)
        self._share_now()

    def _share_now(self) -> None:
        """Share at once, or right after the share under way."""
        if self._sharing is None:
            self.share_pages()
        else:
            self._share_again = True

    def release_waiting(self, taken: list[str]) -> None:
        """Decide the links that waited for their site's rules (leased to this worker by
        :meth:`LeasedQueue.take_waiting`) as an embedded crawl decides its held-back links:
        those the rules skip are dropped, the others queued at their role's priority (thread
        pages before boards before patterns on probation), all acknowledged in one round trip."""
        pushes: list[Push] = []
        for member in taken:
            request = self.frontier.decode(member)
            navigator = self.navigator(self.learner.model(site_of(request.url)) if self.learner else None)
            released = request if navigator is None else self.release_link(navigator, request)
            if released is not None:
                pushes.append(Push(self.frontier.encode(released), -released.priority, None))
        self._inc("redis/released_waiting", len(pushes))
        self.logger.info("queued %d of %d links that waited for a site's rules", len(pushes), len(taken))
        done = deferToThread(self.frontier.exchange, pushes, taken)
        done.addCallbacks(lambda _: wake_engine(self.crawler), self._release_failed)

    def _release_failed(self, failure: Failure) -> None:
        # the leases expire and the requests return to the queue as they were
        self.logger.warning("could not queue the links that waited for a site's rules: %s", failure.value)

    def _shared(self, result: tuple[Notes, list[str], list[str]] | Failure, ours: Notes) -> None:
        self._sharing = None
        try:
            self._heard(result, ours)
        finally:
            again, self._share_again = self._share_again, False
            if again:
                self.share_pages()

    def _heard(self, result: tuple[Notes, list[str], list[str]] | Failure, ours: Notes) -> None:
        if isinstance(result, Failure):
            self._untold.fetched[:0] = ours.fetched
            self._to_tell[:0] = ours.sampled
            if result.check(ValueError, *REDIS_ERRORS):
                self.logger.warning("could not share notes with the other workers: %s", result.value)
            else:
                self.logger.error("could not share notes with the other workers: %s", result.getTraceback())
            return
        theirs, taken, published = result
        if taken:
            self.release_waiting(taken)
        for site, tag, thread, page in theirs.fetched:
            self._early.setdefault((site, tag), []).append((thread, page))
        for (site, tag), pairs in list(self._early.items()):
            known = self._navigators.get(site)
            if known is None:
                continue
            if rules_tag(known[0].rules.get("nav")) == tag:
                known[1].note_elsewhere(pairs)
            del self._early[(site, tag)]
        closed: dict[str, list[str]] = {}
        for site, name in theirs.closed:
            closed.setdefault(site, []).append(name)
        for site, names in closed.items():
            known = self._navigators.get(site)
            if known is not None:
                known[1].close(names)
        if self.learner is not None and theirs.sampled:
            for site, url, html, links in theirs.sampled:
                self.learner.borrow(Document(html, url), links)
            self._inc("learn/borrowed_pages", len(theirs.sampled))
            published += [site for site in {b[0] for b in theirs.sampled} if self.learner.ready(site)]
        for site in dict.fromkeys(published):
            # Another worker learned the site (adopt its rules now rather than sample on
            # blind), or the pages it sampled complete the sample held here.
            if site not in self._learning:
                self.learn_site_now(site)

    def _stop_sharing(self) -> None:
        self._share_again = False
        if self._share_loop is not None and self._share_loop.running:
            self._share_loop.stop()

    def _start_moving(self) -> None:
        self._moving = deferToThread(self.move_seeds)
        self._moving.addBoth(self._seeds_moved)

    def spider_idle(self) -> None:
        """On spider_idle (scrapy-redis's hook): seeds pushed during the crawl are moved too.

        A move in flight keeps the spider open; once it is done, the scheduler's view of the
        cluster (which counts waiting seeds) decides. Page flips waiting for the cluster's word
        (see :meth:`page_outcome`) keep it open too.
        """
        if self._moving is not None or self._flips_waiting:
            raise DontCloseSpider
        self._start_moving()

    def learn_pending_sites(self) -> None:
        """On spider_idle: learn from a partial sample only once the cluster is out of pages.

        One worker with nothing to do is not a crawl out of pages: another worker may be
        fetching the boards whose threads would fill this one's queue, and a sample of the
        site's first pages alone (home, search, member list) holds no thread page to learn
        from. So sites are learned early only once the cluster is stalled (``Exchange.stalled``:
        nothing queued, no seed waiting, every lease a page parked for its site's rules), which
        no link can follow until some site is learned. Waiting for the queue to stay empty a
        while instead cost every such crawl ``FORUMCRAWL_REDIS_IDLE_CLOSE`` seconds in which no
        worker fetched anything. With other workers alive, their last sampled pages reach this
        one only through the shares: learning at the first stalled look, a worker holding the
        home page alone learned from it while the other held the rest of the sample. So the
        sample must also hold every page parked in the cluster (``Exchange.parked`` no more than
        the pages held and borrowed here); a look that finds it short shares at once, to tell
        this worker's pages and hear the others'. Pages parked for a site sampled only elsewhere
        are never heard here: after two shares (``2 * SHARE_SECONDS``: one for every worker to
        tell, one to hear) of a stalled cluster, the site is learned anyway.
        """
        if self.learner is not None and self.learner.pending_sites() and not self._cluster_stalled():
            self._inc("learn/waited_for_cluster")
            self._recheck.schedule(IDLE_RECHECK)
            raise DontCloseSpider
        super().learn_pending_sites()

    def _counted(self, result: tuple[Exchange, list[str]] | Failure) -> None:
        self._counting = None
        # during an outage the scheduler reports it; the cluster then counts as busy
        self._cluster, unheard = (None, []) if isinstance(result, Failure) else result
        if not (self.learner and self.learner.pending_sites()):
            return
        if self._stalled_enough(self._cluster):
            wake_engine(self.crawler)  # learn now, not at the next recheck
        elif self._cluster is not None and self._cluster.stalled and (self._to_tell or unheard):
            # the cluster waits for the samples to be told and heard: tell ours, hear theirs
            # now rather than at the next tick
            self._share_now()

    def _look(self) -> Exchange | None:
        """The cluster's state at the last look; the next look is taken in a thread."""
        if self._counting is None:
            sampling = self.learner.pending_sites() if self.learner else []
            self._counting = deferToThread(self._read_cluster, sampling)
            self._counting.addBoth(self._counted)
        return self._cluster

    def _read_cluster(self, sampling: list[str]) -> tuple[Exchange, list[str]]:
        """The cluster's state, and which of the sites ``sampling`` have pages told here unheard."""
        return self.frontier.status(), self.notes.unheard(sampling)

    def _cluster_stalled(self) -> bool:
        """Whether the looks found the cluster stalled (nothing to fetch until a site is
        learned), long enough for the sample of every other live worker to have been heard."""
        return self._stalled_enough(self._look())

    def _stalled_enough(self, cluster: Exchange | None) -> bool:
        """Whether ``cluster``, the last look, is stalled, and every page parked in it is in a
        sample held here (see :meth:`learn_pending_sites`)."""
        if cluster is None or not cluster.stalled:
            self._stalled_since = None
            return False
        if self._stalled_since is None:
            self._stalled_since = time.monotonic()
        if cluster.workers <= 1 or time.monotonic() - self._stalled_since >= 2 * SHARE_SECONDS:
            return True
        assert self.learner is not None
        return cluster.parked <= sum(self.learner.sample_pages(site) for site in self.learner.pending_sites())

    def _queue_empty_for(self) -> float:
        """Seconds the cluster's queue has been seen empty (0 while it holds requests, or when
        Redis cannot be read)."""
        cluster = self._look()
        now = time.monotonic()
        if cluster is None or cluster.queued:
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
            await self.refresh_sites()
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
