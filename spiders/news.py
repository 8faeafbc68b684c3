"""The ``news`` spider: ``scrapy crawl news -a start=URL[,URL…] [-a topic_example=URL]``.

A news site is not a forum: an article is one page whose identity is its canonical URL (see
:mod:`forumcrawl.extractors.newspages`), and listings are leads, never exported. URLs come from
three sources: the ``Sitemap:`` lines of robots.txt (else ``/sitemap.xml``: indexes, url sets,
news sitemaps, gzip), the RSS/Atom feeds the start and listing pages announce, and the links of
every fetched page; :class:`~forumcrawl.newsnav.NewsNavigator` fetches articles at once and
listings while they lead to new pages. Title, author and times come from what the page marks
(:mod:`forumcrawl.extractors.metadata`), the body from the marked body or single-page
extraction. Settings: FORUMCRAWL_NEWS_COMMENTS (export readers' comments), and the extraction
settings of :class:`~forumcrawl.spiders.base.SiteSpider`; no site rules are learned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import lxml.etree
import lxml.html
import scrapy
from forumcrawl.extractors.dates import to_iso
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.kinds import NON_CONTENT_KINDS
from forumcrawl.extractors.metadata import article_metadata
from forumcrawl.extractors.navigation import canonical_url
from forumcrawl.extractors.newspages import (
    article_identity,
    body_text,
    comments,
    page_role,
    strip_params,
    trim_heading_lines,
    without_extras,
)
from forumcrawl.extractors.text import language
from forumcrawl.spiders.base import _FEED_SUFFIXES, _IGNORED_SUFFIXES, SiteSpider
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.gz import gunzip, gzip_magic_number
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots
from twisted.python.failure import Failure

from forumcrawl.document import Document, site_of
from forumcrawl.items import Article, ArticleComment
from forumcrawl.newsnav import NewsNavigator
from forumcrawl.newsstate import NewsStates
from forumcrawl.pages import Extraction, article_item

__all__ = ["NewsSpider"]

#: Request priorities: articles named by a sitemap, a feed or an article-shaped link first,
#: then links of unknown shape, then listings released by the navigator.
ARTICLE_PRIORITY = 10
FEED_PRIORITY = 20
UNKNOWN_PRIORITY = 5
#: Feeds read per site: a blog announces a comments feed on every article, not worth a fetch.
FEEDS_PER_SITE = 3
#: A page that declares no article and marks no time is one only with this much text: an
#: "about" or contact page is short; a thread of a forum whose times are relative is not.
UNDATED_MIN_CHARS = 400
#: The same with a time: a listing of one or two dated links shows a time and a title, no more.
UNDECLARED_MIN_CHARS = 120
#: Largest sitemap read, decompressed (a gzip bomb is not unpacked past it).
SITEMAP_MAX_BYTES = 50 * 1024 * 1024
#: Suffixes of source and data files that blogs link beside their pages ("Source" of a post).
_SOURCE_SUFFIXES = (".rst", ".md", ".markdown", ".txt", ".ipynb", ".tex", ".adoc", ".json", ".csv", ".yaml", ".yml")
_FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml")


def _is_html(response: Response) -> bool:
    """Whether the response is a web page by its type (a post's source file linked as
    ``index.rst``, served as text, is none); a response without a type is given the benefit."""
    kind = response.headers.get("Content-Type", b"").split(b";")[0].strip().lower()
    return not kind or b"html" in kind


class NewsSpider(SiteSpider):
    """Crawls news sites and blogs and exports one Article per article, listings never.

    A page the kind model reads as a product, service or other non-content page, and that
    declares no article, is not exported (counted as ``forumcrawl/skip/kind/<kind>``).
    """

    name = "news"
    learns = False

    def init_site_state(self) -> None:
        super().init_site_state()
        self.sites_nav: dict[str, NewsNavigator] = {}
        self.feeds_read: dict[str, int] = {}
        self.with_comments = False
        self.states: NewsStates | None = None
        #: Last-change times that sitemaps and feeds gave, by URL.
        self.modified: dict[str, str] = {}
        #: Articles of the last crawl not fetched again, as unchanged (FORUMCRAWL_INCREMENTAL).
        self.skipped: set[str] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> NewsSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        assert isinstance(spider, NewsSpider)
        spider.with_comments = crawler.settings.getbool("FORUMCRAWL_NEWS_COMMENTS")
        if crawler.settings.getbool("FORUMCRAWL_INCREMENTAL"):
            started = datetime.now(timezone.utc).isoformat(timespec="seconds")
            spider.states = NewsStates(Path(crawler.settings["FORUMCRAWL_STATE_DIR"]), started)
            crawler.signals.connect(spider.save_states, signal=signals.spider_closed)
        crawler.signals.connect(spider.release_listings, signal=signals.spider_idle)
        return spider

    def save_states(self) -> None:
        """On spider_closed: keep what was exported for the next crawl (FORUMCRAWL_INCREMENTAL)."""
        assert self.states is not None
        for path in self.states.save_all():
            self.logger.info("crawl state saved to %s", path)

    def nav(self, url: str) -> NewsNavigator:
        """The navigation state of ``url``'s site."""
        return self.sites_nav.setdefault(site_of(url), NewsNavigator())

    async def start(self) -> AsyncIterator[scrapy.Request]:
        roots = {}
        for url in self.start_urls:
            parts = urlsplit(url)
            roots.setdefault(site_of(url), f"{parts.scheme}://{parts.netloc}/")
            self.nav(url).seen.add(url)
            yield scrapy.Request(url, callback=self.parse, priority=ARTICLE_PRIORITY)
        if self.topic_example:
            self.nav(self.topic_example).seen.add(self.topic_example)
            yield scrapy.Request(self.topic_example, callback=self.parse, priority=FEED_PRIORITY)
        for root in roots.values():
            yield scrapy.Request(
                urljoin(root, "/robots.txt"), callback=self.parse_robots, errback=self.no_robots,
                priority=FEED_PRIORITY, cb_kwargs={"root": root},
            )

    # -- sitemaps and feeds ------------------------------------------------------------------

    def parse_robots(self, response: Response, root: str) -> Iterator[scrapy.Request]:
        """Follow the ``Sitemap:`` lines of robots.txt, else try ``/sitemap.xml``."""
        text = response.text if hasattr(response, "text") else response.body.decode("utf-8", "replace")
        sitemaps = [u for u in sitemap_urls_from_robots(text, base_url=response.url) if site_of(u) in self.sites]
        for url in sitemaps or [urljoin(root, "/sitemap.xml")]:
            yield self.sitemap_request(url)

    def no_robots(self, failure: Failure) -> Iterator[scrapy.Request]:
        """No robots.txt: try ``/sitemap.xml``."""
        root = failure.request.cb_kwargs["root"]
        yield self.sitemap_request(urljoin(root, "/sitemap.xml"))

    def sitemap_request(self, url: str) -> scrapy.Request:
        self.nav(url).seen.add(url)
        return scrapy.Request(url, callback=self.parse_sitemap, errback=self.source_failed, priority=FEED_PRIORITY)

    def source_failed(self, failure: Failure) -> None:
        """A sitemap or feed that could not be read: logged, the crawl goes on from links."""
        status = failure.value.response.status if failure.check(HttpError) else None
        self._inc("news/source_failed")
        self.logger.info("no sitemap or feed at %s (%s)", failure.request.url, status or failure.value)

    def parse_sitemap(self, response: Response) -> Iterator[scrapy.Request]:
        """Each ``<loc>`` of a sitemap index (another sitemap) or url set (a page to fetch)."""
        body = response.body
        if gzip_magic_number(response):
            try:
                body = gunzip(body, max_size=SITEMAP_MAX_BYTES)
            except (OSError, ValueError) as exc:
                self._inc("news/sitemap_unreadable")
                self.logger.warning("skipped sitemap %s: %s", response.url, exc)
                return
        try:
            sitemap = Sitemap(body)
        except (lxml.etree.XMLSyntaxError, ValueError) as exc:
            self._inc("news/sitemap_unreadable")
            self.logger.warning("skipped sitemap %s: %s", response.url, exc)
            return
        if sitemap.type not in {"urlset", "sitemapindex"}:
            # A sitemap index may list feeds (Nikola lists each author's and category's RSS).
            yield from self.parse_feed(response)
            return
        self._inc("news/sitemaps")
        entries = [e for e in sitemap if site_of((e.get("loc") or "").strip()) in self.sites]
        if sitemap.type == "sitemapindex":
            locs = [e["loc"].strip() for e in entries]
            # An index may list feeds beside its sitemaps (Nikola: one RSS per author and
            # category); those named sitemaps are read, the others only when none is.
            named = [loc for loc in locs if "sitemap" in loc.lower()]
            for loc in named or locs:
                if loc not in self.nav(loc).seen:
                    yield self.sitemap_request(loc)
            return
        for entry in entries:
            loc = entry["loc"].strip()
            if loc:
                request = self.lead(loc, source="sitemap", modified=(entry.get("lastmod") or "").strip() or None)
                if request is not None:
                    yield request

    def feed_requests(self, doc: Document) -> Iterator[scrapy.Request]:
        """The RSS/Atom feeds the page announces (a few per site)."""
        for link in doc.tree.xpath("//head/link[@rel='alternate'][@href]"):
            if (link.get("type") or "").lower() not in _FEED_TYPES:
                continue
            url = canonical_url(urljoin(doc.url, link.get("href").strip()))
            navigator = self.nav(url)
            if site_of(url) not in self.sites or url in navigator.seen or self.feeds_read.get(site_of(url), 0) >= FEEDS_PER_SITE:
                continue
            navigator.seen.add(url)
            self.feeds_read[site_of(url)] = self.feeds_read.get(site_of(url), 0) + 1
            yield scrapy.Request(url, callback=self.parse_feed, errback=self.source_failed, priority=FEED_PRIORITY)

    def parse_feed(self, response: Response) -> Iterator[scrapy.Request]:
        """The item links of an RSS or Atom feed."""
        try:
            root = lxml.etree.fromstring(response.body, parser=lxml.etree.XMLParser(recover=True, resolve_entities=False))
        except lxml.etree.XMLSyntaxError as exc:
            self._inc("news/feed_unreadable")
            self.logger.warning("skipped feed %s: %s", response.url, exc)
            return
        if root is None:
            return
        self._inc("news/feeds")
        for entry in root.xpath("//*[local-name()='item' or local-name()='entry']"):
            hrefs = entry.xpath(
                "*[local-name()='link']/text() | *[local-name()='link'][not(@rel) or @rel='alternate']/@href"
            )
            times = entry.xpath("*[local-name()='updated' or local-name()='pubDate']/text()")
            url = urljoin(response.url, str(hrefs[0]).strip()) if hrefs else ""
            if url and site_of(url) in self.sites:
                request = self.lead(url, source="feed", modified=str(times[0]).strip() if times else None)
                if request is not None:
                    yield request

    # -- links -------------------------------------------------------------------------------

    def lead(self, url: str, *, source: str, modified: str | None = None) -> scrapy.Request | None:
        """A request for a page named by a link, a sitemap or a feed (with the time it gives
        for the page's last change), or None when it was seen, waits as a listing, or is an
        article the last crawl exported that has not changed since (FORUMCRAWL_INCREMENTAL)."""
        url = strip_params(canonical_url(url))
        if url.lower().endswith(_IGNORED_SUFFIXES + _FEED_SUFFIXES + _SOURCE_SUFFIXES):
            return None
        navigator = self.nav(url)
        if modified is not None:
            self.modified.setdefault(url, modified)
        if self.states is not None:
            state = self.states.site(site_of(url))
            if url not in navigator.seen and state.unchanged(url, modified):
                navigator.seen.add(url)
                self.skipped.add(url)
                self._inc("incremental/unchanged_articles")
                return None
            if url in self.skipped and not state.unchanged(url, modified):
                # Skipped from a link; a sitemap or feed now tells of a change.
                self.skipped.discard(url)
                self._inc("incremental/changed_articles")
                return self.request(url, priority=ARTICLE_PRIORITY)
        decision = navigator.offer(url)
        if decision != "follow":
            if decision in {"hold", "wait", "dead"}:
                self._inc(f"news/{decision}")
            return None
        self._inc(f"news/lead/{source}")
        named = source in {"sitemap", "feed"} or navigator.is_article_link(url)
        return self.request(url, priority=ARTICLE_PRIORITY if named else UNKNOWN_PRIORITY)

    def request(self, url: str, *, priority: int, released: bool = False) -> scrapy.Request:
        """A request for a page of the site."""
        meta = {"forumcrawl_released": True} if released else {}
        return scrapy.Request(url, callback=self.parse, errback=self.page_failed, priority=priority, meta=meta)

    def page_failed(self, failure: Failure) -> Iterator[scrapy.Request]:
        """A page that could not be fetched: read as no page of its pattern."""
        yield from self.gave_nothing(failure.request)

    def gave_nothing(self, request: scrapy.Request) -> Iterator[scrapy.Request]:
        """Tell the navigator that ``request`` gave no page; the links that waited for it."""
        asked = (request.meta.get("redirect_urls") or [request.url])[0]
        released = bool(request.meta.get("forumcrawl_released"))
        for url in self.nav(asked).fetched(asked, "failed", 0, released=released):
            yield self.request(url, priority=UNKNOWN_PRIORITY)

    def release_listings(self) -> None:
        """On spider_idle: release the waiting listings that still pay (see NewsNavigator)."""
        released = 0
        for navigator in self.sites_nav.values():
            for url in navigator.release():
                released += 1
                self._inc("news/released")
                self.crawler.engine.crawl(self.request(url, priority=0, released=True))
            if not released:
                for url in navigator.stranded():
                    released += 1
                    self.crawler.engine.crawl(self.request(url, priority=UNKNOWN_PRIORITY))
        if released:
            raise DontCloseSpider

    # -- pages -------------------------------------------------------------------------------

    async def parse(self, response: Response, **kwargs: Any) -> AsyncIterator[Any]:
        doc = self.document(response) if _is_html(response) else None
        released = bool(response.meta.get("forumcrawl_released"))
        asked = (response.meta.get("redirect_urls") or [response.url])[0]
        if doc is None or doc.tree is None:
            for request in self.gave_nothing(response.request):
                yield request
            return
        self._inc("page/parsed")
        navigator = self.nav(asked)
        role = page_role(doc.tree, doc.url)
        if role == "listing" or response.meta.get("depth", 0) == 0:
            for request in self.feed_requests(doc):
                yield request
        requests = [
            request for url in page_links(doc.tree, doc.url)
            if site_of(url) in self.sites and (request := self.lead(url, source="link")) is not None
        ]
        item = None
        if role != "listing":
            item, role = self.article(doc, role, asked)
        for url in navigator.fetched(asked, role, len(requests), released=released):
            requests.append(self.request(url, priority=ARTICLE_PRIORITY if navigator.is_article_link(url) else UNKNOWN_PRIORITY))
        self._inc(f"news/page/{role}")
        for request in requests:
            yield request
        if item is not None:
            yield item

    def article(self, doc: Document, role: str, asked_url: str) -> tuple[Article | None, str]:
        """The page's Article and its role (``article``, or ``other`` for a page that is none)."""
        meta = article_metadata(doc.tree)
        if role != "article":
            kind = self.cascade.page_kind(doc)
            if kind in NON_CONTENT_KINDS:
                self._inc(f"skip/kind/{kind}")
                self.logger.debug("not exporting %s: a %s page, not an article", doc.url, kind)
                return None, "other"
        identity = article_identity(doc.tree, doc.url)
        navigator = self.nav(doc.url)
        fetched = datetime.now(timezone.utc)
        text = body_text(doc.tree)
        extraction = None
        if text is None:
            cleaned = Document.from_text(lxml.html.tostring(without_extras(doc.tree, doc.url), encoding="unicode"), doc.url)
            outcome = self.cascade.run(cleaned, None, now=fetched)
            self.count_outcome(cleaned, outcome)
            extraction = outcome.extraction
            if extraction is not None:
                text = trim_heading_lines(extraction.text, meta.title, meta.author)
        if not text:
            self._inc("extract/empty")
            return None, "other"
        if role != "article" and len(text) < (UNDECLARED_MIN_CHARS if meta.published else UNDATED_MIN_CHARS):
            self._inc("news/not_exported/short")
            self.logger.debug("not exporting %s: no article marks and little text", doc.url)
            return None, "other"
        if not navigator.claim(identity):
            self._inc("news/not_exported/duplicate")
            return None, "article"
        if self.states is not None:
            asked = strip_params(canonical_url(asked_url))
            # Only a sitemap's or feed's time is kept: the next crawl compares it with theirs.
            modified = self.modified.get(asked) or self.modified.get(identity)
            self.states.site(doc.site).exported([asked, strip_params(canonical_url(doc.url))], identity, modified)
        item = self.make_item(doc, extraction or Extraction(method="marked", text=text), fetched)
        item.url = identity
        item.text = text
        item.language = language(text)
        item.title = meta.title or item.title
        item.author = meta.author or item.author
        if meta.published:
            item.published_raw = meta.published
            item.published = to_iso(meta.published, now=fetched) or item.published
        if meta.modified:
            item.modified = to_iso(meta.modified, now=fetched)
        if self.with_comments:
            item.comments = [
                ArticleComment(author=c.author, published=to_iso(c.published, now=fetched) if c.published else None, text=c.text)
                for c in comments(doc.tree)
            ]
        return item, "article"

    def make_item(self, doc: Document, extraction: Extraction, now: datetime) -> Article:
        return article_item(doc, extraction, now=now)

