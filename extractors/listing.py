"""The items of a list page: the repeated blocks, each with a link, that make up most of it.

A listing (a blog's or a newsroom's index, search results) or a collection (a category of a shop,
a catalogue of courses) shows its entries as siblings built alike: the same tag and classes, each
with a link to the entry and its title, a teaser, a date. The largest such group of siblings on
the page, by the text its members hold, is its list (:func:`list_items`); the cascade reports a
page as a list when the kind model finds it likelier a list than an article or a thread *and* such
a group holds much of the page's text (see :mod:`forumcrawl.pages`), and exports its items.

Plain Python over an lxml tree; no Scrapy.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import urljoin

import lxml.etree
import lxml.html

__all__ = ["ListGroup", "ListItem", "list_items"]

#: Elements whose text is never a list entry's (scripts, the page's own navigation and forms).
_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "nav", "footer", "header", "aside", "form",
                   "button", "select", "head"})
_DIGITS = re.compile(r"\d+")
#: A member's first link, and all of them (compiled once).
_FIRST_LINK = lxml.etree.XPath("descendant-or-self::a[@href][1]")
_LINKS = lxml.etree.XPath("descendant-or-self::a[@href]")
#: How many times the middle entry's links an entry of a list may hold: entries built alike
#: hold about as many. Set by reading a dragnet blog page whose sidebar boxes (0 to 153 links,
#: 8 in the middle) were taken for its list; on wcxb-dev it changes the kind of one page, a
#: service page that was taken for a listing.
LINK_SPREAD = 4


@dataclass(frozen=True)
class ListItem:
    """One entry of a list page: where its link points and the text it shows."""

    url: str
    text: str


@dataclass(frozen=True)
class ListGroup:
    """The page's list: its entries, and the characters of text they hold together."""

    items: list[ListItem]
    chars: int
    #: The characters (but spaces) of the entries' text outside their links: a teaser's, a
    #: price's, a date's.
    prose: int = 0


def _signature(element: lxml.html.HtmlElement) -> tuple[str, str]:
    """What siblings built alike share: the tag and the classes, numbers read as one
    (``post-1733`` and ``post-1704`` are alike)."""
    classes = (element.get("class") or "").split()
    return element.tag, " ".join(sorted({_DIGITS.sub("#", name) for name in classes}))


def _text(element: lxml.html.HtmlElement) -> str:
    """The element's text, without what :data:`_SKIP` elements inside it hold."""
    parts: list[str] = []
    stack = [(element, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            if node.tail and node is not element:
                parts.append(node.tail)
            continue
        stack.append((node, True))
        if isinstance(node.tag, str) and node.tag not in _SKIP:
            if node.text:
                parts.append(node.text)
            stack.extend((child, False) for child in reversed(node))
    return " ".join(" ".join(parts).split())


def list_items(tree: lxml.html.HtmlElement | None, url: str = "", min_items: int = 3) -> ListGroup | None:
    """The page's largest group of at least ``min_items`` siblings built alike that each hold a
    link, by the characters of their text; None when the page has none. Each item's ``url`` is
    its first link, made absolute against ``url``."""
    if tree is None:
        return None
    best: ListGroup | None = None
    for parent in tree.iter(lxml.etree.Element):
        if len(parent) < min_items or parent.tag in _SKIP:
            continue
        alike: dict[tuple[str, str], list[lxml.html.HtmlElement]] = defaultdict(list)
        for child in parent:
            if isinstance(child.tag, str) and child.tag not in _SKIP:
                alike[_signature(child)].append(child)
        for members in alike.values():
            if len(members) < min_items:
                continue
            items, links, prose = [], [], 0
            for member in members:
                first = _FIRST_LINK(member)
                text = _text(member)
                if first and text:
                    items.append(ListItem(urljoin(url, first[0].get("href", "").strip()), text))
                    anchors = _LINKS(member)
                    links.append(len(anchors))
                    prose += max(_chars(text) - sum(_chars(_text(anchor)) for anchor in anchors), 0)
            chars = sum(len(item.text) for item in items)
            if len(items) >= min_items and (best is None or chars > best.chars) and _alike(links):
                best = ListGroup(items, chars, prose)
    return best


def _chars(text: str) -> int:
    return len(text) - text.count(" ")


def _alike(links: list[int]) -> bool:
    """Whether entries holding these numbers of links are built alike: none holds more than
    :data:`LINK_SPREAD` times the middle number (a blog's sidebar boxes, one with a link and the
    next with 150, are no list)."""
    middle = sorted(links)[len(links) // 2]
    return max(links) <= LINK_SPREAD * max(middle, 1)
