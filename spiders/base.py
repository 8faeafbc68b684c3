"""SiteSpider: the crawl loop shared by the forum and news spiders.

Spiders hold no algorithm: they decode each response into a Document once, ask the page layer
for an item, and follow the page's links within the start sites. Settings read here:
FORUMCRAWL_EXTRACT_CASCADE, FORUMCRAWL_EXTRACT_MIN_CHARS, FORUMCRAWL_MAX_PAGE_BYTES.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import IGNORED_EXTENSIONS

from forumcrawl.document import Document, DocumentError, site_of
from forumcrawl.extractors.fields import page_links
from forumcrawl.pages import Cascade, CascadeOutcome, Extraction
from forumcrawl.sitemodel import SiteModel

__all__ = ["SiteSpider", "parse_start_urls"]

_IGNORED_SUFFIXES = tuple(f".{ext}" for ext in IGNORED_EXTENSIONS)


def parse_start_urls(start: str | None) -> list[str]:
    """Split ``-a start=URL[,URL…]`` into URLs; a clear ValueError for a missing or bad one."""
    if not start or not start.strip():
        raise ValueError("give the site(s) to crawl: -a start=URL[,URL…]")
    urls = [u.strip() for u in start.split(",") if u.strip()]
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
    return urls


class SiteSpider(scrapy.Spider):
    """Crawls the start sites, following links within them, and exports one item per content page."""

    #: Stats prefix used by this spider family.
    stats_prefix = "forumcrawl"

    def __init__(self, start: str | None = None, topic_example: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = parse_start_urls(start)
        self.sites = {site_of(u) for u in self.start_urls}
        self.allowed_domains = sorted({urlsplit(u).hostname or "" for u in self.start_urls})
        self.topic_example = topic_example
        self.models: dict[str, SiteModel] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> SiteSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        spider.cascade = Cascade(
            settings.getlist("FORUMCRAWL_EXTRACT_CASCADE"),
            min_chars=settings.getint("FORUMCRAWL_EXTRACT_MIN_CHARS"),
        )
        spider.max_page_bytes = settings.getint("FORUMCRAWL_MAX_PAGE_BYTES")
        return spider

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

    def follow_links(self, doc: Document) -> Iterator[scrapy.Request]:
        """Requests for the page's links that stay on the start sites."""
        for url in page_links(doc.tree, doc.url):
            if site_of(url) not in self.sites or urlsplit(url).path.lower().endswith(_IGNORED_SUFFIXES):
                continue
            yield scrapy.Request(url, callback=self.parse)

    def make_item(self, doc: Document, extraction: Extraction, now: datetime) -> Any:
        """The item for a content page; subclasses choose its type."""
        raise NotImplementedError

    def is_content_page(self, doc: Document) -> bool:
        """Whether ``doc`` should be exported as an item (every page, until a site rule says)."""
        return True

    def count_outcome(self, outcome: CascadeOutcome) -> None:
        """Stats for one cascade run: the stage that answered, misses, errors."""
        for name in outcome.misses:
            self._inc(f"extract/miss/{name}")
        for error in outcome.errors:
            self._inc(f"extract/error/{error.split(':', 1)[0]}")
        if outcome.extraction is None:
            self._inc("extract/empty")
        else:
            self._inc(f"extract/method/{outcome.extraction.method}")

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        doc = self.document(response)
        if doc is None:
            return
        self._inc("page/parsed")
        if doc.tree is None:
            self._inc("page/skipped/empty")
            self.logger.info("skipped %s: empty page", response.url)
            return
        now = datetime.now(timezone.utc)
        if self.is_content_page(doc):
            outcome = self.cascade.run(doc, self.models.get(doc.site), now=now)
            self.count_outcome(outcome)
            if outcome.extraction is not None:
                yield self.make_item(doc, outcome.extraction, now)
        yield from self.follow_links(doc)
