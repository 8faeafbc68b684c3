"""IncrementalPipeline and the recrawl state a crawl shares (``FORUMCRAWL_INCREMENTAL``).

Each site's state (:mod:`forumcrawl.state`) is read from FORUMCRAWL_STATE_DIR when the crawl
first meets the site and written back when the crawl closes. The spider asks :class:`Recrawl`
which thread links to follow (:meth:`Recrawl.follows`); this pipeline records each exported
thread page and, on a recrawl, passes on only its new posts, with ``new_since`` set and floors
counting on from the thread's, and drops a page with none (``forumcrawl/incremental/
unchanged_pages``, at DEBUG; in thread mode it goes on without posts, so that the thread
pipeline sees every recrawled page of a thread). On a first crawl it only records. It runs before the thread
pipeline, which then assembles the new posts of a thread into one record.
"""

from __future__ import annotations

import weakref
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from forumcrawl.extractors.navigation import pattern_key
from itemadapter import ItemAdapter
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.http import Response

from forumcrawl.document import Document, site_of
from forumcrawl.failures import page_failed
from forumcrawl.items import ForumThread, Post
from forumcrawl.navigation import PatternBudget, SiteNavigator
from forumcrawl.redis.keys import redis_url_from_settings
from forumcrawl.state import FileStates, SiteState, index_rows, list_flips, post_identity

__all__ = ["IncrementalPipeline", "Recrawl"]

_RECRAWLS: weakref.WeakKeyDictionary[Crawler, Recrawl] = weakref.WeakKeyDictionary()


class Recrawl:
    """The states of the sites of one crawl, shared by its spider and its pipeline."""

    def __init__(self, store: Any) -> None:
        #: Where the states are (:class:`~forumcrawl.state.FileStates`, or in cluster mode
        #: :class:`~forumcrawl.redis.state.RedisStates`).
        self.store = store
        self.started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.sites: dict[str, SiteState] = {}
        self._seen: set[tuple[str, str, int | None]] = set()
        self.navigators: dict[str, SiteNavigator] = {}
        #: URL pattern → [a URL of it, answers < 400, answers >= 400] in this crawl.
        self._answers: dict[str, list[Any]] = {}
        #: (site, thread) of the thread pages answered in this crawl, and the URLs answered
        #: before their site's navigator existed.
        self._answered: set[tuple[str, str]] = set()
        self._unread: list[str] = []
        #: Thread pages that failed after their retries in this crawl (see :meth:`page_failed`).
        self._failed: set[str] = set()

    @classmethod
    def of(cls, crawler: Crawler) -> Recrawl | None:
        """The crawl's recrawl state (None when FORUMCRAWL_INCREMENTAL is off)."""
        if not crawler.settings.getbool("FORUMCRAWL_INCREMENTAL"):
            return None
        found = _RECRAWLS.get(crawler)
        if found is None:
            settings = crawler.settings
            if redis_url_from_settings(settings):
                from forumcrawl.redis.keys import ClusterKeys, client_from_settings
                from forumcrawl.redis.state import RedisStates

                keys = ClusterKeys.from_settings(settings, crawler.spidercls.name)
                store: Any = RedisStates(client_from_settings(settings), keys)
            else:
                store = FileStates(Path(settings["FORUMCRAWL_STATE_DIR"]))
            found = _RECRAWLS[crawler] = cls(store)
            crawler.signals.connect(found.answered, signal=signals.response_received)
            crawler.signals.connect(found.page_failed, signal=page_failed)
        return found

    def answered(self, response: Response, request: Request) -> None:
        """Count each URL pattern's answers: one that only ever failed (a plugin page answering
        500 after its retries) is closed for the next crawl, as the navigation would have. The
        threads whose pages answered (or said they are gone: 404, 410) are noted: one of which
        nothing was exported counts as read (see :meth:`SiteState.unexported`)."""
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        key = pattern_key(url)
        self._answers.setdefault(key, [url, 0, 0])[1 if response.status < 400 else 2] += 1
        if response.status in (200, 404, 410):
            self._threads_answered([url])

    def page_failed(self, url: str, reason: str) -> None:
        """A page failed after its retries: if it is a thread page, its thread is not read to
        its end, whatever its other pages gave, and the next crawl fetches it from that page on
        (a page lost to a burst of 500s was never fetched again: the thread's row had not changed)."""
        self._failed.add(url)

    def _threads_answered(self, urls: list[str]) -> None:
        """Note the threads of the thread pages answered; a page answered before its site's
        navigator existed (the sample's) waits for it."""
        for url in urls:
            navigator = self.navigators.get(site_of(url))
            key = navigator.key(url) if navigator is not None else None
            if navigator is None:
                self._unread.append(url)
            elif key is not None and key.thread is not None:
                self._answered.add((site_of(url), key.thread))

    def site(self, site: str) -> SiteState:
        """``site``'s state, read on first use."""
        state = self.sites.get(site)
        if state is None:
            state = self.sites[site] = self.store.load(site)
        return state

    def restore(self, site: str, navigator: SiteNavigator) -> None:
        """A new navigator of ``site``: the patterns the last crawl closed, or fetched without
        reaching a new thread page through them, start closed (a recrawl does not probe
        profiles and login pages again); this crawl's are saved at its end."""
        self.navigators[site] = navigator
        waiting, self._unread = self._unread, []
        self._threads_answered(waiting)
        for pattern in self.site(site).closed_patterns:
            navigator.patterns[pattern] = PatternBudget(closed=True)

    def observe(self, doc: Document, navigator: SiteNavigator) -> None:
        """Read the thread rows of a page that is not a thread page (boards, lists, the index)."""
        if navigator.is_topic(doc.url):
            return

        def thread_of(url: str) -> str | None:
            key = navigator.key(url)
            return key.thread if key is not None else None

        rows, links = index_rows(doc.tree, doc.url, thread_of)
        # A row's own pager ("1 2 3 4" of a long thread) leads to thread pages, not list pages.
        flips = [(url, n) for url, n in list_flips(doc.tree, doc.url) if not navigator.is_topic(url)]
        self.site(doc.site).observe_index(rows, links, url=doc.url, flips=flips)

    def follows(self, site: str, url: str, navigator: SiteNavigator, source: str) -> tuple[bool, bool]:
        """Whether to follow a link to ``url`` found on the page ``source``, and whether a
        skipped link is a thread page this crawl had not met yet (what the navigator counts as
        a page's yield)."""
        state = self.site(site)
        if not state.paginates(source, url):
            return False, False
        key = navigator.key(url)
        if key is None or state.follows(url, key, navigator.key(source)):
            return True, False
        first = (site, str(key.thread), key.page) not in self._seen
        self._seen.add((site, str(key.thread), key.page))
        return False, first

    def next_page(self, site: str, source: str, url: str) -> bool:
        """Whether ``url`` is the next page of a list sorted by last post that the page
        ``source`` leads to after showing a change (see :meth:`SiteState.next_page`): the spider
        follows it whatever the navigation says."""
        return self.site(site).next_page(source, url)

    def save_all(self) -> list[str]:
        """Write every site's state. Closed from the start of the next crawl: the patterns the
        navigation closed or fetched without a new thread page, those that only ever failed,
        and those whose pages never reached it (empty, unreadable, not HTML)."""
        for site, navigator in self.navigators.items():
            patterns = navigator.patterns
            closed = {k for k, b in patterns.items() if b.closed or b.fetches and not b.hits}
            closed |= {
                key for key, (url, ok, failed) in self._answers.items()
                if site_of(url) == site and not navigator.is_topic(url)
                and (failed and not ok or ok and not (key in patterns and patterns[key].fetches))
            }
            self.site(site).navigated(closed, {k for k, b in patterns.items() if b.hits and not b.closed})
        for site, thread in self._answered:
            self.site(site).unexported(thread)
        for url in self._failed:
            navigator = self.navigators.get(site_of(url))
            key = navigator.key(url) if navigator is not None else None
            if key is not None and key.thread is not None:
                self.site(site_of(url)).failed(key.thread, key.page or 1)
        return [self.store.save(state, self.started) for state in self.sites.values()]


