"""Which links of a news site to fetch, and when: every article once, listings while they pay.

Articles are fetched as soon as a link, a sitemap or a feed names them. Listing pages (pagers,
categories, tags, authors, date archives) are leads, not content: the first listing of each URL
pattern is fetched to learn what the pattern holds; after that a listing link waits, and when
the crawl runs dry (Scrapy's ``spider_idle``) the waiting listings are released pattern by
pattern, the pattern that led to the most new pages per fetch first, in growing batches, until a
pattern's last fetches led to nothing new. Once the main pager has listed every article, tag and
archive pages are probed once or twice and closed, instead of all fetched.

No Scrapy here: the spider (:class:`~forumcrawl.spiders.news.NewsSpider`) asks and reports.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from forumcrawl.extractors.newspages import is_pager_url

__all__ = ["DRY_FETCHES", "NewsNavigator", "url_pattern"]

#: Fetches of a listing pattern in a row that led to no new page, after which the pattern is
#: closed (its other links are never fetched). Chosen on the generated sites' dev seeds.
DRY_FETCHES = 1
#: Most listing links of one pattern released at once.
MAX_BATCH = 16
#: Links of a URL pattern no page of which was read yet fetched at once; the others wait for the
#: first page's role (a sitemap that lists every category and tag beside the articles then costs
#: one fetch per listing pattern, not one per listing).
PROBES = 2
_LETTERS = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+")
_WORD_RUN = re.compile(r"\*(?:[-_]\*)+")
_SECTION = re.compile(r"^[A-Za-z]{1,20}$")


def url_pattern(url: str) -> str:
    """A URL's shape: each path segment with digit runs as ``#`` and word runs (slugs) as ``*``,
    a first segment of one plain word kept, then the query's names. ``/2024/05/01/a-slug/`` is
    ``/#/#/#/*/``, ``/sudo-2.html`` ``/*-#.*``, ``/index2.html`` ``/*#.*``, ``/?p=12`` ``/?p``."""
    parts = urlsplit(url)
    segments = []
    for depth, segment in enumerate(parts.path.split("/")):
        if depth == 1 and _SECTION.match(segment):
            # A first segment of one plain word names a section (``posts``, ``tag``): kept, so
            # that ``/posts/a-slug/`` and ``/categories/a-name/`` are two patterns.
            segments.append(segment.lower())
            continue
        masked = _LETTERS.sub("*", _DIGITS.sub("#", segment))
        segments.append(_WORD_RUN.sub("*", masked))
    names = sorted({k.lower() for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return "/".join(segments) + ("?" + "&".join(names) if names else "")


@dataclass
class _Yield:
    """What the fetched pages of one listing pattern led to."""

    fetched: int = 0
    leads: int = 0
    #: Fetches since the last one that led to a new page.
    dry: int = 0
    #: Pages of the pattern released and not yet reported fetched.
    pending: int = 0

    @property
    def closed(self) -> bool:
        return self.fetched >= 2 and self.dry >= DRY_FETCHES


class NewsNavigator:
    """One site's crawl state: URLs seen, articles exported, what each URL pattern holds."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.exported: set[str] = set()
        self._roles: dict[str, Counter[str]] = {}
        self._held: dict[str, list[str]] = {}
        self._yields: dict[str, _Yield] = {}
        self._undecided: dict[str, list[str]] = {}

    def is_listing_link(self, url: str) -> bool:
        """Whether ``url`` is a listing by its shape: a pager URL, or a pattern whose fetched
        pages were mostly listings."""
        if is_pager_url(url):
            return True
        roles = self._roles.get(url_pattern(url))
        return bool(roles) and roles["listing"] > roles["article"] + roles["other"]

    def is_article_link(self, url: str) -> bool:
        """Whether ``url``'s pattern held articles: fetched first."""
        roles = self._roles.get(url_pattern(url))
        return bool(roles) and roles["article"] > roles["listing"]

    def offer(self, url: str) -> str:
        """Decide a link: ``seen`` (already fetched, queued or held), ``dead`` (its pattern's
        pages all gave nothing), ``hold`` (a listing that waits for :meth:`release`), ``wait``
        (its pattern's first pages are being read, see :meth:`fetched`) or ``follow``."""
        if url in self.seen:
            return "seen"
        self.seen.add(url)
        roles = self._roles.get(url_pattern(url))
        if roles and roles["failed"] >= PROBES and roles["failed"] == sum(roles.values()):
            # Every page of the pattern fetched so far gave nothing (a post's source file).
            return "dead"
        if self.is_listing_link(url):
            pattern = url_pattern(url)
            if not self._yields.setdefault(pattern, _Yield()).closed:
                self._held.setdefault(pattern, []).append(url)
            return "hold"
        pattern = url_pattern(url)
        if pattern not in self._roles:
            waiting = self._undecided.setdefault(pattern, [])
            waiting.append(url)
            if len(waiting) > PROBES:
                return "wait"
        return "follow"

    def fetched(self, url: str, role: str, leads: int, *, released: bool = False) -> list[str]:
        """A page of ``url`` was read as ``role`` (``article``, ``listing``, ``other``, or
        ``failed`` for a download that gave no page); it
        showed ``leads`` links not seen before (not counting listings). Returns the links of the
        pattern that waited for this verdict and are to be fetched now (the others now wait as
        listings)."""
        pattern = url_pattern(url)
        self._roles.setdefault(pattern, Counter())[role] += 1
        waiting = self._undecided.pop(pattern, [])[PROBES:]
        now = []
        for link in waiting:
            if self.is_listing_link(link):
                self._held.setdefault(pattern, []).append(link)
            else:
                now.append(link)
        if role != "listing":
            return now
        record = self._yields.setdefault(pattern, _Yield())
        record.fetched += 1
        record.leads += leads
        record.dry = 0 if leads else record.dry + 1
        if released:
            record.pending = max(record.pending - 1, 0)
        return now

    def stranded(self) -> list[str]:
        """Links still waiting for their pattern's first pages when the crawl ran dry (those
        pages never came back): fetched now."""
        now = [url for waiting in self._undecided.values() for url in waiting[PROBES:]]
        self._undecided.clear()
        return now

    def release(self) -> list[str]:
        """Listing links to fetch now that the crawl ran dry: one link of each pattern never
        fetched, and a batch of the open pattern that led to the most new pages per fetch; when
        none did, one more link of each open pattern; else nothing (the site is done)."""
        open_patterns = [
            (pattern, self._yields.setdefault(pattern, _Yield()))
            for pattern, urls in self._held.items() if urls
        ]
        open_patterns = [(p, y) for p, y in open_patterns if not y.closed and not y.pending]
        productive = [(p, y) for p, y in open_patterns if y.fetched and y.leads and not y.dry]
        # Patterns never fetched are probed beside the best one: a pager may beat a tag list
        # that paid only because it came first.
        released = [url for p, y in open_patterns if not y.fetched for url in self._take(p, 1)]
        if productive:
            pattern, record = max(productive, key=lambda item: item[1].leads / item[1].fetched)
            released += self._take(pattern, min(MAX_BATCH, max(1, record.fetched)))
        elif not released:
            released = [url for p, y in open_patterns if not y.leads for url in self._take(p, 1)]
        return released

    def _take(self, pattern: str, count: int) -> list[str]:
        urls = self._held[pattern][:count]
        del self._held[pattern][:count]
        self._yields[pattern].pending += len(urls)
        return urls

    def claim(self, identity: str) -> bool:
        """Whether the article ``identity`` is exported now (False when it already was)."""
        if identity in self.exported:
            return False
        self.exported.add(identity)
        self.seen.add(identity)
        return True
