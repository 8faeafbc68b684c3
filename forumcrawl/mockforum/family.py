"""What the markup families share: the route table, robots rules and truth building.

A family registers every URL its pages link, as the link is written (relative to the site root,
``&`` unescaped): canonical pages with the function that renders them, aliases with the page
they stand for, broken pages with their kind, and the robots-disallowed links it prints. The
server answers from this table only, so the truth and what is served cannot drift apart. Links
that nest without end (``/accounts/login/?next=…`` on the login page itself) cannot be listed:
a family declares their path with :meth:`Family.add_query_alias` and answers any query there.
"""

from __future__ import annotations

import html
import random
import re
import struct
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, TypeVar
from urllib.parse import parse_qsl, urljoin, urlsplit

from forumcrawl.mockforum.plan import Board, Plan, Post, Thread, User
from forumcrawl.mockforum.times import iso
from forumcrawl.mockforum.truth import PostTruth, SiteTruth, ThreadTruth

__all__ = ["Family", "Listing", "Page", "Route", "attr", "chunks", "slugify", "text"]

_T = TypeVar("_T")


def text(value: object) -> str:
    """Escape for an HTML text node."""
    return html.escape(str(value), quote=False)


def attr(value: object) -> str:
    """Escape for a double-quoted HTML attribute (hrefs: ``&`` becomes ``&amp;``)."""
    return html.escape(str(value), quote=True)


def slugify(value: str) -> str:
    """A title or name as engines put it in URLs: lower case, words joined by ``-``; letters
    outside ASCII are folded where they have an ASCII base and kept (to be percent-encoded)
    otherwise, as Django's ``slugify(allow_unicode=True)`` keeps Chinese."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", value)
                      if not unicodedata.combining(c))
    words = re.findall(r"[^\W_]+", folded.lower())
    return "-".join(words) or "topic"


def chunks(items: Sequence[_T], size: int) -> list[list[_T]]:
    """``items`` cut into pages of ``size`` (at least one page, possibly empty)."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)] or [[]]


@dataclass(frozen=True)
class Listing:
    """A sorted or filtered view of a board's thread list, as its links spell it.

    ``query`` is what the view adds to the board's URL; ``key`` orders the threads (largest
    first unless ``ascending``); ``keep`` filters them (by prefix, by age).
    """

    query: str
    label: str
    key: Callable[[Thread], Any] | None = None
    ascending: bool = False
    keep: Callable[[Thread], bool] | None = None


@dataclass(frozen=True)
class Page:
    """A rendered response before encoding: ``body`` is text unless the page is binary."""

    status: int
    body: str | bytes
    charset: str
    encoding: str
    media_type: str = "text/html"
    #: Where a redirect (3xx) points.
    location: str | None = None


@dataclass(frozen=True)
class Route:
    """One linked URL: a page (``topic`` or ``page``), an ``alias`` or a ``broken`` page.

    An alias with its own ``render`` is a variant of its target that differs only in what
    refers to the URL itself (the login form that remembers where to go back to).
    """

    role: str
    render: Callable[[], Page] | None = None
    target: str | None = None
    kind: str | None = None