class IncrementalPipeline:
    """Records exported thread pages; on a recrawl passes on only their new posts."""

    def __init__(self, crawler: Crawler, recrawl: Recrawl) -> None:
        self.crawler = crawler
        self.recrawl = recrawl
        #: Whole-thread records: a page without new posts goes on (with none) to complete its
        #: thread's recrawled pages, and the thread pipeline drops a thread with none.
        self.threads = crawler.settings.get("FORUMCRAWL_ITEM") == "thread"
        self.cluster = bool(redis_url_from_settings(crawler.settings))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> IncrementalPipeline:
        recrawl = Recrawl.of(crawler)
        if recrawl is None:
            raise NotConfigured()
        return cls(crawler, recrawl)

    def _inc(self, key: str, count: int = 1) -> None:
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"forumcrawl/incremental/{key}", count)

    async def process_item(self, item: Any) -> Any:
        if not isinstance(item, ForumThread):
            return item
        adapter = ItemAdapter(item)
        thread, page = adapter.get("thread_id"), adapter.get("page")
        if not thread or not page or not item.site:
            return item
        state = self.recrawl.site(item.site)
        fields = [_fields(p) for p in item.posts]
        new = state.page(thread, page, item.last_page or page, fields)
        if state.previous is None:
            return item
        if new and self.cluster:
            # A post two pages show, fetched by two workers, goes out once.
            identities = [post_identity(fields[i]) for i in new]
            from forumcrawl.redis.pipelines import until_redis_answers

            mine = await until_redis_answers(self.crawler, self.recrawl.store.claim, item.site, thread, identities)
            new = [i for i, claimed in zip(new, mine) if claimed]
        if not new:
            self._inc("unchanged_pages")
            if not self.threads:
                raise DropItem(f"no new posts: {item.url}", log_level="DEBUG")
        posts = [item.posts[i] for i in new]
        for i, post in zip(new, posts):
            post.floor = state.floor(page, i)
        item.posts = posts
        item.text = "\n\n".join(p.text for p in posts)
        item.new_since = state.previous
        if not posts:
            return item
        first = posts[0]
        item.author, item.published, item.published_raw = first.author, first.published, first.published_raw
        item.reply_count = len(posts) if posts[0].floor != 1 else len(posts) - 1
        self._inc("new_posts", len(posts))
        return item

    def close_spider(self) -> None:
        for path in self.recrawl.save_all():
            assert self.crawler.spider is not None
            self.crawler.spider.logger.info("crawl state saved to %s", path)


def _fields(post: Post) -> dict[str, Any]:
    return {"author": post.author, "published": post.published, "published_raw": post.published_raw,
            "text": post.text}
