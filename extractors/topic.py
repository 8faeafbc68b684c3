"""Learn which URLs of a site are thread (topic) pages: USC clustering plus page evidence.

This is the paper's Algorithm 3 (seed 003 §3.1.4): sample the site's URLs, cluster their
structure vectors with KNN-DPC, take the topic cluster and turn it into a resolver that classifies
every other URL cheaply. The paper needs one example thread URL to know which cluster holds the
threads; :func:`learn_topic_rule` accepts one (``topic_example``) and otherwise decides from the
pages the crawl has already fetched: thread pages carry several post-like blocks (repeated
siblings with real text), each with a time, rarely headed by a link to another page
(:func:`page_evidence`). A cluster is a topic cluster when enough of its fetched pages look like
threads next to the best pages of the site; URL shapes that name threads (``viewtopic``,
``/threads/``) only break ties between equally good clusters, for the report.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import numpy as np
from lxml import etree
from sklearn.utils import check_random_state

from forumcrawl.document import site_of
from forumcrawl.extractors.dates import find_time
from forumcrawl.extractors.dpc import KNNDensityPeaks
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.navigation import (
    canonical_url,
    declared_canonical,
    pager_targets,
    pattern_key,
)
from forumcrawl.extractors.url_rules import UrlResolver, pages_of
from forumcrawl.extractors.usc import block_type, split_url, usc_distance_matrix

if TYPE_CHECKING:
    from lxml.html import HtmlElement

    from forumcrawl.document import Document

__all__ = [
    "ClusterSummary",
    "PageEvidence",
    "TopicRuleResult",
    "RULE_FIT_SHARE",
    "RuleCheck",
    "check_rule",
    "cluster_pattern",
    "copy_outside_layout",
    "learn_topic_rule",
    "page_evidence",
]

#: Own (non-link) text weight of a post-like block (a CJK character weighs 3, about a word's
#: worth of letters). Tuned on the shared harvest/wcxb forum pages against machina board rows
#: (median 51-58): posts are longer, and one-line replies are outvoted by the other posts.
POST_TEXT = 80
#: A page looks like a thread page when it scores at least this share of what the best pages
#: of the site score, and clearly not one at most ``NOT_TOPIC_SHARE`` of it. On machina, thread
#: pages score 0.9-1.0, board, profile and member-post pages 0.0-0.2 (category pages 0.66).
TOPIC_SHARE = 0.6
NOT_TOPIC_SHARE = 0.3
#: Below this score even the best pages are not taken for thread pages.
MIN_TOPIC_SCORE = 0.25
#: A cluster is a topic cluster when this share of its judged pages look like threads.
TOPIC_PAGE_SHARE = 0.25
#: Clusters whose evidence differs by less than this are tied; URL shape decides.
TIE = 0.05
#: A link is part of the site's layout (menus, crumbs, footer) when most URL shapes' pages
#: show it (:func:`_layout_links`); a page showing less than this share of those links is
#: printed outside the layout. On the universe's tuning forums, thread, board and profile pages
#: show 0.56-1.0 of them, print, archive and mobile copies 0.0.
LAYOUT_SHARE = 0.5
#: Fewest layout links for the layout to tell anything (a site without menus has none).
MIN_LAYOUT_LINKS = 3

_SKIP = frozenset(
    "script style noscript template select option textarea button svg head title form".split()
)
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_TITLE_CLASS = re.compile(r"title|subject|topic|thread|headline", re.IGNORECASE)
#: Anchor text weight of a title that heads a block (a username is shorter): tuned so that
#: XenForo's ``h4.message-name`` usernames do not count and machina's "Re: <title>" do.
TITLE_ANCHOR = 18
_TIME_ATTRS = ("datetime", "data-time", "data-timestamp", "data-datestring", "data-date")
_STATE_CLASSES = frozenset(
    "odd even alt first last active selected new unread read clearfix".split()
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_DIGITS = re.compile(r"\d+")
#: Words that name thread pages in common forum engines' URLs: a tie-breaker only.
_THREAD_SHAPE = re.compile(
    r"(?:viewtopic|showtopic|showthread|viewthread|thread|topic|discussion|/t/|/posts?/|tid=)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PageEvidence:
    """How much a page looks like a thread page, and why.

    ``score`` in ``[0, 1]`` grows with the number of post-like blocks (``1 − e^{−n/2}``), is
    scaled by ``0.4 + 0.6 × time_fraction`` (posts carry times, article paragraphs do not) and by
    ``1 − listing_fraction`` (blocks headed by a link to another page summarise that page: a
    member's post list, search results), with a small bonus for blocks linking to the page
    itself (post permalinks).
    """

    score: float
    #: Size of the repeated sibling group examined (the one with most post-like members).
    n_blocks: int
    #: Members with at least :data:`POST_TEXT` of own text and at most half of it in links.
    n_posts: int
    median_text: float
    link_density: float
    time_fraction: float
    self_link_fraction: float
    listing_fraction: float
    #: Share of the posts that link the page most of them link (another page of the site): 1.0
    #: when every post links one member's profile, as a member's post list does.
    voice_fraction: float = 0.0

    @property
    def rules_out(self) -> bool:
        """Whether the page is no thread page whatever the site's best pages score: it has no
        post-like block at all (a profile, a form, a list of links), so its score is 0 and
        :func:`_verdict` judges it "clearly not" against any site."""
        return self.n_posts == 0

    def describe(self) -> str:
        """One line for logs."""
        return (
            f"score {self.score:.2f}: {self.n_posts} post-like of {self.n_blocks} blocks, "
            f"times {self.time_fraction:.0%}, self-links {self.self_link_fraction:.0%}, "
            f"link-headed {self.listing_fraction:.0%}"
        )


_NO_EVIDENCE = PageEvidence(0.0, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0)


def _weight(text: str | None) -> int:
    if not text:
        return 0
    compact = "".join(text.split())
    return len(compact) + 2 * len(_CJK.findall(compact))


def _signature(el: HtmlElement) -> tuple[str, frozenset[str]]:
    classes = frozenset(
        _DIGITS.sub("", c)
        for c in (el.get("class") or "").split()
        if c.lower() not in _STATE_CLASSES
    )
    return str(el.tag), classes


def _has_time(el: HtmlElement) -> bool:
    """A time in the block's markup (``<time>``, a time attribute, a ``title`` holding a date:
    an empty ``<span class="timeago" title=…>`` that a script fills) or in its text."""
    for node in el.iter():
        if not isinstance(node.tag, str):
            continue
        if node.tag == "time" or any(node.get(a) for a in _TIME_ATTRS):
            return True
        title = node.get("title")
        if title and len(title) <= 64 and any(c.isdigit() for c in title) and find_time(title):
            return True
    return bool(find_time(el.text_content()[:2000]))


def _link_kind(href: str, base: str, page_path: str) -> str:
    """``self`` (a place in this page: a post's permalink), ``here`` (this page as a whole: a
    member's own name on their profile), ``away`` (another page of the site), ``out``."""
    href = href.strip()
    if href.startswith("#"):
        return "self"
    try:
        target = urlsplit(urljoin(base, href))
    except ValueError:
        return "out"
    if target.scheme not in ("http", "https") or target.netloc.lower() != urlsplit(base).netloc.lower():
        return "out"
    if (target.path or "/") != page_path:
        return "away"
    return "self" if target.fragment or target.query else "here"


def _headed_elsewhere(block: HtmlElement, anchor: HtmlElement, kind: str) -> bool:
    """Whether ``anchor`` is a title heading ``block`` and leading to another page: a long
    anchor (not a username) inside a heading or a title-like element, or itself title-like or
    the block's first element, outside quotes."""
    if kind != "away":
        return False
    text = anchor.text_content().strip()
    if _weight(text) < TITLE_ANCHOR or not (" " in text or _CJK.search(text)):
        return False
    first = next(iter(block.iterchildren(tag=etree.Element)), None)
    titled = anchor is first or bool(_TITLE_CLASS.search(anchor.get("class") or ""))
    for up in anchor.iterancestors():
        if up is block:
            break
        if up.tag == "blockquote":
            return False
        titled = titled or up.tag in _HEADINGS or bool(_TITLE_CLASS.search(up.get("class") or ""))
    return titled


def _lead(block: HtmlElement, members: set[HtmlElement]) -> HtmlElement | None:
    """The heading printed right before ``block`` outside it, when there is one: the element
    sibling before it, not of its group, that is a heading or title-like. A list of posts may
    head each post with its thread's linked title beside the post rather than inside it."""
    lead = block.getprevious()
    while lead is not None and not isinstance(lead.tag, str):
        lead = lead.getprevious()
    if lead is None or lead in members or lead.tag in _SKIP:
        return None
    if lead.tag in _HEADINGS or _TITLE_CLASS.search(lead.get("class") or ""):
        return lead
    return None


def page_evidence(document: Document) -> PageEvidence:
    """Score how much ``document`` looks like a thread page (see :class:`PageEvidence`).

    The page's repeated sibling groups (children of one parent with the same tag and classes,
    digits and state classes such as ``odd``/``even`` ignored) are compared by their number of
    post-like members; the best group's members are then checked for times, links to the page
    itself, and headings that link elsewhere. Linear in the size of the page, and computed once
    per page: the crawl's learning sample judges each page as it comes in, and the topic rule
    is learned from the same pages.
    """
    return document.derived("topic.evidence", lambda: _page_evidence(document))


def _page_evidence(document: Document) -> PageEvidence:
    tree = document.tree
    if tree is None:
        return _NO_EVIDENCE
    body = tree.find("body")
    elements = [e for e in (body if body is not None else tree).iter() if isinstance(e.tag, str)]
    total: dict[HtmlElement, int] = {}
    linked: dict[HtmlElement, int] = {}
    for el in reversed(elements):  # children before parents
        if el.tag in _SKIP:
            total[el] = linked[el] = 0
            continue
        text, in_links = _weight(el.text), 0
        for child in el:
            if isinstance(child.tag, str):
                text += total.get(child, 0)
                in_links += linked.get(child, 0)
            text += _weight(child.tail)
        total[el] = text
        linked[el] = text if el.tag == "a" else in_links

    def postlike(el: HtmlElement) -> bool:
        return total[el] - linked[el] >= POST_TEXT and linked[el] <= 0.5 * total[el]

    best: list[HtmlElement] = []
    best_key = (0, 0)
    for el in elements:
        if el.tag in _SKIP or len(el) < 2:
            continue
        groups: dict[tuple[str, frozenset[str]], list[HtmlElement]] = defaultdict(list)
        for child in el:
            if isinstance(child.tag, str) and child.tag not in _SKIP:
                groups[_signature(child)].append(child)
        for members in groups.values():
            if len(members) < 2:
                continue
            key = (sum(map(postlike, members)), sum(total[m] - linked[m] for m in members))
            if key > best_key:
                best_key, best = key, members
    if not best:
        return _NO_EVIDENCE
    base_el = tree.find(".//base[@href]")
    base = urljoin(document.url, base_el.get("href")) if base_el is not None else document.url
    page_path = urlsplit(document.url).path or "/"
    posts = [m for m in best if postlike(m)]
    members = set(best)
    times = selfs = headed = 0
    voices: Counter[str] = Counter()
    for m in posts:
        times += _has_time(m)
        is_self = heading_away = False
        away: set[str] = set()
        for a in m.iter("a"):
            href = a.get("href")
            if not href:
                continue
            kind = _link_kind(href, base, page_path)
            if kind == "away":
                away.add(urljoin(base, href.strip()).partition("#")[0])
            if kind == "self":
                is_self = True
            elif not heading_away:
                heading_away = _headed_elsewhere(m, a, kind)
        if not heading_away and (lead := _lead(m, members)) is not None:
            heading_away = any(
                _headed_elsewhere(lead, a, _link_kind(a.get("href") or "", base, page_path))
                for a in lead.iter("a") if a.get("href")
            )
        selfs += is_self
        headed += heading_away and not is_self
        voices.update(away)
    n = len(posts)
    share = (lambda k: k / n) if n else (lambda k: 0.0)
    weight = sum(total[m] for m in best)
    score = (
        (1.0 - np.exp(-n / 2.0))
        * (0.4 + 0.6 * share(times))
        * (1.0 - share(headed))
        * (0.85 + 0.15 * share(selfs))
    )
    return PageEvidence(
        score=round(float(score), 4),
        n_blocks=len(best),
        n_posts=n,
        median_text=float(statistics.median(total[m] - linked[m] for m in best)),
        link_density=round(sum(linked[m] for m in best) / weight, 4) if weight else 0.0,
        time_fraction=round(share(times), 4),
        self_link_fraction=round(share(selfs), 4),
        listing_fraction=round(share(headed), 4),
        voice_fraction=round(share(voices.most_common(1)[0][1]), 4) if voices else 0.0,
    )


@dataclass(frozen=True)
class ClusterSummary:
    """One cluster of the sample, for logs and the ``urls`` command."""

    label: int
    size: int
    #: Fetched pages of the cluster, how many of them look like thread pages, and their mean
    #: :func:`page_evidence` score (None: no page).
    n_pages: int
    thread_pages: int
    evidence: float | None
    topic: bool
    #: A rule fitted on this cluster alone, as a pattern.
    pattern: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class TopicRuleResult:
    """What :func:`learn_topic_rule` learned, and why."""

    #: The topic-URL rule (``resolver.to_dict()`` is what a site model stores).
    resolver: UrlResolver
    site: str
    #: The clustered sample and its cluster labels.
    urls: tuple[str, ...]
    labels: np.ndarray
    clusters: tuple[ClusterSummary, ...]
    topic_clusters: tuple[int, ...]
    #: Why these clusters: one paragraph with the scores, for the log.
    reason: str
    #: The fitted clustering (``clustering.plot_decision_graph(path)`` draws it).
    clustering: KNNDensityPeaks


@dataclass(frozen=True)
class _ClusterStats:
    pages: int
    threads: int
    others: int
    score: float | None
    shape: float

    def is_topic(self) -> bool:
        """Threads among the cluster's pages: at least one, and a quarter of those judged (a
        board page is often a thread's nearest URL, so thread clusters hold a few)."""
        return self.threads >= 1 and self.threads >= TOPIC_PAGE_SHARE * (self.threads + self.others)


def _verdict(evidence: PageEvidence, ref: float) -> int:
    """1: looks like a thread page; 0: clearly not one; -1: cannot tell (also a page whose
    posts all link one page, see :attr:`PageEvidence.voice_fraction`).

    "Clearly not" needs a low score *and* a reason: no post-like block at all, or several
    posts that are mostly headed by links elsewhere (a list of posts). A thread with a single
    short post scores low too, but is not evidence against its URL shape; nor is one post whose
    header links elsewhere (the last page of a thread, holding one reply).
    """
    if evidence.n_posts >= 3 and evidence.voice_fraction == 1.0:
        # Every post links one page (one member's profile): one person's posts, a member's post
        # list or a thread one person wrote alone, which tells nothing of a thread URL's shape.
        # On the four real engines a thread page's posts share at most 0.4 of such a link, on
        # the mock families 0.8.
        return -1
    if evidence.score >= TOPIC_SHARE * ref:
        return 1
    if evidence.score <= NOT_TOPIC_SHARE * ref and (
        evidence.rules_out or (evidence.n_posts >= 2 and evidence.listing_fraction >= 0.5)
    ):
        return 0
    return -1


def _layout_links(pages: Mapping[str, Document]) -> tuple[set[str], dict[str, int]]:
    """The site's layout links, and how many of them each page shows: the links that the pages
    of most URL shapes (:func:`~forumcrawl.extractors.navigation.pattern_key`) show on most of
    their pages.
    Shapes count alike, however many pages of each the sample holds, so that a sample rich in
    one kind of page does not make that kind's links the layout's."""
    links = {
        url: {canonical_url(u) for u in page_links(doc.tree, url)}
        for url, doc in pages.items() if doc.tree is not None
    }
    shapes: dict[str, list[set[str]]] = defaultdict(list)
    for url, found in links.items():
        shapes[pattern_key(url)].append(found)
    votes: Counter[str] = Counter()
    for members in shapes.values():
        counts = Counter(u for found in members for u in found)
        votes.update(u for u, n in counts.items() if 2 * n > len(members))
    layout = {u for u, n in votes.items() if 2 * n > len(shapes)}
    if len(layout) < MIN_LAYOUT_LINKS:
        return set(), {}
    return layout, {url: len(found & layout) for url, found in links.items()}


def _off_layout(pages: Mapping[str, Document], verdict: dict[str, int]) -> dict[str, int]:
    """``verdict`` with the thread-looking pages printed outside the site's layout judged no
    thread pages, when other thread-looking pages are printed within it: a print view, an
    archive or a mobile copy shows a thread's posts without the menus and crumbs that the
    site's thread, board and profile pages share. Whether such copies were sampled must not
    decide the topic rule, and a copy is not the thread page."""
    inside = _inside_layout(pages, verdict)
    if inside is None or not any(inside[u] for u, judged in verdict.items() if judged == 1):
        return verdict
    return {u: 0 if judged == 1 and not inside[u] else judged for u, judged in verdict.items()}


def _inside_layout(pages: Mapping[str, Document], urls: Iterable[str]) -> dict[str, bool] | None:
    """Whether each of ``urls`` is printed within the site's layout (shows at least
    :data:`LAYOUT_SHARE` of its links, see :func:`_layout_links`); None without a layout."""
    layout, shown = _layout_links(pages)
    if not layout:
        return None
    return {u: shown.get(u, 0) >= LAYOUT_SHARE * len(layout) for u in urls}


def copy_outside_layout(pages: Mapping[str, Document], evidence: Mapping[str, PageEvidence], url: str) -> bool:
    """Whether the page at ``url`` (one of ``pages``, each scored in ``evidence``) is a copy of
    a thread page printed outside the site's layout, as the topic rule reads it (see
    :func:`_off_layout`): it looks like a thread page, shows few of the layout's links, and
    another page that looks like one is printed within the layout. Such a page is judged no
    thread page however many of its kind a sample holds."""
    best = max((e.score for e in evidence.values()), default=0.0)
    if best < MIN_TOPIC_SCORE or evidence[url].score < TOPIC_SHARE * best:
        return False
    inside = _inside_layout(pages, evidence)
    if inside is None or inside[url]:
        return False
    return any(inside[u] and e.score >= TOPIC_SHARE * best for u, e in evidence.items() if u != url)


def _same_thread_form(url: str, other: str) -> bool:
    """Whether ``other`` may be another page of the thread page at ``url`` written the same way:
    the same URL shape, or one path extending the other (``/t/5/`` and ``/t/5/page-2``)."""
    if pattern_key(url) == pattern_key(other):
        return True
    one, two = urlsplit(url).path.rstrip("/"), urlsplit(other).path.rstrip("/")
    return two.startswith(one) or one.startswith(two)


def _named_elsewhere(pages: Mapping[str, Document], verdict: dict[str, int]) -> dict[str, int]:
    """``verdict`` with the thread-looking pages of the URL shapes whose pagers mostly name
    pages of another URL form made unknown: a post's permalink (``/p/<post id>``) shows the
    thread page around the post, and that page's pager names the thread's own URLs, while a
    thread page's pager names pages in its own form. Pages of one shape are one kind of page
    (see :func:`_outvoted`), so a permalink to a last page, whose pager names nothing after it,
    goes with its shape. The thread pages are the URLs the threads' pagers name, however many
    permalinks a sample holds. Unchanged when no thread-looking page names its own form."""
    votes: dict[str, Counter[bool]] = defaultdict(Counter)
    for url, judged in verdict.items():
        if judged != 1 or url not in pages or pages[url].tree is None:
            continue
        site = site_of(url)
        named = [u for u in pager_targets(pages[url].tree, url) if site_of(u) == site and u != url]
        if named:
            votes[pattern_key(url)][any(_same_thread_form(url, u) for u in named)] += 1
    if not any(shape[True] for shape in votes.values()):
        return verdict
    elsewhere = {key for key, shape in votes.items() if shape[False] > shape[True]}
    return {
        u: -1 if judged == 1 and pattern_key(u) in elsewhere else judged
        for u, judged in verdict.items()
    }


def _read(pages: Mapping[str, Document], verdict: dict[str, int]) -> dict[str, int]:
    """The pages' verdicts (:func:`_verdict`) as the topic rule reads them: copies printed
    outside the site's layout and pages named by another form's pager are not thread pages,
    and each URL shape's majority judges its pages."""
    return _outvoted(_named_elsewhere(pages, _off_layout(pages, verdict)))


def _outvoted(verdict: dict[str, int]) -> dict[str, int]:
    """``verdict`` less the judgements that more pages of the same URL shape contradict.

    Pages of one shape (:func:`~forumcrawl.extractors.navigation.pattern_key`: a board's
    ``/forum/*``, a thread's ``/forum/*/topic/*``) are one kind of page, so the shape's majority
    judges each of them: a category page judged a thread (its boards' "last post" blocks look
    like posts with times) among more board pages judged clearly no threads, or a thread of one
    short post judged no thread among more judged threads, becomes unknown. One page misjudged
    in a sample otherwise made the rule follow it (a category's URL made boards thread pages;
    a short thread's took every plain thread URL out). A tie changes nothing.
    """
    votes: dict[str, Counter[int]] = defaultdict(Counter)
    for url, judged in verdict.items():
        votes[pattern_key(url)][judged] += 1
    out = {}
    for url, judged in verdict.items():
        shape = votes[pattern_key(url)]
        out[url] = -1 if judged in (0, 1) and shape[1 - judged] > shape[judged] else judged
    return out


def _positions(url: str) -> dict[tuple[int, int], str]:
    """The blocks of the URL's path by (segment, position)."""
    return {
        (k, i): block
        for k, segment in enumerate(split_url(url, drop_sessions=True).path)
        for i, block in enumerate(segment.blocks)
    }


def _agree_with_core(sample: list[str], y: np.ndarray, core: list[str]) -> np.ndarray:
    """Unlabel the topic URLs that contradict what every confirmed thread URL shares.

    A cluster chosen for its thread pages can hold other URLs (small samples cluster coarsely:
    ``/tags/<tag>/`` beside ``/threads/<title>.<id>/``). Where the paths of all confirmed thread
    URLs (fetched thread-looking pages, the example) have the same word, or blocks of the same
    type, a topic URL with another word or type there becomes unknown: the siblings step of the
    resolver can still bring it back if it turns out to be a variant; so do paths deeper than
    any confirmed one (``/topic/<title>/reply/``). In a segment whose number of blocks no
    confirmed URL shows, only its first block is compared (a longer title shifts the others).
    With a single confirmed URL (an example and no pages), only its words that most topic URLs
    share count, outside segments with a number
    (``help-support-8`` names one board of many). Numbers are never a shared word
    (ids differ from thread to thread), and query parameters are left alone (optional and
    ordered freely: ``?t=1`` and ``?p=5&sid=…`` are one page kind).
    """
    if not core:
        return y
    maps = [_positions(u) for u in core]
    keys = set().union(*maps)
    words: dict[tuple[int, int], str] = {}
    # A few words that the confirmed thread URLs share at a place (``showthread`` and
    # ``printthread`` of ``<script>.php``): a topic URL with another word there (a reply form's
    # script, never fetched) is unknown.
    choices: dict[tuple[int, int], set[str]] = {}
    types: dict[tuple[int, int], str] = {}
    if len(core) == 1:
        # One example: its words that most topic URLs share are template words, the others
        # may be its title's.
        others = [_positions(sample[i]) for i in np.flatnonzero(y == 1)]
        numbered = {k for (k, _), b in maps[0].items() if b.isdigit()}
        for key, word in maps[0].items():
            shared = sum(m.get(key) == word for m in others)
            if word and key[0] not in numbered and 2 * shared > len(others):
                words[key] = word
    else:
        # A segment that starts with a number and goes on with words (``681-graphics-card-vs-
        # mechanical-keyboard-–-which-one?``) is a thread's number and title: past the number
        # its blocks are the title's, however alike the confirmed threads' titles (two "X vs Y –
        # which one?" titles made a rule of their words' types that took in no other thread).
        titled = {
            k for k, _ in keys
            if all(m.get((k, 0), "").isdigit() and any(
                not b.isdigit() for (s, j), b in m.items() if s == k and j) for m in maps)
        }
        for key in (k for k in keys if k[0] not in titled or not k[1]):
            seen = {m.get(key, "") for m in maps}
            kinds = {block_type(b) for b in seen}
            if len(seen) == 1 and "" not in seen and not next(iter(seen)).isdigit():
                words[key] = next(iter(seen))
            elif (
                key[1] == 0 and "" not in seen and kinds == {"letters"}
                and 2 * len(seen) <= len(core) and len(seen) <= 3
            ):
                choices[key] = seen
            if len(kinds) == 1 and "" not in kinds:
                types[key] = next(iter(kinds))
    depth = max(_depth(u) for u in core)
    widths = [_widths(u) for u in core]
    out = y.copy()
    for i in np.flatnonzero(y == 1):
        blocks = _positions(sample[i])
        # In a segment of a length no confirmed URL shows (a title of more words), the blocks
        # past its first are shifted, not another shape: ``/threads/<title>-<title>.<id>/`` has
        # a word where every confirmed ``/threads/<title>.<id>/`` has its id. Compared there, a
        # sample whose fetched threads all had one-word titles left the others out of the rule
        # (a 2-worker crawl of held-apart universe seed 162 missed 16 of 52 thread pages).
        shifted = {k for k, n in _widths(sample[i]).items() if all(w.get(k) != n for w in widths)}
        compared = {
            k for k in words.keys() | choices.keys() | types.keys()
            if k[1] == 0 or k[0] not in shifted
        }
        if (
            any(blocks.get(k, "") != w for k, w in words.items() if k in compared)
            or any(blocks.get(k, "") not in c for k, c in choices.items() if k in compared)
            or any(block_type(blocks.get(k, "")) != t for k, t in types.items() if k in compared)
            or _depth(sample[i]) > depth
        ):
            out[i] = -1
    return out


def _widths(url: str) -> dict[int, int]:
    """The number of blocks of each segment of the URL's path (a slug's grows with its title)."""
    segments = split_url(url, drop_sessions=True).path
    return {k: len(segment.blocks) for k, segment in enumerate(segments)}


def _depth(url: str) -> int:
    """Path segments up to the last non-empty one (``/a/b/`` and ``/a/b`` are 2 deep)."""
    segments = split_url(url, drop_sessions=True).path
    return max((k + 1 for k, s in enumerate(segments) if any(s.blocks)), default=0)


def cluster_pattern(urls: Sequence[str]) -> str:
    """The pattern of a rule fitted on one cluster alone (no siblings, no pages step), to show
    what a cluster holds."""
    return str(UrlResolver(min_variants=0, paginate=False).fit(urls, np.ones(len(urls), dtype=int)))


def _declared(pages: Mapping[str, Document]) -> dict[str, Document]:
    """``pages`` keyed by the page each one declares it is (``<link rel="canonical">`` to a page
    of its own site), so a page is evidence for its canonical URL's shape, not an alias's.

    XenForo serves a thread page under ``/posts/<post id>/`` and ``/goto/post?id=`` too: judged
    under those URLs, such pages made the alias shapes topic clusters in some samples and not in
    others. An alias URL keeps no evidence; its canonical page joins the sample (judged on its
    own fetch, if any). A canonical that pages of different titles declare, or whose own fetch
    has another title, is not believed: a template naming its home page on every page.
    """
    targets: dict[str, str] = {}
    for url, doc in pages.items():
        try:
            declared = declared_canonical(doc.tree, url)
            if declared is None:
                continue
            target = canonical_url(declared)
            if target != canonical_url(url) and site_of(target) == site_of(url):
                targets[url] = target
        except ValueError:  # a malformed declaration says nothing
            continue
    titles: dict[str, set[str]] = defaultdict(set)
    for url, target in targets.items():
        titles[target].add(pages[url].title)
        if target in pages:
            titles[target].add(pages[target].title)
    out: dict[str, Document] = {u: d for u, d in pages.items() if u not in targets}
    for url, target in targets.items():
        out.setdefault(target if len(titles[target]) == 1 else url, pages[url])
    return out


def _is_root(url: str) -> bool:
    """Whether ``url`` is its site's root: no path beyond ``/`` and no query."""
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query


def _site_urls(
    urls: Sequence[str], pages: Mapping[str, Document], topic_example: str | None
) -> tuple[str, list[str], int]:
    """The site to learn (the example's, else the most common) and its distinct URLs."""
    kept: dict[str, str] = {}
    for url in [*(urls or ()), *pages]:
        if not isinstance(url, str):
            raise TypeError(f"URLs must be str, got {type(url).__name__}")
        url = url.strip()
        try:
            split_url(url)
        except ValueError:
            continue
        kept.setdefault(url, site_of(url))
    if topic_example is not None:
        split_url(topic_example)  # a bad example is the caller's error: raise it
        site = site_of(topic_example)
        kept.setdefault(topic_example.strip(), site)
    elif kept:
        counts: dict[str, int] = defaultdict(int)
        for s in kept.values():
            counts[s] += 1
        site = max(counts, key=lambda s: (counts[s], s))
    else:
        raise ValueError("no http(s) URL to learn from")
    same = [u for u, s in kept.items() if s == site]
    return site, same, len(kept) - len(same)


def _sample(
    urls: list[str], must: list[str], size: int, random_state: int | np.random.RandomState | None
) -> list[str]:
    if len(urls) <= size:
        return urls
    rng = check_random_state(random_state)
    must_set = dict.fromkeys(must)
    if len(must_set) >= size:
        chosen = rng.choice(len(must), size=size, replace=False)
        return [must[i] for i in sorted(chosen)]
    rest = [u for u in urls if u not in must_set]
    extra = rng.choice(len(rest), size=size - len(must_set), replace=False)
    picked = set(must_set) | {rest[i] for i in extra}
    return [u for u in urls if u in picked]


#: A stored topic rule still fits a site when it takes at least this share of the pages that look
#: like thread pages, and they are at least this share of the judged pages it takes: a rule of
#: another forum served later at the same address takes none of them (#47).
RULE_FIT_SHARE = 0.5


@dataclass(frozen=True)
class RuleCheck:
    """How a topic rule agrees with the thread evidence of fetched pages (:func:`check_rule`)."""

    #: True: the rule fits; False: it does not; None: the pages cannot tell yet (no page looks
    #: like a thread page, or none is clearly another kind).
    fits: bool | None
    threads: int
    threads_taken: int
    others_taken: int
    pages: int

    def describe(self) -> str:
        """One line for logs."""
        return (
            f"it takes {self.threads_taken} of the {self.threads} pages that look like thread pages "
            f"and {self.others_taken} that clearly do not, of {self.pages} pages"
        )


def check_rule(pages: Mapping[str, Document], takes: Callable[[str], bool]) -> RuleCheck:
    """Whether a topic rule (``takes``: does it take this URL for a thread page?) fits the site
    that served ``pages``: the same page evidence and verdicts that chose the rule when it was
    learned (:func:`page_evidence`), judged against what the rule takes."""
    evidence = {url: page_evidence(doc) for url, doc in pages.items()}
    ref = max((e.score for e in evidence.values()), default=0.0)
    if ref < MIN_TOPIC_SCORE:
        return RuleCheck(None, 0, 0, 0, len(pages))
    verdict = _read(pages, {url: _verdict(e, ref) for url, e in evidence.items()})
    threads = [url for url, judged in verdict.items() if judged == 1]
    taken = {url for url in verdict if verdict[url] in (0, 1) and takes(url)}
    threads_taken = sum(url in taken for url in threads)
    others_taken = len(taken) - threads_taken
    fits = None if not threads else (
        threads_taken >= RULE_FIT_SHARE * len(threads)
        and threads_taken >= RULE_FIT_SHARE * len(taken)
    )
    return RuleCheck(fits, len(threads), threads_taken, others_taken, len(pages))


def learn_topic_rule(
    urls: Sequence[str],
    pages: Mapping[str, Document] | None = None,
    *,
    topic_example: str | None = None,
    sample_size: int = 600,
    n_neighbors: int = 10,
    random_state: int | np.random.RandomState | None = 0,
) -> TopicRuleResult:
    """Learn a site's topic-URL rule from a sample of its URLs and some fetched pages.

    Parameters
    ----------
    urls : URLs of the site (links seen, pages fetched). Other sites' URLs and non-http(s)
        strings are left out; duplicates count once.
    pages : fetched pages by URL, the evidence for choosing the topic cluster automatically.
    topic_example : a thread URL given by the user (the paper's ``-a topic_example=``): its
        cluster is the topic cluster, whatever the pages say.
    sample_size : URLs clustered at most (KNN-DPC is quadratic); pages and the example are
        always in the sample.
    n_neighbors : ``K`` of KNN-DPC.
    random_state : seed of the sample.

    Returns
    -------
    TopicRuleResult
        The resolver, the clusters with their evidence, and the reason as text.

    Raises
    ------
    ValueError
        No usable URL, a bad ``topic_example``, or (without an example) no fetched page that
        looks like a thread page.

    Notes
    -----
    The steps: cluster the sample (KNN-DPC on normalised USC distances, centres at every local
    density peak: URL templates nest — section, board, thread — so ``γ`` has no single knee);
    score each fetched page (:func:`page_evidence`) against what the site's best pages score;
    take as topic clusters those where at least a quarter of the judged pages look like threads
    (or the example's cluster), and of a cluster holding as many such pages as those together
    the URLs of their shapes; drop from them the URLs that contradict what all confirmed
    thread URLs share in their paths (:func:`_agree_with_core`); label fetched pages that are
    clearly no threads as negatives; and fit a :class:`~forumcrawl.extractors.url_rules.
    UrlResolver`, whose siblings step merges threads that the distance split by board.

    References
    ----------
    .. [1] Seed 003 §3.1.4, Algorithm 3 (URLs' Structure Clustering).
    """
    pages = _declared(pages or {})
    site, same_site, other = _site_urls(urls, pages, topic_example)
    example = topic_example.strip() if topic_example is not None else None
    same_set = set(same_site)
    site_pages = {u.strip(): d for u, d in pages.items() if u.strip() in same_set}
    must = ([example] if example else []) + [u for u in same_site if u in site_pages]
    sample = _sample(same_site, must, int(sample_size), random_state)
    if not sample:
        raise ValueError("no http(s) URL of the site to learn from")
    clustering = KNNDensityPeaks(
        n_neighbors=n_neighbors, center_selection="local_peaks", metric="precomputed"
    )
    labels = clustering.fit(usc_distance_matrix(sample, drop_sessions=True)).labels_
    # The site's root is its one entry page, whatever it shows (pybbm's lists the latest posts
    # and was judged a thread page, which let every one-segment URL into the rule in 2 of 5
    # samples): a URL without a path block tells nothing of a URL template.
    evidence = {u: page_evidence(site_pages[u]) for u in sample if u in site_pages and not _is_root(u)}
    # What a thread page scores on this site: the mean of the three best pages (one odd page
    # cannot set it). Pages are judged relative to it, since page layouts differ between sites.
    best_scores = sorted((e.score for e in evidence.values()), reverse=True)[:3]
    ref = float(np.mean(best_scores)) if best_scores else 0.0
    n_clusters = int(labels.max()) + 1
    members = [np.flatnonzero(labels == k) for k in range(n_clusters)]
    judged = {u: _verdict(e, ref) for u, e in evidence.items()}

    def cluster_stats(verdict: dict[str, int]) -> list[_ClusterStats]:
        stats = []
        for k in range(n_clusters):
            seen = [sample[i] for i in members[k] if sample[i] in evidence]
            shaped = [bool(_THREAD_SHAPE.search(sample[i])) for i in members[k]]
            stats.append(
                _ClusterStats(
                    pages=len(seen),
                    threads=sum(verdict[u] == 1 for u in seen),
                    others=sum(verdict[u] == 0 for u in seen),
                    score=float(np.mean([evidence[u].score for u in seen])) if seen else None,
                    shape=float(np.mean(shaped)),
                )
            )
        return stats

    verdict = _read(site_pages, judged)
    stats = cluster_stats(verdict)
    if not any(st.is_topic() for st in stats):
        # Copies and permalinks were all a small sample showed of the threads: they stand for
        # them rather than no rule at all.
        verdict = _outvoted(judged)
        stats = cluster_stats(verdict)
    if example is not None:
        seed = int(labels[sample.index(example)])
        topic = {seed}
        why = f"the example {example} is in cluster {seed}"
    else:
        if not evidence:
            raise ValueError("no fetched page to choose the topic cluster from; give topic_example")
        if ref < MIN_TOPIC_SCORE:
            raise ValueError(
                f"no fetched page looks like a thread page (best evidence {ref:.2f} < "
                f"{MIN_TOPIC_SCORE}); give topic_example"
            )
        topic = {k for k, st in enumerate(stats) if st.is_topic()}
        # A cluster holding as many thread pages as the clusters above together, which are less
        # than a quarter of its judged pages: the URL distance put thread URLs among the site's
        # short ones (``thread-594-2-1.html`` beside ``faq``, ``login`` and the boards;
        # ``viewtopic.php?t=`` beside member post lists). It is taken too, and of its URLs only
        # those of a thread page's shape are positives: a page judged a thread page (its URL
        # shape's pages not outvoting it, copies and pages named by another form's pager set
        # aside, see :func:`_read`) is evidence for its shape whichever cluster holds it, and
        # the clusters above cannot be where the threads are when they hold no more of them.
        # Otherwise which of its other pages a sample held (copies, member post lists) decides
        # whether the threads' own URLs are left out, for a small cluster of post permalinks or
        # post-number URLs, a few pages that all show a thread.
        held = sum(stats[k].threads for k in topic)
        mixed = [k for k, st in enumerate(stats) if k not in topic and st.threads and st.threads >= held]
        if not topic and not mixed:
            raise ValueError("no cluster holds a page that looks like a thread page; give topic_example")
        for k in mixed:
            shapes = {pattern_key(sample[i]) for i in members[k] if verdict.get(sample[i]) == 1}
            members[k] = np.array([i for i in members[k] if pattern_key(sample[i]) in shapes])
        topic.update(mixed)
        top = max((st.score or 0.0) for k, st in enumerate(stats) if k in topic)
        seed = max(
            topic,
            key=lambda k: (
                (stats[k].score or 0.0) >= top - TIE, stats[k].shape, stats[k].score or 0.0, -k
            ),
        )
        why = (
            f"cluster {seed} has the best page evidence ({stats[seed].score:.2f}; a thread page "
            f"here scores {ref:.2f})"
        )
    # Topic clusters are positives; a fetched page that is clearly no thread is a negative. The
    # other URLs stay unknown, even in clusters whose pages are all negatives: a board page's
    # nearest URLs are its threads, so such a cluster may hold threads not fetched yet.
    y = np.full(len(sample), -1, dtype=np.int64)
    for k in topic:
        y[members[k]] = 1
    if ref >= MIN_TOPIC_SCORE:
        for i, url in enumerate(sample):
            if verdict.get(url) == 0 and url != example:
                y[i] = 0
    # A later page of a topic URL is judged with its thread: a last page holding one short
    # reply looks like no thread, but is no evidence against the thread's URL shape.
    splits = [split_url(u, drop_sessions=True) for u in sample]
    y[(y == 0) & pages_of(splits, y == 1)] = -1
    core = [u for u in sample if verdict.get(u) == 1 and y[sample.index(u)] == 1]
    if example is not None:
        core = [example, *(u for u in core if u != example)]
    y = _agree_with_core(sample, y, core)
    resolver = UrlResolver().fit(sample, y, confirmed=core)
    if example is not None and not resolver.match(example):
        # The example is the user's word: a shape too rare for the support step stays in.
        resolver = UrlResolver(min_support=0.0).fit(sample, y, confirmed=core)
    summaries = tuple(
        ClusterSummary(
            label=k,
            size=len(members[k]),
            n_pages=st.pages,
            thread_pages=st.threads,
            evidence=None if st.score is None else round(st.score, 3),
            topic=k in topic,
            pattern=cluster_pattern([sample[i] for i in members[k]]),
            examples=tuple(sample[i] for i in members[k][:3]),
        )
        for k, st in enumerate(stats)
    )
    ranked = sorted(
        (c for c in summaries if c.evidence is not None), key=lambda c: -(c.evidence or 0.0)
    )
    table = "; ".join(
        f"{c.label}{'*' if c.topic else ''} {c.evidence:.2f} ({c.thread_pages}/{c.n_pages} "
        f"thread pages, {c.size} URLs, {c.pattern})"
        for c in ranked[:8]
    )
    reason = (
        f"{why}; topic clusters {sorted(topic)}; rule {resolver} from {resolver.n_topic_} URLs"
        + (f", widened at {', '.join(resolver.widened_)}" if resolver.widened_ else "")
        + f"; {len(sample)} URLs sampled of {len(same_site)}"
        + (f" ({other} of other sites left out)" if other else "")
        + f", {n_clusters} clusters, {len(evidence)} pages scored"
        + (f"; clusters by evidence (* = topic): {table}" if table else "")
    )
    return TopicRuleResult(
        resolver=resolver,
        site=site,
        urls=tuple(sample),
        labels=labels,
        clusters=summaries,
        topic_clusters=tuple(sorted(topic)),
        reason=reason,
        clustering=clustering,
    )
