"""A site's crawl state between crawls, and what a recrawl fetches and exports from it
(``FORUMCRAWL_INCREMENTAL``, issue #18).

What a crawl keeps of each thread (:class:`ThreadState`): its pages, the identities of the posts
it exported, and how the index pages showed the thread (its *rows*). A thread's row on a board
list is the largest element around its link that links no other thread: the title, the last
post's permalink and time (in its text or an attribute), the page links. When a thread gets a
reply, the row changes (a new last-post link or time, a new page link) — its views counter does too on real engines, which is
why the row's signature is its links and its times, not its numbers. Any change is enough to
refetch the thread's last known page and what follows it; a row that stays the same leaves the
thread alone, so an unchanged forum costs its index pages only.

A post's identity is its author and time (its author and text when the page shows no time, or
only a vague relative one such as "3 小时前"): an edited post is the same post, a post moved to another page by a
deletion too. A recrawl exports
only posts whose identity the state does not hold.

A board list sorted by last post (the order of its rows is that of their threads' last posts,
and not that of their first posts: learned from the crawls' own posts, per URL pattern of the
list's first page) is read on a recrawl from its first page on, one page after the other, up to
the first page whose rows are all unchanged: a thread further down has had no reply since, or a
reply would have lifted it above that page. A list not known to be sorted that way is read
whole.

Plain Python: the spider asks :meth:`SiteState.follows` about each thread link, the pipeline
(``forumcrawl.pipelines.incremental``) reports the pages it exported with :meth:`SiteState.page`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from itertools import pairwise
from pathlib import Path
from typing import Any

from forumcrawl.extractors.dates import find_times
from forumcrawl.extractors.fields import anchors
from forumcrawl.extractors.navigation import (
    ThreadKey,
    canonical_url,
    page_flip_number,
    page_flips,
    pattern_key,
)

__all__ = [
    "FileStates", "SiteState", "ThreadState", "index_rows", "list_flips", "load", "post_identity", "save",
    "state_path",
]

#: A clock time alone ("14:02"): index rows write today's last post so, and a post header's
#: reader (:func:`find_times`) does not take it for a time on its own.
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")


def _times(text: str) -> list[str]:
    return find_times(text) + _CLOCK.findall(text)


#: A time that names its moment: a year, a day/month/year, or a clock time ("昨天 14:02" and
#: "前天 14:02" on the next day resolve to the same moment; "3 小时前" does not).
_DATED = re.compile(r"\d{4}|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b|\b\d{1,2}:\d{2}\b")


def post_identity(post: Mapping[str, Any]) -> str:
    """A short digest of what makes a post the same post in two crawls: author and time, or
    author and whitespace-normalised text when the page gives no time or a vague relative one
    ("3 天前", "2 hours ago": read against the fetch time, it moves from one crawl to the next)."""
    author = str(post.get("author") or "")
    raw = post.get("published_raw")
    dated = raw is None or bool(_DATED.search(str(raw)))
    second = str(post.get("published") or "") if dated else ""
    second = second or " ".join(str(post.get("text") or "").split())
    digest = hashlib.blake2b(f"{author}\x00{second}".encode("utf-8", "surrogatepass"), digest_size=8)
    return digest.hexdigest()


def _attribute_times(row: Any) -> list[str]:
    """Times a row keeps in attributes (``<time datetime>``, ``<span title="2024-03-01 10:00">``
    filled by a script, ``data-time="1709287200"``)."""
    found = []
    for element in row.iter():
        for name, value in element.attrib.items():
            if name in ("href", "src", "class", "id", "style"):
                continue
            if _times(value) or ("time" in name or "date" in name) and value.strip().isdigit():
                found.append(f"{name}={value.strip()}")
    return found


def index_rows(tree: Any, url: str, thread_of: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Thread id → signature of its row on the page at ``url`` (the links and times of the
    largest element around the thread's link that links no other thread; ``thread_of(url)``
    is the thread id of a link, or None), and each link of a row → the row's thread (a
    last-post permalink names no thread in its URL). A thread shown in several rows gets them
    all, joined."""
    owners: dict[Any, str | None] = {}
    links: list[tuple[Any, str]] = []
    for element, href in anchors(tree, url):
        thread = thread_of(canonical_url(href))
        owners[element] = thread
        links.append((element, href))
    rows: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    done: set[Any] = set()
    for element, _ in links:
        thread = owners[element]
        if thread is None:
            continue
        row = element
        parent = row.getparent()
        while parent is not None and all(owners.get(a, thread) in (thread, None) for a in parent.iter("a")):
            row, parent = parent, parent.getparent()
        if row in done:
            continue
        done.add(row)
        hrefs = sorted({canonical_url(h) for a, h in links if a is row or row in a.iterancestors()})
        owner.update(dict.fromkeys(hrefs, thread))
        times = _times(" ".join(row.text_content().split())) + _attribute_times(row)
        rows.setdefault(thread, []).append("\n".join([*hrefs, *times]))
    signatures = {
        thread: hashlib.blake2b("\n\n".join(sorted(parts)).encode(), digest_size=8).hexdigest()
        for thread, parts in rows.items()
    }
    return signatures, owner


