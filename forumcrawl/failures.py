"""Pages that never succeeded: counted, listed at the end of the crawl, and told by the exit status.

A page is *failed* when its last attempt, after the retries, ended in a server error (5xx, 408,
429), a download error (timeout, refused or reset connection, a body cut short) or an exception
in the spider's callback. A later successful fetch of the same URL takes it off the list. A 404
is no failure: the page is gone, asking again will not bring it back.

When the spider closes, each failed page is classed with its site's final rules (a thread page,
or another page) and as a listing or not: a board or list page (a page flip chained from a
listing, or a page of a pattern that has led to new thread pages), whose threads no other page may
link;
stats
``forumcrawl/failed/pages``, ``forumcrawl/failed/thread_pages`` and
``forumcrawl/failed/listing_pages``, the list ``forumcrawl/failed/urls`` (``"<url> <reason>"``,
first :data:`LISTED` of them), and WARNING lines at the very end of the log name them.
``forumcrawl crawl`` exits with status 1 when a thread page failed (or a page of a site whose
rules were never learned, which may have been one), or a listing page: the thread pages only it
linked are missing from the output, and only its failure tells.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest

from forumcrawl.local import is_local

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure
    from typing_extensions import Self

__all__ = [
    "FAILED_STATUSES", "LISTED", "LISTING_ROLES", "FailedPagesMiddleware", "failed_listing_pages",
    "failed_thread_pages", "page_failed",
]

logger = logging.getLogger(__name__)

#: Statuses that end a fetch as failed (transient by nature; a 4xx other than these is an answer).
FAILED_STATUSES = frozenset({408, 429, *range(500, 600)})
#: Failed URLs listed in the stats and the log.
LISTED = 100
#: Navigation roles (``request.meta["forumcrawl_nav"]``) that make a page a listing: a page flip
#: of a listing that led to new thread pages ("index" is any other page followed, a profile too).
LISTING_ROLES = frozenset({"chained"})
#: Signal ``(url, reason)``: a page failed after its retries (sent again if it fails again; a
#: recrawl state must not count its thread as read, see :mod:`forumcrawl.pipelines.incremental`).
page_failed = object()


def failed_thread_pages(stats: dict[str, Any]) -> int:
    """Thread pages (or pages of unlearned sites) that failed in a crawl, from its stats."""
    return int(stats.get("forumcrawl/failed/thread_pages", 0))


def failed_listing_pages(stats: dict[str, Any]) -> int:
    """Listing pages (boards, lists and their page flips) that failed in a crawl, from its stats."""
    return int(stats.get("forumcrawl/failed/listing_pages", 0))


class FailedPagesMiddleware:
    """Downloader middleware (outside the retries, so it sees only final outcomes) and ledger of
    failed pages; see the module's docstring."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.failed: dict[str, str] = {}
        # Failed URLs whose request the navigation followed as a listing.
        self.listings: set[str] = set()
        crawler.signals.connect(self.spider_error, signal=signals.spider_error)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if is_local(request):
            return response
        if response.status in FAILED_STATUSES:
            self._fail(request.url, f"HTTP {response.status}", request.meta)
        else:
            self.failed.pop(request.url, None)
            self.listings.discard(request.url)
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        if not isinstance(exception, IgnoreRequest) and not is_local(request):
            self._fail(request.url, type(exception).__name__, request.meta)
        return None

    def spider_error(self, failure: Failure, response: Response, spider: Spider) -> None:
        """The callback of a page raised: its items are lost, so the page failed."""
        request = response.request
        if request is None or not is_local(request):
            meta = {} if request is None else request.meta
            self._fail(response.url, f"callback error: {type(failure.value).__name__}", meta)

    def _fail(self, url: str, reason: str, meta: dict[str, Any]) -> None:
        self.failed[url] = reason
        if meta.get("forumcrawl_nav") in LISTING_ROLES:
            self.listings.add(url)
        self.crawler.signals.send_catch_log(page_failed, url=url, reason=reason)

    def spider_closed(self, spider: Spider) -> None:
        stats = self.crawler.stats
        assert stats is not None
        if not self.failed:
            return
        kind = getattr(spider, "is_thread_page", None)
        threads = [url for url in self.failed if kind is None or kind(url) is not False]
        listing = getattr(spider, "is_listing_page", None)
        listings = [
            url for url in self.failed
            if url not in threads and (url in self.listings or listing is not None and listing(url))
        ]
        stats.set_value("forumcrawl/failed/pages", len(self.failed))
        stats.set_value("forumcrawl/failed/thread_pages", len(threads))
        stats.set_value("forumcrawl/failed/listing_pages", len(listings))
        listed = [f"{url} {reason}" for url, reason in list(self.failed.items())[:LISTED]]
        stats.set_value("forumcrawl/failed/urls", listed)
        logger.warning(
            "%d pages failed after their retries (%d of them thread pages, or pages of a site "
            "whose rules were not learned; %d listing pages, whose threads may be missing); a new "
            "crawl fetches them again:",
            len(self.failed), len(threads), len(listings), extra={"spider": spider},
        )
        for line in listed:
            logger.warning("  failed: %s", line, extra={"spider": spider})
        if len(self.failed) > LISTED:
            logger.warning("  … and %d more", len(self.failed) - LISTED, extra={"spider": spider})
