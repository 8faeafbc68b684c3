"""SiteSpider: the crawl loop shared by the forum and news spiders.

Spiders hold no algorithm: they decode each response into a Document once, follow the page's
links within the start sites, and ask the page layer for an item. Until a site's rules are learned
its pages are held by the :class:`~forumcrawl.learning.SiteLearner`; learning runs in a worker
thread, then the held pages are exported under the new rules (only thread pages, once a topic-URL
rule exists). Settings read here: FORUMCRAWL_EXTRACT_CASCADE, FORUMCRAWL_EXTRACT_MIN_CHARS,
FORUMCRAWL_VALUE_*, FORUMCRAWL_MAX_PAGE_BYTES, FORUMCRAWL_LEARN_*, FORUMCRAWL_RULES_STORE,
FORUMCRAWL_NAVIGATION_ENABLED (and its own settings).

Every followed link is first put in canonical form (session ids, return-to and view parameters
and fragments taken out: :func:`~forumcrawl.extractors.navigation.canonical_url`). Once a site's
rules exist, its :class:`~forumcrawl.navigation.SiteNavigator` decides which links to follow
(each thread page once, other URL patterns while they lead to new thread pages) and which
fetched thread pages to export (each ``(thread, page)`` once).
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from typing import Any, TypeVar
from urllib.parse import urlsplit

import scrapy
from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response, TextResponse, XmlResponse
from scrapy.linkextractors import IGNORED_EXTENSIONS
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.threads import deferToThread

from forumcrawl.document import Document, DocumentError, site_of
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.links import LinkRecord, link_records
from forumcrawl.extractors.navigation import (
    ListingOrders,
    ThreadIdentity,
    canonical_url,
    first_page_alias,
    page_flip_number,
    page_flips,
    pattern_key,
    sequence_links,
)
from forumcrawl.extractors.topic import PageEvidence, copy_outside_layout, page_evidence
from forumcrawl.failures import page_failed
from forumcrawl.feeds import worker_name
from forumcrawl.learning import SiteLearner
from forumcrawl.local import local_request
from forumcrawl.navigation import PROBE, Decision, SiteNavigator, lead_id
from forumcrawl.pages import Cascade, CascadeOutcome, Extraction
from forumcrawl.sitemodel import FileRuleStore, SiteModel
from forumcrawl.pipelines.incremental import Recrawl
from forumcrawl.threads import last_page

__all__ = ["SiteSpider", "parse_start_urls"]

_IGNORED_SUFFIXES = tuple(f".{ext}" for ext in IGNORED_EXTENSIONS)
#: Suffixes of feeds and sitemaps: XML documents, read as no page (see :meth:`SiteSpider.document`),
#: so a link to one costs a fetch and leads nowhere (the modern family's boards each link a feed).
_FEED_SUFFIXES = (".xml", ".rss", ".atom", ".rdf")
#: A site model's navigation rules, rebuilt from their JSON.
_Rule = TypeVar("_Rule", ThreadIdentity, ListingOrders)
#: A listing page's page flips waiting for its yield: URL, request meta, the navigator's decision.
Flips = list[tuple[str, dict[str, Any], Decision]]
#: An anchor text that is a file name of a kind Scrapy does not follow: the link is a download.
_FILE_NAME = re.compile(r"[^\s/]+\.(?:" + "|".join(map(re.escape, IGNORED_EXTENSIONS)) + ")")
#: An XML body whose root element is ``html`` (XHTML served as XML): a web page after all.
_XHTML = re.compile(
    rb"(?:\xef\xbb\xbf)?\s*(?:<\?[^>]*\?>\s*|<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*<html[\s>]",
    re.IGNORECASE | re.DOTALL,
)
#: Priority boost of requests for thread pages once a site's topic rule is known.
TOPIC_PRIORITY = 10
#: Priority of pages of a URL pattern that has led to new thread pages (boards and their pages):
#: after thread pages, before patterns still on probation.
INDEX_PRIORITY = 5
#: Before a site's rules exist, links of one URL pattern fetched at most; the others wait for
#: the rules. The sample then spans the site's page kinds instead of one thread's permalinks,
#: and fetches no more pages of a kind than the rules probe an untried pattern with (PROBE).
SAMPLE_PER_PATTERN = PROBE
#: Links of a URL pattern sampled until its first page is in: a page with no post-like block
#: at all is no thread page on any site (:attr:`~forumcrawl.extractors.topic.PageEvidence.
#: rules_out`), nor is a thread's copy printed outside the site's layout (print, archive and
#: mobile views, :func:`~forumcrawl.extractors.topic.copy_outside_layout`); such a page says
#: enough about its pattern, which keeps this one page and closes when it leads nowhere new. A
#: pattern whose first page looks like a thread page, or cannot tell, is sampled to
#: SAMPLE_PER_PATTERN (see :meth:`SiteSpider.judge_sample`). Profiles, forms, pop-ups and
#: copies cost three fetches each on every forum of the universe when every pattern was
#: sampled so.
SAMPLE_FIRST = 1
#: Links no earlier page of the sample showed, from which a page with no post-like block is taken
#: for a listing (a board): sampled to SAMPLE_PER_PATTERN all the same, as its pages are
#: fetched anyway, and the topic rule is learned from the thread URLs the listings show. With
#: one board in the sample, held-apart forum 178's thread URLs showed slugs of one character
#: class only, and the rule left out the threads whose slug was of the other (topic F 0.90). A
#: profile, a form or a pop-up shows at most a link or two of its own.
LISTING_LINKS = 5
#: Pages on which the stray page-flip links of one URL pattern are tried for widening the rules
#: (see :meth:`SiteSpider.add_pages`): links the rules rightly leave out are not tried on every
#: page, and one page whose links do not tell does not decide for the pattern.
PAGES_TRIES = 3


def parse_start_urls(start: str | None) -> list[str]:
    """Split ``-a start=URL[,URL…]`` into URLs; a clear ValueError for a missing or bad one. A
    site given without a scheme (``bbs.example.com``, ``127.0.0.1:8080/forum``) is taken as
    http, as a browser's address bar takes it."""
    if not start or not start.strip():
        raise ValueError("give the site(s) to crawl: -a start=URL[,URL…]")
    urls = [u.strip() for u in start.split(",") if u.strip()]
    urls = [u if "://" in u else f"http://{u}" for u in urls]
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
    return urls