def list_flips(tree: Any, url: str) -> list[tuple[str, int | None]]:
    """The page-flip links of a list page: ``(target, number)`` with the number its anchor
    shows, or None for a *next* link (its number is the linking page's plus one: a list that
    counts ``?page=`` from 0 has URL numbers one below its pages')."""
    numbered: dict[str, int] = {}
    for element, href in anchors(tree, url):
        number = page_flip_number(" ".join(element.text_content().split()))
        if number is not None and number >= 2:
            numbered.setdefault(canonical_url(href), number)
    return [(target, numbered.get(target)) for target in dict.fromkeys(t for t, _ in page_flips(tree, url))]


def _moment(value: Any) -> datetime | None:
    """A post's ``published`` as an aware datetime (naive: UTC), None when missing or unreadable."""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass
class ThreadState:
    """What the crawls so far know of one thread."""

    #: Highest page of the thread exported.
    pages: int = 0
    #: Identities of its posts exported (:func:`post_identity`).
    posts: list[str] = field(default_factory=list)
    #: Signatures of its index rows at the last crawl that read the thread to its end.
    rows: list[str] = field(default_factory=list)
    #: Times (ISO) of its earliest and latest post exported: what a list sorted by last post
    #: is told from a list sorted by first post with.
    first: str = ""
    last: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"pages": self.pages, "posts": self.posts, "rows": self.rows, "first": self.first, "last": self.last}

    def saw(self, moments: Iterable[datetime]) -> None:
        """Widen :attr:`first` and :attr:`last` to the times of posts exported."""
        known = [m for m in (_moment(self.first), _moment(self.last)) if m is not None]
        every = known + list(moments)
        if every:
            self.first, self.last = min(every).isoformat(), max(every).isoformat()


@dataclass
class ListPage:
    """A page of a list (a board's threads) met in this crawl."""

    #: URL of the list's first page.
    first: str
    #: Its number in the list (1: the first page; a page met through a link, the first link's).
    number: int
    #: Threads of its rows, in page order (once read).
    threads: list[str] = field(default_factory=list)
    #: Every row unchanged since the last crawl (and at least one row).
    unchanged: bool = False
    #: Read in this crawl (not only linked).
    read: bool = False
    #: Its page flips: target → the number of the page it leads to.
    flips: dict[str, int] = field(default_factory=dict)


