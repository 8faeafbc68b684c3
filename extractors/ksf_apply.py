"""Applying a learned KSF rule to a thread page: posts with text, author, time and floor.

This is the per-page hot path of a crawl, so it parses nothing and learns nothing: a few
compiled XPath evaluations over the already-parsed tree (cached per selector), the fields of each
post taken where the page's previous post had them (:class:`_Template`), one pass over each
post body's markup for its text, and one regex pass over each post header for its time. The
learning side is :mod:`forumcrawl.extractors.ksf`, which produces the :class:`KsfRule` used here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urljoin, urlsplit

import lxml.etree
from cssselect import GenericTranslator

from forumcrawl.extractors.arbiter import comment_forms, common_ancestor, numbered_comments
from forumcrawl.extractors.dates import read_markup_time, read_time
from forumcrawl.extractors.fields import anchors
from forumcrawl.extractors.navigation import canonical_url, url_numbers
from forumcrawl.extractors.posts import (
    DEFAULT_EXCLUDE,
    compile_selector,
    is_xpath,
    own_texts,
    parse_floor,
)
from forumcrawl.items import Post

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lxml.html import HtmlElement

    from forumcrawl.document import Document
    from forumcrawl.extractors.cx import PageLines

__all__ = [
    "MAX_AUTHOR_CHARS",
    "RULE_VERSION",
    "KsfRule",
    "RepeatedPosts",
    "apply_rule",
    "comment_section",
    "comments_on_first",
    "field_text",
    "first_match",
    "later_page",
    "outermost",
    "select",
    "selector_tag",
]

#: Version 2 added where a field's value is read (``*_attr``: an attribute instead of the text)
#: and the site's title affixes, version 3 ``repeats_first``; older rules read as rules without
#: them.
RULE_VERSION = 3

#: Longest author name and longest field text kept (longer ones are user panels, not fields).
MAX_AUTHOR_CHARS = 40
_MAX_FIELD_CHARS = 120
_TIME_ATTRS = ("datetime", "title", "data-time", "data-datetime")
# The XPath expressions built here use no EXSLT regular expressions: ``regexp=False`` spares
# registering those functions on every call (a fifth of a small evaluation's cost). Selectors
# written as XPath in a rule keep them (compile_selector).
_TIME_ATTRS_XPATH = lxml.etree.XPath(
    "descendant-or-self::*[@datetime or @title or @data-time or @data-datetime]", regexp=False
)
_translator = GenericTranslator()
#: Anchors that lead back a page: "previous" in a few languages, and arrows.
_PREVIOUS = re.compile(
    r"^(?:prev(?:ious)?(?: page)?|«|‹|<|<<|上一页|上一頁|上页|zurück|vorherige(?: seite)?|précédent"
    r"|pr[ée]c[ée]dente?|anterior)$",
    re.IGNORECASE,
)


def outermost(elements: Sequence[HtmlElement], tag: str | None = None) -> list[HtmlElement]:
    """Drop elements nested inside another element of the list (document order kept).

    With ``tag`` (every element has it) only ancestors of that tag are looked at, a filter lxml
    applies before creating Python proxies for them.
    """
    if len(elements) < 2:
        return list(elements)
    chosen = set(elements)
    return [el for el in elements if not any(a in chosen for a in el.iterancestors(tag))]


@lru_cache(maxsize=1024)
def _simple_xpath(selector: str) -> lxml.etree.XPath | None:
    """For a simple CSS selector (one compound, no combinator), an XPath of all its matches.

    Nested matches are dropped in Python (:func:`_outermost`): an ``ancestor`` test inside the
    XPath is evaluated for every candidate and costs more than the parse of a small page.
    """
    if is_xpath(selector) or re.search(r"[\s>+~,]", selector):
        return None
    return lxml.etree.XPath(
        _translator.css_to_xpath(selector, prefix="descendant-or-self::"), regexp=False
    )


_CLASS_SELECTOR = re.compile(r"([A-Za-z][\w-]*)?((?:\.[\w-]+)+)")


@lru_cache(maxsize=1024)
def _class_parts(selector: str) -> tuple[str, frozenset[str]] | None:
    """For ``tag.a.b`` selectors: the element name as written (``*`` for any) and the class
    tokens an element must carry."""
    found = _CLASS_SELECTOR.fullmatch(selector)
    if found is None:
        return None
    return found.group(1) or "*", frozenset(found.group(2)[1:].split("."))


@lru_cache(maxsize=1024)
def _class_prefilter(selector: str) -> tuple[lxml.etree.XPath, frozenset[str]] | None:
    """For ``tag.a.b`` selectors: a cheap XPath (substring tests on ``@class``) and the class
    tokens each candidate must carry. cssselect's exact class test (``concat`` of
    ``normalize-space``) costs about as much as parsing a small page; the substring test passes
    few false candidates, which the token check then drops."""
    parts = _class_parts(selector)
    if parts is None:
        return None
    tag, classes = parts
    return lxml.etree.XPath(f"descendant-or-self::{tag}[{_contains(classes)}]", regexp=False), classes


def _contains(classes: frozenset[str]) -> str:
    """The XPath substring tests of ``@class`` for ``classes`` (tokens hold no quote)."""
    return " and ".join(f"contains(@class, '{c}')" for c in sorted(classes))


#: The last tree searched, and by selector what :func:`_matches` and :func:`select` found in it:
#: single-page KSF searches one page for its body's locator five to nine times while it learns
#: and applies its rule, each a search of the whole tree. The tree is kept until another is
#: searched (no tree is changed after it is read: :meth:`Document.without` changes a copy).
_LAST_TREE: list[Any] = [None, {}]


def _found_in(tree: HtmlElement) -> dict[tuple[str, str], Any]:
    if _LAST_TREE[0] is not tree:
        _LAST_TREE[:] = [tree, {}]
    return _LAST_TREE[1]  # type: ignore[no-any-return]


def _matches(tree: HtmlElement, selector: str) -> tuple[list[HtmlElement], str | None]:
    """Every element matching ``selector`` (nested ones too) in document order, and the element
    name all of them have when the selector requires one."""
    known = _found_in(tree)
    found = known.get(("matches", selector))
    if found is None:
        found = known["matches", selector] = _search(tree, selector)
    return list(found[0]), found[1]


def _search(tree: HtmlElement, selector: str) -> tuple[list[HtmlElement], str | None]:
    prefilter = _class_prefilter(selector)
    if prefilter is not None:
        xpath, classes = prefilter
        exact = [el for el in xpath(tree) if classes <= set((el.get("class") or "").split())]
        return exact, selector_tag(selector)
    fast = _simple_xpath(selector)
    if fast is None:
        return [e for e in compile_selector(selector)(tree) if isinstance(e.tag, str)], None
    return fast(tree), selector_tag(selector)


def select(tree: HtmlElement, selector: str | None) -> list[HtmlElement]:
    """Outermost elements matching ``selector`` in document order."""
    if not selector:
        return []
    known = _found_in(tree)
    found = known.get(("select", selector))
    if found is None:
        found = known["select", selector] = outermost(*_matches(tree, selector))
    return list(found)


#: The word blog and news engines put in the class or id of their readers' comments
#: (WordPress ``commentlist``, Disqus ``dsq-comment``, Drupal ``comment-wrapper``).
_COMMENT_NAME = "comment"


def _in_comments(element: HtmlElement) -> bool:
    """``element`` or an ancestor of it is named as a comment by its class or id."""
    for node in (element, *element.iterancestors()):
        for name in (node.get("class"), node.get("id")):
            if name and _COMMENT_NAME in name.lower():
                return True
    return False


def comments_on_first(tree: HtmlElement, rule: KsfRule, posts: Sequence[Post]) -> bool:
    """Whether ``posts``, read from ``tree`` by ``rule``, are an article with its readers'
    comments rather than a thread: the page names most posts after the first as comments (by
    their container's or body's class or id, or an ancestor's) and not the first, and the first
    holds at least half of their words. Forum engines name replies comments too (Vanilla,
    Lemmy), but their opening post is one post among the others; an article is the page's main
    text, its comments reactions to it."""
    heads = _heads(tree, rule, posts)
    if len(posts) < 2 or len(heads) != len(posts) or _in_comments(heads[0]):
        return False
    if 2 * sum(map(_in_comments, heads[1:])) <= len(heads) - 1:
        return False
    sizes = [len("".join(post.text.split())) for post in posts]
    return 2 * sizes[0] >= sum(sizes)


_ARTICLES = lxml.etree.XPath("//article")


def comment_section(
    tree: HtmlElement, rule: KsfRule, posts: Sequence[Post], lines: PageLines
) -> list[HtmlElement]:
    """The elements of an article's readers' comments and the form to add one, when ``posts``,
    read from ``tree`` by ``rule``, are those comments; else an empty list. ``lines``: the
    page's lines (:func:`~forumcrawl.extractors.cx.document_lines`), whose walk gathered its
    forms.

    They are when the page names every post a comment (by its container's or body's class or
    id, or an ancestor's), anchors them by number (``id="comment-24152"``,
    :func:`~forumcrawl.extractors.arbiter.numbered_comments`) and has a comment form, or one
    ``<article>`` that holds none of them (Slashdot's story, its comment form written by
    script): a blog or news engine's comment thread below the article, which is the page's
    main text and lies outside them. Forum engines name their posts comments too (Vanilla, a
    Chinese forum's ``div.comment``) and have a reply form, but leave them unnumbered or
    declare the page a thread (JSON-LD, which the caller reads).

    The elements: each post's (its container, else its body: the comment's author and time lie
    in it), the form's, and the nearest element holding every post when it is named a comment
    itself (``ol.commentlist``: the comments KSF left out, hidden or nested, lie in it). That
    element unnamed may hold the article too (a theme's content column)."""
    if len(posts) < 2:
        return []
    heads = _heads(tree, rule, posts)
    if len(heads) != len(posts) or not all(map(_in_comments, heads)) or not numbered_comments(heads):
        return []
    forms = comment_forms(lines)
    articles = _ARTICLES(tree) if not forms else []
    if not forms and (
        len(articles) != 1 or any(a is articles[0] for head in heads for a in head.iterancestors("article"))
    ):
        return []
    parts = [*heads, *forms[:1]]
    section = common_ancestor(heads)
    if section is not None and _in_comments_name(section):
        parts.append(section)  # the list of comments: the ones KSF left out (hidden, nested) too
    return parts


def _heads(tree: HtmlElement, rule: KsfRule, posts: Sequence[Post]) -> list[HtmlElement]:
    """One element per post of ``posts`` (read from ``tree`` by ``rule``), as apply_rule
    groups them: its container, else its body."""
    pairs = _posts_of(tree, rule.body, rule.container)
    heads = list({id(o if o is not None else b): o if o is not None else b
                  for b, o in pairs if o is not None or not rule.container}.values())
    return heads[len(heads) - len(posts):]  # a later page may leave out a repeated first post


def _in_comments_name(element: HtmlElement) -> bool:
    """``element`` itself is named as a comment by its class or id."""
    return any(name and _COMMENT_NAME in name.lower() for name in (element.get("class"), element.get("id")))


@lru_cache(maxsize=1024)
def selector_tag(selector: str) -> str | None:
    """The element name a simple CSS selector requires (``div`` of ``div.post``), if any."""
    m = re.match(r"[A-Za-z][\w-]*", selector)
    return m.group().lower() if m else None


def _owner(body: HtmlElement, containers: set[HtmlElement], tag: str | None) -> HtmlElement | None:
    """The nearest ancestor of ``body`` among ``containers`` (of element name ``tag``)."""
    return next((a for a in body.iterancestors(tag) if a in containers), None)


def _posts_of(
    tree: HtmlElement, body: str, container: str | None
) -> list[tuple[HtmlElement, HtmlElement | None]]:
    """The outermost post bodies in page order, each with its post container: the nearest
    ancestor among the outermost matches of ``container`` (``None`` outside every post).

    For a ``tag.a.b`` container that is the topmost matching ancestor. One walk up from each
    body finds it and whether the body sits in another body; each ancestor's answer is kept, so
    the walks of later bodies stop where they meet an earlier one. A second XPath scan of the
    page for containers, and a second walk for nesting, cost more.
    """
    parts = _class_parts(container) if container else None
    if parts is None:
        bodies = select(tree, body)
        if not container:
            return [(b, None) for b in bodies]
        containers = set(select(tree, container))
        tag = selector_tag(container) if _simple_xpath(container) else None
        return [(b, _owner(b, containers, tag)) for b in bodies]
    found, body_tag = _matches(tree, body)
    name, classes = parts
    container_tag = selector_tag(container)
    if body_tag is None or container_tag is None:
        tags: tuple[str, ...] = ()
    else:
        tags = tuple(dict.fromkeys((body_tag, container_tag)))
    check_tag = name != "*" and tags != (name,)  # else lxml's tag filter has checked it
    probe = max(sorted(classes), key=len)  # a substring test before the token split
    chosen = set(found)
    # Per ancestor walked: whether it is or sits in a body, and the topmost container above it.
    known: dict[HtmlElement, tuple[bool, HtmlElement | None]] = {}
    pairs: list[tuple[HtmlElement, HtmlElement | None]] = []
    for element in found:
        inside, owner = False, None
        chain: list[HtmlElement] = []
        for ancestor in element.iterancestors(*tags):
            seen = known.get(ancestor)
            if seen is not None:
                inside, owner = seen
                break
            chain.append(ancestor)
        for ancestor in reversed(chain):
            inside = inside or ancestor in chosen
            if owner is None:
                value = ancestor.get("class")
                if (
                    value
                    and probe in value
                    and (not check_tag or ancestor.tag == name)
                    and classes <= set(value.split())
                ):
                    owner = ancestor
            known[ancestor] = (inside, owner)
        if not inside:
            pairs.append((element, owner))
    return pairs


def _class_step(tag: str, classes: frozenset[str]) -> str:
    """An XPath step matching what cssselect's ``tag.a.b`` matches: substring tests on
    ``@class`` first, so that its exact token test (``concat`` of ``normalize-space``, which
    costs more) runs on few candidates."""
    exact = " and ".join(
        f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')" for c in sorted(classes)
    )
    return f"{tag}[{_contains(classes)}][{exact}]"


@lru_cache(maxsize=1024)
def _first_finder(selector: str) -> lxml.etree.XPath:
    """The XPath :func:`first_match` evaluates: for ``tag.a.b`` selectors the first match
    alone, which spares building the Python list of all matches."""
    exact = compile_selector(selector, relative=True)  # raises for an invalid selector
    parts = None if is_xpath(selector) else _class_parts(selector)
    if parts is None:
        return exact
    return lxml.etree.XPath(f"descendant::{_class_step(*parts)}[1]", regexp=False)


def first_match(container: HtmlElement, selector: str) -> HtmlElement | None:
    """The first element below ``container`` that ``selector`` matches, in document order."""
    for el in _first_finder(selector)(container):
        if isinstance(getattr(el, "tag", None), str):
            return el
    return None


@lru_cache(maxsize=1024)
def _text_finder(selector: str) -> lxml.etree.XPath | None:
    """For a CSS selector: an XPath of the text of its first match below a container. A field
    then costs one XPath call instead of the match, its Python proxy and a second call for its
    text. XPath selectors may pick text or attribute nodes, which :func:`first_match` skips."""
    first = _first_finder(selector)  # raises for an invalid selector
    if is_xpath(selector):
        return None
    return lxml.etree.XPath(f"string(({first.path})[1])", regexp=False, smart_strings=False)


def _first_text(container: HtmlElement, selector: str) -> str:
    """:func:`field_text` of the first match of ``selector`` below ``container`` (``""`` if none)."""
    xpath = _text_finder(selector)
    if xpath is None:
        found = first_match(container, selector)
        return field_text(found) if found is not None else ""
    return " ".join(xpath(container).split())[:_MAX_FIELD_CHARS]


_CHILD_PATH = re.compile(r"\./[A-Za-z][\w-]*(?:/[A-Za-z][\w-]*)*")


@dataclass(frozen=True, slots=True)
class _Place:
    """What an element found at a remembered position must be to match a selector: for
    ``tag.a.b``, its name (``*``: any) and class tokens; for an XPath child path such as
    ``./div/div/p``, the names of the elements on the way down (``steps``)."""

    name: str = "*"
    classes: frozenset[str] = frozenset()
    steps: tuple[str, ...] = ()

    def follow(self, container: HtmlElement, path: tuple[int, ...]) -> HtmlElement | None:
        """The element ``path`` (child indexes) leads to from ``container`` if it matches."""
        element = container
        try:
            if self.steps:
                for index, step in zip(path, self.steps):
                    element = element[index]
                    if element.tag != step:
                        return None
                return element
            for index in path:
                element = element[index]
        except IndexError:
            return None
        if self.name != "*" and element.tag != self.name:
            return None
        return element if self.classes <= set((element.get("class") or "").split()) else None


@lru_cache(maxsize=1024)
def _place(selector: str) -> _Place | None:
    """The :class:`_Place` test of the selectors a post template fixes in place (``tag.a.b``
    and XPath child paths); ``None`` for the others, which are always searched."""
    parts = None if is_xpath(selector) else _class_parts(selector)
    if parts is not None:
        return _Place(name=parts[0], classes=parts[1])
    if _CHILD_PATH.fullmatch(selector):
        return _Place(steps=tuple(selector[2:].split("/")))
    return None


class _Template:
    """Where the page's previous post had each field, as child indexes from its container.

    Posts of one page come from one template, so a field is first looked for at the position
    where the previous post had it, and searched for (:func:`first_match`) only when the element
    there does not match: a few index steps instead of a walk through the post body. A quote of
    an earlier post's header inside a body is thus not taken for this post's author or time.
    """

    __slots__ = ("_paths",)

    def __init__(self) -> None:
        self._paths: dict[str, tuple[int, ...]] = {}

    def find(self, container: HtmlElement, selector: str) -> HtmlElement | None:
        """The element of ``selector`` in ``container``: at the remembered position, else the
        first match."""
        place = _place(selector)
        if place is None:
            return first_match(container, selector)
        path = self._paths.get(selector)
        if path is not None:
            found = place.follow(container, path)
            if found is not None:
                return found
        found = first_match(container, selector)
        if found is not None:
            self._paths[selector] = _index_path(container, found)
        return found

    def text(self, container: HtmlElement, selector: str) -> str:
        """:func:`field_text` of :meth:`find` (``""`` if none)."""
        if _place(selector) is None:
            return _first_text(container, selector)
        found = self.find(container, selector)
        return field_text(found) if found is not None else ""


def _index_path(container: HtmlElement, element: HtmlElement) -> tuple[int, ...]:
    """Child indexes leading from ``container`` down to ``element``, a descendant of it."""
    path = []
    while element is not container:
        parent = element.getparent()
        path.append(parent.index(element))
        element = parent
    return tuple(reversed(path))


# --------------------------------------------------------------------------------------------
# The rule.


@dataclass
class KsfRule:
    """A site's learned extraction rule: plain data, saved as JSON, editable by hand.

    Selectors starting with ``/``, ``.`` or ``(`` are XPath, others CSS. ``body`` is matched
    on the page, the others inside each post ``container`` (``exclude``: inside each body).

    Attributes
    ----------
    body : str
        Post bodies (the paper's extraction rule, e.g. ``td.t_f``, ``div.post-content``).
    container : str or None
        One element per post holding the body and its header (author, time, floor).
    author, time, floor : str or None
        Where those fields sit inside the container (``.``: the container itself).
    author_attr, time_attr, floor_attr : str or None
        The attribute that holds the field's value (``alt`` of an avatar, ``datetime`` of a
        ``<time>``, ``data-author`` of the container); ``None``: the element's text.
    month_first : bool
        The site writes numeric dates month first (``10-30-2026``), learned from its times.
    title_affixes : list of str
        The site's name as its pages' ``<title>`` carries it around the thread title
        (``" | Workbench Community"``), removed from a page's ``<title>`` to find its title.
    repeats_first : bool
        The site shows a post of an earlier page at the top of a thread's later pages
        (Askbot's question above every page of answers, Misago's last post of the page
        before): on a later page (:func:`later_page`) the first post is not read.
    exclude : list of str
        Elements inside a body that are not the post's own words (quotes, signatures, notices),
        in addition to the generic ones of ``forumcrawl.extractors.posts.DEFAULT_EXCLUDE``.
    votes : dict
        Across-page votes of the candidate body locations (how many sample pages each won).
    page_votes : list of dict
        Per sample page, the top candidate locations and their keyword votes.
    field_votes : dict
        Per field (container, author, time, floor, exclude), the scores of the candidates.
    site, n_pages, mode :
        Provenance: the site, the number of sample pages, ``"sample"`` or ``"single"``.
    """

    body: str
    container: str | None = None
    author: str | None = None
    time: str | None = None
    floor: str | None = None
    author_attr: str | None = None
    time_attr: str | None = None
    floor_attr: str | None = None
    exclude: list[str] = field(default_factory=list)
    month_first: bool = False
    title_affixes: list[str] = field(default_factory=list)
    repeats_first: bool = False
    votes: dict[str, int] = field(default_factory=dict)
    page_votes: list[dict[str, int]] = field(default_factory=list)
    field_votes: dict[str, dict[str, float]] = field(default_factory=dict)
    site: str = ""
    n_pages: int = 0
    mode: str = "sample"

    @property
    def rule_id(self) -> str:
        """Short digest of the selectors: two rules that extract alike share an id."""
        fields: list[Any] = [self.body, self.container, self.author, self.time, self.floor, sorted(self.exclude)]
        attrs = [self.author_attr, self.time_attr, self.floor_attr]
        if any(attrs) or self.title_affixes or self.month_first:  # version 1 rules keep their ids
            fields += [attrs, self.title_affixes, self.month_first]
        if self.repeats_first:  # and version 2 rules theirs
            fields.append("repeats_first")
        key = json.dumps(fields)
        return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (with ``rule_id`` and ``version`` for readers)."""
        data = asdict(self)
        data["rule_id"] = self.rule_id
        data["version"] = RULE_VERSION
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KsfRule:
        """Rebuild a rule from :meth:`to_dict` output (``rule_id`` is recomputed, not trusted)."""
        version = data.get("version", RULE_VERSION)
        if version > RULE_VERSION:
            raise ValueError(f"rule version {version} is newer than this forumcrawl ({RULE_VERSION})")
        if not data.get("body"):
            raise ValueError("a KSF rule needs a 'body' selector")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        rule = cls(**known)
        for selector in rule.selectors():
            compile_selector(selector)  # fail now, not on the first page
        return rule

    def selectors(self) -> list[str]:
        """Every selector of the rule, for validation and display."""
        fields = [self.body, self.container, self.author, self.time, self.floor, *self.exclude]
        return [s for s in fields if s]

    def __str__(self) -> str:
        parts = [f"KSF rule {self.rule_id} ({self.site or 'site?'}, {self.mode}, {self.n_pages} pages)"]
        for name in ("body", "container", "author", "time", "floor"):
            value = getattr(self, name)
            if value:
                attr = getattr(self, f"{name}_attr", None)
                parts.append(f"  {name:9} {value}" + (f" @{attr}" if attr else ""))
        if self.title_affixes:
            parts.append(f"  title     without {' / '.join(map(repr, self.title_affixes))}")
        if self.exclude:
            parts.append(f"  exclude   {', '.join(self.exclude)}")
        if self.repeats_first:
            parts.append("  later pages repeat an earlier post first")
        return "\n".join(parts)


def later_page(tree: HtmlElement | None, url: str) -> bool:
    """Whether a thread page says it is not its thread's first page: it links back a page
    (``rel="prev"``, a "previous" or "1" anchor) to its own URL with one number lower or left
    out (``/t/slug/7/2/`` → ``/t/slug/7/``, ``?page=2`` → ``?page=1``).

    Examples
    --------
    >>> import lxml.html
    >>> later_page(lxml.html.fromstring('<a href="?id=7&amp;page=1">1</a>'), "http://f.test/t?id=7&page=2")
    True
    >>> later_page(lxml.html.fromstring('<a href="/t/8/">1</a>'), "http://f.test/t/7/")
    False
    """
    if tree is None:
        return False
    here = canonical_url(url)
    targets = [urljoin(url, h.strip()) for h in tree.xpath("//head/link[@rel='prev']/@href")]
    for element, href in anchors(tree, url):
        rel = (element.get("rel") or "").lower().split()
        text = " ".join(element.text_content().split())
        if text == "1" or "prev" in rel or _PREVIOUS.match(text):
            targets.append(href)
    return any(_page_before(here, canonical_url(target)) for target in dict.fromkeys(targets))


def _page_before(here: str, there: str) -> bool:
    """Whether ``there`` is ``here`` with one number lower, or one number left out (a first
    page's URL without its page number)."""
    mine, theirs = url_numbers(here), url_numbers(there)
    if any(p not in mine for p in theirs):
        return False
    changed = [p for p, v in mine.items() if theirs.get(p) != v]
    if len(changed) != 1:
        return False
    position = changed[0]
    if position in theirs:
        return theirs[position] < mine[position] and _skeleton(here) == _skeleton(there)
    value = str(mine[position])
    a, b = urlsplit(here), urlsplit(there)
    if position[0] == "q":  # the page parameter left out
        kept = [(k, v) for k, v in parse_qsl(a.query, keep_blank_values=True) if k.lower() != position[1]]
        return (a.path, kept) == (b.path, parse_qsl(b.query, keep_blank_values=True))
    return a.query == b.query and a.path.rstrip("/") in {
        f"{b.path.rstrip('/')}/{value}", f"{b.path.rstrip('/')}/page/{value}"
    }


def _skeleton(url: str) -> str:
    return re.sub(r"\d+", "#", url)


class RepeatedPosts:
    """Posts a site shows again at the top of a thread's later pages, told from the pages read
    so far: on a later page, a first post that an earlier page of the same thread opened or
    closed with is not read again. This catches what a rule's ``repeats_first`` could not be
    learned for (a sample without a thread's later pages), when the earlier page is read first,
    as a crawl that follows page flips reads it.

    A repeat is the same post shown twice: same author, words and time as written, and, where
    the page shows floors, the same floor (a later page whose first floor is not 1 numbers its
    posts itself). Only an earlier page is repeated: a reply that says "+1" again after the
    same author's "+1" closed the page before, at another time or floor, is a post of its own,
    and no page repeats a later page's post (pages arrive in any order).

    Parameters
    ----------
    capacity : int, default=100000
        Posts remembered (two per page, the oldest forgotten first), which bounds memory.
    """

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._seen: OrderedDict[tuple[str, int], tuple[str, int | None, int | None]] = OrderedDict()

    def filter(self, url: str, thread: str, later: bool, posts: list[Post], page: int | None = None) -> list[Post]:
        """``posts`` of the page ``url`` of ``thread`` (``later``: not the thread's first page;
        ``page``: its number, when known) without a first post an earlier page showed."""
        if not posts:
            return posts
        if later and len(posts) > 1 and self._repeats(thread, posts[0], url, page):
            posts = posts[1:]
        for post in {id(posts[0]): posts[0], id(posts[-1]): posts[-1]}.values():
            self._seen.setdefault(self._key(thread, post), (url, page, post.floor))
        while len(self._seen) > self.capacity:
            self._seen.popitem(last=False)
        return posts

    def _repeats(self, thread: str, first: Post, url: str, page: int | None) -> bool:
        seen = self._seen.get(self._key(thread, first))
        if seen is None or seen[0] == url:
            return False
        _, seen_page, seen_floor = seen
        if page is not None and seen_page is not None and seen_page >= page:
            return False
        return first.floor in (None, 1) or first.floor == seen_floor

    @staticmethod
    def _key(thread: str, post: Post) -> tuple[str, int]:
        return thread, hash((post.author, post.published_raw or post.published, post.text))


# --------------------------------------------------------------------------------------------
# Applying a rule.


def _header_text(container: HtmlElement, body: HtmlElement) -> str:
    """Text of a post container outside its body (where headers and user panels are)."""
    parts = []
    for node in container.itertext():
        parts.append(node)
        if len(parts) > 200:
            break
    whole = " ".join(" ".join(parts).split())
    inner = " ".join(body.text_content().split())
    return whole.replace(inner, " ", 1) if inner else whole


def field_text(el: HtmlElement) -> str:
    """The whitespace-collapsed text of a field element, at most 120 characters. Serialised as
    text (a childless element: its ``text``): the same string as ``text_content()``, without
    its XPath call."""
    if len(el):
        text = lxml.etree.tostring(el, method="text", encoding="unicode", with_tail=False)
    else:
        text = el.text or ""
    return " ".join(text.split())[:_MAX_FIELD_CHARS]


def _time_of(el: HtmlElement | None, now: datetime, month_first: bool) -> tuple[str | None, str | None]:
    """``(published, published_raw)`` from a time element (its text, else its title/datetime)."""
    if el is None:
        return None, None
    found = read_time(field_text(el), now=now, month_first=month_first)
    if len(el):
        carriers = _TIME_ATTRS_XPATH(el)
    else:  # a leaf (most time elements): its own attributes, without an XPath call
        carriers = [el] if any(el.get(attr) is not None for attr in _TIME_ATTRS) else []
    for attr_el in carriers:
        for attr in _TIME_ATTRS:
            value = attr_el.get(attr) or ""
            exact = read_time(value, now=now, month_first=month_first)
            if exact is not None and found is not None and found[1] and exact[1]:
                exact = _agreeing(exact, found[1], value, now, month_first)
            if exact is not None:
                published = exact[1] or (found[1] if found else None)
                return published, found[0] if found else attr_el.get(attr)
    return (found[1], found[0]) if found else (None, None)


#: Attribute values whose order of numbers is fixed (ISO 8601, epoch): nothing to agree on.
_MACHINE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}|\d{9,13}$")


def _agreeing(
    exact: tuple[str, str | None], shown: str, value: str, now: datetime, month_first: bool
) -> tuple[str, str | None]:
    """The reading of an attribute's time (``exact`` of ``value``) that falls on the day the
    element's text shows (``shown``, ISO): a page writing "Nov 4, 2026" over ``title="11-04-2026"``
    writes its numeric dates month first, whatever the rule learned from texts that could not
    tell (a relative or named-month text says nothing of the order)."""
    if exact[1] is None or exact[1][:10] == shown[:10]:
        return exact
    other = read_time(value, now=now, month_first=not month_first)
    return other if other is not None and other[1] and other[1][:10] == shown[:10] else exact


def _attr_time(el: HtmlElement | None, attr: str, now: datetime, month_first: bool) -> tuple[str | None, str | None]:
    """``(published, published_raw)`` from the attribute a rule names (epoch numbers too), read
    on the day the element's text shows when that text is a time too (:func:`_agreeing`)."""
    if el is None:
        return None, None
    value = el.get(attr) or ""
    found = read_markup_time(value, now=now, month_first=month_first)
    if found and found[1] and not _MACHINE_TIME.match(value):
        shown = read_time(field_text(el), now=now, month_first=month_first)
        if shown is not None and shown[1]:
            found = _agreeing(found, shown[1], value, now, month_first)
    return (found[1], found[0]) if found else (None, None)


def _field_value(template: _Template, container: HtmlElement, selector: str, attr: str | None) -> str:
    """A field's value: the attribute ``attr`` of its element, else the element's text."""
    if attr is None:
        return template.text(container, selector)
    found = template.find(container, selector)
    return " ".join((found.get(attr) or "").split())[:_MAX_FIELD_CHARS] if found is not None else ""


def _links_only(bodies: Sequence[HtmlElement]) -> bool:
    """Whether the text of ``bodies`` is all link text (and there is some).

    A post container with no time where the site's posts have one, whose words are a link and
    nothing else, is an ad printed in the post markup ("Sponsored": one link to the
    advertiser), not a post: a reply that is only a link still has its time.
    """
    total = linked = 0
    for body in bodies:
        total += len("".join(body.text_content().split()))
        linked += sum(len("".join(a.text_content().split())) for a in outermost(body.xpath(".//a"), "a"))
    return total > 0 and linked >= total


def apply_rule(rule: KsfRule, document: Document, *, now: datetime | None = None) -> list[Post]:
    """Every post of ``document`` by ``rule``, in page order (the first is the topic post).

    Returns an empty list when the rule matches nothing (template drift): the caller falls back
    to the next extraction stage. ``now`` is the fetch time that relative dates are read from
    (default: the current UTC time).
    """
    tree = document.tree
    if tree is None:
        return []
    pairs = _posts_of(tree, rule.body, rule.container)
    if not pairs:
        return []
    now = now or datetime.now(timezone.utc)
    if rule.container:  # bodies outside every post (a preview, a sidebar) are not posts
        pairs = [(body, owner) for body, owner in pairs if owner is not None]
    quotes: list[list[str]] = []
    quote_at: list[list[int]] = []
    texts = own_texts([body for body, _ in pairs], (*DEFAULT_EXCLUDE, *rule.exclude), quotes, quote_at)
    grouped: dict[int, tuple[HtmlElement | None, list[HtmlElement], list[str], list[str], list[int]]] = {}
    for (body, owner), body_text, quoted, places in zip(pairs, texts, quotes, quote_at):
        key = id(owner) if owner is not None else id(body)
        group = grouped.setdefault(key, (owner, [], [], [], []))
        group[1].append(body)
        # A post of several bodies is their texts joined by blank lines: a quote's place in
        # its body moves by the length of the bodies before it.
        before = sum(len(t) + 2 for t in group[2] if t)
        group[2].append(body_text)
        group[3].extend(quoted)
        group[4].extend(before + place if body_text else max(before - 2, 0) for place in places)
    groups = list(grouped.values())
    first = 1  # a post's floor, where the page numbers none, is its position on the page
    if rule.repeats_first and len(groups) > 1 and later_page(tree, document.url):
        groups, first = groups[1:], 2
    template = _Template()
    posts = []
    position = first - 1
    for container, parts, part_texts, quoted, places in groups:
        text = "\n\n".join(filter(None, part_texts))
        author = published = raw = None
        floor = None
        if container is not None:
            if rule.author:
                author = _field_value(template, container, rule.author, rule.author_attr)[:MAX_AUTHOR_CHARS] or None
            if rule.time and rule.time_attr:
                published, raw = _attr_time(template.find(container, rule.time), rule.time_attr, now, rule.month_first)
            elif rule.time:
                published, raw = _time_of(template.find(container, rule.time), now, rule.month_first)
            else:
                header = _header_text(container, parts[0])
                raw, published = read_time(header, now=now, month_first=rule.month_first) or (None, None)
            if rule.floor:
                floor = parse_floor(_field_value(template, container, rule.floor, rule.floor_attr))
            if rule.time and raw is None and _links_only(parts):
                continue
        position += 1
        posts.append(
            Post(
                floor=floor if floor is not None else position,
                author=author,
                published=published,
                published_raw=raw,
                text=text,
                quotes=quoted,
                quote_at=places,
            )
        )
    return posts
