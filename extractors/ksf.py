"""KSF, the keyword scoring filter: learn where a forum puts its posts from a few thread pages.

The idea (seed 003 §3.2) is that the words that make a thread page different from the other pages
of its site are the posts' words, so the element that holds most of those keywords, page after
page, is the post body. The learned location is a small JSON rule (:class:`KsfRule`) that is then
applied to every thread page of the site with a few XPath evaluations (:func:`apply_rule`, in
:mod:`forumcrawl.extractors.ksf_apply`, re-exported here); this module is the learning side.

Beyond the paper, the rule also records the per-post container (the repeated ancestor of the
bodies), where the author, time and floor sit inside it, and which elements inside a body are
quotes or signatures, so that applying it yields posts (:class:`forumcrawl.items.Post`) rather than
one text blob.
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from importlib import resources
from numbers import Integral
from typing import TYPE_CHECKING, Any, TypeVar

import lxml.etree

from forumcrawl.extractors.base import Estimator, not_fitted
from forumcrawl.extractors.compiled import compiled_module
from forumcrawl.extractors.cx import PageLines, document_lines, document_steps, filled_events
from forumcrawl.extractors.cx import page_lines as cx_page_lines
from forumcrawl.extractors.dates import find_time
from forumcrawl.extractors.dates import month_first, read_markup_time, to_iso
from forumcrawl.extractors.fields import title_affixes
from forumcrawl.extractors.kinds import declares_thread
from forumcrawl.extractors.ksf_apply import (
    MAX_AUTHOR_CHARS,
    KsfRule,
    apply_rule,
    comment_section,
    comments_on_first,
    field_text,
    later_page,
    select,
    selector_tag,
)
from forumcrawl.extractors.posts import (
    BLOCK_TAGS,
    DEFAULT_EXCLUDE,
    NOISE_TOKENS,
    QUOTE_HEAD,
    SKIP_TAGS,
    is_quote,
    parse_floor,
)
from forumcrawl.extractors.text import is_stop_word, segments_cjk, tokenize

if TYPE_CHECKING:
    from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence

    import numpy as np
    from lxml.html import HtmlElement

    from forumcrawl.document import Document
    from forumcrawl.items import Post

_V = TypeVar("_V")

__all__ = [
    "KeywordScoringExtractor",
    "KsfRule",
    "Line",
    "SinglePage",
    "apply_rule",
    "body_coverage",
    "comments_on_first",
    "extract_single",
    "ksf_weights",
    "page_lines",
    "scoring",
    "single_posts",
    "single_rule",
    "with_site_pages",
]


# Class tokens carrying a long number are per-post ids (``post_12345``), not a template's class.
_UNSTABLE_TOKEN_RE = re.compile(r"\d{3,}")
_ID_PREFIX_RE = re.compile(r"^([A-Za-z][A-Za-z_-]*?[_-]?)\d+$")
_CSS_IDENT_RE = re.compile(r"-?[A-Za-z_][\w-]*")
#: Attributes that say what an element is where its class does not: NodeBB's ``component``
#: (``post``, ``post/content``), schema.org microdata's ``itemprop`` (``comment``, ``text``,
#: ``author``), and ``data-role`` / ``data-component`` / ``data-type`` of script-built pages.
#: ARIA ``role`` is left out: its landmarks (``main``, ``navigation``) name page regions that
#: hold a post's words and more.
_NAMING_ATTRS = ("component", "itemprop", "data-role", "data-component", "data-type")
#: A naming attribute's value that is a name (``post/content``, ``datePublished``), not a
#: sentence or a URL.
_ATTR_NAME_RE = re.compile(r"[A-Za-z][\w/-]{0,39}")
_PROFILE_HREF_RE = re.compile(
    r"user|member|profile|space|uid=|u=\d|author|people|/u/|/users?/|home\.php", re.IGNORECASE
)
_PROFILE_DATE_RE = re.compile(
    r"joined|registered|member since|last (?:visit|login|seen)|注册|註冊|最后登录|最後登錄|加入", re.I
)
_AUTHOR_CLASS_RE = re.compile(r"author|user|name|poster|nick|member", re.IGNORECASE)
_DIGIT_RE = re.compile(r"\d")
#: A class is part of a learned locator when elements holding this share of the votes carry it
#: (tuned on machina and magic-forums: per-post classes such as odd/even sit near 0.5).
_CLASS_SHARE = 0.8
#: Single-page mode: the share of the page's prose the bodies must hold, without and with a
#: repeated post container (one setting for magic-forums, wcxb-dev and harvest-forum-posts;
#: anything from 0.4 to 0.6 beats trafilatura on all three).
_SINGLE_COVERAGE = 0.5
_SINGLE_COVERAGE_REPEATED = 0.2
#: A prose line: at least this many characters, at most this share of them in links.
_PROSE_CHARS = 30
_PROSE_LINK_RATIO = 0.3
#: Bodies that are code, quote, spoiler or signature blocks (Discuz, phpBB, vBulletin,
#: XenForo and Invision class names) are never a thread's posts.
_NOISE_BODY_TAGS = frozenset({"pre", "code"})
_NOISE_TOKEN_SET = frozenset(NOISE_TOKENS)
#: Attributes besides ``data-*`` that may hold a post's author, time or floor (avatar ``alt``,
#: link and ``<abbr>`` ``title``, ``<time datetime>``, microdata ``<meta content>``).
_VALUE_ATTRS = frozenset({"alt", "title", "datetime", "content"})
_MACHINE_TIME_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\d{9,13}$")
#: Later pages of a thread (and at least two) whose first post must be seen on another page
#: for a site to count as repeating one there (the rest: their earlier page is not at hand).
_REPEAT_SHARE = 0.5
#: Thread pages the quotes and signatures of a site are learned from, beyond its sample (a
#: bound on the work, not a tuned figure).
_EXCLUDE_PAGES = 100
#: Headings: a body-like element inside one is a title, never a post (an editable thread title).
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_NOISE_BODY_PARTS = (
    "quote_contents", "quotecontent", "bbcodeblock", "signature", "sig_", "spoiler", "ipscode", "codebox",
)


# --------------------------------------------------------------------------------------------
# Lines: the text of a page, one entry per block element.

_compiled = compiled_module("_walk")


@dataclass(slots=True)
class Line:
    """The text a block element holds directly (inline descendants included)."""

    text: str
    element: HtmlElement
    link_chars: int


def page_lines(tree: HtmlElement, walk: PageLines | None = None) -> list[Line]:
    """Text lines of a page in document order, without ``head``, scripts and form widgets.

    Each block element gives one line: its own text, its inline descendants' text and the
    tails of its children. That is the paper's "page without tags", kept tied to elements.
    A ``<noscript>`` that holds most of the page's text is read: it is the page a client
    without scripts (a crawler) gets, such as Discourse's posts; one with a tracking pixel or
    an "enable JavaScript" notice is not.

    Read from the steps of the CX lines' walk of ``tree`` (``walk``, walked here when not
    given): reading every element's tag and text from lxml again was a third of the cost.
    Where the compiled walk is built and no ``walk`` is given, it reads the same lines from the
    nodes (``_walk.block_lines``), in a fifth of the time.
    """
    body = tree.find("body")
    root = body if body is not None else tree
    if walk is None and _compiled is not None:
        lines = _compiled.block_lines(tree, root, BLOCK_TAGS, SKIP_TAGS, _holds_page, Line)
        if lines is not None:
            return lines  # type: ignore[no-any-return]
    texts: dict[HtmlElement, list[str]] = {}  # in the order each block's first text comes
    links: dict[HtmlElement, int] = {}
    block_tags, skip_tags = BLOCK_TAGS, SKIP_TAGS  # local names: the walk visits every element
    # The content the CX walk skipped and these lines read (a <label>'s, an <iframe>'s).
    events = filled_events(
        walk or cx_page_lines(tree), lambda tag: tag != "head" and tag not in skip_tags
    )
    at = 0
    while events[at + 1] is not root:  # from the root's start, read as any element's
        at += 3
    flat = iter(events[at:])
    steps = zip(flat, flat, flat)
    # The block and link state of each open element's parent; the root's block is the tree.
    stack: list[tuple[HtmlElement, bool]] = []
    block, in_link = tree, False
    for tag, el, text in steps:
        if tag is not None:  # an element starts
            if tag.__class__ is not str or tag == "head" or (  # comments, processing instructions
                tag in skip_tags and not (tag == "noscript" and _holds_page(el, root))
            ):
                for step in steps:  # skipped with its content, up to its end: its tail is read
                    if step[1] is el:
                        break
                text = step[2]
            else:
                stack.append((block, in_link))
                if tag in block_tags:
                    block = el
                in_link = in_link or tag == "a"
        else:
            block, in_link = stack.pop()
            if el is root:
                break
        if text:
            pieces = texts.get(block)
            if pieces is None:
                texts[block] = [text]
            else:
                pieces.append(text)
            if in_link:
                links[block] = links.get(block, 0) + len(text.strip())
    lines = []
    for block, pieces in texts.items():
        text = " ".join("".join(pieces).split())
        if text:
            lines.append(Line(text, block, links.get(block, 0)))
    return lines


def _holds_page(noscript: HtmlElement, root: HtmlElement) -> bool:
    """Whether a ``<noscript>`` holds blocks and most of the text of the page below ``root``."""
    if not _has_block(noscript):
        return False
    inner = len("".join(noscript.text_content().split()))
    return 2 * inner > len("".join(root.text_content().split()))


# --------------------------------------------------------------------------------------------
# Formulas 9-11 and Algorithm 4.


def ksf_weights(counts: Sequence[Counter[str]]) -> list[dict[str, float]]:
    """TF-IDF weights of every word of every page, formulas (9)-(11) of seed 003 §3.2.

    TF(f, w) = N(f, w) / Σ_i N(i, w) (the share of the word's occurrences that fall in page f),
    IDF(w) = log(|F| / (1 + Σ_i P(i, w))) and W = TF · IDF. Note that the paper's TF is a share
    across the sample, not a frequency within the page: a word scores high when it is both
    concentrated in one page and rare across pages.

    Examples
    --------
    >>> w = ksf_weights([Counter(a=2, t=1), Counter(b=1, t=1), Counter(c=1, t=1)])
    >>> round(w[0]["a"], 3), round(w[0]["t"], 3)
    (0.405, -0.096)
    """
    n_docs = len(counts)
    totals: Counter[str] = Counter()
    df: Counter[str] = Counter()
    for page in counts:
        totals.update(page)
        df.update(page.keys())
    idf = {w: math.log(n_docs / (1 + d)) for w, d in df.items()}
    return [{w: (n / totals[w]) * idf[w] for w, n in page.items()} for page in counts]


def background_weights(counts: Counter[str], background: tuple[int, dict[str, int]]) -> dict[str, float]:
    """Formulas (9)-(11) for one page against a background corpus (single-page mode).

    The page joins the background as one more document: with the background's document
    frequencies df_bg, IDF(w) = log((N_bg + 1) / (1 + df_bg(w) + 1)). The background holds document
    frequencies only, so TF is the page's own share, 1 for every word, and the ranking is by IDF.
    """
    n_bg, df = background
    return {w: math.log((n_bg + 1) / (2 + df.get(w, 0))) for w in counts}


def scoring(objs: Iterable[Hashable]) -> list[Hashable]:
    """Algorithm 4 (Scoring): one vote per occurrence; the objects with the highest count win.

    Ties are all returned, in order of first appearance.

    Examples
    --------
    >>> scoring(["div.a", "div.b", "div.a", "td.c", "td.c"])
    ['div.a', 'td.c']
    """
    scores = Counter(objs)
    if not scores:
        return []
    best = max(scores.values())
    return [obj for obj, score in scores.items() if score == best]


@lru_cache(maxsize=1)
def load_background() -> tuple[int, dict[str, int]]:
    """Background document frequencies shipped in ``data/background_df.txt`` (see its README)."""
    raw = resources.files("forumcrawl.extractors").joinpath("data/background_df.txt")
    n_docs = 0
    df: dict[str, int] = {}
    for line in raw.read_text("utf-8").splitlines():
        if line.startswith("#"):
            m = re.match(r"#\s*n_docs\s*=\s*(\d+)", line)
            if m:
                n_docs = int(m.group(1))
            continue
        word, _, count = line.rpartition("\t")
        if word:
            df[word] = int(count)
    return n_docs, df


# --------------------------------------------------------------------------------------------
# Locations: how an element is named in a rule.


def _stable_classes(el: HtmlElement) -> tuple[str, ...]:
    """The classes of ``el`` a locator may name: stable (no long number), ASCII, CSS
    identifiers; sorted."""
    raw = el.get("class")
    return _stable_tokens(raw) if raw else ()


@lru_cache(maxsize=4096)
def _stable_tokens(raw: str) -> tuple[str, ...]:
    """:func:`_stable_classes` of a ``class`` value (cached: a page repeats its class values,
    and locating its lines asks for the classes of every ancestor of every line)."""
    return tuple(
        sorted(
            {
                t
                for t in raw.split()
                if not _UNSTABLE_TOKEN_RE.search(t) and t.isascii() and _CSS_IDENT_RE.fullmatch(t)
            }
        )
    )


def _named_attrs(el: HtmlElement) -> tuple[str, ...]:
    """``[name="value"]`` of each naming attribute of ``el`` (:data:`_NAMING_ATTRS`) whose value
    reads as a fixed name (:data:`_ATTR_NAME_RE`, no long number), for an element that has no
    stable class and no numbered id: a post printed as ``<li component="post" class="">``
    (NodeBB) or ``<div itemprop="text">`` is named by what it is, not how it looks. A class or
    an id comes first, so sites that have one keep their locators."""
    if _stable_classes(el) or _ID_PREFIX_RE.match(el.get("id") or ""):
        return ()
    return tuple(
        f'[{name}="{value}"]'
        for name in _NAMING_ATTRS
        if (value := el.get(name)) and _ATTR_NAME_RE.fullmatch(value) and not _UNSTABLE_TOKEN_RE.search(value)
    )


def _own_locator(el: HtmlElement, attrs: bool = True) -> str | None:
    """``tag.class`` (stable classes), ``tag[id^="prefix"]`` or, with ``attrs``,
    ``tag[attr="name"]`` (:func:`_named_attrs`) for ``el``; ``None`` if none."""
    tag = el.tag
    if not isinstance(tag, str) or tag in {"html", "body"}:
        return None
    classes = _stable_classes(el)
    if classes:
        return tag + "".join(f".{c}" for c in classes)
    m = _ID_PREFIX_RE.match(el.get("id") or "")
    if m:
        return f'{tag}[id^="{m.group(1)}"]'
    named = _named_attrs(el) if attrs else ()
    return tag + "".join(named) if named else None


def _path_locator(el: HtmlElement, steps: int = 3) -> str:
    """An XPath over the last ``steps`` tags of ``el``'s path, the last one with its position."""
    names = []
    node: HtmlElement | None = el
    while node is not None and len(names) < steps and node.tag not in {"html", "body"}:
        names.append(node.tag)
        node = node.getparent()
    names.reverse()
    parent = el.getparent()
    last = names[-1] if names else el.tag
    if parent is not None:
        same = [c for c in parent if c.tag == el.tag]
        if len(same) > 1:
            names[-1] = f"{last}[{same.index(el) + 1}]"
    return "//" + "/".join(names)


def _named_block(el: HtmlElement, max_climb: int) -> HtmlElement | None:
    """The nearest block ancestor-or-self of ``el`` that has a stable class or a numbered id."""
    node: HtmlElement | None = el
    for _ in range(max_climb):
        if node is None or node.tag in {"html", "body"}:
            return None
        if node.tag in BLOCK_TAGS and node.tag != "br" and _own_locator(node):
            return node
        node = node.getparent()
    return None


def _keys(el: HtmlElement) -> list[str]:
    """Vote keys of a named element: ``tag.token`` per stable class, ``tag[id^=…]``, else
    ``tag[attr="name"]`` per naming attribute (:func:`_named_attrs`)."""
    keys = [f"{el.tag}.{c}" for c in _stable_classes(el)]
    m = _ID_PREFIX_RE.match(el.get("id") or "")
    if m:
        keys.append(f'{el.tag}[id^="{m.group(1)}"]')
    return keys or [el.tag + a for a in _named_attrs(el)]


def _generalise(elements: Counter[HtmlElement], share: float) -> str:
    """One CSS locator for a group of elements: their tag plus the classes most of them share.

    ``elements`` maps each element to its weight (votes); a class is kept when elements holding
    at least ``share`` of the weight carry it, so per-post classes (``odd``/``even``,
    ``loop-item-3``) drop out while the template's classes stay. Without a class or an id
    prefix, the naming attributes (:func:`_named_attrs`) all of them carry.
    """
    tags = Counter()
    for el, w in elements.items():
        tags[el.tag] += w
    tag = max(tags, key=lambda t: (tags[t], t))
    group = {el: w for el, w in elements.items() if el.tag == tag}
    total = sum(group.values())
    token_weight: Counter[str] = Counter()
    prefix_weight: Counter[str] = Counter()
    attr_weight: Counter[str] = Counter()
    for el, w in group.items():
        token_weight.update({c: w for c in _stable_classes(el)})
        m = _ID_PREFIX_RE.match(el.get("id") or "")
        if m:
            prefix_weight[m.group(1)] += w
        attr_weight.update({a: w for a in _named_attrs(el)})
    tokens = sorted(t for t, w in token_weight.items() if w >= share * total)
    if tokens:
        return tag + "".join(f".{t}" for t in tokens)
    prefixes = [p for p, w in prefix_weight.items() if w >= share * total]
    if prefixes:
        return f'{tag}[id^="{min(prefixes)}"]'
    # Every element must carry a naming attribute: where they differ in one (a question's
    # itemprop="mainEntity", its answers' "comment"), they are not one template's posts.
    attrs = sorted(a for a, w in attr_weight.items() if w >= total)
    if attrs:
        return tag + "".join(attrs)
    paths = Counter()
    for el, w in group.items():
        paths[_path_locator(el, steps=2)] += w
    return max(paths, key=lambda p: (paths[p], p))


def _page_candidates(
    lines: Sequence[Line], tokens_per_line: Sequence[list[str]], top: set[str], share: float
) -> tuple[list[str], Counter[str]]:
    """Algorithm 4 within one page: keyword occurrences vote for the locations holding them.

    Each occurrence votes for every class of the nearest named block around it (or for a tag
    path when there is none); the winning keys are turned into locators by
    :func:`_generalise` over the elements that voted for them.
    """
    votes: list[str] = []
    holders: dict[str, Counter[HtmlElement]] = defaultdict(Counter)
    cache: dict[HtmlElement, tuple[HtmlElement | None, list[str]]] = {}
    for line, tokens in zip(lines, tokens_per_line):
        hits = sum(1 for t in tokens if t in top)
        if not hits:
            continue
        if line.element not in cache:
            named = _named_block(line.element, max_climb=8)
            keys = _keys(named) if named is not None else [_path_locator(line.element)]
            cache[line.element] = (named, keys)
        named, keys = cache[line.element]
        for key in keys:
            votes.extend([key] * hits)
            holders[key][named if named is not None else line.element] += hits
    locators = [
        key if key.startswith("//") else _generalise(holders[key], share) for key in scoring(votes)
    ]
    return list(dict.fromkeys(locators)), Counter(votes)


def _relative_path(el: HtmlElement, paths: dict[HtmlElement, str]) -> str:
    """The tag path of ``el`` inside a container (``./div/span``). ``paths`` holds those found
    so far, the container's (``.``) first: an element's is its parent's and its own tag, so
    the elements of a post are not each walked up to the container."""
    path = paths.get(el)
    if path is None:
        path = paths[el] = f"{_relative_path(el.getparent(), paths)}/{el.tag}"
    return path


def _relative_locators(el: HtmlElement, paths: dict[HtmlElement, str]) -> list[str]:
    """Candidate locations of ``el`` inside a container: its classes, and its tag path (see
    :func:`_relative_path`)."""
    path = _relative_path(el, paths)
    own = _own_locator(el, attrs=False)
    return [own, path] if own else [path]


def _select_all(trees: Sequence[HtmlElement], selector: str) -> list[HtmlElement]:
    return [el for tree in trees for el in select(tree, selector)]


# --------------------------------------------------------------------------------------------
# Learning.


def _line_key(text: str, prefix_chars: int) -> str:
    return _DIGIT_RE.sub("0", text[:prefix_chars].lower())


def _keep_lines(
    pages: list[list[Line]],
    *,
    prefix_chars: int,
    min_line_chars: int,
    max_link_ratio: float,
    template_pages: int,
    repeat_within: int,
) -> list[list[Line]]:
    """Stop rules (length, links, stop words, times) and similarity rules (repeated prefixes)."""
    line_keys = [[_line_key(line.text, prefix_chars) for line in page] for page in pages]
    page_keys = [Counter(keys) for keys in line_keys]
    spread: Counter[str] = Counter()
    for keys in page_keys:
        spread.update(keys.keys())
    kept_pages = []
    for page, keys, own_keys in zip(pages, page_keys, line_keys):
        kept = []
        for line, key in zip(page, own_keys):
            chars = len(line.text.replace(" ", ""))
            if chars < min_line_chars or line.link_chars > max_link_ratio * chars:
                continue
            if (len(pages) > 1 and spread[key] >= template_pages) or keys[key] >= repeat_within:
                continue
            raw_time = _find_time(line.text) if chars < 60 else None
            if raw_time and len(raw_time) >= 0.5 * len(line.text):
                continue
            kept.append(line)
        kept_pages.append(kept)
    return kept_pages


def _keywords(tokens: list[str], known: dict[str, bool]) -> list[str]:
    """The tokens that may be keywords: longer than one character, no stop word. ``known``
    keeps the verdict on each word met so far (a page repeats its words)."""
    kept = []
    for token in tokens:
        keep = known.get(token)
        if keep is None:
            keep = known[token] = len(token) > 1 and not is_stop_word(token)
        if keep:
            kept.append(token)
    return kept


def _page_keywords(page: Sequence[Line], known: dict[str, bool]) -> list[list[str]]:
    """Each line's :func:`_keywords`, CJK runs cut into words on a Chinese page only
    (:func:`~forumcrawl.extractors.text.segments_cjk`)."""
    segment = segments_cjk(line.text for line in page)
    return [_keywords(tokenize(line.text, segment=segment), known) for line in page]


def _misplaced(body: HtmlElement) -> bool:
    """Whether a matched body sits in a heading (a thread title) or in a quote or signature
    block: elements of a post body's kind there are not posts."""
    return any(
        a.tag in _HEADINGS or _noise_body(f"{a.tag}." + ".".join((a.get("class") or "").split()))
        for a in body.iterancestors()
    )


def _refine_body(trees: Sequence[HtmlElement], body: str) -> str:
    """``body`` narrowed to its parent's locator (``parent > body``) when some of its matches
    are misplaced (:func:`_misplaced`) and the parents of the others tell them apart; XenForo's
    signatures and post bodies are both ``div.bbWrapper``, Askbot's title and posts both
    ``div.js-editable-content``."""
    found = _select_all(trees, body)
    bad = {el for el in found if _misplaced(el)}
    if not bad or len(bad) == len(found):
        return body
    good = [el for el in found if el not in bad]
    parents = Counter(p for p in (el.getparent() for el in good) if p is not None)
    parent = _generalise(parents, _CLASS_SHARE) if parents else "//"
    if parent.startswith("//"):
        return body
    refined = f"{parent} > {body}"
    matched = set(_select_all(trees, refined))
    return refined if set(good) <= matched and not matched & bad else body


def _learn_container(
    trees: Sequence[HtmlElement], pages_bodies: list[list[HtmlElement]]
) -> tuple[str | None, dict[str, float]]:
    """The per-post container: the highest ancestor of a body that holds no other body.

    Those ancestors are generalised into one locator (:func:`_generalise`), which is kept only
    if, on the sample pages, it puts nearly every body into a container of its own.
    """
    tops: Counter[HtmlElement] = Counter()
    for bodies in pages_bodies:
        if len(bodies) < 2:
            continue
        shared: Counter[HtmlElement] = Counter()
        chains = []
        for body in bodies:
            chain = [body, *body.iterancestors()]
            chains.append(chain)
            shared.update(chain)
        for chain in chains:
            top = chain[0]
            for el in chain[1:]:
                if shared[el] > 1:
                    break
                top = el
            if top is not chain[0]:
                tops[top] += 1
    if not tops:
        return None, {}
    n_bodies = sum(len(b) for b in pages_bodies)
    report: dict[str, float] = {}
    # The classes most tops share, else those all of them share: a thread's opening post may
    # be the only one without a class its replies have (Askbot's div.js-answer).
    for class_share in (_CLASS_SHARE, 1.0):
        locator = _generalise(tops, class_share)
        owned = 0
        for tree, bodies in zip(trees, pages_bodies):
            containers = set(select(tree, locator))
            owners = [next((a for a in b.iterancestors() if a in containers), None) for b in bodies]
            owned += sum(1 for o in owners if o is not None and owners.count(o) == 1)
        share = owned / n_bodies if n_bodies else 0.0
        report[locator] = round(share, 3)
        if share >= 0.9:
            return locator, report
    return None, report


def _containers(tree: HtmlElement, rule_body: str, rule_container: str | None) -> list[tuple[HtmlElement, HtmlElement]]:
    bodies = select(tree, rule_body)
    if not rule_container:
        return []
    container_set = set(select(tree, rule_container))
    pairs = []
    seen = set()
    for body in bodies:
        owner = next((a for a in body.iterancestors() if a in container_set), None)
        if owner is not None and owner not in seen:
            seen.add(owner)
            pairs.append((owner, body))
    return pairs


def _chronological(texts: dict[tuple[int, int], str]) -> float:
    """Share of pages whose times, read in post order, never go back (posts are chronological;
    join dates and last-visit times in user panels are not)."""
    epoch = datetime(2000, 1, 1)
    by_page: dict[int, list[str]] = defaultdict(list)
    for (page, _), text in sorted(texts.items()):
        raw = _find_time(text)
        iso = to_iso(raw, now=epoch) if raw else None
        if iso:
            by_page[page].append(iso[:19])
    pages = [v for v in by_page.values() if len(v) > 1]
    if not pages:
        return 0.0
    return sum(all(a <= b for a, b in zip(v, v[1:])) for v in pages) / len(pages)


def _has_block(el: HtmlElement) -> bool:
    return any(isinstance(d.tag, str) and d.tag in BLOCK_TAGS for d in el.iterdescendants())


def _profile_link(el: HtmlElement) -> bool:
    """Whether ``el`` is, wraps exactly, or sits in a link to a user profile."""
    if el.tag == "a":
        return bool(_PROFILE_HREF_RE.search(el.get("href") or ""))
    parent_link = next(el.iterancestors("a"), None)
    if parent_link is not None:
        return bool(_PROFILE_HREF_RE.search(parent_link.get("href") or ""))
    link = next(el.iter("a"), None)
    return (
        link is not None
        and field_text(link) == field_text(el)
        and bool(_PROFILE_HREF_RE.search(link.get("href") or ""))
    )


def _value_attrs(el: HtmlElement) -> list[str]:
    """Attributes of ``el`` that may hold a field's value: human-readable ones (``alt``,
    ``title``), machine-readable ones (``datetime``, microdata ``content``) and ``data-*``."""
    return [a for a in el.attrib if a in _VALUE_ATTRS or a.startswith("data-")]


def _author_like(text: str, element: HtmlElement) -> bool:
    return (
        0 < len(text) <= MAX_AUTHOR_CHARS and not _has_block(element) and not _find_time(text)
        and parse_floor(text) is None and not text.replace(" ", "").isdigit()
        and len(text.split()) <= 4 and not text.endswith(":")
    )


def _field_candidates(
    per_page: list[list[tuple[HtmlElement, HtmlElement]]],
) -> tuple[dict[tuple[str, str | None], dict[tuple[int, int], tuple[HtmlElement, str]]], dict[tuple[str, str | None], int]]:
    """Every place a field could be read in the sample's posts: ``(locator, attribute)`` (``None``:
    the text) → per post, the element and its value; and each place's first position in a post.

    The container itself is a place too (locator ``.``), for engines that put the author in a
    ``data-author`` of the post element.
    """
    values: dict[tuple[str, str | None], dict[tuple[int, int], tuple[HtmlElement, str]]] = defaultdict(dict)
    order: dict[tuple[str, str | None], int] = {}
    for page_index, pairs in enumerate(per_page):
        for post_index, (container, body) in enumerate(pairs):
            key = (page_index, post_index)
            inside_body = set(body.iter())
            elements = [(-1, container, ["."])]
            paths = {container: "."}
            for rank, el in enumerate(container.iterdescendants()):
                if isinstance(el.tag, str) and el not in inside_body and el.tag not in SKIP_TAGS:
                    elements.append((rank, el, _relative_locators(el, paths)))
            for rank, el, locators in elements:
                sources: list[tuple[str | None, str]] = [(a, " ".join((el.get(a) or "").split())) for a in _value_attrs(el)]
                if rank >= 0:
                    sources.insert(0, (None, field_text(el)))
                for loc in locators:
                    for attr, value in sources:
                        place = (loc, attr)
                        if key not in values[place]:  # the first match, as apply_rule takes it
                            values[place][key] = (el, value)
                            order.setdefault(place, rank)
    return values, order


def _agreement(
    candidates: dict[tuple[str, str | None], dict[tuple[int, int], tuple[HtmlElement, str]]],
) -> dict[tuple[str, str | None], float]:
    """Per author place, the share of its values that another element of the same post also
    gives (the name in a profile link, an avatar's ``alt``, a ``data-author``): a user's name
    is repeated around a post, a user title or a button label is not."""
    holders: dict[tuple[int, int, str], set[int]] = defaultdict(set)
    for found in candidates.values():
        for key, (el, value) in found.items():
            holders[(*key, value)].add(id(el))
    return {
        place: sum(len(holders[(*key, value)] - {id(el)}) > 0 for key, (el, value) in found.items()) / len(found)
        for place, found in candidates.items()
    }


def _kept(
    values: Iterator[_V], keep: Callable[[_V], Any], needed: float, total: int
) -> list[_V] | None:
    """Those of the ``total`` ``values`` that ``keep`` accepts when at least ``needed`` are,
    else None, given as soon as too few are left to make up ``needed``: a place most posts do
    not fill a field in is dropped before all its values are read (a date search of a whole
    post's text takes 10-15 µs, and learning fields searched 100,000 texts over wcxb-dev)."""
    kept: list[_V] = []
    left = total
    for value in values:
        left -= 1
        if keep(value):
            kept.append(value)
        elif len(kept) + left < needed:
            return None
    return kept if len(kept) >= needed else None


def _whole_time(read: tuple[Any, str, tuple[str, str | None] | None]) -> bool:
    """Whether an attribute's value (``read[1]``) read as a time (``read[2]``: what
    :func:`~forumcrawl.extractors.dates.read_markup_time` gives) is a time and little else:
    the time found is at least half the value."""
    found = read[2]
    return bool(found and found[1] and len(found[0]) >= 0.5 * len(read[1]))


def _learn_fields(
    trees: list[HtmlElement], rule_body: str, rule_container: str | None, min_coverage: float
) -> tuple[dict[str, tuple[str, str | None] | None], dict[str, dict[str, float]], bool]:
    """Where author, time and floor sit inside a post container, from the sample's posts: for
    each, a locator and the attribute its value is read from (``None``: the text); and whether
    the site's numeric dates are month first (:func:`month_first` of the chosen times)."""
    result: dict[str, tuple[str, str | None] | None] = {"author": None, "time": None, "floor": None}
    report: dict[str, dict[str, float]] = {}
    per_page = [_containers(tree, rule_body, rule_container) for tree in trees]
    n_posts = sum(len(p) for p in per_page)
    if n_posts < 2:
        return result, report, False
    values, order = _field_candidates(per_page)
    needed = min_coverage * n_posts
    values = {place: found for place, found in values.items() if len(found) >= needed}
    names: dict[tuple[str, str | None], int] = {}  # per author place, its values that may be names
    for place, found in values.items():
        named = _kept(
            iter(found.values()), lambda pair: _author_like(pair[1], pair[0]), needed, len(found)
        )
        if named is not None and len({v for _, v in found.values()}) > 1:
            names[place] = len(named)
    authors = {place: values[place] for place in names}
    agreement = _agreement(authors)
    epoch = datetime(2000, 1, 1)
    scored: dict[str, list[tuple[float, int, int, tuple[str, str | None]]]] = {"author": [], "time": [], "floor": []}
    for place, found in values.items():
        loc, attr = place
        texts = {k: v for k, (_, v) in found.items()}
        tie = (attr is None, -order[place])  # text before attributes, then the earliest element
        if place in authors:
            elements = [el for el, _ in found.values()]
            linked = sum(1 for el in elements if _profile_link(el)) / len(elements)
            hinted = bool(_AUTHOR_CLASS_RE.search(loc if attr is None else f"{loc} {attr}"))
            share = names[place] / n_posts
            score = share + 0.5 * linked + 0.25 * hinted + 0.5 * agreement[place]
            scored["author"].append((score, *tie, place))
        if attr is None:
            timed = _kept(iter(texts.values()), _find_time, needed, len(texts))
            if timed is not None and len(set(timed)) > 1:
                tightness = sum(len(_find_time(t) or "") / max(len(t), 1) for t in timed) / len(timed)
                profile = sum(1 for t in timed if _PROFILE_DATE_RE.search(t)) / len(timed)
                score = len(timed) / n_posts + 0.5 * tightness + _chronological(texts) - profile
                scored["time"].append((score, *tie, place))
        else:
            reads = ((k, v, read_markup_time(v, now=epoch)) for k, v in texts.items())
            found_times = _kept(reads, _whole_time, needed, len(texts))
            timed = {k: r[1] for k, _, r in found_times or ()}  # _whole_time: r is a time
            if found_times is not None and len(set(timed.values())) > 1:
                # A value that is a time and nothing else: as tight as a time text can be; a
                # machine-readable one (ISO 8601, epoch) also says its time zone.
                machine = sum(bool(_MACHINE_TIME_RE.match(texts[k])) for k in timed) / len(timed)
                score = len(timed) / n_posts + 0.5 + _chronological(timed) + 0.25 * machine
                scored["time"].append((score, *tie, place))
        numbers = ((k, parse_floor(t)) for k, t in texts.items())
        floors = _kept(numbers, lambda pair: pair[1] is not None, needed, len(texts))
        if floors is not None:
            increasing = True
            for page_index in range(len(per_page)):
                seq = [f for (p, _), f in sorted(floors) if p == page_index]  # floors found only
                if any(b <= a for a, b in zip(seq, seq[1:])):
                    increasing = False
            if increasing:
                scored["floor"].append((len(floors) / n_posts, *tie, place))
    for name, candidates in scored.items():
        if candidates:
            candidates.sort(reverse=True)
            result[name] = _innermost([c[3] for c in candidates if c[:2] == candidates[0][:2]], values)
            report[name] = {_place_name(place): round(score, 3) for score, _, _, place in candidates[:5]}
    times = values.get(result["time"], {}) if result["time"] else {}
    return result, report, month_first([value for _, value in times.values()])


def _innermost(
    tied: list[tuple[str, str | None]],
    values: dict[tuple[str, str | None], dict[tuple[int, int], tuple[HtmlElement, str]]],
) -> tuple[str, str | None]:
    """The first of equally scored places, or a place inside it that reads the same value on
    every post: a wrapper (a ``<li>`` of a post's header line) holds the field on the sample's
    posts, and other things on others (an edit-history link before the time on edited posts);
    the element that holds the value alone holds it on every post."""
    chosen = tied[0]
    for place in tied[1:]:
        outer, inner = values[chosen], values[place]
        if outer.keys() == inner.keys() and all(
            inner[k][1] == outer[k][1] and inner[k][0] in outer[k][0].iterdescendants() for k in outer
        ):
            chosen = place
    return chosen


def _place_name(place: tuple[str, str | None]) -> str:
    """``locator`` or ``locator @attribute``, as a rule's report shows a field's place."""
    loc, attr = place
    return f"{loc} @{attr}" if attr else loc


def _learn_exclusions(
    trees: list[HtmlElement], rule_body: str, prefix_chars: int, *, quotes_only: bool = False
) -> tuple[list[str], dict[str, float]]:
    """Elements inside bodies that repeat earlier posts (quotes) or other posts (signatures),
    or that open with a quote's attribution ("Originally Posted by", "X wrote:"): a quote of
    a post on an earlier page repeats nothing the sample shows. ``quotes_only``: elements that
    are quotes by their markup or attribution (:func:`~forumcrawl.extractors.posts.is_quote`)
    and nothing else, for many pages, where a highlighted word of code repeats too."""
    votes: Counter[str] = Counter()
    seen_texts: Counter[str] = Counter()
    candidates: list[tuple[str, str]] = []
    for tree in trees:
        earlier: set[str] = set()
        for body in select(tree, rule_body):
            body_text = body.text_content()
            segment = segments_cjk((body_text,))
            body_tokens = set(tokenize(body_text, segment=segment))
            for el in body.iterdescendants():
                if not isinstance(el.tag, str):
                    continue
                loc = _own_locator(el) or (el.tag if el.tag in {"blockquote", "q", "fieldset"} else None)
                if not loc:
                    continue
                text = " ".join(el.text_content().split())
                if len(text) < 10 or (quotes_only and not is_quote(el, text)):
                    continue
                # A code block is the post's words even where posts repeat it (a config or a
                # command pasted again): only a quote holding code is left out.
                if _holds_code(el) and not is_quote(el, text):
                    continue
                tokens = set(tokenize(text, segment=segment))
                repeats = bool(tokens and earlier and len(tokens & earlier) >= 0.8 * len(tokens))
                # An attribution on a line of its own (a paragraph opening "Smith said:" is none).
                if repeats or (QUOTE_HEAD.match(text) and _has_block(el)):
                    votes[loc] += 1
                candidates.append((loc, text))
                seen_texts[text] += 1
            earlier |= body_tokens
    for loc, text in candidates:
        if seen_texts[text] >= 2 and len(text) >= 15 and not quotes_only:
            votes[loc] += 1
    default = set(DEFAULT_EXCLUDE)
    learned = sorted(loc for loc, n in votes.items() if n >= 2 and loc not in default)
    return learned, dict(votes.most_common(5))


_CODE_XPATH = lxml.etree.XPath("boolean(descendant-or-self::*[self::pre or self::code])")


def _holds_code(el: HtmlElement) -> bool:
    """Whether ``el`` is or holds a code block (``pre`` or ``code``)."""
    return bool(_CODE_XPATH(el))


class KeywordScoringExtractor(Estimator):
    """Learn a forum's post-extraction rule from a few thread pages by keyword scoring (KSF).

    Each sample page is reduced to text lines; stop rules and similarity rules drop template
    lines; TF-IDF (formulas 9-11) over the sample picks each page's keywords; every keyword
    occurrence votes for the location of the element holding it; the location with the most
    votes wins within each page, and the location that wins the most pages becomes the rule
    (Algorithm 4 applied twice, Algorithm 5). With fewer than three pages the IDF comes from a
    background corpus shipped with forumcrawl, so one page is enough (single-page mode).

    Parameters
    ----------
    n_pages : int, default=5
        Sample size: at most this many of the given documents are used (drawn at random).
    top_k : int, default=40
        Keywords per page that vote.
    prefix_chars : int, default=6
        Length of the line prefix compared by the similarity rules.
    min_line_chars : int, default=5
        Stop rule: lines with fewer non-blank characters are dropped.
    max_link_ratio : float, default=0.5
        Stop rule: lines whose link text exceeds this share of their text are dropped.
    template_share : float, default=0.5
        Similarity rule: a line prefix seen on more than this share of the pages (and on at
        least two) is template text.
    repeat_within : int, default=3
        Similarity rule: a line prefix repeated this often within one page is template text.
    min_coverage : float, default=0.6
        Share of the sample's posts in which a field location (author, time, floor) must be
        found to be recorded in the rule.
    random_state : int, RandomState instance or None, default=0
        Draws the sample when more than ``n_pages`` documents are given.
    min_bodies : int, default=1
        ``fit`` raises ValueError when the learned body matches fewer elements than this on
        every sample page, before learning containers, fields and exclusions: a page has at
        most as many posts as bodies, so a caller that needs two posts (a thread) stops there.

    Attributes
    ----------
    rule_ : KsfRule
        The learned rule (body, container, fields, exclusions, votes).
    keywords_ : list of list of str
        The top keywords of each sample page, best first.
    sample_urls_ : list of str
        URLs of the sample pages, in the order used.

    References
    ----------
    .. [1] Liu R., Tan W., Fu Y., Wang H. "A topic-post extraction method for web forums based on
       URL structure clustering and keyword scoring", §3.2 (formulas 9-11, Algorithms 4-5), 2018.
       (``seeds/003``; English summary in DESIGN.md §3.)

    Examples
    --------
    >>> from forumcrawl.document import Document
    >>> page = '''<html><body><div class="nav">Home Forum</div>
    ... <div class="post"><span class="name">ann</span><div class="msg">Kernel panic after upgrade
    ... to the new graphics driver on my laptop</div></div>
    ... <div class="post"><span class="name">bob</span><div class="msg">Roll back the driver
    ... package and pin the older kernel version</div></div></body></html>'''
    >>> ksf = KeywordScoringExtractor().fit([Document.from_text(page, "http://f.example/t/1")])
    >>> ksf.rule_.body, ksf.rule_.container, ksf.rule_.author
    ('div.msg', 'div.post', 'span.name')
    >>> [p.author for p in ksf.extract(Document.from_text(page))]
    ['ann', 'bob']
    """

    def __init__(
        self,
        n_pages: int = 5,
        top_k: int = 40,
        prefix_chars: int = 6,
        min_line_chars: int = 5,
        max_link_ratio: float = 0.5,
        template_share: float = 0.5,
        repeat_within: int = 3,
        min_coverage: float = 0.6,
        random_state: int | np.random.RandomState | None = 0,
        min_bodies: int = 1,
    ) -> None:
        self.n_pages = n_pages
        self.top_k = top_k
        self.prefix_chars = prefix_chars
        self.min_line_chars = min_line_chars
        self.max_link_ratio = max_link_ratio
        self.template_share = template_share
        self.repeat_within = repeat_within
        self.min_coverage = min_coverage
        self.random_state = random_state
        self.min_bodies = min_bodies

    def _validate(self) -> None:
        for name in ("n_pages", "top_k", "prefix_chars", "repeat_within", "min_bodies"):
            value = getattr(self, name)
            if not isinstance(value, Integral) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not isinstance(self.min_line_chars, Integral) or self.min_line_chars < 0:
            raise ValueError(f"min_line_chars must be a non-negative integer, got {self.min_line_chars!r}")
        for name in ("max_link_ratio", "template_share", "min_coverage"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")

    def fit(
        self,
        documents: Sequence[Document],
        y: None = None,
        *,
        credible: Callable[[str, str | None], bool] | None = None,
    ) -> KeywordScoringExtractor:
        """Learn ``rule_`` and ``keywords_`` from sample thread pages of one site.

        ``credible(body, container)``, when given, is asked once both are learned; when it says
        no, fit raises ValueError there, before learning fields and exclusions (single-page KSF
        drops a body it does not believe, and learning fields is half the work)."""
        self._validate()
        docs = [doc for doc in documents if doc.tree is not None]
        if len(docs) > 1:  # a page given twice counts once (one page needs no hash of itself)
            unique: dict[str, Document] = {}
            for doc in docs:
                unique.setdefault(hashlib.sha1(doc.html.encode("utf-8", "replace")).hexdigest(), doc)
            docs = list(unique.values())
        if not docs:
            raise ValueError("no parseable document to learn from")
        # An affix is shared by two titles at least: one page has none (nor reads its title).
        affixes = title_affixes([doc.title for doc in docs]) if len(docs) > 1 else []
        if len(docs) > self.n_pages:  # a random state costs 0.1 ms to make: only when drawing
            import numpy as np  # not at import: extracting single pages never draws

            state = self.random_state
            rng = state if isinstance(state, np.random.RandomState) else np.random.RandomState(state)
            picked = rng.choice(len(docs), size=self.n_pages, replace=False)
            docs = [docs[i] for i in sorted(picked)]
        trees = [doc.tree for doc in docs]
        n = len(docs)
        pages = [_lines(doc) for doc in docs]
        kept = _keep_lines(
            pages,
            prefix_chars=self.prefix_chars,
            min_line_chars=self.min_line_chars,
            max_link_ratio=self.max_link_ratio,
            template_pages=max(2, math.floor(self.template_share * n) + 1),
            repeat_within=self.repeat_within,
        )
        known: dict[str, bool] = {}
        line_tokens = [_page_keywords(page, known) for page in kept]
        counts = [Counter(t for tokens in page for t in tokens) for page in line_tokens]
        if n >= 3:
            weights = ksf_weights(counts)
            mode = "sample"
        else:
            background = load_background()
            weights = [background_weights(c, background) for c in counts]
            mode = "single" if n == 1 else "background"
        keywords: list[list[str]] = []
        page_votes: list[Counter[str]] = []
        winners: list[str] = []
        for page, tokens_per_line, w, c in zip(kept, line_tokens, weights, counts):
            # The top_k best words (ties by count, then the word: keys are unique, so this is the
            # head of the whole ranking without sorting it).
            scored = (t for t in w if w[t] > 0)
            top = heapq.nsmallest(self.top_k, scored, key=lambda t: (-w[t], -c[t], t))
            keywords.append(top)
            page_locators, votes = _page_candidates(page, tokens_per_line, set(top), _CLASS_SHARE)
            page_votes.append(votes)
            winners.extend(page_locators)
        best = scoring(winners)
        if not best:
            raise ValueError("no keyword found in the sample pages: nothing to learn a rule from")
        across = Counter(winners)
        body = _refine_body(trees, min(best, key=lambda loc: (-len(_select_all(trees, loc)), loc)))
        pages_bodies = [select(tree, body) for tree in trees]
        if max(map(len, pages_bodies)) < self.min_bodies:
            raise ValueError(f"the learned body {body} matches fewer than {self.min_bodies} elements")
        container, container_votes = _learn_container(trees, pages_bodies)
        if credible is not None and not credible(body, container):
            raise ValueError(f"the learned body {body} is not credible")
        fields, field_report, month_first_dates = _learn_fields(trees, body, container, self.min_coverage)
        exclude, exclude_votes = _learn_exclusions(trees, body, self.prefix_chars)
        field_report = {"container": dict(container_votes), **field_report}
        if exclude_votes:
            field_report["exclude"] = dict(exclude_votes)
        places = {name: place or (None, None) for name, place in fields.items()}
        self.rule_ = KsfRule(
            body=body,
            container=container,
            author=places["author"][0],
            time=places["time"][0],
            floor=places["floor"][0],
            author_attr=places["author"][1],
            time_attr=places["time"][1],
            floor_attr=places["floor"][1],
            exclude=exclude,
            month_first=month_first_dates,
            title_affixes=affixes,
            votes=dict(across.most_common()),
            page_votes=[dict(v.most_common(5)) for v in page_votes],
            field_votes=field_report,
            site=docs[0].site,
            n_pages=n,
            mode=mode,
        )
        self.keywords_ = keywords
        self.sample_urls_ = [doc.url for doc in docs]
        return self

    def _check_fitted(self) -> KsfRule:
        rule = getattr(self, "rule_", None)
        if rule is None:
            raise not_fitted(f"This {type(self).__name__} instance is not fitted yet. Call 'fit' first.")
        return rule

    def extract(self, document: Document, *, now: datetime | None = None) -> list[Post]:
        """The posts of ``document`` by the learned rule (empty when the rule matches nothing)."""
        return apply_rule(self._check_fitted(), document, now=now)


def with_site_pages(rule: KsfRule, documents: Sequence[Document]) -> KsfRule:
    """``rule`` with what every thread page at hand tells beyond a five-page sample (whose
    pages may all be first pages, or all of a few days):

    - ``repeats_first``: whether the site puts a post of an earlier page at the top of a
      thread's later pages (Askbot's question, Misago's last post of the page before): the
      first post (author and text) of at least half of the later pages
      (:func:`~forumcrawl.extractors.ksf_apply.later_page`), and of two, is a post another
      page shows. Pages that show the same posts (two URLs of one page) count once.
    - ``month_first``: :func:`~forumcrawl.extractors.dates.month_first` of every post time,
      the pages' order of replies deciding when no date can be read one way only.
    - ``exclude``: quotes (:func:`_learn_exclusions`) of up to :data:`_EXCLUDE_PAGES` pages
      added: five pages may hold one quote, too few to vote.
    """
    trees = [doc.tree for doc in documents[:_EXCLUDE_PAGES]]
    learned, _ = _learn_exclusions(trees, rule.body, 6, quotes_only=True)
    rule = dataclasses.replace(rule, exclude=sorted({*rule.exclude, *learned}))
    epoch = datetime(2000, 1, 1)
    pages_of: Counter[tuple[str | None, str]] = Counter()
    firsts: list[tuple[str | None, str]] = []
    seen_pages: set[tuple[tuple[str | None, str], ...]] = set()
    times: list[list[str]] = []
    for doc in documents:
        posts = apply_rule(rule, doc, now=epoch)
        keys = tuple((p.author, p.text) for p in posts if p.text)
        if not keys or keys in seen_pages:
            continue
        seen_pages.add(keys)
        pages_of.update(set(keys))
        times.append([p.published_raw for p in posts if p.published_raw])
        if len(keys) > 1 and later_page(doc.tree, doc.url):
            firsts.append(keys[0])
    repeated = sum(pages_of[key] >= 2 for key in firsts)
    return dataclasses.replace(
        rule,
        repeats_first=repeated >= 2 and repeated >= _REPEAT_SHARE * len(firsts),
        month_first=month_first([t for page in times for t in page], times) if any(times) else rule.month_first,
    )


@lru_cache(maxsize=4096)
def _find_time(text: str) -> str | None:
    """:func:`~forumcrawl.extractors.dates.find_time`, cached: learning a page's fields asks
    it of each candidate value up to five times (52,000 calls, 10,000 texts on dragnet)."""
    return find_time(text)


@lru_cache(maxsize=4096)
def _noise_body(locator: str) -> bool:
    """Whether a body locator names code, quote, spoiler or signature blocks, not posts
    (cached: every ancestor of every matched body is asked, and a page repeats its classes)."""
    tag = selector_tag(locator)
    tokens = [t.lower() for t in re.findall(r"\.([\w-]+)", locator)]
    return tag in _NOISE_BODY_TAGS or any(
        t in _NOISE_TOKEN_SET or any(part in t for part in _NOISE_BODY_PARTS) for t in tokens
    )


def _lines(document: Document) -> list[Line]:
    """The document's KSF lines, read once per page however often they are needed."""
    return document.derived(
        "ksf.lines",
        lambda: page_lines(document.tree, None if _compiled is not None else document_steps(document)),
    )


def body_coverage(tree: HtmlElement, bodies: Sequence[HtmlElement], lines: Sequence[Line] | None = None) -> float:
    """Share of the page's prose (long, mostly unlinked lines) that lies inside ``bodies``.

    A thread's posts are most of what a reader reads on its page; a sidebar, a code block or
    one quoted paragraph that won the keyword vote is a small part of it. A page without any
    prose line gives 1.0 (nothing to compare with).
    """
    inside = {el for body in bodies for el in body.iter()}
    total = covered = 0
    for line in page_lines(tree) if lines is None else lines:
        chars = len(line.text)
        if chars < _PROSE_CHARS or line.link_chars > _PROSE_LINK_RATIO * chars:
            continue
        total += chars
        if line.element in inside:
            covered += chars
    return covered / total if total else 1.0


def single_rule(document: Document, *, min_posts: int = 1) -> KsfRule | None:
    """The KSF rule of one page with no other page of its site at hand (single-page KSF).

    None when the page has no text to score, or when the learned body is not credible (judged
    as soon as body and container are learned, before the fields): a code/quote/signature
    block, or bodies holding too little of the page's prose (less is asked of bodies that sit
    in repeated post containers). The cascade then falls back to its next stage, which does
    better than a confidently wrong region. With ``min_posts``, also when the page cannot give
    that many posts (fewer bodies), learned no further than the body (a caller that wants a
    thread has no use for one post).
    """
    tree = document.tree
    if tree is None:
        return None

    def credible(body: str, container: str | None) -> bool:
        if _noise_body(body):
            return False
        needed = _SINGLE_COVERAGE_REPEATED if container else _SINGLE_COVERAGE
        return body_coverage(tree, select(tree, body), _lines(document)) >= needed

    try:
        return KeywordScoringExtractor(min_bodies=min_posts).fit([document], credible=credible).rule_
    except ValueError:
        return None


@dataclass
class SinglePage:
    """What single-page KSF found on a page."""

    posts: list[Post] = dataclasses.field(default_factory=list)
    #: The posts are an article with its readers' comments (:func:`comments_on_first`).
    commented: bool = False
    #: The posts are an article's readers' comments, all of them, below the article, which is
    #: outside them: the elements that hold them and the comment form
    #: (:func:`~forumcrawl.extractors.ksf_apply.comment_section`); empty for a thread.
    comments: list[HtmlElement] = dataclasses.field(default_factory=list)


def single_posts(document: Document, *, now: datetime | None = None, min_posts: int = 1) -> SinglePage:
    """Posts of one page by its :func:`single_rule` (none without one), and whether they are an
    article with its readers' comments (:func:`comments_on_first`) or an article's comments
    (:func:`~forumcrawl.extractors.ksf_apply.comment_section`, on a page that does not declare
    itself a thread) rather than a thread."""
    rule = single_rule(document, min_posts=min_posts)
    tree = document.tree
    if rule is None or tree is None:
        return SinglePage()
    posts = apply_rule(rule, document, now=now)
    if comments_on_first(tree, rule, posts):
        return SinglePage(posts, commented=True)
    section = comment_section(tree, rule, posts, document_lines(document))
    if section and declares_thread(document):
        section = []
    return SinglePage(posts, commented=bool(section), comments=section)


def extract_single(document: Document, *, now: datetime | None = None, min_posts: int = 1) -> list[Post]:
    """Posts of one page by its :func:`single_rule`; an empty list without one."""
    rule = single_rule(document, min_posts=min_posts)
    return apply_rule(rule, document, now=now) if rule is not None else []