class SiteState:
    """One site's state: loaded at the start of a crawl, updated as it goes, saved at its end.

    ``previous`` is the time of the crawl the state comes from (None on a first crawl, which
    fetches and exports everything and only records).
    """

    def __init__(
        self, site: str, previous: str | None = None, threads: dict[str, ThreadState] | None = None,
        *, per_page: int = 0, closed_patterns: Iterable[str] = (), sorted_lists: Iterable[str] = (),
    ) -> None:
        self.site = site
        self.previous = previous
        self.threads: dict[str, ThreadState] = threads or {}
        #: Posts on a full page of the site's threads (the largest page followed by another).
        self.per_page = per_page
        #: URL patterns the navigation closed (led to no new thread page): closed from the start.
        self.closed_patterns = sorted(closed_patterns)
        #: URL patterns of lists' first pages whose lists are sorted by last post.
        self.sorted_lists = set(sorted_lists)
        #: This crawl's list pages: URL → its list's first page, its number, its rows' threads
        #: in order, whether every row was unchanged, its page flips (target → number).
        self.lists: dict[str, ListPage] = {}
        #: Links of this crawl's index rows → the row's thread.
        self.row_links: dict[str, str] = {}
        #: Highest page of each thread exported before this crawl (where its recrawl starts).
        self.start_pages = {thread: state.pages for thread, state in self.threads.items()}
        #: Row signatures read in this crawl, per thread.
        self.seen_rows: dict[str, set[str]] = {}
        #: Threads whose row changed (or that are new) in this crawl.
        self.changed: set[str] = set()
        #: Threads of this crawl read to their last page.
        self.finished: set[str] = set()
        #: Threads whose pages this crawl recorded.
        self.touched: set[str] = set()
        #: Threads whose pages were answered (see :meth:`unexported`): read, if none exported.
        self.silent: set[str] = set()
        #: URL patterns this crawl's navigation would close, and those that led it to new
        #: thread pages (None: no navigation; the closed patterns stay as they were).
        self.closing: set[str] | None = None
        self.useful: set[str] = set()
        self._known: dict[str, set[str]] = {}

    def observe_index(
        self, rows: Mapping[str, str], links: Mapping[str, str] = {}, *, url: str = "",
        flips: Iterable[tuple[str, int | None]] = (),
    ) -> None:
        """The rows of an index page at ``url`` (in page order, and their links' threads), and
        its page flips: a thread whose row the last crawl did not see changed."""
        self.row_links.update(links)
        unchanged = bool(rows)
        for thread, signature in rows.items():
            self.seen_rows.setdefault(thread, set()).add(signature)
            known = self.threads.get(thread)
            if known is None or signature not in known.rows:
                self.changed.add(thread)
                unchanged = False
        if not url:
            return
        page = self.lists.get(url) or ListPage(url, 1)
        page.threads, page.unchanged, page.read = list(rows), unchanged, True
        self.lists[url] = page
        for target, number in flips:
            page.flips[target] = number or page.number + 1
            self.lists.setdefault(target, ListPage(page.first, page.flips[target]))

    def _sorted_page(self, source: str, url: str) -> ListPage | None:
        """The page ``source`` on a recrawl, when it is a page of a list sorted by last post
        and ``url`` one of its page flips."""
        page = self.lists.get(source)
        if self.previous is None or page is None or url not in page.flips:
            return None
        return page if pattern_key(page.first) in self.sorted_lists else None

    def paginates(self, source: str, url: str) -> bool:
        """Whether to follow the link from the page ``source`` to ``url``. On a recrawl, a page
        of a list sorted by last post leads to the next page only (:meth:`next_page`); every
        other link is followed (as far as this asks)."""
        return self._sorted_page(source, url) is None or self.next_page(source, url)

    def next_page(self, source: str, url: str) -> bool:
        """Whether ``url`` is the page after ``source`` in a list sorted by last post, and
        ``source`` showed a changed row: the recrawl reads it whatever the navigation learned
        of its URL pattern (pages whose threads another list had led to first look useless)."""
        page = self._sorted_page(source, url)
        later = [number for number in page.flips.values() if number > page.number] if page else []
        return page is not None and not page.unchanged and bool(later) and page.flips[url] == min(later)

    def unexported(self, thread: str) -> None:
        """Pages of ``thread`` were answered (200, or 404/410: a deleted thread still listed).
        If none of its pages was exported in any crawl (gone, or nothing to export: a copy of
        another thread, no posts found), it counts as read: the next crawl asks for it only
        once its row changes."""
        self.threads.setdefault(thread, ThreadState())
        self.silent.add(thread)
        self.touched.add(thread)

    def failed(self, thread: str, page: int) -> None:
        """Page ``page`` of ``thread`` could not be fetched in this crawl: the thread is not read
        to its end, and the next crawl fetches it from that page on."""
        state = self.threads.setdefault(thread, ThreadState())
        state.pages = min(state.pages, page - 1) if state.pages else 0
        self.finished.discard(thread)
        self.changed.add(thread)

    def navigated(self, closing: Iterable[str], useful: Iterable[str]) -> None:
        """What one navigator of the site found: patterns it would close, patterns it keeps
        open that led it to new thread pages. A pattern starts closed next time when some
        navigator would close it and none kept it open so (in a cluster each worker has its own)."""
        self.closing = (self.closing or set()) | set(closing)
        self.useful |= set(useful)

    def observations(self) -> dict[str, Any]:
        """What this crawl saw of the site: one cluster worker's share (see :meth:`absorb`)."""
        return {
            "threads": {t: self.threads[t].to_dict() for t in sorted(self.touched)},
            "seen_rows": {t: sorted(rows) for t, rows in self.seen_rows.items()},
            "changed": sorted(self.changed), "finished": sorted(self.finished), "silent": sorted(self.silent),
            "per_page": self.per_page,
            "lists": {url: asdict(page) for url, page in self.lists.items()},
            "closing": None if self.closing is None else sorted(self.closing), "useful": sorted(self.useful),
        }

    def absorb(self, seen: Mapping[str, Any]) -> None:
        """Add what another worker of the same crawl saw (:meth:`observations`): the state a
        cluster's crawl leaves is its previous state with every worker's share absorbed."""
        for thread, data in seen["threads"].items():
            state = self.threads.setdefault(thread, ThreadState())
            state.pages = max(state.pages, int(data["pages"]))
            known = set(state.posts)
            state.posts += [p for p in data["posts"] if p not in known]
            state.saw(m for m in map(_moment, (data["first"], data["last"])) if m is not None)
            self.touched.add(thread)
        for thread, rows in seen["seen_rows"].items():
            self.seen_rows.setdefault(thread, set()).update(rows)
        self.changed.update(seen["changed"])
        self.finished.update(seen["finished"])
        self.silent.update(seen["silent"])
        self.per_page = max(self.per_page, int(seen["per_page"]))
        for url, page in seen["lists"].items():
            if page["read"] or url not in self.lists:
                self.lists[url] = ListPage(**page)
        if seen["closing"] is not None:
            self.navigated(seen["closing"], seen["useful"])

    def _sorted_lists(self) -> set[str]:
        """Patterns of lists sorted by last post, from the lists of several pages this crawl
        read: their threads in list order have latest posts that never grow, and their first
        posts do not explain the order (some thread stands above a younger one). A pattern
        keeps what an earlier crawl found until a list of it is out of order."""
        pages: dict[str, list[ListPage]] = {}
        for page in self.lists.values():
            if page.read:
                pages.setdefault(page.first, []).append(page)
        # A list of one page (a category's table of boards) has no later page to spare: its
        # order does not count.
        pages = {first: read for first, read in pages.items() if any(p.flips for p in read)}
        ordered: dict[str, bool] = {}
        told: set[str] = set()
        for first, read in pages.items():
            threads = [t for p in sorted(read, key=lambda p: p.number) for t in p.threads]
            moments = [(_moment(s.last), _moment(s.first)) for s in map(self.threads.get, threads) if s and s.last]
            pattern = pattern_key(first)
            pairs = list(pairwise(moments))
            ordered[pattern] = ordered.get(pattern, True) and all(a[0] >= b[0] for a, b in pairs)
            if any(a[1] < b[1] for a, b in pairs):
                told.add(pattern)
        keep = {p for p in self.sorted_lists if ordered.get(p, True)}
        return keep | {p for p in told if ordered[p]}

    def follows(self, url: str, key: ThreadKey, source: ThreadKey | None = None) -> bool:
        """Whether to fetch the thread page ``url`` (linked from a page of thread key ``source``,
        if a thread page): every page of a new thread, the last known page and later ones of a
        changed thread (or of the thread whose page links it: that page was fetched because the
        thread changed), nothing of another thread. A variant (a post permalink) belongs to the
        thread of the index row it is in, if any."""
        thread = key.thread or self.row_links.get(url)
        if self.previous is None or thread is None:
            return True
        known = self.threads.get(thread)
        if known is None:
            return True
        if thread not in self.changed and (source is None or source.thread != thread):
            return False
        return key.page is None or key.page >= known.pages

    def first_page(self, thread: str) -> int:
        """The first page of ``thread`` a recrawl fetches: its last known page, or 1 if new."""
        return max(self.start_pages.get(thread, 1), 1)

    def floor(self, page: int, index: int) -> int:
        """Thread-wide floor of the ``index``-th post (0-based) of page ``page``: pages before
        it hold :attr:`per_page` posts each (position numbering, as after a deletion)."""
        return (page - 1) * self.per_page + index + 1 if self.per_page else index + 1

    def page(self, thread: str, page: int, last_page: int, posts: list[Mapping[str, Any]]) -> list[int]:
        """Record an exported page of ``thread``: the indexes of its posts that are new."""
        state = self.threads.setdefault(thread, ThreadState())
        known = self._known.get(thread)
        if known is None:
            known = self._known[thread] = set(state.posts)
        new: list[int] = []
        state.saw(m for m in (_moment(p.get("published")) for p in posts if p.get("published")) if m)
        for i, post in enumerate(posts):
            identity = post_identity(post)
            if identity not in known:
                known.add(identity)
                state.posts.append(identity)
                new.append(i)
        self.touched.add(thread)
        state.pages = max(state.pages, page)
        if page < last_page:
            self.per_page = max(self.per_page, len(posts))
        if page >= last_page:
            self.finished.add(thread)
        return new

    def to_dict(self, crawled_at: str) -> dict[str, Any]:
        """The state the next crawl starts from. A thread's rows are this crawl's when it was
        read to its end, or left alone (not changed); else the old ones, so the next crawl
        looks at it again."""
        threads = {}
        for thread, state in self.threads.items():
            rows = self.seen_rows.get(thread)
            read = thread in self.finished or thread in self.silent and not state.pages
            if rows and (read or thread not in self.changed):
                state.rows = sorted(rows)
            threads[thread] = state.to_dict()
        closed = self.closed_patterns if self.closing is None else sorted(self.closing - self.useful)
        return {"site": self.site, "crawled_at": crawled_at, "per_page": self.per_page,
                "closed_patterns": closed, "sorted_lists": sorted(self._sorted_lists()), "threads": threads}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SiteState:
        threads = {
            thread: ThreadState(int(t.get("pages", 0)), list(t.get("posts", [])), list(t.get("rows", [])),
                                str(t.get("first", "")), str(t.get("last", "")))
            for thread, t in data.get("threads", {}).items()
        }
        return cls(str(data["site"]), data.get("crawled_at"), threads,
                   per_page=int(data.get("per_page", 0)), closed_patterns=data.get("closed_patterns", []),
                   sorted_lists=data.get("sorted_lists", []))


