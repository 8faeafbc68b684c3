"""Scrapy's retries with a pause before each one, as long as the server asks for.

Scrapy's :class:`~scrapy.downloadermiddlewares.retry.RetryMiddleware` sends a retry at once: a
forum answering 500 and 503 in a burst under 16 parallel requests answers the retries with the
same burst, and the pages are lost (#46, #47). Here a retry waits
``FORUMCRAWL_RETRY_BACKOFF * 2 ** (n - 1)`` seconds before its n-th attempt, or what the
response's ``Retry-After`` asks (seconds or an HTTP date), at most ``FORUMCRAWL_RETRY_BACKOFF_MAX``.
The wait holds the request in the downloader (it counts against ``CONCURRENT_REQUESTS``), so a
burst of failures also slows the crawl down while the server recovers. The retry itself is made
by Scrapy's own :func:`~scrapy.downloadermiddlewares.retry.get_retry_request` (stats
``retry/*``, the give-up log line).

A retry is sent with ``dont_filter`` (the seen set knows its URL already), and Scrapy's
RedirectMiddleware hands that on to a redirect's target: a post permalink that answered 500 once,
then redirected to its thread page, fetched that page again although it was crawled already
(held-apart universe forum 100: the same thread page parsed twice, in a cluster exported
twice). :class:`RetriedRedirectMiddleware` gives a retried request's redirect the request's
own ``dont_filter`` back.
"""

from __future__ import annotations

import logging
import time
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.response import response_status_message
from twisted.internet.task import deferLater

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

__all__ = ["BackoffRetryMiddleware", "RetriedRedirectMiddleware", "backoff_seconds", "retry_after_seconds"]

#: Request meta: the ``dont_filter`` of a retried request before its first retry.
DONT_FILTER_META = "forumcrawl_dont_filter"

logger = logging.getLogger(__name__)


def retry_after_seconds(value: bytes | str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (a number or an HTTP date); None when absent
    or unreadable."""
    if not value:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_seconds(attempt: int, base: float, cap: float, retry_after: float | None = None) -> float:
    """The pause before retry number ``attempt`` (1, 2 …): ``base`` doubled per earlier retry,
    or the server's ``retry_after`` when it asks for longer; never above ``cap``."""
    pause = base * 2 ** max(0, attempt - 1)
    if retry_after is not None:
        pause = max(pause, retry_after)
    return min(pause, cap)


class BackoffRetryMiddleware(RetryMiddleware):
    """RetryMiddleware whose retries wait (exponential backoff, ``Retry-After`` honoured)."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler.settings)
        self.crawler = crawler
        self.base = crawler.settings.getfloat("FORUMCRAWL_RETRY_BACKOFF")
        self.cap = crawler.settings.getfloat("FORUMCRAWL_RETRY_BACKOFF_MAX")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def _pause(self, retry: Request, retry_after: float | None = None) -> Request:
        from twisted.internet import reactor  # the installed one

        pause = backoff_seconds(retry.meta.get("retry_times", 1), self.base, self.cap, retry_after)
        if pause > 0:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/retry/backoff_seconds", round(pause, 3))
            logger.debug("retrying %s in %.1fs", retry, pause)
            await maybe_deferred_to_future(deferLater(reactor, pause, lambda: None))
        return retry

    def _retry(self, request: Request, reason: str | Exception | type[Exception]) -> Request | None:
        retry = super()._retry(request, reason)
        if retry is not None:
            retry.meta.setdefault(DONT_FILTER_META, request.dont_filter)
        return retry

    async def process_response(self, request: Request, response: Response) -> Request | Response:  # type: ignore[override]
        if request.meta.get("dont_retry", False) or response.status not in self.retry_http_codes:
            return response
        retry = self._retry(request, response_status_message(response.status))
        if retry is None:
            return response
        return await self._pause(retry, retry_after_seconds(response.headers.get("Retry-After")))

    async def process_exception(self, request: Request, exception: Exception) -> Request | Response | None:  # type: ignore[override]
        if request.meta.get("dont_retry", False) or not isinstance(exception, self.exceptions_to_retry):
            return None
        retry = self._retry(request, exception)
        return None if retry is None else await self._pause(retry)


class RetriedRedirectMiddleware:
    """Downloader middleware just above Scrapy's RedirectMiddleware (600), which copies a
    request's ``dont_filter`` to its redirect: a retried request's redirect gets the
    ``dont_filter`` the request had before its retries, so a target crawled already is refused
    by the seen set as any redirect's is."""

    def process_response(self, request: Request, response: Response) -> Response:
        if 300 <= response.status < 400 and DONT_FILTER_META in request.meta:
            request.dont_filter = request.meta[DONT_FILTER_META]
        return response
