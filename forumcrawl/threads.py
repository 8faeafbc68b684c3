"""Whole threads from thread pages: how many pages a thread has, and one record from its pages.

A crawl exports thread *pages*; pages of one thread share ``thread_id`` (the site's learned
thread identity) and carry their ``page`` number. How many pages the thread has is read from
the pages themselves: each page names the highest page of its thread it links to
(:func:`last_page`: its page-flip links, ``rel=next``). A pager that shows a window of pages
(``1 2 3 … next``) names a lower page than the last, but the page it names names further ones,
so the rule is a fixed point: a thread is complete once pages ``1..M`` are in, ``M`` being the
highest page any of them names (:func:`missing_pages`). A last page names no page after it.

:class:`ThreadBook` keeps the threads in progress (memory bounded by them, not by the crawl)
and hands back a thread's pages once complete; :func:`whole_thread` makes the record. No Scrapy
here; the pipeline (``forumcrawl.pipelines.threads``) and the Redis store wire them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from forumcrawl.evaluation import match_posts
from forumcrawl.extractors.navigation import ThreadIdentity, ThreadKey, next_links, page_flips, url_numbers
from forumcrawl.items import Post, WholeThread

__all__ = ["PageAgain", "ThreadBook", "last_page", "missing_pages", "post_key", "thread_matches", "whole_thread"]

#: A page as the book keeps it: the page item's fields as plain data.
PageRecord = Mapping[str, Any]


def last_page(tree: Any, url: str, identity: ThreadIdentity, key: ThreadKey) -> int:
    """The highest page of ``key``'s thread that the page at ``url`` names: its own number, the
    page of a page-flip link to another page of the same thread, or the page after it when it
    links a next page.

    A *next* link says a next page exists whatever form its URL takes, and
    :func:`~forumcrawl.extractors.navigation.page_flips` numbers only those it can read alone:
    an offset (``start=15`` after ``start=10``) is numbered by the identity's step, and another
    form of the thread's URL (a pseudo-static ``thread-362-4-1.html`` beside a query-form page,
    a variant to the identity) names the page after this one when it carries the thread's
    number. A next link to another thread's page (a "next topic") names nothing here.
    """
    here = key.page or 1
    last = here
    for target, _ in page_flips(tree, url):
        other = identity.key(target)
        if other.canonical and other.thread == key.thread and other.page is not None:
            last = max(last, other.page)
    for target in next_links(tree, url):
        other = identity.key(target)
        if other.canonical:
            if other.thread == key.thread and other.page is not None:
                last = max(last, other.page)
        elif other.thread == key.thread or other.thread is None and _carries(target, key.thread):
            last = max(last, here + 1)
    return last


def _carries(url: str, thread: str | None) -> bool:
    """Whether ``url`` carries the thread number ``thread`` among its numbers."""
    return thread is not None and thread.isdigit() and int(thread) in url_numbers(url).values()


def missing_pages(pages: Mapping[int, PageRecord]) -> list[int]:
    """Pages of the thread not in ``pages``, up to the highest page any of them names (from
    ``from_page`` on a recrawl, whose pages start at the thread's last known one)."""
    highest = max((max(n, int(p.get("last_page") or n)) for n, p in pages.items()), default=0)
    starts = [int(p["from_page"]) for p in pages.values() if p.get("new_since") and p.get("from_page")]
    first = min(starts, default=1)
    return [n for n in range(first, highest + 1) if n not in pages]


def post_key(post: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """What makes a post the same post on two pages: author, time as written and text (None
    for a post with neither author nor time, which cannot be told from another with the same
    words)."""
    author, published = post.get("author") or "", post.get("published_raw") or post.get("published") or ""
    if not author and not published:
        return None
    return author, published, " ".join(str(post.get("text") or "").split())


def _post(data: Mapping[str, Any], floor: int) -> Post:
    return Post(
        floor=floor,
        author=data.get("author"),
        published=data.get("published"),
        published_raw=data.get("published_raw"),
        text=data.get("text") or "",
        quotes=list(data.get("quotes") or ()),
        quote_at=list(data.get("quote_at") or ()),
        worthless=data.get("worthless"),
    )


def _repeats(key: tuple[str, str, str], data: Mapping[str, Any], earlier: Mapping[tuple[str, str, str], Any],
             page: PageRecord) -> bool:
    """Whether a post at the head of ``page`` repeats a post of an earlier page: same author,
    time and words, and the same floor where the page numbers its posts itself (its first
    floor is not 1; positions restart at 1 on every page)."""
    if key not in earlier:
        return False
    first = (page.get("posts") or [{}])[0].get("floor")
    return first in (None, 1) or earlier[key] == data.get("floor")


def whole_thread(
    pages: Mapping[int, PageRecord], *, identified: bool = True, first_floor: int = 1,
    skip: Iterable[tuple[str, str, str]] = (),
) -> WholeThread:
    """The record of a thread from its pages (page number → page record); ``identified`` is
    False for a page without thread identity, a thread of its own whose completeness is unknown.

    Posts run in page order; a post that an earlier page already showed (Askbot's question
    above every page of answers, Misago's last post of a page again atop the next) is kept
    once, as is a post in ``skip``. Repeats lead their page: the same author's same words at
    the same time further down, or on one page (two "+1" whose relative times read alike), are
    posts of their own. Floors are renumbered from ``first_floor``: a page numbers
    its posts by position when the site shows no floor, which is right on page 1 only. Pages of a
    recrawl (``new_since``) hold new posts only, numbered on from the thread's already.
    """
    ordered = [pages[n] for n in sorted(pages)]
    since = next((p.get("new_since") for p in ordered if p.get("new_since")), None)
    skipped = set(skip)
    earlier: dict[tuple[str, str, str], Any] = {}
    posts: list[Post] = []
    for page in ordered:
        shown: dict[tuple[str, str, str], Any] = {}
        leading = True
        for data in page.get("posts") or []:
            key = post_key(data)
            if key is not None and (key in skipped or leading and _repeats(key, data, earlier, page)):
                continue
            leading = False
            if key is not None:
                shown.setdefault(key, data.get("floor"))
            floor = data.get("floor") if since and data.get("floor") else first_floor + len(posts)
            posts.append(_post(data, floor))
        for key, floor in shown.items():
            earlier.setdefault(key, floor)
    head = pages.get(1) or ordered[0]
    missing = missing_pages(pages) if identified else []
    highest = max([*pages, *missing])
    opening = posts[0] if posts and posts[0].floor == 1 else None
    return WholeThread(
        url=str(head.get("thread_url") or head.get("url")),
        site=head.get("site"),
        title=head.get("title"),
        board=head.get("board"),
        pages=highest if identified else None,
        page_urls=[str(page.get("url")) for page in ordered],
        author=opening.author if opening else None,
        published=opening.published if opening else None,
        posts=posts,
        reply_count=max((posts[-1].floor or 1) - 1, 0) if posts else 0,
        complete=not missing if identified else None,
        missing_pages=missing,
        language=head.get("language"),
        new_since=since,
    )


class PageAgain(Exception):
    """A page of a thread already handed back whole, arriving again (the same URL fetched twice,
    a redirect's target among them): it would start a second, one-page record of the thread."""


class ThreadBook:
    """The threads in progress of one crawl, in memory: pages are added until a thread is
    complete; :meth:`drain` hands back the rest at the end.

    A page no later than the last page of a thread already handed back is that page again
    (:class:`PageAgain`); a later page starts the thread again (the thread grew: it comes back
    from :meth:`drain`, incomplete).
    """

    def __init__(self) -> None:
        self._open: dict[str, dict[int, PageRecord]] = {}
        #: Thread → the highest page of its record handed back whole.
        self._handed: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._open)

    def add(self, thread: str, page: int, record: PageRecord) -> dict[int, PageRecord] | None:
        """Keep ``record`` as page ``page`` of ``thread``; the thread's pages once complete.
        Raises :class:`PageAgain` for a page of a thread handed back already."""
        if page <= self._handed.get(thread, 0):
            raise PageAgain(thread, page)
        pages = self._open.setdefault(thread, {})
        pages[page] = record
        if missing_pages(pages):
            return None
        self._handed[thread] = max(pages)
        return self._open.pop(thread)

    def drain(self) -> Iterator[tuple[str, dict[int, PageRecord]]]:
        """Every thread still in progress, with the pages it has (the book is then empty)."""
        while self._open:
            yield self._open.popitem()


def thread_matches(posts: list[Mapping[str, Any]], gold_texts: list[str]) -> bool:
    """Whether a thread's posts are exactly the gold posts: as many, each found (token F1 at
    the evaluation's post threshold) by the post at the same place."""
    if len(posts) != len(gold_texts):
        return False
    found = match_posts([str(p.get("text") or "") for p in posts], gold_texts)
    return found == list(range(len(gold_texts)))