def state_path(folder: Path, site: str) -> Path:
    """The file of ``site``'s state in ``folder`` (``host_port.json``, as the rules are named)."""
    return folder / (site.replace(":", "_") + ".json")


def load(folder: Path, site: str) -> SiteState:
    """``site``'s state from ``folder``; a fresh one when there is none (a first crawl)."""
    path = state_path(folder, site)
    if not path.exists():
        return SiteState(site)
    return SiteState.from_dict(json.loads(path.read_text("utf-8")))


def save(folder: Path, state: SiteState, crawled_at: str) -> Path:
    """Write ``state`` (atomically: a crawl killed while saving leaves the old state)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = state_path(folder, state.site)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state.to_dict(crawled_at)), encoding="utf-8")
    tmp.replace(path)
    return path


class FileStates:
    """Sites' states in a folder, a file each (an embedded crawl; a cluster's are in Redis,
    :class:`forumcrawl.redis.state.RedisStates`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def load(self, site: str) -> SiteState:
        return load(self.folder, site)

    def save(self, state: SiteState, crawled_at: str) -> str:
        return str(save(self.folder, state, crawled_at))

    def claim(self, site: str, thread: str, identities: Sequence[str]) -> list[bool]:
        """Every new post is this crawl's to export (one process)."""
        return [True] * len(identities)