class SiteSpider(scrapy.Spider):
    """Crawls the start sites, following links within them, and exports one item per content page."""

    #: Stats prefix used by this spider family.
    stats_prefix = "forumcrawl"
    #: Whether the spider learns site rules (FORUMCRAWL_LEARN_ENABLED): the news spider does not.
    learns = True
    #: Links of a URL pattern sampled until its first page tells whether to sample more (see
    #: SAMPLE_FIRST); as many as ``sample_per_pattern``: every pattern sampled alike.
    sample_first = SAMPLE_FIRST

    @property
    def worker(self) -> str:
        """This process among a cluster's workers (``<host>-<pid>``): ``%(worker)s`` in a feed
        URI, so that each worker writes its own file."""
        return worker_name()

    def __init__(self, start: str | None = None, topic_example: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = parse_start_urls(start)
        self.sites = {site_of(u) for u in self.start_urls}
        self.allowed_domains = sorted({urlsplit(u).hostname or "" for u in self.start_urls})
        if topic_example is not None:
            parse_start_urls(topic_example)
        self.topic_example = topic_example
        self.init_site_state()

    def init_site_state(self) -> None:
        """Per-site state: the learner (set in from_crawler), sites being learned, navigators."""
        self.learner: SiteLearner | None = None
        self._learning: set[str] = set()
        self.navigation = True
        self._navigators: dict[str, tuple[SiteModel, SiteNavigator]] = {}
        # URL patterns of page-flip links the topic rule rejected, tried per site (add_pages).
        self._pages_tried: defaultdict[str, Counter[str]] = defaultdict(Counter)
        # Thread pages to queue again after the site's rules changed (SiteNavigator.rebind).
        self._regained: defaultdict[str, list[str]] = defaultdict(list)
        #: Links per pattern fetched before the rules exist (0: no limit; see SAMPLE_PER_PATTERN).
        self.sample_per_pattern = SAMPLE_PER_PATTERN
        self._sampled: dict[str, Counter[str]] = defaultdict(Counter)
        # Per site being sampled, each URL pattern's cap once raised above sample_first (see
        # judge_sample), the thread evidence of each sampled page, and the patterns whose first
        # page ruled thread pages out, each with the URL asked, the page's own and whether it
        # was a copy (see close_settled).
        self._sample_caps: dict[str, dict[str, int]] = defaultdict(dict)
        self._evidence: dict[str, dict[str, PageEvidence]] = defaultdict(dict)
        self._settled: dict[str, dict[str, tuple[str, str, bool]]] = defaultdict(dict)
        # Per site being sampled, the URLs that failed after their retries (see sample_failed).
        self._sample_failed: dict[str, list[str]] = defaultdict(list)
        # Per site being sampled, the links its sampled pages showed (see judge_sample).
        self._sample_seen: dict[str, set[str]] = defaultdict(set)
        # Per site being sampled, the pages queued for the sample, each as its plain URL (see
        # follow_links).
        self._sample_plain: dict[str, set[str]] = defaultdict(set)
        self._deferred: dict[str, list[scrapy.Request]] = defaultdict(list)
        # Per site being sampled, the URLs whose download gave no page (see led_nowhere).
        self._sampled_dry: dict[str, list[str]] = defaultdict(list)
        self.recrawl: Recrawl | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> SiteSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.cascade = Cascade(
            settings.getlist("FORUMCRAWL_EXTRACT_CASCADE"),
            min_chars=settings.getint("FORUMCRAWL_EXTRACT_MIN_CHARS"),
            value_filter=settings.getbool("FORUMCRAWL_VALUE_FILTER_ENABLED"),
            value_drop=settings.getbool("FORUMCRAWL_VALUE_FILTER_DROP"),
            value_model=settings.get("FORUMCRAWL_VALUE_MODEL") or None,
        )
        spider.max_page_bytes = settings.getint("FORUMCRAWL_MAX_PAGE_BYTES")
        spider.navigation = settings.getbool("FORUMCRAWL_NAVIGATION_ENABLED", True)
        spider.recrawl = Recrawl.of(crawler)
        if cls.learns and settings.getbool("FORUMCRAWL_LEARN_ENABLED"):
            examples = {site_of(spider.topic_example): spider.topic_example} if spider.topic_example else {}
            spider.learner = SiteLearner(
                FileRuleStore(settings["FORUMCRAWL_RULES_DIR"]),
                url_sample=settings.getint("FORUMCRAWL_LEARN_URL_SAMPLE"),
                page_sample=settings.getint("FORUMCRAWL_LEARN_PAGE_SAMPLE"),
                relearn_after=settings.getint("FORUMCRAWL_LEARN_RELEARN_AFTER"),
                topic_examples=examples,
            )
            crawler.signals.connect(spider.learn_pending_sites, signal=signals.spider_idle)
            crawler.signals.connect(spider.open_rule_store, signal=signals.spider_opened)
            crawler.signals.connect(spider.sample_failed, signal=page_failed)
        return spider

    def open_rule_store(self) -> None:
        """Use the store of FORUMCRAWL_RULES_STORE, read once add-ons have set it (after from_crawler)."""
        assert self.learner is not None
        self.learner.store = build_from_crawler(load_object(self.crawler.settings["FORUMCRAWL_RULES_STORE"]), self.crawler)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse)

    def _inc(self, key: str, count: int = 1) -> None:
        self.crawler.stats.inc_value(f"{self.stats_prefix}/{key}", count)

    def document(self, response: Response) -> Document | None:
        """The response as a Document, or None (logged and counted) when it is not a readable page."""
        if not isinstance(response, TextResponse):
            self._inc("page/skipped/not_text")
            self.logger.info("skipped %s: not a text response", response.url)
            return None
        if isinstance(response, XmlResponse) and not _XHTML.match(response.body[:4096]):
            # A feed or a sitemap: no page of the site's navigation. Read as HTML, a feed's
            # items look like posts with times (machina's topic feeds scored above every thread
            # page and made their URL shape part of the thread rule in samples that held one).
            self._inc("page/skipped/xml")
            self.logger.info("skipped %s: an XML document, not a web page", response.url)
            return None
        try:
            return Document.from_bytes(
                response.body,
                response.url,
                response.headers.get("Content-Type", b"").decode("latin-1") or None,
                max_bytes=self.max_page_bytes,
            )
        except DocumentError as exc:
            self._inc("page/skipped/unreadable")
            self.logger.warning("skipped %s: %s", response.url, exc)
            return None

    def is_thread_page(self, url: str) -> bool | None:
        """Whether ``url`` is a thread (article) page under its site's rules; None when the site
        has none (learning off, or never learned), so that nobody can tell."""
        if self.learner is None:
            return None
        model = self.learner.model(site_of(url))
        return None if model is None else self.learner.is_topic(model, url)

    def is_listing_page(self, url: str) -> bool:
        """Whether ``url`` is a listing under its site's navigation: a page of a pattern that has
        led to new thread pages, whose own thread pages another page may not link."""
        navigator = self.navigator(self.learner.model(site_of(url))) if self.learner else None
        return navigator is not None and navigator.lists_threads(url)

    def navigator(self, model: SiteModel | None) -> SiteNavigator | None:
        """The navigation state of ``model``'s site (None without a topic rule, or when
        FORUMCRAWL_NAVIGATION_ENABLED is off); under a new model (relearned or widened) the
        site's navigation goes on with its rules (see :meth:`SiteNavigator.rebind`)."""
        if not self.navigation or self.learner is None or model is None or "usc" not in model.rules:
            return None
        known = self._navigators.get(model.site)
        if known is not None and known[0] is model:
            return known[1]
        identity = self._site_rule(model, "nav", ThreadIdentity, "thread identity")
        orders = self._site_rule(model, "orders", ListingOrders, "listing orders")
        learner = self.learner

        def is_topic(url: str) -> bool:
            return bool(learner.is_topic(model, url))

        if known is not None:
            navigator = known[1]
            self._regained[model.site] += navigator.rebind(is_topic, identity)
            navigator.orders = orders
        else:
            navigator = SiteNavigator(is_topic, identity, orders=orders)
            if self.recrawl is not None:
                self.recrawl.restore(model.site, navigator)
        self._navigators[model.site] = (model, navigator)
        return navigator

    def add_pages(self, doc: Document, model: SiteModel, navigator: SiteNavigator) -> SiteModel:
        """``model``, or the model widened to the later pages of its threads when ``doc``'s
        page-flip links show pages its rules miss (see :meth:`SiteLearner.add_pages`). Done
        before the page's links are decided, so that none of them is lost; each URL pattern of
        such links is tried on a few pages, not on every page."""
        if self.learner is None:
            return model
        tried = self._pages_tried[doc.site]
        flips = [
            (url, n) for url, n in navigator.stray_flips(doc.url, doc.tree)
            if tried[pattern_key(url)] < PAGES_TRIES
        ]
        if not flips:
            return model
        tried.update({pattern_key(url) for url, _ in flips})
        widened = self.learner.add_pages(doc.site, doc.url, flips)
        if widened is None:
            return model
        self._inc("learn/pages_added")
        deferToThread(self.learner.publish, widened).addErrback(
            lambda failure: self.logger.error("storing the rules of %s failed: %s", doc.site, failure.value)
        )
        return widened

    def _site_rule(self, model: SiteModel, name: str, kind: type[_Rule], what: str) -> _Rule | None:
        """The model's ``name`` rule rebuilt (``kind.from_dict``); None when it has none, or a
        broken one (logged: the navigation goes on without it)."""
        if name not in model.rules:
            return None
        try:
            return kind.from_dict(model.rules[name])
        except (KeyError, TypeError, ValueError) as exc:
            self.logger.warning("ignoring the %s of %s: %s", what, model.site, exc)
            return None

    def regained(self, site: str) -> list[scrapy.Request]:
        """Requests for the thread pages that the site's changed rules found unscheduled (see
        :meth:`SiteNavigator.rebind`)."""
        urls = self._regained.pop(site, [])
        if urls:
            self._inc("nav/regained", len(urls))
        return [
            scrapy.Request(url, callback=self.parse, priority=TOPIC_PRIORITY, meta={"forumcrawl_nav": "thread"})
            for url in urls
        ]

    @staticmethod
    def nav_priority(navigator: SiteNavigator, url: str, role: str) -> int:
        """Thread pages first, then other pages by how many new thread pages their pattern led
        to per fetch, against the site's best pattern (that one at :data:`INDEX_PRIORITY`),
        patterns on probation last."""
        if role == "thread":
            return TOPIC_PRIORITY
        if role in ("index", "chained"):
            return round(INDEX_PRIORITY * navigator.yield_rate(url))
        return 0

    def follow_links(
        self, doc: Document, links: list[str], model: SiteModel | None, requested: str | None = None
    ) -> Iterator[scrapy.Request]:
        """Requests for the page's links that stay on the start sites, thread pages first.

        ``links`` are in canonical form (see :meth:`parse`) and distinct. Each request carries its link's record (anchor
        text, tag path) in ``meta["forumcrawl_link"]`` for the LinkScoringMiddleware; a URL
        linked several times keeps the record with the longest anchor text. With the site's
        navigator, skipped links are counted (``forumcrawl/nav/skipped/<why>``) and the page's
        yield (new thread pages among its links) is reported to it, under the URL that was
        ``requested`` when a redirect led elsewhere (an action link redirecting to a login
        page is the action's pattern's waste).
        """
        records: dict[str, LinkRecord] = {}
        for record in link_records(doc):
            href = canonical_url(record.href)
            kept = records.get(href)
            if kept is None or len(record.text) > len(kept.text):
                records[href] = record
        navigator = self.navigator(model)
        recrawl = self.recrawl if navigator is not None else None
        if recrawl is not None:
            recrawl.observe(doc, navigator)
        # Ids of the new thread pages the page's links lead to (see lead_id), and whether any
        # link names a thread page at all (see SiteNavigator.fetched).
        leads: list[str] = []
        listed = False
        # A listing's page flips wait for the page's yield: its sequence goes on past a closed
        # pattern when the page led to new thread pages (see SiteNavigator.chain).
        flips: Flips = []
        shown = navigator.shown_thread(doc.url, doc.tree) if navigator is not None else None
        deferring = self.navigation and self.sample_per_pattern and self.learner and model is None
        for url in links:
            if site_of(url) not in self.sites or urlsplit(url).path.lower().endswith(_IGNORED_SUFFIXES):
                continue
            if urlsplit(url).path.lower().endswith(_FEED_SUFFIXES):
                self._inc("nav/skipped/feed")
                continue
            if url in records and _FILE_NAME.fullmatch(records[url].text.strip().lower()):
                # A download named by its anchor (``IMG_2.png`` behind ``?mod=attachment&aid=``)
                self._inc("nav/skipped/file")
                continue
            meta = {"forumcrawl_link": records[url].to_dict()} if url in records else {}
            if deferring:
                # A link that is a sampled page's URL plus one parameter of value 1 (``?page=1``,
                # ``?first-unread=1``) is most likely that page again (pybbm: 14 thread pages
                # fetched twice in its sample): it waits for the rules, which tell.
                sampled, plain = self._sampled[doc.site], self._sample_plain[doc.site]
                plain.add(first_page_alias(doc.url) or doc.url)
                key = pattern_key(url)
                again = (first_page_alias(url) or url) in plain
                if sampled[key] >= self._sample_caps[doc.site].get(key, self.sample_first) or again:
                    self._inc("nav/deferred")
                    held = self.hold_back(
                        doc.site, scrapy.Request(url, callback=self.parse, meta={**meta, "forumcrawl_deferred": True})
                    )
                    if held is not None:
                        yield held
                    continue
                sampled[key] += 1
                plain.add(first_page_alias(url) or url)
            if navigator is not None:
                if recrawl is not None:
                    follow, first = recrawl.follows(doc.site, url, navigator, doc.url)
                    if not follow:
                        self._inc("incremental/skipped")
                        listed = listed or navigator.is_thread_page(url)
                        if first:
                            leads.append(lead_id(navigator.key(url), url))
                        continue
                    if recrawl.next_page(doc.site, doc.url, url):
                        # Not tracked by the navigation: its pattern may be closed.
                        yield scrapy.Request(url, callback=self.parse, priority=INDEX_PRIORITY)
                        continue
                number = page_flip_number(records[url].text) if url in records else None
                decision = navigator.decide(url, number, source=requested or doc.url)
                own = shown is not None and decision.key is not None and decision.key.thread == shown
                listed = listed or decision.thread_page
                if decision.new and not own:
                    leads.append(lead_id(decision.key, url))
                if navigator.chains(doc.url, url, number):
                    flips.append((url, meta, decision))
                    continue
                if not decision.follow:
                    self._inc(f"nav/skipped/{decision.role}")
                    continue
                priority = self.nav_priority(navigator, url, decision.role)
                self.nav_meta(meta, decision.role)
            else:
                topic = self.learner.is_topic(model, url) if self.learner and model else None
                priority = TOPIC_PRIORITY if topic else 0
                if deferring:
                    # Fetched to sample the site: the rules, once they exist, decide it again.
                    meta["forumcrawl_nav"] = "sample"
            request = scrapy.Request(url, callback=self.parse, priority=priority, meta=meta or None)
            yield self.sample_link(doc.site, request) if deferring else request
        if navigator is not None:
            yield from self.page_outcome(navigator, doc.site, requested or doc.url, leads, listed, flips)
            closed = navigator.fetched(requested or doc.url, len(leads), listed=listed)
            if closed is not None:
                self._inc("nav/closed_patterns")
                self.logger.info(
                    "not following %s pages of the pattern %s any more: they lead to no new "
                    "thread page", doc.site, closed,
                )

    def page_outcome(
        self,
        navigator: SiteNavigator,
        site: str,
        url: str,
        leads: list[str],
        listed: bool,
        flips: Flips,
    ) -> Iterator[scrapy.Request]:
        """The requests for a fetched listing's page flips, and its pattern told what the fetch
        led to (see :meth:`flip_requests`, :meth:`pattern_outcome`)."""
        yield from self.flip_requests(navigator, flips, bool(leads))
        self.pattern_outcome(navigator, site, url, leads, listed=listed)

    def flip_requests(
        self, navigator: SiteNavigator, flips: Flips, led: bool
    ) -> Iterator[scrapy.Request]:
        """Requests for a listing page's page flips (each with its link's meta and decision):
        when the page ``led`` to new thread pages, its next page (see
        :meth:`SiteNavigator.next_flip`) unless its pattern's budget skipped it as a duplicate,
        marked (``forumcrawl_chained``) so that whichever worker downloads it lets it past a
        pattern closed meanwhile; the others, and every flip of a page that led nowhere, as the
        budget follows them. The scheduler's dupefilter keeps each to one request, as for any
        link."""
        ahead = navigator.next_flip([
            (url, page_flip_number(str((meta.get("forumcrawl_link") or {}).get("text", ""))) or 0)
            for url, meta, decision in flips if decision.role in ("index", "other")
        ]) if led else None
        for url, meta, decision in flips:
            if url == ahead or decision.role == "chained":
                navigator.chain(url)
                if decision.role != "index":
                    self._inc("nav/chained")
                self.nav_meta(meta, "chained")
            elif decision.follow:
                self.nav_meta(meta, decision.role)
            else:
                self._inc(f"nav/skipped/{decision.role}")
                continue
            yield scrapy.Request(
                url, callback=self.parse, priority=self.nav_priority(navigator, url, "index"), meta=meta
            )

    @staticmethod
    def nav_meta(meta: dict[str, Any], role: str) -> None:
        """Mark a followed link's request with its navigation role; a listing page chained past
        its closed pattern is marked so, for whichever worker of a cluster downloads it."""
        meta["forumcrawl_nav"] = role
        if role == "chained":
            meta["forumcrawl_chained"] = True

    def led_nowhere(self, request: scrapy.Request) -> None:
        """A download that gave no page (a feed, an empty or unreadable body, an error status, a
        login wall) led to no thread page: the record of the pattern of the URL first asked says
        so, and the place it held among the pattern's downloads under way is free (held, it made
        the pattern's other links wait for it to lapse). While the site is sampled it is kept for
        the sample's replay: three favourite links of the sample that sent it to log in, left
        out of the record, cost three more after the rules (mock modern family)."""
        asked = (request.meta.get("redirect_urls") or [request.url])[0]
        model = self.learner.model(site_of(asked)) if self.learner else None
        navigator = self.navigator(model)
        if navigator is not None:
            self.pattern_outcome(navigator, site_of(asked), asked, [])
            navigator.fetched(asked, 0)
        elif self.learner is not None and model is None:
            site = site_of(asked)
            self._sampled_dry[site].append(asked)
            key = pattern_key(asked)
            caps = self._sample_caps[site]
            if self.sample_first < self.sample_per_pattern and key not in self._settled[site]:
                # No page, so no word on the pattern: another of its links is sampled instead.
                cap = caps.get(key, self.sample_first)
                if cap < self.sample_per_pattern:
                    caps[key] = cap + 1
                    for request in self.sample_more(site, key, 1):
                        self.crawler.engine.crawl(request)

    def pattern_outcome(
        self, navigator: SiteNavigator, site: str, url: str, leads: list[str], *, listed: bool = True
    ) -> None:
        """A fetch of ``url`` led to the new thread pages ``leads`` (see
        :func:`~forumcrawl.navigation.lead_id`), from a page that ``listed`` thread pages or not
        (see :meth:`SiteNavigator.fetched`): in a cluster, told to its pattern's shared budget
        (here the navigator's own record is the budget)."""

    def observe(self, doc: Document, links: list[str], fetched: datetime) -> None:
        """Hold a page of a site being sampled (see :meth:`SiteLearner.observe`)."""
        assert self.learner is not None
        self.learner.observe(doc, links, fetched)

    def sample_failed(self, url: str, reason: str) -> None:
        """A page failed after its retries (signal ``page_failed``): one sampled while its site
        had no rules is fetched once more if the rules take it for a thread page (see
        :meth:`learn_and_release`). A sample taking one page of a kind at a time has few
        downloads under way, and a burst of 5xx answers can outlast one page's retries; fetched
        again later, its URL goes off the crawl's list of failed pages if it succeeds."""
        site = site_of(url)
        if self.learner is not None and self.sample_first < self.sample_per_pattern and self.learner.model(site) is None:
            self._sample_failed[site].append(url)

    def judge_sample(self, doc: Document, asked: str, links: list[str]) -> list[scrapy.Request]:
        """The first sampled page of its URL pattern (the pattern of ``asked``, the URL first
        requested) decides how many of the pattern's links the sample takes (see SAMPLE_FIRST):
        none more when the page rules thread pages out (and ``links``, the page's, hold fewer
        than LISTING_LINKS that the sample had not seen: no listing) or is a thread's copy
        printed outside the site's layout, else up to ``sample_per_pattern``; returns the
        requests for the links held back meanwhile that the sample takes now.

        The topic rule is learned from the thread-looking and the undecided pages (a member's
        post list looks like a thread), which keep their full sample; a page with no post-like
        block, or a copy, is judged no thread page however many of its kind the sample holds,
        so one such page of a pattern is as good as three.
        """
        if not self.navigation or self.sample_first >= self.sample_per_pattern or self.learner is None:
            return []
        evidence = self._evidence[doc.site]
        evidence[doc.url] = page_evidence(doc)
        seen = self._sample_seen[doc.site]
        new = len(set(links) - seen)
        seen.update(links)
        key = pattern_key(asked)
        caps, settled = self._sample_caps[doc.site], self._settled[doc.site]
        if key in settled or caps.get(key) == self.sample_per_pattern:
            return []
        if evidence[doc.url].rules_out and new < LISTING_LINKS:
            settled[key] = (asked, doc.url, False)
            return []
        pages = {**self.learner.sample_documents(doc.site), doc.url: doc}
        if copy_outside_layout(pages, {u: e for u, e in evidence.items() if u in pages}, doc.url):
            settled[key] = (asked, doc.url, True)
            return []
        caps[key] = self.sample_per_pattern
        return self.sample_more(doc.site, key, self.sample_per_pattern - self._sampled[doc.site][key])

    def sample_more(self, site: str, key: str, count: int) -> list[scrapy.Request]:
        """Requests for up to ``count`` links of the URL pattern ``key`` held back while
        ``site`` is sampled (in the order they were seen), now taken into the sample."""
        plain, held = self._sample_plain[site], self._deferred[site]
        taken: list[scrapy.Request] = []
        for request in list(held):
            if len(taken) >= count:
                break
            alias = first_page_alias(request.url) or request.url
            if pattern_key(request.url) != key or alias in plain:
                continue
            held.remove(request)
            plain.add(alias)
            self._sampled[site][key] += 1
            meta = {k: v for k, v in request.meta.items() if k != "forumcrawl_deferred"}
            taken.append(self.sample_link(site, request.replace(meta={**meta, "forumcrawl_nav": "sample"})))
        return taken

    def sample_link(self, site: str, request: scrapy.Request) -> scrapy.Request:
        """A link fetched to sample ``site``, within its pattern's cap (here, this crawl's)."""
        return request

    def hold_back(self, site: str, request: scrapy.Request) -> scrapy.Request | None:
        """Keep a link of an over-sampled pattern until ``site``'s rules decide it (see
        :meth:`learn_and_release`); a request returned instead is yielded to wait elsewhere."""
        self._deferred[site].append(request)
        return None

    def make_item(self, doc: Document, extraction: Extraction, now: datetime) -> Any:
        """The item for a content page; subclasses choose its type."""
        raise NotImplementedError

    def count_outcome(self, doc: Document, outcome: CascadeOutcome) -> None:
        """Stats for one cascade run: the stage that answered, misses, errors, value verdicts."""
        for name in outcome.misses:
            self._inc(f"extract/miss/{name}")
        for error in outcome.errors:
            self._inc(f"extract/error/{error.split(':', 1)[0]}")
        value = outcome.value
        if value is not None and value.page_worthless:
            self._inc("value/page_dropped")
            self.logger.info(
                "dropped %s: its first %s is worthless (value filter)", doc.url, value.unit
            )
        elif outcome.extraction is None:
            self._inc("extract/empty")
        else:
            self._inc(f"extract/method/{outcome.extraction.method}")
        if value is not None:
            for action, count in (("flagged", value.flagged), ("dropped", value.dropped)):
                if count:
                    self._inc(f"value/{value.unit}_{action}", count)

    def items_for(self, doc: Document, model: SiteModel | None, fetched: datetime) -> Iterator[Any]:
        """The item of a page (none for a page the site's topic rule rejects, or with no content)."""
        topic = self.learner.is_topic(model, doc.url) if self.learner and model else None
        self._inc(f"topic/{'unknown' if topic is None else 'yes' if topic else 'no'}")
        if topic is False:
            return
        navigator = self.navigator(model)
        key = navigator.key(doc.url) if navigator is not None else None
        first_page = None
        if navigator is not None and key is not None and not key.canonical:
            adopted = navigator.adopt(doc.url, doc.tree)
            if adopted is not None:
                key, first_page = adopted
        if navigator is not None and not navigator.claim_export(doc.url, key):
            reason = "variant" if key is not None and not key.canonical else "duplicate"
            self._inc(f"nav/not_exported/{reason}")
            self.logger.debug("not exporting %s: %s of a thread page", doc.url, reason)
            return
        outcome = self.cascade.run(doc, model, now=fetched)
        self.count_outcome(doc, outcome)
        if topic and model is not None and "ksf" in model.rules and "ksf" in outcome.misses:
            self.rule_missed(doc)
        if outcome.extraction is not None:
            item = self.make_item(doc, outcome.extraction, fetched)
            identity = navigator.identity if navigator is not None else None
            adapter = ItemAdapter(item)
            if identity is not None and key is not None and "thread_url" in adapter.field_names():
                adapter["thread_url"] = first_page or identity.first_page(doc.url)
                adapter["page"] = key.page
                adapter["thread_id"] = key.thread
                adapter["last_page"] = last_page(doc.tree, doc.url, identity, key)
            yield item

    def rule_missed(self, doc: Document) -> None:
        """A thread page the site's extraction rule did not match: relearn after enough of them."""
        assert self.learner is not None
        self._inc("learn/ksf_missed")
        if self.learner.record_miss(doc):
            self.logger.info("the extraction rule of %s misses thread pages: relearning it", doc.site)
            self._inc("learn/ksf_relearn")
            deferToThread(self.learner.relearn_extraction, doc.site).addErrback(
                lambda failure: self.logger.error("relearning %s failed: %s", doc.site, failure.value)
            )

    async def learn_and_release(self, site: str) -> AsyncIterator[Any]:
        """Learn ``site`` in a worker thread, then export the pages held for it."""
        assert self.learner is not None
        self._learning.add(site)
        started = time.perf_counter()
        try:
            model = await maybe_deferred_to_future(deferToThread(self.learner.learn, site))
        finally:
            self._learning.discard(site)
        self._inc("learn/sites")
        self.crawler.stats.inc_value("forumcrawl/learn/seconds", round(time.perf_counter() - started, 3))
        for method in model.rules:
            self._inc(f"learn/rule/{method}")
        held_pages = self.learner.take_held(site)
        dry = self._sampled_dry.pop(site, [])
        self._sample_caps.pop(site, None)
        self._evidence.pop(site, None)
        self._sample_seen.pop(site, None)
        settled = self._settled.pop(site, {})
        self._sample_plain.pop(site, None)
        navigator = self.navigator(model)
        if navigator is not None:
            for held in held_pages:
                model = self.add_pages(held.document, model, navigator)
                navigator = self.navigator(model) or navigator
            # Their links were queued before the rules existed: mark them as scheduled, and count
            # what each pattern led to, so that budgets start from the sample (replayed in the
            # order of a greedy cover of its thread pages, see SiteNavigator.cover_order). In a
            # cluster the pages other workers sampled count too (as fetched there): a worker
            # whose own share of the sample holds the member profiles but not the boards would
            # credit the profiles with the boards' threads and keep probing them.
            docs = [held.document for held in held_pages]
            ours = len(docs)
            docs += self.learner.take_borrowed(site)
            replayed = [
                [canonical_url(url) for url in page_links(doc.tree, doc.url) if site_of(url) in self.sites]
                for doc in docs
            ]
            for doc in docs:
                navigator.read_variant(doc.url, doc.tree)
            shown = [navigator.shown_thread(doc.url, doc.tree) for doc in docs]
            for i, new in navigator.cover_order(replayed, shown):
                doc = docs[i]
                if i < ours:
                    navigator.admits(doc.url)
                    navigator.adopt(doc.url, doc.tree)
                    if self.recrawl is not None:
                        self.recrawl.observe(doc, navigator)
                else:
                    navigator.sampled_elsewhere(doc.url, doc.tree)
                decisions = [navigator.decide(url, source=doc.url) for url in replayed[i]]
                navigator.fetched(doc.url, new, listed=any(d.thread_page for d in decisions))
                if new:
                    # The sample's listings go on as sequences too: their page flips waited
                    # for the rules, which may close the flips' pattern (see follow_links).
                    ahead = navigator.next_flip([
                        (target, number) for target, number in page_flips(doc.tree, doc.url)
                        if navigator.chains(doc.url, target, number)
                    ])
                    if ahead is not None:
                        navigator.chain(ahead)
            for url in dry:
                navigator.fetched(url, 0)
            self.close_settled(navigator, settled, {doc.url: links for doc, links in zip(docs, replayed)})
            self.navigation_ready(site, navigator)
        for request in self.regained(site):
            yield request
        for url in dict.fromkeys(self._sample_failed.pop(site, [])):
            if navigator is not None and navigator.is_thread_page(url) and navigator.release(url).follow:
                self._inc("learn/sample_fetched_again")
                yield scrapy.Request(url, callback=self.parse, priority=TOPIC_PRIORITY, dont_filter=True,
                                     meta={"forumcrawl_nav": "thread"})
        for request in self._deferred.pop(site, []):
            released = request if navigator is None else self.release_link(navigator, request)
            if released is not None:
                yield released
        for held in held_pages:
            for item in self.items_for(held.document, model, held.fetched):
                yield item

    def close_settled(
        self, navigator: SiteNavigator, settled: dict[str, tuple[str, str, bool]], links: dict[str, list[str]]
    ) -> None:
        """Close the URL patterns ``settled`` by their one sampled page (see
        :meth:`judge_sample`; pattern -> URL asked, the page's URL, whose ``links`` the sample
        replayed, and whether it was a thread's copy) when that page led to no new thread page
        and, unless a copy (whose links are its thread's), lists neither a thread page nor
        another page of its pattern: a profile, a form, a pop-up, a print view says enough of
        its pattern, and probing it with more of its links would spend the fetches the sample
        saved. A listing is left to its budget: a board whose threads another list covered, a
        category page linking boards of its own URL shape."""
        budgets = navigator.budgets()
        names = []
        for key, (asked, url, copy) in settled.items():
            name = navigator.pattern_of(asked)
            budget = budgets.get(name)
            found = [] if copy else links.get(url, [])
            if (
                navigator.is_topic(asked)
                or (budget is not None and (budget.hits or budget.closed))
                or any(navigator.is_thread_page(u) for u in found)
                or any(pattern_key(u) == key for u in found if u not in (asked, url))
            ):
                continue
            names.append(name)
        if names:
            navigator.close(names)
            self._inc("nav/closed_patterns", len(names))
            self.logger.info("not following %s pages of the patterns %s: the one sampled page of each "
                             "is no thread page and led to none", site_of(next(iter(settled.values()))[0]),
                             ", ".join(names))

    @staticmethod
    def links_of(doc: Document) -> list[str]:
        """The page's links in canonical form, distinct, and its sequence links (next pages)."""
        return list(dict.fromkeys(
            [canonical_url(u) for u in page_links(doc.tree, doc.url)] + sequence_links(doc.tree, doc.url)
        ))

    def restart_site(self, site: str, current: Document) -> Iterator[scrapy.Request]:
        """``site``'s stored rules no longer fit it (see :meth:`SiteLearner.check`): forget its
        navigation under them and sample it afresh from the pages parsed under them (``current``
        aside, which the caller samples): they join the sample, and their links are followed as
        a first crawl follows them; the stale rules had left out most of them."""
        assert self.learner is not None
        self._navigators.pop(site, None)
        fetched = datetime.now(timezone.utc)
        for doc in self.learner.take_checked(site):
            if doc is not current:
                links = self.links_of(doc)
                self.observe(doc, links, fetched)
                yield from self.follow_links(doc, links, None)

    def navigation_ready(self, site: str, navigator: SiteNavigator) -> None:
        """``site``'s sample was replayed through ``navigator``; its held pages are exported
        next. Here the navigator's own record is the budget and the held-back links are
        released right after, in the same callback; a cluster seeds its shared budgets from the
        record and takes the links that waited in Redis."""

    def release_link(self, navigator: SiteNavigator, request: scrapy.Request) -> scrapy.Request | None:
        """A link held back while its site was sampled, as the site's rules decide it: None
        when they skip it (counted), else the request at its role's priority."""
        link = request.meta.get("forumcrawl_link") or {}
        decision = navigator.release(request.url, page_flip_number(str(link.get("text", ""))))
        if not decision.follow:
            self._inc(f"nav/skipped/{decision.role}")
            return None
        self.nav_meta(request.meta, decision.role)
        return request.replace(priority=self.nav_priority(navigator, request.url, decision.role))

    def learn_pending_sites(self) -> None:
        """On spider_idle: sites whose sample never filled are learned from what was fetched."""
        if self.learner is None:
            return
        pending = [s for s in self.learner.pending_sites() if s not in self._learning]
        for site in pending:
            self.logger.info("crawl of %s ran out of pages before its sample filled: learning now", site)
            self.learn_site_now(site)
        if pending or self._learning:
            raise DontCloseSpider

    def learn_site_now(self, site: str) -> None:
        """Learn ``site`` from the pages held so far, through a local request (the engine runs
        its callback, whose items are exported like any page's)."""
        self.crawler.engine.crawl(local_request(self.learn_now, cb_kwargs={"site": site}))

    async def learn_now(self, response: Response, site: str) -> AsyncIterator[Any]:
        """Callback of the local request scheduled by :meth:`learn_pending_sites`."""
        if site not in self._learning:
            async for item in self.learn_and_release(site):
                yield item

    async def parse(self, response: Response, **kwargs: Any) -> AsyncIterator[Any]:
        doc = self.document(response)
        if doc is None:
            self.led_nowhere(response.request)
            return
        self._inc("page/parsed")
        if doc.tree is None:
            self._inc("page/skipped/empty")
            self.logger.info("skipped %s: empty page", response.url)
            self.led_nowhere(response.request)
            return
        fetched = datetime.now(timezone.utc)
        links = self.links_of(doc)
        model = self.learner.model(doc.site) if self.learner else None
        requested = (response.meta.get("redirect_urls") or [response.url])[0]
        restarted: list[scrapy.Request] = []
        if model is not None and self.learner is not None and self.learner.checking(doc.site):
            if self.learner.check(doc) is False:
                model = None
                restarted = list(self.restart_site(doc.site, doc))
        navigator = self.navigator(model)
        if navigator is not None:
            assert model is not None
            model = self.add_pages(doc, model, navigator)
            navigator = self.navigator(model)
            # A permalink's page, known now: its canonical URL must not be fetched again.
            navigator.adopt(doc.url, doc.tree)
        requests = [*restarted, *self.regained(doc.site), *self.follow_links(doc, links, model, requested)]
        if self.learner is not None and model is None:
            requests += self.judge_sample(doc, requested, links)
            # Hold the page before yielding: the site's held pages may be released at any await.
            self.observe(doc, links, fetched)
            for request in requests:
                yield request
            if self.learner.ready(doc.site) and doc.site not in self._learning:
                async for item in self.learn_and_release(doc.site):
                    yield item
            return
        for request in requests:
            yield request
        for item in self.items_for(doc, model, fetched):
            yield item