class Family:
    """Base of a markup family; subclasses register their routes in :meth:`register`."""

    name: ClassVar[str]
    lang: ClassVar[str]
    encoding: ClassVar[str]
    #: The charset the wrong-charset thread's bytes are really in.
    wrong_encoding: ClassVar[str]
    #: How percent-escapes in query strings are read (Discuz on GBK encodes user names in GBK).
    query_encoding: ClassVar[str] = "utf-8"
    #: robots.txt ``Disallow`` prefixes (path plus query, as requested).
    disallow: ClassVar[tuple[str, ...]]
    #: The admin area: linked from the pages, forbidden by robots.txt.
    ADMIN: ClassVar[str]
    #: Site sizes per preset name that differ from the shared ones (bigger navigation sites).
    presets: ClassVar[dict[str, dict[str, int]]] = {}
    #: Whether thread pages show signatures (the truth has none where they are not shown).
    shows_signatures: ClassVar[bool] = True

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.routes: dict[str, Route] = {}
        self.disallowed: set[str] = set()
        self.actual_encodings: dict[str, str] = {}
        self.query_aliases: dict[str, tuple[str, Callable[[str], Page]]] = {}
        self.register()
        self._keys = {self.key(href): href for href in self.routes}

    # -- to implement -------------------------------------------------------------------------

    def register(self) -> None:
        """Fill :attr:`routes` and :attr:`disallowed`."""
        raise NotImplementedError

    def thread_href(self, thread: Thread, page: int) -> str:
        """Canonical link of a thread page."""
        raise NotImplementedError

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        """How a post header writes ``moment``, and the time that text denotes."""
        raise NotImplementedError

    def user_href(self, user: User) -> str:
        """Canonical link of a user's profile page."""
        raise NotImplementedError

    def user(self, user: User) -> Page:
        """A user's profile page."""
        raise NotImplementedError

    def not_found(self) -> Page:
        """The site's 404 page."""
        raise NotImplementedError

    def server_error(self) -> Page:
        """The site's 500 page."""
        raise NotImplementedError

    # -- routing --------------------------------------------------------------------------------

    def key(self, target: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """Lookup key of a link or request target: path, and query pairs in any order."""
        parts = urlsplit(urljoin("/", target))
        pairs = parse_qsl(parts.query, keep_blank_values=True, encoding=self.query_encoding,
                          errors="replace")
        return parts.path, tuple(sorted(pairs))

    def lookup(self, target: str) -> tuple[str, Route] | None:
        """The registered href and route a request target stands for, if any."""
        href = self._keys.get(self.key(target))
        return (href, self.routes[href]) if href is not None else None

    def add_page(self, href: str, render: Callable[[], Page], *, topic: bool = False) -> None:
        """Register a canonical page."""
        self.routes[href] = Route("topic" if topic else "page", render=render)

    def add_alias(self, href: str, target: str,
                  render: Callable[[], Page] | None = None) -> None:
        """Register another link form of the canonical page ``target`` (a variant of it when
        ``render`` is given)."""
        if href != target:
            self.routes[href] = Route("alias", render=render, target=target)

    def add_query_alias(self, path: str, target: str, render: Callable[[str], Page]) -> None:
        """Answer every query on ``path`` as a variant of page ``target``, rendered from the
        request target: for links that nest without end, which no table can hold."""
        self.query_aliases[path] = (target, render)

    def dynamic(self, target: str) -> Route | None:
        """The route of a request target the table does not hold, if a query alias covers it."""
        found = self.query_aliases.get(self.key(target)[0])
        if found is None:
            return None
        href, render = found
        return Route("alias", render=lambda: render(urljoin("/", target)), target=href)

    def add_broken(self, href: str, kind: str, render: Callable[[], Page]) -> None:
        """Register a broken page."""
        self.routes[href] = Route("broken", render=render, kind=kind)

    def add_user_and_broken_pages(
        self,
        users: Iterable[User],
        *,
        truncated: tuple[str, Callable[[], Page]],
        not_found: str,
        server_error: str,
        empty: str,
    ) -> None:
        """Every family's common pages: user profiles, the (robots-forbidden) admin area, and one
        broken page of each kind; ``truncated`` names the page that is served cut off."""
        for user in users:
            self.add_page(self.user_href(user), lambda u=user: self.user(u))
        self.disallowed.add(self.ADMIN)
        href, render = truncated
        self.add_broken(href, "truncated", lambda: self.truncated(render()))
        self.add_broken(not_found, "not-found", self.not_found)
        self.add_broken(server_error, "server-error", self.server_error)
        self.add_broken(empty, "empty", self.empty)

    def is_disallowed(self, target: str) -> bool:
        """Whether robots.txt forbids ``target`` (a root-relative path with query); rules may
        use ``*`` for any run of characters, as the big search engines and Scrapy read them."""
        path = urljoin("/", target)
        return any(re.match(".*".join(map(re.escape, rule.split("*"))), path)
                   for rule in self.disallow)

    def robots_txt(self) -> str:
        """The site's robots.txt."""
        lines = ["User-agent: *", *(f"Disallow: {prefix}" for prefix in self.disallow)]
        return "\n".join(lines) + "\n"

    # -- page helpers -----------------------------------------------------------------------------

    def page(self, body: str, status: int = 200) -> Page:
        """An ordinary page in the site's charset."""
        return Page(status, body, self.encoding, self.encoding)

    def thread_page(self, thread: Thread, body: str) -> Page:
        """A thread page; the wrong-charset thread keeps the declaration but not the bytes."""
        encoding = self.wrong_encoding if thread.wrong_charset else self.encoding
        return Page(200, body, self.encoding, encoding)

    @staticmethod
    def truncated(page: Page) -> Page:
        """``page`` cut off inside a ``<div`` tag a little past its middle."""
        body = str(page.body)
        cut = body.index("<div", len(body) * 11 // 20) + 4
        return Page(page.status, body[:cut], page.charset, page.encoding)

    def binary(self, seed: int) -> Page:
        """A small valid-looking PNG, served as if it were HTML."""
        rng = random.Random(seed)
        header = struct.pack(">IIBBBBB", 64, 48, 8, 2, 0, 0, 0)
        chunk = b"IHDR" + header
        png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(header)) + chunk
        png += struct.pack(">I", zlib.crc32(chunk))
        png += bytes(rng.randrange(256) for _ in range(1500))
        return Page(200, png, self.encoding, self.encoding)

    def redirect(self, location: str) -> Page:
        """A 302 to ``location`` with an empty body (an action that needs a login sends there)."""
        return Page(302, "", self.encoding, self.encoding, location=location)

    def empty(self) -> Page:
        """A 200 page with no body at all."""
        return Page(200, "", self.encoding, self.encoding)

    @staticmethod
    def posts_of(thread: Thread, per_page: int, page: int) -> list[Post]:
        """The posts shown on one page of ``thread``."""
        return thread.pages(per_page)[page - 1]

    def page_count(self, thread: Thread) -> int:
        """How many pages ``thread`` has."""
        return len(thread.pages(self.plan.posts_per_page))

    def page_of(self, post: Post) -> int:
        """The thread page that shows ``post``."""
        return (post.floor - 1) // self.plan.posts_per_page + 1

    def active_within(self, days: int) -> Callable[[Thread], bool]:
        """A :class:`Listing` filter: threads with a post in the last ``days`` days."""
        return lambda thread: (self.plan.now - thread.last.time).days < days

    def listed(self, board: Board, listing: Listing | None = None) -> list[list[Thread]]:
        """The list pages of ``board`` in the default order, or as ``listing`` sorts and filters."""
        threads = board.threads
        if listing is not None and listing.keep is not None:
            threads = [t for t in threads if listing.keep(t)]
        if listing is not None and listing.key is not None:
            threads = sorted(threads, key=listing.key, reverse=not listing.ascending)
        return chunks(threads, self.plan.threads_per_list_page)

    def posts_by(self, user: User) -> list[tuple[Thread, Post]]:
        """What ``user`` wrote, newest first (the user's activity or post listing)."""
        found = [(t, p) for t in self.plan.threads.values() for p in t.posts if p.author is user]
        return sorted(found, key=lambda tp: (tp[1].time, tp[1].pid), reverse=True)

    def add_thread(self, thread: Thread, render: Callable[[Thread, int], Page]) -> None:
        """Register every page of ``thread`` as a topic page."""
        for n in range(1, len(thread.pages(self.plan.posts_per_page)) + 1):
            href = self.thread_href(thread, n)
            self.add_page(href, lambda n=n: render(thread, n), topic=True)
            if thread.wrong_charset:
                self.actual_encodings[href] = self.wrong_encoding

    # -- truth ------------------------------------------------------------------------------------

    def post_truth(self, post: Post) -> PostTruth:
        """What an extractor should find for ``post``."""
        raw, denoted = self.time_text(post.time)
        return PostTruth(
            floor=post.floor,
            author=post.author.name,
            published=iso(denoted),
            published_raw=raw,
            text="\n".join(post.paragraphs),
            quote=post.quote.text if post.quote else None,
            signature=post.signature if self.shows_signatures else None,
            edited=post.edit is not None,
        )

    def truth(self, base_url: str) -> SiteTruth:
        """The site's truth with every URL made absolute against ``base_url``."""
        base = base_url if base_url.endswith("/") else base_url + "/"

        def absolute(href: str) -> str:
            return urljoin(base, href)

        per_page = self.plan.posts_per_page
        threads = []
        for board in self.plan.boards:
            for thread in sorted(board.threads, key=lambda t: t.tid):
                pages = {
                    absolute(self.thread_href(thread, n)): [self.post_truth(p) for p in posts]
                    for n, posts in enumerate(thread.pages(per_page), start=1)
                }
                threads.append(ThreadTruth(absolute(self.thread_href(thread, 1)), thread.title,
                                           board.theme.name, pages))
        broken = {absolute(h): r.kind for h, r in self.routes.items() if r.role == "broken"}
        broken.update({absolute(h): "wrong-charset" for h in self.actual_encodings})
        return SiteTruth(
            base_url=base,
            family=self.name,
            now=iso(self.plan.now),
            encoding=self.encoding,
            topic_urls=[url for thread in threads for url in thread.pages],
            url_aliases={absolute(h): absolute(str(r.target)) for h, r in self.routes.items()
                         if r.role == "alias"},
            non_topic_urls=[absolute(h) for h, r in self.routes.items() if r.role == "page"],
            query_aliases={absolute(path): absolute(target)
                           for path, (target, _) in self.query_aliases.items()},
            disallowed_urls=sorted(absolute(h) for h in self.disallowed),
            broken=dict(sorted(broken.items())),
            actual_encodings={absolute(h): e for h, e in self.actual_encodings.items()},
            threads=threads,
        )
