"""Requests that never leave the process: engine wake-ups and the spider's learning triggers.

They are ``data:,`` requests the engine runs like any other so that their callbacks' output goes
through the spider middlewares and pipelines. Downloaded like pages, they sat in a download slot
of their own that had the crawl's delay (AutoThrottle starts every slot at
``AUTOTHROTTLE_START_DELAY`` and adjusts only on real latencies, so that slot kept it for good):
a worker that woke its engine every poll (0.25 s) under a 0.5 s delay piled them up until they
filled ``CONCURRENT_REQUESTS``, and no real page was downloaded again (the cluster hang). Here
they are answered at once by :class:`LocalRequestMiddleware`, before any slot, and not counted
as pages (:class:`CoreStats`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.extensions.corestats import CoreStats as ScrapyCoreStats
from scrapy.http import Response

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider

__all__ = ["LOCAL_META", "CoreStats", "LocalRequestMiddleware", "is_local", "local_request"]

#: ``request.meta`` key marking a local request.
LOCAL_META = "forumcrawl_local"
#: Stat counting local requests answered (not pages).
LOCAL_STAT = "forumcrawl/local_requests"


def local_request(callback: Callable[..., Any], **kwargs: Any) -> Request:
    """A request the engine schedules and calls back at once, without a download."""
    meta = {"allow_offsite": True, LOCAL_META: True, **kwargs.pop("meta", {})}
    return Request("data:,", callback=callback, dont_filter=True, meta=meta, **kwargs)


def is_local(request: Request) -> bool:
    """Whether ``request`` is a local request (never queued in Redis, never downloaded)."""
    return bool(request.meta.get(LOCAL_META))


class LocalRequestMiddleware:
    """Downloader middleware answering local requests with an empty response before any
    download slot, so no download delay, concurrency limit or robots.txt applies to them."""

    def process_request(self, request: Request) -> Response | None:
        if is_local(request):
            return Response(request.url, status=200, request=request)
        return None


class CoreStats(ScrapyCoreStats):
    """Scrapy's core stats without local requests in ``response_received_count``: the log's
    "Crawled N pages", the progress line and ``cluster status`` count real pages only."""

    def response_received(self, spider: Spider, request: Request | None = None) -> None:  # type: ignore[override]
        if request is not None and is_local(request):
            self.stats.inc_value(LOCAL_STAT)
            return
        super().response_received(spider)
