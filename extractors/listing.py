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
#: A member's first link (compiled once).
_FIRST_LINK = lxml.etree.XPath("descendant-or-self::a[@href][1]")


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
            items = []
            for member in members:
                links = _FIRST_LINK(member)
                text = _text(member)
                if links and text:
                    items.append(ListItem(urljoin(url, links[0].get("href", "").strip()), text))
            chars = sum(len(item.text) for item in items)
            if len(items) >= min_items and (best is None or chars > best.chars):
                best = ListGroup(items, chars)
    return best
