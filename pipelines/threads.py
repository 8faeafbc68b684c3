"""ThreadPipeline: one record per thread instead of one per page (``FORUMCRAWL_ITEM=thread``).

Thread pages are held, by their site and ``thread_id``, until every page of the thread is in
(:mod:`forumcrawl.threads` says when); the page that completes a thread goes on through the
later pipelines and the feeds as a :class:`~forumcrawl.items.WholeThread`. The other pages are
dropped at DEBUG with the reason ``held for its thread`` (Scrapy counts them as dropped items;
``forumcrawl/threads/pages_held`` counts them here). A page of a thread already emitted whole
(by any worker of a cluster), arriving again (the same URL fetched twice: page mode exports it
twice, and the dedup pipeline lets the same URL pass), is dropped and counted as
``forumcrawl/threads/page_again``: it would start a second, one-page record of the thread. A later
page than the record held starts the thread again (the thread grew), to come out incomplete at the end. When the crawl ends, the threads still in
progress are emitted marked incomplete, with their missing pages, straight to the feeds (the
pipelines after this one are closed by then). A page without thread identity (the site's was
not learned) is a thread of its own, ``complete`` None.

In cluster mode the threads in progress live in Redis (:mod:`forumcrawl.redis.threads`), so a
thread is completed by whichever worker fetches its last page, and the first worker to close
emits the incomplete ones. Settings: FORUMCRAWL_ITEM, FORUMCRAWL_REDIS_PREFIX.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from forumcrawl.items import ForumThread, WholeThread, plain
from forumcrawl.pipelines.incremental import Recrawl
from forumcrawl.threads import PageAgain, PageRecord, ThreadBook, whole_thread

__all__ = ["ITEM_KINDS", "ThreadPipeline"]

#: Values of FORUMCRAWL_ITEM.
ITEM_KINDS = ("page", "thread")


class ThreadPipeline:
    """Assembles thread pages into whole threads (off unless FORUMCRAWL_ITEM is ``thread``)."""

    def __init__(self, crawler: Crawler, *, cluster: bool) -> None:
        self.crawler = crawler
        self.cluster = cluster
        self.book: Any = ThreadBook()
        self.recrawl = Recrawl.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ThreadPipeline:
        kind = crawler.settings.get("FORUMCRAWL_ITEM", "page")
        if kind not in ITEM_KINDS:
            raise ValueError(f"FORUMCRAWL_ITEM: expected one of {', '.join(ITEM_KINDS)}, got {kind!r}")
        if kind != "thread":
            raise NotConfigured()
        return cls(crawler, cluster=bool(crawler.settings.get("FORUMCRAWL_REDIS_URL")))

    def open_spider(self) -> None:
        if self.cluster:
            from forumcrawl.redis.keys import ClusterKeys, client_from_settings
            from forumcrawl.redis.threads import RedisThreadBook

            settings = self.crawler.settings
            assert self.crawler.spider is not None
            keys = ClusterKeys.from_settings(settings, self.crawler.spider.name)
            self.book = RedisThreadBook(client_from_settings(settings), keys)

    def _inc(self, key: str, count: int = 1) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"forumcrawl/threads/{key}", count)

    async def _add(self, thread_url: str, page: int, record: PageRecord) -> dict[int, PageRecord] | None:
        if self.cluster:
            from forumcrawl.redis.pipelines import until_redis_answers

            return await until_redis_answers(self.crawler, self.book.add, thread_url, page, record)
        return self.book.add(thread_url, page, record)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, ForumThread):
            return item
        adapter = ItemAdapter(item)
        record = plain(item)
        thread, page = adapter.get("thread_id"), adapter.get("page")
        if not thread or not page:
            self._inc("unidentified")
            return whole_thread({1: record}, identified=False)
        if self.recrawl is not None and record.get("new_since"):
            record["from_page"] = self.recrawl.site(str(adapter.get("site"))).first_page(thread)
        name = f"{adapter.get('site')} {thread}"
        try:
            pages = await self._add(name, page, record)
        except PageAgain:
            self._inc("page_again")
            raise DropItem(f"page {page} again of the thread {adapter.get('thread_url')}: {item.url}",
                           log_level="DEBUG") from None
        if pages is None:
            self._inc("pages_held")
            raise DropItem(f"held for its thread {adapter.get('thread_url')}: {item.url}", log_level="DEBUG")
        thread_record = whole_thread(pages)
        if thread_record.new_since and not thread_record.posts:
            self._inc("unchanged")
            raise DropItem(f"no new posts in the thread {thread_record.url}", log_level="DEBUG")
        self._inc("complete")
        return thread_record

    async def close_spider(self) -> None:
        if self.cluster:
            rest = await maybe_deferred_to_future(deferToThread(lambda: list(self.book.drain())))
        else:
            rest = list(self.book.drain())
        # A recrawled thread whose pages brought no new post is no record.
        rest = [(t, pages) for t, pages in rest
                if any(p.get("posts") or not p.get("new_since") for p in pages.values())]
        for _, pages in rest:
            await self._emit(whole_thread(pages))
        if rest:
            assert self.crawler.spider is not None
            self.crawler.spider.logger.info(
                "%d threads emitted incomplete at the end of the crawl (pages missing)", len(rest)
            )

    async def _emit(self, thread: WholeThread) -> None:
        self._inc("incomplete")
        await self.crawler.signals.send_catch_log_async(
            signal=signals.item_scraped, item=thread, response=None, spider=self.crawler.spider
        )
