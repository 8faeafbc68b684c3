"""Spider middlewares of forumcrawl."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from forumcrawl.document import site_of
from forumcrawl.extractors.links import LinkRecord, load_link_model, thread_and_list_probabilities
from forumcrawl.extractors.navigation import returns_to
from forumcrawl.navigation import STALE, Decision, SiteNavigator
from forumcrawl.redis.keys import REDIS_ERRORS, redis_url_from_settings

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from sklearn.pipeline import Pipeline
    from typing_extensions import Self

__all__ = ["LINK_PRIORITY", "LIST_SHARE", "LinkScoringMiddleware", "LoginWallMiddleware", "NavigationMiddleware"]

logger = logging.getLogger(__name__)

#: Priority added to a request whose link has probability 1 of being an information link; the
#: same scale as the spider's boost of thread pages once the site's topic rule is known.
LINK_PRIORITY = 10
#: Share of :data:`LINK_PRIORITY` a sure list link gets: a board leads to thread pages one fetch
#: later, so it goes before a log-in or profile link and after a thread page.
LIST_SHARE = 0.5


class LinkScoringMiddleware(BaseSpiderMiddleware):
    """Steers the crawl of a site before its topic-URL rule is learned (seed 002 §1).

    Each followed link carries its :class:`~forumcrawl.extractors.links.LinkRecord` in
    ``request.meta["forumcrawl_link"]`` (set by the spider). Until the site's USC rule exists, the
    link classifier's probabilities raise the request's priority (up to :data:`LINK_PRIORITY`
    for a thread page, :data:`LIST_SHARE` of it for a list page), the thread-page probability is
    stored in ``meta["forumcrawl_link_probability"]``, and links whose probability of leading to
    posts (a thread page or a list page) is below the threshold are dropped. Once the rule exists the resolver decides (the spider boosts thread pages) and the
    request passes unchanged. Requests without a link record pass unchanged.

    Settings: FORUMCRAWL_LINK_SCORING_ENABLED (NotConfigured when false), FORUMCRAWL_LINK_MODEL
    (path of a ``links.json``; empty: the shipped model), FORUMCRAWL_LINK_MIN_PROBABILITY (0:
    keep every link). Stats: ``forumcrawl/link/kept``, ``forumcrawl/link/dropped`` (scored
    links) and ``forumcrawl/link/by_rule`` (left to the site's rule).
    """

    def __init__(self, crawler: Crawler, model: Pipeline, min_probability: float = 0.0) -> None:
        super().__init__(crawler)
        self.model = model
        self.min_probability = min_probability

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        if not settings.getbool("FORUMCRAWL_LINK_SCORING_ENABLED", True):
            raise NotConfigured("FORUMCRAWL_LINK_SCORING_ENABLED is false")
        min_probability = settings.getfloat("FORUMCRAWL_LINK_MIN_PROBABILITY", 0.0)
        if not 0.0 <= min_probability <= 1.0:
            raise NotConfigured(
                f"FORUMCRAWL_LINK_MIN_PROBABILITY must be in [0, 1], got {min_probability}"
            )
        try:
            model = load_link_model(settings.get("FORUMCRAWL_LINK_MODEL") or None)
        except (OSError, ValueError, KeyError) as exc:
            raise NotConfigured(f"cannot load the link model: {exc}") from exc
        return cls(crawler, model, min_probability)

    def _rule_known(self, url: str) -> bool:
        learner: Any = getattr(self.crawler.spider, "learner", None)
        return learner is not None and learner.model(site_of(url)) is not None

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        link = request.meta.get("forumcrawl_link")
        if link is None:
            return request
        assert self.crawler.stats is not None
        # A link held back while its site was sampled was seen before the rule existed: scored.
        if self._rule_known(request.url) and not request.meta.get("forumcrawl_deferred"):
            self.crawler.stats.inc_value("forumcrawl/link/by_rule")
            return request
        threads, lists = thread_and_list_probabilities(self.model, [LinkRecord.from_dict(link)])
        probability, listing = float(threads[0]), float(lists[0])
        request.meta["forumcrawl_link_probability"] = probability
        if probability + listing < self.min_probability:
            self.crawler.stats.inc_value("forumcrawl/link/dropped")
            logger.debug(
                "dropped %s (thread %.2f, list %.2f)", request.url, probability, listing,
                extra={"spider": self.crawler.spider},
            )
            return None
        self.crawler.stats.inc_value("forumcrawl/link/kept")
        request.priority += round((probability + LIST_SHARE * listing) * LINK_PRIORITY)
        return request


class _NavigationPart:
    """A downloader middleware of the navigation: off, like it, with
    ``FORUMCRAWL_NAVIGATION_ENABLED`` false."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.getbool("FORUMCRAWL_NAVIGATION_ENABLED", True):
            raise NotConfigured("FORUMCRAWL_NAVIGATION_ENABLED is false")
        return cls(crawler)

    @staticmethod
    def _tracked(request: Request) -> bool:
        return "forumcrawl_link" in request.meta or "forumcrawl_nav" in request.meta

    def _dry(self, request: Request) -> None:
        """Count a download that led to no parsed page against the pattern of the URL asked."""
        led_nowhere = getattr(self.crawler.spider, "led_nowhere", None)
        if led_nowhere is not None:
            led_nowhere(request)


class NavigationMiddleware(_NavigationPart):
    """Downloader middleware: drops a queued request whose download would be wasted.

    A request is queued when its link is seen, but the site's navigator (see
    :mod:`forumcrawl.navigation`) may learn more before it is downloaded: the same thread page
    fetched under another URL (links queued before the site's rules existed), or the request's
    URL pattern closed because its pages lead to no new thread page. Such requests are ignored
    and counted as ``forumcrawl/nav/skipped/<why>``. Start requests and requests without the
    spider's navigation pass.

    While a site's rules are being learned (a few seconds, in a worker thread), its followed
    links wait here instead of being fetched blind: the rules decide them once they exist. An
    error response (404 after an action's redirect to a login page, 500) is never parsed, so it
    is counted here as a fetch of its pattern that led to no thread page, and so are a download
    that failed and a redirect the scheduler refused as a duplicate. A request whose pattern has
    as many downloads under way as dry fetches left waits here for their outcomes.
    """

    #: Seconds between looks at whether a site's learning has ended.
    POLL = 0.05
    #: Seconds between asks of a cluster's shared budget while its pattern's downloads under way
    #: elsewhere are as many as its dry fetches left (each ask is a Redis round trip).
    CLUSTER_POLL = 0.25

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        # Sites whose published rules this worker is adopting, and until when it waits for them.
        self._adopting: dict[str, float] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        middleware = super().from_crawler(crawler)
        crawler.signals.connect(middleware.request_dropped, signal=signals.request_dropped)
        crawler.signals.connect(middleware.retry_queued, signal=signals.request_scheduled)
        if redis_url_from_settings(crawler.settings):
            crawler.signals.connect(middleware.redirect_queued, signal=signals.request_scheduled)
        return middleware

    def _navigator(self, url: str) -> Any:
        """The spider's navigator of ``url``'s site, or None."""
        spider: Any = self.crawler.spider
        learner = getattr(spider, "learner", None)
        if learner is None or not hasattr(spider, "navigator"):
            return None
        return spider.navigator(learner.model(site_of(url)))

    def _release(self, navigator: SiteNavigator, url: str) -> None:
        """In a cluster, free the place a dropped download held in its pattern's shared budget."""
        budgets = getattr(self.crawler.spider, "budgets", None)
        if budgets is not None:
            released = deferToThread(budgets.release, site_of(url), navigator.pattern_of(url), url)
            released.addErrback(
                lambda failure: logger.warning("could not free a download's place: %s", failure.value)
            )

    async def process_request(self, request: Request) -> None:
        if not self._tracked(request):
            return
        spider: Any = self.crawler.spider
        learner = getattr(spider, "learner", None)
        if learner is None or not hasattr(spider, "navigator"):
            return
        from twisted.internet import reactor  # the running one (importing it installs one)

        site = site_of(request.url)
        while site in getattr(spider, "_learning", ()):
            await maybe_deferred_to_future(deferLater(reactor, self.POLL, lambda: None))
        navigator = spider.navigator(learner.model(site))
        if navigator is None and ("forumcrawl_nav" in request.meta or "forumcrawl_deferred" in request.meta):
            navigator = await self._adopted(spider, learner, site)
        if navigator is None:
            return
        hold = not request.meta.get("redirect_urls")
        chained = bool(request.meta.get("forumcrawl_chained"))
        while True:
            decision = navigator.admits(request.url, hold=hold, chained=chained)
            while decision.role == "wait":
                await maybe_deferred_to_future(deferLater(reactor, self.POLL, lambda: None))
                current = spider.navigator(learner.model(site))
                if current is None:
                    return  # the site's rules were dropped (stale stored rules): it is sampled again
                navigator = current  # relearned or widened meanwhile: its navigation decides
                decision = navigator.admits(request.url, hold=hold, chained=chained)
            if decision.follow and hold and decision.role in ("index", "variant"):
                decision = await self._cluster_admits(site, navigator, request.url, decision, chained)
            if decision.role != "wait":
                break
            navigator.forget(request.url)
            await maybe_deferred_to_future(deferLater(reactor, self.CLUSTER_POLL, lambda: None))
        if not decision.follow:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value(f"forumcrawl/nav/skipped/{decision.role}")
            raise IgnoreRequest(f"{decision.role}: {request.url}")

    async def _adopted(self, spider: Any, learner: Any, site: str) -> SiteNavigator | None:
        """The navigator of ``site`` under the rules another worker of a cluster published, for
        a link decided under them (or that waited for them) and taken from the shared queue
        before this worker adopted them; None when no rules are published. Admitted blind, such
        links were fetched whatever their pattern: a worker took 18 member profiles in a row
        from the released links of the pseudo-static forum (a 44-page forum, 1.8 requests per
        thread page). The rules are adopted once, waiting at most ``STALE`` seconds."""
        from twisted.internet import reactor

        if not hasattr(spider, "learn_site_now") or getattr(learner.store, "verify", False):
            # a store of earlier crawls' rules: they are checked on the site's first pages
            # before they are used (SiteLearner.model), not adopted blind
            return None
        deadline = self._adopting.get(site)
        if deadline is None:
            try:
                published = await maybe_deferred_to_future(deferToThread(learner.store.get, site))
            except (ValueError, OSError, *REDIS_ERRORS):
                published = None
            if published is None:
                return None
            if site not in self._adopting and learner.model(site) is None:
                self._adopting[site] = time.monotonic() + STALE
                spider.learn_site_now(site)
            deadline = self._adopting.get(site, 0.0)
        while learner.model(site) is None and time.monotonic() < deadline:
            await maybe_deferred_to_future(deferLater(reactor, self.POLL, lambda: None))
        return spider.navigator(learner.model(site))

    async def _cluster_admits(
        self, site: str, navigator: SiteNavigator, url: str, decision: Decision, chained: bool
    ) -> Decision:
        """``decision`` (a download its navigator admits under its pattern's budget), or, in a
        cluster, what the pattern's shared budget says: ``wait`` for the outcomes under way on
        any worker, or, once the pattern closed, what the navigator says of it closed (a
        listing's sequence goes on through it, see :meth:`SiteNavigator.admits`; see also
        :mod:`forumcrawl.redis.budgets`). With Redis out of reach the navigator's word stands."""
        budgets = getattr(self.crawler.spider, "budgets", None)
        if budgets is None:
            return decision
        name = navigator.pattern_of(url)
        try:
            asked = deferToThread(budgets.reserve, site, name, url)
            verdict, record = await maybe_deferred_to_future(asked)
        except REDIS_ERRORS:
            return decision
        navigator.mirror(name, record)
        if verdict == "follow":
            return decision
        if verdict == "wait":
            return Decision(False, "wait", decision.key)
        return navigator.admits(url, chained=chained)

    def process_response(self, request: Request, response: Response) -> Response:
        if response.status >= 400 and self._tracked(request):
            self._dry(request)
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        """A failed download led to no thread page; a request dropped before its download (here
        or by another middleware) gives its place back, unless it was a redirect's target: a
        permalink that redirects to a page already fetched cost its pattern a request."""
        if not self._tracked(request):
            return
        if isinstance(exception, IgnoreRequest) and not request.meta.get("redirect_urls"):
            navigator = self._navigator(request.url)
            if navigator is not None:
                navigator.forget(request.url)
                self._release(navigator, request.url)
            return
        self._dry(request)

    def retry_queued(self, request: Request) -> None:
        """A retry goes back to the queue (the shared one, in a cluster) behind what is queued
        there: the place its first attempt held among its pattern's downloads under way is given
        back now, here and in the shared budget, and the retry asks for one again when it comes
        out. Held meanwhile, the places of a few retried board pages kept every download slot
        full of board pages waiting for them, so that no retry could come out of the queue to
        give its place back: a 2-worker crawl of 10,000 thread pages fetched one page a minute
        until each place lapsed (30 s)."""
        if request.meta.get("retry_times") and self._tracked(request):
            navigator = self._navigator(request.url)
            if navigator is not None:
                navigator.forget(request.url)
                self._release(navigator, request.url)

    def redirect_queued(self, request: Request) -> None:
        """In a cluster a redirect's target goes to the shared queue, and the worker that
        downloads it reports its outcome: the place the URL first asked holds is given back
        now, here and in the shared budget. Held until the outcome, the places of a pattern of
        redirects (askbot's close links, each to a login page) kept the pattern's other links
        waiting in every download slot, so that no redirect's target could be downloaded until
        the places lapsed (a 2-worker crawl stood still for six minutes)."""
        redirects = request.meta.get("redirect_urls")
        if redirects and self._tracked(request):
            navigator = self._navigator(redirects[0])
            if navigator is not None:
                navigator.forget(redirects[0])
                self._release(navigator, redirects[0])

    def request_dropped(self, request: Request) -> None:
        """A redirect the scheduler refused (its target was queued already) led nowhere new."""
        if self._tracked(request) and request.meta.get("redirect_urls"):
            self._dry(request)


class LoginWallMiddleware(_NavigationPart):
    """Downloader middleware: a redirect that names the URL asked as where to come back
    (``/accounts/login/?next=/questions/close/7``) is a login wall, not followed.

    The redirect says the page is not shown to a visitor, and its target is a login page; so
    the download led to no thread page, counted against the pattern of the URL first asked as
    soon as the redirect arrives, and the target is never queued
    (``forumcrawl/nav/skipped/login``). Followed, every such link cost two downloads (askbot's
    close links: the redirect and a 404 login page), and in a cluster the target went through
    the shared queue before its pattern heard the outcome, so both workers went on probing
    (28 of each in a 2-worker crawl of 231 thread pages). It sits just above Scrapy's
    RedirectMiddleware (600), which would otherwise follow the redirect first.
    """

    def process_response(self, request: Request, response: Response) -> Response:
        location = response.headers.get("Location")
        if not (300 <= response.status < 400 and location and self._tracked(request)):
            return response
        if not returns_to(location.decode("latin-1"), request.url):
            return response
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value("forumcrawl/nav/skipped/login")
        self._dry(request)
        raise IgnoreRequest(f"login wall: {request.url}")
