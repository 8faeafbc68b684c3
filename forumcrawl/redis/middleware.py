"""Acknowledge a leased request once everything its response produced has been handled.

Scrapy hands a callback's items to the pipelines concurrently with the callback's iteration, so the
end of the callback is not enough: this outermost spider middleware counts the items of each
response and waits for as many ``item_scraped``/``item_dropped``/``item_error`` signals (which
carry the response) before sending :data:`~forumcrawl.redis.scheduler.lease_finished`. An item lost to a Redis
error abandons the lease instead, so the request is crawled again once the lease expires. What
"durable" means is then the pipelines' and feeds' business: with FORUMCRAWL_REDIS_ITEMS the item
is in Redis before the ack; a local feed file may still hold the last items in its write buffer
when a worker is killed (set ``FEED_EXPORT_BATCH_ITEM_COUNT`` to close files sooner).

The Redis spiders mark ``response.meta`` with the site a page is held for (``forumcrawl_park``)
or whose held pages this response's output exported (``forumcrawl_release``); see
:mod:`forumcrawl.spiders.redis`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy import Request, signals

from forumcrawl.redis.keys import REDIS_ERRORS
from forumcrawl.redis.scheduler import LEASE_META, lease_finished

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

__all__ = ["PARK_META", "RELEASE_META", "LeaseAckMiddleware"]

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

    def _item_handled(self, response: Response | None = None, failure: Failure | None = None, **kwargs: Any) -> None:
        output = self._outputs.get(id(response))
        if output is not None and output.response is response:
            output.handled += 1
            if failure is not None and failure.check(*REDIS_ERRORS):
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
