"""Acknowledge a leased request once everything its response produced has been handled.

Scrapy hands a callback's items to the pipelines concurrently with the callback's iteration, so the
end of the callback is not enough: this outermost spider middleware counts the items of each
response and waits for as many ``item_scraped``/``item_dropped``/``item_error`` signals (which
carry the response) before sending :data:`~forumcrawl.redis.scheduler.lease_finished`. An item lost to a Redis
error, or dropped past ``CLOSESPIDER_ITEMCOUNT``, abandons the lease instead, so the request is
crawled again once the lease expires. What
"durable" means is then the pipelines' and feeds' business: with FORUMCRAWL_REDIS_ITEMS the item
is in Redis before the ack; a local feed file may still hold the last items in its write buffer
when a worker is killed (set ``FEED_EXPORT_BATCH_ITEM_COUNT`` to close files sooner).

:class:`RobotsFilterMiddleware` drops the follow-ups robots.txt forbids before they are written to
Redis: otherwise they are pushed, leased, popped and acknowledged only to be refused by the
downloader (on the mock forums most popped requests were such).

The Redis spiders mark ``response.meta`` with the site a page is held for (``forumcrawl_park``)
or whose held pages this response's output exported (``forumcrawl_release``); see
:mod:`forumcrawl.spiders.redis`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest, NotConfigured

from forumcrawl.pipelines.limit import ItemLimitReached
from forumcrawl.redis.keys import REDIS_ERRORS
from forumcrawl.redis.scheduler import LEASE_META, lease_finished

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

__all__ = ["PARK_META", "RELEASE_META", "LeaseAckMiddleware", "RobotsFilterMiddleware"]

#: ``response.meta`` key: the site whose held pages include this one (keep its lease till released).
PARK_META = "forumcrawl_park"
#: ``response.meta`` key: the site whose held pages this response exported.
RELEASE_META = "forumcrawl_release"


@dataclass
class _Output:
    response: Response
    items: int = 0
    handled: int = 0
    finished: bool = False
    failed: bool = False


class LeaseAckMiddleware:
    """Sends ``lease_finished`` for a response when its output and its items are all processed."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._outputs: dict[int, _Output] = {}
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(self._item_handled, signal=signal)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LeaseAckMiddleware:
        return cls(crawler)

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        output = self._outputs[id(response)] = _Output(response)
        lease = response.meta.get(LEASE_META)
        try:
            async for value in result:
                if isinstance(value, Request):
                    if lease is not None and value.meta.get(LEASE_META) == lease:
                        del value.meta[LEASE_META]  # a follow-up, not a replacement
                elif value is not None:
                    output.items += 1
                yield value
        finally:
            output.finished = True
            self._settle(output)

    def _item_handled(
        self, response: Response | None = None, failure: Failure | None = None,
        exception: BaseException | None = None, **kwargs: Any,
    ) -> None:
        output = self._outputs.get(id(response))
        if output is not None and output.response is response:
            output.handled += 1
            if failure is not None and failure.check(*REDIS_ERRORS) or isinstance(exception, ItemLimitReached):
                output.failed = True
            self._settle(output)

    def _settle(self, output: _Output) -> None:
        if not output.finished or output.handled < output.items:
            return
        del self._outputs[id(output.response)]
        meta = output.response.meta
        self.crawler.signals.send_catch_log(
            lease_finished,
            lease=meta.pop(LEASE_META, None),
            park=meta.get(PARK_META),
            release=meta.get(RELEASE_META),
            abandon=output.failed,
        )


class RobotsFilterMiddleware:
    """Asks the downloader's RobotsTxtMiddleware about each follow-up and drops those it refuses.

    The same parser and user agent decide as at download time (its public ``robot_parser`` and
    ``process_request_2``), so nothing is refused here that would have been fetched. Off without
    ROBOTSTXT_OBEY. Stat: ``forumcrawl/redis/robots_filtered``.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._robots: RobotsTxtMiddleware | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RobotsFilterMiddleware:
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured("ROBOTSTXT_OBEY is off")
        return cls(crawler)

    def _robots_middleware(self) -> RobotsTxtMiddleware | None:
        """The downloader's instance (built after the spider middlewares, so looked up late)."""
        if self._robots is None and self.crawler.engine is not None:
            middlewares = self.crawler.engine.downloader.middleware.middlewares
            self._robots = next((m for m in middlewares if isinstance(m, RobotsTxtMiddleware)), None)
        return self._robots

    async def _allowed(self, request: Request) -> bool:
        robots = self._robots_middleware()
        if robots is None or request.meta.get("dont_obey_robotstxt") or not request.url.startswith("http"):
            return True
        parser = await robots.robot_parser(request)
        try:
            robots.process_request_2(parser, request)
        except IgnoreRequest:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/redis/robots_filtered")
            return False
        return True

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        async for value in result:
            if isinstance(value, Request) and not await self._allowed(value):
                continue
            yield value
