"""Which links a crawl follows once a site's rules exist: thread pages once each, and only the
other pages that keep leading to new thread pages.

FoCUS (Jiang et al., TKDE 2013) fetches index, thread and page-flip pages only. Roles here come
from the site's learned rules and from what the crawl's own pages lead to, not from a list of
engines:

- **Thread pages** (the topic-URL rule) are identified as ``(thread, page)`` by the site's
  :class:`~forumcrawl.extractors.navigation.ThreadIdentity`; each is fetched and exported once,
  whatever URL form reached it first. A *variant* (a post permalink, whose page is unknown) is
  fetched only for a thread not reached otherwise, and is not exported itself: the thread's
  canonical pages, which its page-flip links lead to, are.
- **Every other page** belongs to a URL pattern (:func:`~forumcrawl.extractors.navigation.
  pattern_key`). A pattern earns its fetches by leading to new thread pages: after ``probe``
  fetches that led to none it is closed and its links are skipped. A pattern that did lead to
  some closes after a run of fetches without one that its own record makes unlikely: with a
  share ``r`` of its fetches yielding, ``d`` dry fetches in a row happen by chance with
  probability ``(1 − r)^d`` (``r`` measured up to its last yielding fetch); it closes once
  that is below 5 % (at least ``probe``, at most ``window`` fetches). Board lists and their page flips keep yielding new threads; profiles,
  login pages, sort views, a member's post list whose threads the boards already gave, do not.
  A pattern never has more downloads under way than the dry fetches it has left: sixteen
  links of an untried pattern downloaded at once would spend sixteen fetches on a question
  three answer (:meth:`SiteNavigator.admits` says ``wait`` for the others until the outcomes
  are in).

No Scrapy here: the spider asks :meth:`SiteNavigator.decide` for each link and reports each
fetched page's yield with :meth:`SiteNavigator.fetched`.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from w3lib.url import safe_url_string

from forumcrawl.extractors.navigation import (
    ListingOrders,
    ThreadIdentity,
    ThreadKey,
    continues_listing,
    declared_canonical,
    first_page_alias,
    page_flips,
    pattern_key,
)

__all__ = ["Decision", "PatternBudget", "SiteNavigator", "lead_id"]

#: Pages of a new pattern fetched before it must have led to a new thread page.
PROBE = 3
#: Most fetches in a row without a new thread page that a pattern which did lead to some gets.
WINDOW = 20
#: Chance of a dry run that closes a pattern (see the module docstring).
DRY_CHANCE = 0.05
#: Seconds after which a download admitted under a pattern's budget no longer holds its place
#: when its outcome never came (a request lost on the way must not hold the pattern's links).
STALE = 30.0


@dataclass(frozen=True)
class Decision:
    """Whether to follow a link, and its role (``thread``, ``variant``, ``index``; ``chained``
    for a listing page followed past its closed pattern, see :meth:`SiteNavigator.chain`) or, when
    skipped, why (``duplicate``, ``variant``, ``other``; ``order`` for a listing in an order
    not followed, see :class:`~forumcrawl.extractors.navigation.ListingOrders`; ``wait`` from
    :meth:`SiteNavigator.admits`: ask again once downloads under way are in); ``new`` when it
    leads to a thread page or a thread the crawl had not scheduled, or to a thread page
    scheduled but not fetched yet (what a page's yield counts)."""

    follow: bool
    role: str
    key: ThreadKey | None = None
    new: bool = False

    @property
    def thread_page(self) -> bool:
        """Whether the link names a thread page itself (not a post in one, nor another page)."""
        return self.key.canonical if self.key is not None else self.role == "thread"


def lead_id(key: ThreadKey | None, url: str = "") -> str:
    """What a cluster knows a lead by: its thread page (``<thread>\t<page>``; ``?`` for a page
    not known before it is fetched, a variant's), else its URL (a thread URL without identity)."""
    if key is None or key.thread is None:
        return url
    return f"{key.thread}\t{'?' if key.page is None else key.page}"


@dataclass
class PatternBudget:
    """What the pages of one URL pattern led to so far."""

    fetches: int = 0
    yielded: int = 0
    #: Fetches that led to at least one new thread page.
    hits: int = 0
    last_yield: int = 0
    closed: bool = False
    #: Fetches of pages that listed no thread page, left out of the record (see
    #: :meth:`SiteNavigator.fetched`).
    blank: int = 0

    def dry_limit(self, probe: int, window: int) -> int:
        """Fetches in a row without a new thread page after which the pattern closes (the rate
        is the pattern's record up to its last yielding fetch, before the dry run)."""
        if not self.hits:
            return probe
        rate = self.hits / self.last_yield
        if rate >= 1.0:
            return probe
        return max(probe, min(window, math.ceil(math.log(DRY_CHANCE) / math.log(1.0 - rate))))


class SiteNavigator:
    """The navigation state of one site in one crawl (thread-safe: the spider's learning thread
    and the reactor both use it).

    Parameters
    ----------
    is_topic : the site's topic-URL rule.
    identity : the site's thread identity; None when it could not be learned (every thread URL
        is then its own page).
    orders : which order of each sorted listing is followed; None: every order.
    probe, window : see the module docstring.
    """

    def __init__(
        self,
        is_topic: Callable[[str], bool],
        identity: ThreadIdentity | None,
        *,
        orders: ListingOrders | None = None,
        probe: int = PROBE,
        window: int = WINDOW,
    ) -> None:
        self.is_topic = is_topic
        self.identity = identity
        self.orders = orders
        self.probe = probe
        self.window = window
        self.patterns: dict[str, PatternBudget] = {}
        # Thread pages scheduled, with the URL that scheduled each (None: another worker's).
        self._scheduled: dict[tuple[str, int], str | None] = {}
        # The pattern of the page whose link queued each thread page (see decide).
        self._queued_by: dict[tuple[str, int], str | None] = {}
        # Which URL claimed each thread page: the same URL may come again (a request delivered
        # again after a worker or Redis failed), another URL form of the page may not.
        self._fetched: dict[tuple[str, int], str] = {}
        # Pages other workers of a cluster fetched (see note_elsewhere), and how many of ours
        # (the first ones of _fetched, in the order they were fetched) were told to them.
        self._elsewhere: set[tuple[str, int]] = set()
        # Pages whose request the cluster's frontier refused as seen, with that URL (see
        # refused_there).
        self._queued_there: dict[tuple[str, int], str] = {}
        self._told = 0
        self._exported: dict[tuple[str, int], str] = {}
        self._released: dict[tuple[str, int], str] = {}
        # Per thread page, one link to it under another URL skipped as a duplicate: when the
        # rules change (see rebind), it may be a page of its own after all.
        self._skipped: dict[tuple[str, int], str] = {}
        self._threads: set[str] = set()
        # Other pages followed (a listing's "page 1" link to one of them is not followed again),
        # percent-encoded as requested (links name them with their raw characters).
        self._followed: set[str] = set()
        # Patterns of listings whose "page 1" links showed that their 1-valued parameter counts
        # pages from 1 (see _first_page_again).
        self._first_pages: set[str] = set()
        # Threads with a page fetched: a variant of one leads nowhere new.
        self._reached: set[str] = set()
        # (pattern of the page a link was on, thread page it leads to) already counted as a lead.
        self._credited: set[tuple[str | None, tuple[str, int]]] = set()
        # What adopt() found for each variant URL: a page is read for its pager once.
        self._adopted: dict[str, tuple[ThreadKey, str] | None] = {}
        # Path heads of variants whose number turned out to name no thread (see _foreign_head),
        # and what each variant page read showed (see read_variant): the sample's replay reads
        # its variants before the cover, then adopts them.
        self._foreign: set[str] = set()
        self._read: dict[str, tuple[ThreadKey, str] | None] = {}
        # Listing pages a page flip of a listing that led to new thread pages names (see chain),
        # percent-encoded as requested.
        self._chained: set[str] = set()
        # Downloads under way per pattern (URL -> when admitted), see admits().
        self._outstanding: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def key(self, url: str) -> ThreadKey | None:
        """The thread key of a thread-page URL (None for other pages, or without identity)."""
        if self.identity is None or not self.is_topic(url):
            return None
        return self.identity.key(url)

    def decide(self, url: str, number: int | None = None, *, source: str | None = None) -> Decision:
        """Whether to queue a link to ``url``; a followed thread page counts as scheduled.
        ``number``: the page number the link's anchor names; a listing's link numbered 1 to a
        listing followed already under its plain URL (``?page=1``) is a duplicate. ``source``:
        the URL of the page the link is on (see :class:`Decision`'s ``new``)."""
        topic = self.is_topic(url)
        key = self.identity.key(url) if topic and self.identity is not None else None
        with self._lock:
            if key is not None and key.thread is not None:
                if key.page is None:
                    if key.thread in self._threads:
                        return Decision(False, "variant", key)
                    if self._foreign_head(url) in self._foreign:
                        # Its thread is unknown until fetched: followed under its pattern's
                        # budget, and no lead (a profile listing post permalinks is no board).
                        return Decision(True, "variant", key)
                    self._threads.add(key.thread)
                    return Decision(True, "variant", key, new=True)
                pair = (key.thread, key.page)
                # A pattern is credited once per thread page it leads to: twenty permalinks of
                # one thread, each linking its pages, are one lead, not twenty.
                credit = (None if source is None else self._pattern(source, self.is_topic(source)), pair)
                scheduled = self._scheduled.get(pair, url)
                if scheduled != url:
                    self._skipped.setdefault(pair, url)
                if pair in self._scheduled:
                    # Still a lead while the page waits to be fetched: a board listing threads
                    # that a member's post list (or the sample) queued first keeps its worth.
                    # Not when a pattern that has led to new thread pages queued it: a member's
                    # profile fetched while the boards' threads wait earns nothing by them.
                    lead = (
                        pair not in self._fetched
                        and pair not in self._elsewhere
                        and pair not in self._queued_there
                        and credit not in self._credited
                        and not self._proven(self._queued_by.get(pair))
                    )
                    self._credited.add(credit)
                    return Decision(False, "duplicate", key, new=lead)
                self._scheduled[pair] = url
                self._queued_by[pair] = credit[0]
                self._threads.add(key.thread)
                self._credited.add(credit)
                return Decision(True, "thread", key, new=True)
            if topic and key is None:
                return Decision(True, "thread", new=True)
            if not topic and self._first_page_again(url, number):
                return Decision(False, "duplicate", key)
            walk = self._walked(url, topic)
            if walk is False:
                return Decision(False, "order", key)
            budget = self.patterns.setdefault(self._pattern(url, topic), PatternBudget())
            role = "variant" if topic else "index"
            if budget.closed:
                if not walk and (topic or safe_url_string(url) not in self._chained):
                    return Decision(False, role if topic else "other", key)
                role = "chained"
            if not topic:
                self._followed.add(safe_url_string(url))
            return Decision(True, role, key)

    def rebind(self, is_topic: Callable[[str], bool], identity: ThreadIdentity | None) -> list[str]:
        """Go on under rules relearned or widened during the crawl, keeping what was scheduled,
        fetched and exported, each page under the key its URL has now: a thread page must not
        be fetched or exported again because its site's rules changed, nor stay unfetched
        because an old rule took its URL for a page already scheduled. Returns the links
        skipped as such duplicates that name a page not scheduled now (to queue again)."""
        with self._lock:
            self.is_topic = is_topic
            self.identity = identity
            self._adopted.clear()
            self._read.clear()
            self._scheduled = self._rekeyed(self._scheduled)
            self._fetched = self._rekeyed(self._fetched)
            self._told = 0  # told again, under the new rules' keys (see take_fetched)
            self._exported = self._rekeyed(self._exported)
            self._released = self._rekeyed(self._released)
            self._queued_there = self._rekeyed(self._queued_there)
            skipped, self._skipped = self._skipped, {}
            regained = []
            for url in dict.fromkeys(skipped.values()):
                key = self.key(url)
                if key is None or not key.canonical:
                    continue
                pair = (str(key.thread), int(key.page or 1))
                if pair not in self._scheduled:
                    self._scheduled[pair] = url
                    regained.append(url)
            return regained

    def _rekeyed(self, pages: dict[tuple[str, int], Any]) -> dict[tuple[str, int], Any]:
        """``pages`` (by thread page, each with its URL) under the current rules' keys. An
        entry whose URL is no canonical thread page now (a post permalink the old rules took
        for page 1) is left out: it names no page, and must not stand for one. Entries without
        a URL (another worker's) keep their key. Called locked."""
        out: dict[tuple[str, int], Any] = {}
        for pair, url in pages.items():
            if url is not None:
                key = self.key(url)
                if key is None or not key.canonical:
                    continue
                pair = (str(key.thread), int(key.page or 1))
            out.setdefault(pair, url)
        return out

    def stray_flips(self, url: str, tree: Any) -> list[tuple[str, int]]:
        """The page-flip links on the page at ``url`` that the rules do not take for the page
        their anchor names: rejected by the topic rule, or a canonical thread page of another
        number (every page of a thread page 1). When the rules were learned from one-page
        threads, the pagers of a long thread and the page links of a board listing it name its
        later pages so (see :meth:`SiteLearner.add_pages
        <forumcrawl.learning.SiteLearner.add_pages>`, which keeps only those); a post permalink
        labelled with its floor is a variant, and no stray."""
        stray = []
        for target, n in page_flips(tree, url):
            if self.is_topic(target):
                key = self.identity.key(target) if self.identity is not None else None
                if key is None or not key.canonical or key.page == n:
                    continue
            stray.append((target, n))
        return stray

    def cover_order(
        self, pages: list[list[str]], shown: list[str | None] | None = None
    ) -> list[tuple[int, int]]:
        """How to replay sampled pages (given by their links) through :meth:`decide` and
        :meth:`fetched`: ``(index, new thread pages)`` in the order of a greedy cover of the
        thread pages they link, the page linking most thread pages not yet covered first (ties
        in fetch order), each credited with the thread pages it was the first to cover.

        A sample is fetched in no telling order, and crediting a lead to whichever page was
        fetched first would credit a member's profile fetched before the boards with threads the
        boards list too, keeping its pattern open to be probed. A minimal crawl reaching the
        sample's thread pages fetches the boards; the greedy cover credits them. ``shown``: per
        page, the thread it shows a page of (see :meth:`shown_thread`), whose pages it does not
        cover.
        """
        targets = [self._targets(links) for links in pages]
        for i, thread in enumerate(shown or []):
            if thread is not None:
                targets[i] = {target for target in targets[i] if target[0] != thread}
        covered: set[tuple[str, int | None]] = set()
        heap = [(-len(t), i) for i, t in enumerate(targets)]
        heapq.heapify(heap)
        order: list[tuple[int, int]] = []
        while heap:
            _, i = heapq.heappop(heap)
            gain = len(targets[i] - covered)
            if heap and (-gain, i) > heap[0]:
                heapq.heappush(heap, (-gain, i))  # lazy greedy: its gain fell, look again later
                continue
            covered |= targets[i]
            order.append((i, gain))
        return order

    def _targets(self, links: list[str]) -> set[tuple[str, int | None]]:
        """The thread pages (or variants' threads, when their number names one) among ``links``."""
        targets: set[tuple[str, int | None]] = set()
        for url in links:
            key = self.key(url)
            if key is None or key.thread is None:
                continue
            if key.page is None and self._foreign_head(url) in self._foreign:
                continue
            targets.add((key.thread, key.page))
        return targets

    def shown_thread(self, url: str, tree: Any) -> str | None:
        """The thread a fetched page outside the topic rule shows a page of (XenForo's
        ``/goto/post?id=``, a quote's link: the thread page again under another URL), by its
        ``rel=canonical`` thread page and that thread's pager; None for other pages. Its links
        to that thread's other pages are its own pager, no lead of its pattern: fetched before
        the boards' threads, such pages looked like boards and kept their pattern open."""
        if self.identity is None or tree is None or self.is_topic(url):
            return None
        declared = declared_canonical(tree, url)
        if declared is None or not self.is_topic(declared):
            return None
        found = self.identity.page_of(tree, url)
        return None if found is None else found[0].thread

    def read_variant(self, url: str, tree: Any) -> tuple[ThreadKey, str] | None:
        """The thread page a fetched variant turned out to be (see :meth:`ThreadIdentity.page_of`),
        noting when its number is not that thread's (XenForo's ``/posts/<post id>/``): links of
        its pattern then name no thread, so they are no lead to a new one."""
        if url in self._read:
            return self._read[url]
        key = self.key(url)
        if key is None or key.canonical or self.identity is None:
            return None
        found = self.identity.page_of(tree, url)
        with self._lock:
            if found is not None and key.thread is not None and found[0].thread != key.thread:
                self._foreign.add(self._foreign_head(url))
            self._read[url] = found
        return found

    def release(self, url: str, number: int | None = None) -> Decision:
        """Whether a link held back while the site was sampled should now be queued.

        Its thread page may already count as scheduled (the sample's pages were replayed through
        :meth:`decide`), so only a page fetched (here or, in a cluster, by another worker), or
        released once already, under any URL is a duplicate, and so is one that the cluster's
        frontier holds under another URL (see :meth:`refused_there`); a variant is skipped once
        its thread is reached.
        """
        topic = self.is_topic(url)
        key = self.identity.key(url) if topic and self.identity is not None else None
        with self._lock:
            if key is not None and key.canonical:
                pair = (str(key.thread), int(key.page or 1))
                if (
                    pair in self._fetched
                    or pair in self._elsewhere
                    or pair in self._released
                    or self._queued_there.get(pair, url) != url
                ):
                    return Decision(False, "duplicate", key)
                self._released[pair] = url
                return Decision(True, "thread", key)
        return self.decide(url, number)

    def admits(self, url: str, *, hold: bool = True, chained: bool = False) -> Decision:
        """Whether a queued request should be downloaded now: not when its thread page was
        fetched under another URL, nor when its pattern closed since it was queued (unless a
        listing's sequence goes on through it: ``chained``, or named to :meth:`chain` here);
        ``wait`` while its pattern's downloads under way are as many as the dry fetches it has
        left. ``hold``: the download takes a place among those under way until :meth:`fetched`
        or :meth:`forget` (not for a redirect's target: the URL first asked holds the place)."""
        topic = self.is_topic(url)
        key = self.identity.key(url) if topic and self.identity is not None else None
        with self._lock:
            if key is not None and key.canonical:
                pair = (str(key.thread), int(key.page or 1))
                if self._fetched.setdefault(pair, url) != url:
                    self._skipped.setdefault(pair, url)
                    return Decision(False, "duplicate", key)
                self._scheduled.setdefault(pair, url)
                self._threads.add(pair[0])
                self._reached.add(pair[0])
                return Decision(True, "thread", key)
            if topic and key is None:
                return Decision(True, "thread")
            if key is not None and key.thread in self._reached:
                return Decision(False, "variant", key)
            if not topic and self._first_page_again(url, None):
                return Decision(False, "duplicate", key)
            name = self._pattern(url, topic)
            budget = self.patterns.setdefault(name, PatternBudget())
            role = "variant" if topic else "index"
            if budget.closed:
                passes = chained or self._walked(url, topic) or safe_url_string(url) in self._chained
                if not topic and passes:
                    return Decision(True, "chained", key)
                return Decision(False, "variant" if topic else "other", key)
            now = time.monotonic()
            under_way = self._outstanding.setdefault(name, {})
            for stale in [u for u, t in under_way.items() if now - t > STALE]:
                del under_way[stale]
            if hold and url not in under_way:
                dry = budget.fetches - budget.last_yield
                if dry + len(under_way) >= budget.dry_limit(self.probe, self.window):
                    return Decision(False, "wait", key)
                under_way[url] = now
            return Decision(True, role, key)

    def _walked(self, url: str, topic: bool) -> bool | None:
        """Whether ``url`` is a listing in the order its family is followed in, walked to its
        end whatever its pattern's budget (True), in another order (False), or neither (None):
        see :class:`~forumcrawl.extractors.navigation.ListingOrders`."""
        if topic or self.orders is None:
            return None
        return self.orders.verdict(url)

    def chains(self, source: str, url: str, number: int | None) -> bool:
        """Whether the link to ``url`` on the page at ``source``, whose anchor names page
        ``number``, is a page flip from one listing page to another: followed past a closed
        pattern when ``source`` led to new thread pages (see :meth:`chain`). Page 1 starts a
        sequence and is reached as its listing (its numbered link is often another URL of it).
        The numbered links in a listing's rows (a thread's mini-pager, ``showthread.php?t=942&
        page=2``) are no flip of the listing (see :func:`~forumcrawl.extractors.navigation.
        continues_listing`): chained, each thread's later pages were fetched again under that
        other URL (seed 100 of the universe: 48 such fetches for 67 thread pages)."""
        return (
            number is not None
            and number >= 2
            and not self.is_topic(url)
            and not self.is_topic(source)
            and continues_listing(source, url)
        )

    def chain(self, url: str) -> None:
        """A page flip of a listing page that led to new thread pages: the listing's next pages
        are fetched whatever its pattern's budget (:meth:`admits`), as FoCUS follows an index's
        page flips as one sequence. A pattern pools every page of its shape (every sort order's
        pages of a question list, each tag's), and a dry run among the others closes it while one
        listing's later pages still list threads no other page links; the sequence stops at its
        first page that leads to nothing new."""
        with self._lock:
            self._chained.add(safe_url_string(url))

    def next_flip(self, flips: list[tuple[str, int]]) -> str | None:
        """Of a listing page's page flips ``(URL, page number)``, the one its sequence goes on to
        past a closed pattern: the lowest-numbered not chained yet. A numbered pager links
        every page of its listing; chaining them all from one page that led to new thread pages
        walked each member's post list to its end (seed 87 of the universe: 13 pages of one list
        after its pattern closed), where the sequence stops at its first page that leads nowhere
        new."""
        with self._lock:
            waiting = [(number, url) for url, number in flips if safe_url_string(url) not in self._chained]
        return min(waiting)[1] if waiting else None

    def forget(self, url: str) -> None:
        """Give up the place a download admitted under its pattern's budget held, for a request
        dropped before it was downloaded."""
        with self._lock:
            self._outstanding.get(self._pattern(url, self.is_topic(url)), {}).pop(url, None)

    def yield_rate(self, url: str) -> float:
        """New thread pages per fetch that ``url``'s pattern has led to so far, as a share of the
        site's best pattern's (0 for a pattern on probation): a board list leads to many, a
        member's post listing to few, so boards are fetched first and the listings find their
        threads already known."""
        budget = self.patterns.get(self._pattern(url, False))
        if budget is None or not budget.fetches:
            return 0.0
        best = max(b.yielded / b.fetches for b in self.patterns.values() if b.fetches)
        return budget.yielded / budget.fetches / best if best else 0.0

    def leads(self) -> dict[str, str]:
        """Every thread page scheduled here, by :func:`lead_id`, with the pattern of the page
        whose link queued it ("" when unknown): what the sample led to, for a cluster's record
        of leads (see :mod:`forumcrawl.redis.budgets`)."""
        with self._lock:
            return {
                lead_id(ThreadKey(thread, page)): self._queued_by.get((thread, page)) or ""
                for thread, page in self._scheduled
            }

    def pattern_of(self, url: str) -> str:
        """The key of the URL pattern whose budget ``url`` is fetched under."""
        return self._pattern(url, self.is_topic(url))

    def lists_threads(self, url: str) -> bool:
        """Whether ``url`` is a listing: not a thread page, of a pattern whose pages have led to
        new thread pages (a board's pages, not a profile's)."""
        topic = self.is_topic(url)
        if topic:
            return False
        with self._lock:
            budget = self.patterns.get(self._pattern(url, topic))
            return budget is not None and budget.hits > 0

    def outcome_pattern(self, url: str, new_threads: int) -> str | None:
        """The pattern whose record a fetch of ``url`` that led to ``new_threads`` new thread
        pages counts in (see :meth:`fetched`); None for a thread page, or a listing's page 1
        again."""
        topic = self.is_topic(url)
        if self._thread_page(url, topic):
            return None
        with self._lock:
            if self._page_one_again(url, topic, new_threads):
                return None
        return self._pattern(url, topic)

    def mirror(self, name: str, record: PatternBudget) -> bool:
        """Take a cluster's record of the pattern ``name`` (see :mod:`forumcrawl.redis.budgets`)
        for this navigator's; returns whether it closes the pattern here."""
        with self._lock:
            budget = self.patterns.setdefault(name, PatternBudget())
            closing = record.closed and not budget.closed
            budget.fetches, budget.yielded = record.fetches, record.yielded
            budget.hits, budget.last_yield = record.hits, record.last_yield
            budget.closed = budget.closed or record.closed
            return closing

    def budgets(self) -> dict[str, PatternBudget]:
        """A copy of every pattern's record so far."""
        with self._lock:
            return {name: replace(budget) for name, budget in self.patterns.items()}

    def _thread_page(self, url: str, topic: bool) -> bool:
        """Whether ``url`` is a canonical thread page (or a thread page without identity),
        which no pattern budgets."""
        key = self.identity.key(url) if topic and self.identity is not None else None
        return key is not None and key.canonical or topic and key is None

    def _page_one_again(self, url: str, topic: bool, new_threads: int) -> bool:
        """Whether a fetch is most likely a listing's page 1 again (``?page=1`` beside the
        plain URL, fetched before anything said so), which leading nowhere is no evidence of
        what its pattern's pages lead to: two such dry fetches in a sample closed a forum's
        board page flips. Called locked."""
        return not new_threads and not topic and self._alias_followed(url)

    def is_thread_page(self, url: str) -> bool:
        """Whether ``url`` names a thread page itself (not a post in one, nor another page)."""
        return self._thread_page(url, self.is_topic(url))

    def fetched(self, url: str, new_threads: int, *, listed: bool = True) -> str | None:
        """Record that the page at ``url`` led to ``new_threads`` new thread pages; returns the
        pattern's key when this closes it.

        ``listed``: whether the page links a thread page itself (see :attr:`Decision.
        thread_page`), not only posts in one. In a
        pattern that has led to new thread pages, a page listing none is another kind of page
        under the same URL shape, and its fetch says nothing of how far the pattern's listings
        still lead: it is left out of the record, as long as such pages are fewer than the
        pattern's other fetches. Machina's category pages share the boards' shape and link only
        their boards' last posts: counted, three of them in a row closed the boards' pattern
        after four boards (0.70-0.80 of the thread pages in 3 of 5 two-worker crawls). A
        pattern that has led nowhere counts them all (a member without posts is a profile)."""
        topic = self.is_topic(url)
        if self._thread_page(url, topic):
            return None
        name = self._pattern(url, topic)
        with self._lock:
            self._outstanding.get(name, {}).pop(url, None)
            if self._page_one_again(url, topic, new_threads):
                return None
            budget = self.patterns.setdefault(name, PatternBudget())
            if not (new_threads or listed) and budget.hits and budget.blank < budget.fetches:
                budget.blank += 1
                return None
            budget.fetches += 1
            if new_threads:
                budget.yielded += new_threads
                budget.hits += 1
                budget.last_yield = budget.fetches
            dry = budget.fetches - budget.last_yield
            if not budget.closed and dry >= budget.dry_limit(self.probe, self.window):
                budget.closed = True
                return name
        return None

    def adopt(self, url: str, tree: Any) -> tuple[ThreadKey, str] | None:
        """For a fetched variant (a post permalink), the thread page it turned out to be and its
        thread's first-page URL (see :meth:`ThreadIdentity.page_of`), when no other URL
        fetched that page first: the page then counts as fetched and scheduled, so its canonical
        URL is not fetched again, and it is exported in its place. None otherwise."""
        if url in self._adopted:
            return self._adopted[url]
        key = self.key(url)
        if key is None or key.canonical:
            return None
        found = self.read_variant(url, tree)
        if found is not None:
            pair = (str(found[0].thread), int(found[0].page or 1))
            with self._lock:
                owner = self._fetched.setdefault(pair, url)
                self._scheduled.setdefault(pair, url)
                self._threads.add(pair[0])
                self._reached.add(pair[0])
            found = found if owner == url else None
        self._adopted[url] = found
        return found

    def hand_over(self, url: str, owner: str) -> None:
        """The thread page fetched at ``url`` is another process's under ``owner``'s URL (a
        cluster's content dedup kept that one): if ``owner``'s request comes back (its worker
        died before writing the page out), it is fetched and exported here, not refused as a
        duplicate of ``url``."""
        key = self.key(url)
        if key is None or not key.canonical:
            return
        pair = (str(key.thread), int(key.page or 1))
        with self._lock:
            self._fetched[pair] = owner
            self._exported[pair] = owner

    def take_fetched(self) -> list[tuple[str, int]]:
        """The thread pages fetched here since the last call, for the other workers of a
        cluster (see :meth:`note_elsewhere`)."""
        with self._lock:
            taken = list(itertools.islice(self._fetched, self._told, None))
            self._told += len(taken)
        return taken

    def note_elsewhere(self, pairs: list[tuple[str, int]]) -> None:
        """Thread pages ``(thread, page)`` another worker fetched: links to them are not queued
        here and are no lead (each worker's own record would count a page the other fetched as
        waiting, and a permalink pattern would never run dry), and variants of their threads
        are not fetched. A request for one already queued is still admitted: the worker that
        fetched it may die before writing it out."""
        with self._lock:
            for pair in pairs:
                if pair in self._fetched:
                    continue
                self._elsewhere.add(pair)
                self._note_reached(pair)

    def _note_reached(self, pair: tuple[str, int]) -> None:
        """``pair`` is scheduled somewhere in the cluster. Called locked."""
        self._scheduled.setdefault(pair, None)
        self._threads.add(pair[0])
        self._reached.add(pair[0])

    def refused_there(self, url: str) -> None:
        """The cluster's frontier refused a request for the thread page ``url`` as seen: another
        worker queued that URL, or it waits in Redis for the site's rules. From now on the page
        is no lead here, as if fetched elsewhere; but the link that waited under that very URL
        is still released (see :meth:`release`), for it is the frontier's one copy. Taken for
        fetched, both copies were dropped: a 2-worker askbot crawl under load lost 48 of 150
        threads, all linked by sampled pages."""
        key = self.key(url)
        if key is None or not key.canonical:
            return
        pair = (str(key.thread), int(key.page or 1))
        with self._lock:
            if pair in self._fetched:
                return
            self._queued_there.setdefault(pair, url)
            self._note_reached(pair)

    def sampled_elsewhere(self, url: str, tree: Any) -> None:
        """A page another worker of a cluster sampled (it holds and exports the page): its
        thread page, or the page a variant's pager names (see :meth:`ThreadIdentity.page_of`),
        counts as fetched there (see :meth:`note_elsewhere`). That worker tells its fetches only
        once it has the rules, a moment after the links that waited for them were released here."""
        key = self.key(url)
        if key is None or self.identity is None:
            return
        if key.canonical:
            self.note_elsewhere([(str(key.thread), int(key.page or 1))])
            return
        found = self.read_variant(url, tree)
        if found is not None:
            self.note_elsewhere([(str(found[0].thread), int(found[0].page or 1))])

    def closed_patterns(self) -> list[str]:
        """The URL patterns closed so far (see :meth:`close`)."""
        with self._lock:
            return [name for name, budget in self.patterns.items() if budget.closed]

    def close(self, names: list[str]) -> None:
        """Close patterns another worker of a cluster closed (each worker probing a dead pattern
        on its own would spend the probe once per worker), or whose one sampled page said
        enough of them (see :meth:`SiteSpider.close_settled
        <forumcrawl.spiders.base.SiteSpider.close_settled>`)."""
        with self._lock:
            for name in names:
                self.patterns.setdefault(name, PatternBudget()).closed = True

    def claim_export(self, url: str, key: ThreadKey | None) -> bool:
        """Whether the fetched thread page at ``url`` should be exported: under one URL per
        ``(thread, page)`` (that URL again, if its page is fetched again), never a variant; True
        for pages without a key (no identity to go by)."""
        if key is None:
            return True
        if not key.canonical:
            return False
        pair = (str(key.thread), int(key.page or 1))
        with self._lock:
            return self._exported.setdefault(pair, url) == url

    def _proven(self, pattern: str | None) -> bool:
        """Whether the URL pattern ``pattern`` has led to a new thread page. Called locked."""
        budget = self.patterns.get(pattern) if pattern is not None else None
        return budget is not None and budget.hits > 0

    def _first_page_again(self, url: str, number: int | None) -> bool:
        """Whether ``url`` is page 1 of a listing followed under its plain URL (``?page=1``).

        Only a link's anchor says that the parameter counts pages from 1 (where pages count from
        0, ``?page=1`` is page 2), so a link numbered 1 teaches it for the URL's pattern; then a
        link to such a URL with another anchor (a thread's "back to the board", a "previous"
        arrow) is page 1 too. A link numbered otherwise is taken at its word. Called locked.
        """
        if number == 1 and first_page_alias(url) is not None:
            self._first_pages.add(pattern_key(url))
        elif number is not None or pattern_key(url) not in self._first_pages:
            return False
        return self._alias_followed(url)

    def _alias_followed(self, url: str) -> bool:
        """Whether ``url`` less its one 1-valued parameter is a listing followed. Called locked."""
        alias = first_page_alias(url)
        return alias is not None and safe_url_string(alias) in self._followed

    @staticmethod
    def _foreign_head(url: str) -> str:
        """What variants whose number names no thread share: the first segment of their path.
        Once ``/posts/6319/`` turns out to show a page of thread 846, the number after
        ``/posts/`` is a post's in its action links too (``/posts/6319/report``, ``…/react?``):
        counted as unknown threads, each was a lead, and two workers whose rule took in
        ``/posts/`` fetched 16-19 post permalinks whose pattern these leads kept open."""
        segments = [segment for segment in urlsplit(url).path.split("/") if segment]
        return segments[0].lower() if segments else ""

    @staticmethod
    def _pattern(url: str, topic: bool) -> str:
        return ("variant:" if topic else "") + pattern_key(url)
