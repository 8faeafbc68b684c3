"""Title, author and times of an article from what its page marks, most explicit mark first.

Publishing software states these facts for machines in several ways; each is read in turn and
the first that gives a value wins, field by field:

1. JSON-LD objects of an article type (``NewsArticle``, ``BlogPosting``, ``Article`` …), also
   inside ``@graph`` or a list: ``headline``, ``author`` (a name, a Person, or a list),
   ``datePublished``, ``dateModified``;
2. OpenGraph and ``article:*`` meta (``og:title``, ``article:published_time``,
   ``article:modified_time``, ``article:author`` when it is a name, not a profile URL);
3. microdata (``itemprop=headline|author|datePublished|dateModified``);
4. microformats: hAtom's ``.entry-title``, ``.published``/``.updated`` (``title`` or
   ``datetime`` attribute), hCard's ``.vcard.author`` / ``address.author`` (its ``.fn``);
5. ``<time datetime>`` and ``rel=author`` links, outside reader comments;
6. ``<meta name=author>`` and the date metas Chinese portals use (``publishdate``, ``pubdate``);
7. the visible byline: a "by …" / "作者：" label and a written date near the headline.

Marks inside reader comments (``.comment``, ``#comments``) are never read: a comment's time
and its author's hCard are not the article's. Plain Python over an lxml tree; no Scrapy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import lxml.html

__all__ = ["ARTICLE_TYPES", "ArticleMeta", "article_metadata", "jsonld_objects", "marked_article"]

#: schema.org types of an article (``NewsArticle`` and its kin).
ARTICLE_TYPES = frozenset({
    "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
    "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "techarticle",
    "scholarlyarticle", "liveblogposting", "socialmediaposting",
})
_COMMENT_CLASS = re.compile(r"\bcomments?\b|\bcomment-|\breply\b|\brespond\b", re.IGNORECASE)
_URL = re.compile(r"^(?:https?:)?//|^/", re.IGNORECASE)
_BY = re.compile(r"^\s*(?:by|von|par|por|作者|记者|文|撰文|编辑)\s*[:：/|]?\s*", re.IGNORECASE)
_BY_WORD = re.compile(r"^(?:by|von|par|por)\b\s*[:：]?\s*(.*)$", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:[,|·•–—]|\bon\b|\bam\b|\ble\b)\s*")
#: What a byline's name looks like: up to five capitalised words (or CJK), no digits ("By the end
#: of 2024, …" opens a sentence, not a byline).
_NAME = re.compile(r"^(?:[A-Z\u00c0-\u024f\u3400-\u9fff][^\s\d]*)(?:\s+[^\s\d]+){0,4}$")
#: Blocks after the headline searched for a byline.
BYLINE_BLOCKS = 4
_ZH_BY = re.compile(r"(?:作者|记者)\s*[:：]\s*([\u4e00-\u9fff·]{2,6}|[A-Za-z][\w .'-]{1,40}?)(?=\s|$|[|，,）)])")
_WRITTEN_DATE = re.compile(
    r"\d{4}年\d{1,2}月\d{1,2}日(?:\s*\d{1,2}:\d{2})?"
    r"|\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, \d{4}"
    r"|\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}"
)
_META_TITLE = ("og:title", "twitter:title")
_META_PUBLISHED = ("article:published_time", "og:article:published_time", "datepublished",
                   "publishdate", "pubdate", "publish-date", "dc.date.issued", "dc.date", "date")
_META_MODIFIED = ("article:modified_time", "og:updated_time", "datemodified", "lastmod")
_META_AUTHOR = ("article:author", "author", "dc.creator", "byl", "parsely-author")


@dataclass(frozen=True)
class ArticleMeta:
    """What a page marks about its article; each field is the raw text found, or None."""

    title: str | None = None
    author: str | None = None
    published: str | None = None
    modified: str | None = None
    #: Whether the page declares itself an article (JSON-LD article type or ``og:type=article``).
    declared: bool = False


def _clean(text: str | None) -> str | None:
    cleaned = " ".join((text or "").split())
    return cleaned or None


def _in_comments(element: Any) -> bool:
    for node in element.iterancestors():
        if _COMMENT_CLASS.search(f"{node.get('class', '')} {node.get('id', '')}"):
            return True
    return False


def jsonld_objects(tree: lxml.html.HtmlElement) -> Iterator[dict[str, Any]]:
    """Every JSON object of the page's JSON-LD scripts, ``@graph`` members and lists flattened;
    a script that is not valid JSON is skipped."""
    for script in tree.xpath("//script[@type='application/ld+json']"):
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        stack = [data]
        while stack:
            node = stack.pop(0)
            if isinstance(node, list):
                stack[:0] = node
            elif isinstance(node, dict):
                yield node
                if isinstance(node.get("@graph"), list):
                    stack[:0] = node["@graph"]


def _types(obj: dict[str, Any]) -> set[str]:
    kinds = obj.get("@type") or []
    return {str(k).lower() for k in (kinds if isinstance(kinds, list) else [kinds])}


def _person(value: Any) -> str | None:
    """A name from a JSON-LD author: a string, a Person/Organization, or a list of them."""
    if isinstance(value, list):
        names = [n for n in map(_person, value) if n]
        return ", ".join(names) or None
    if isinstance(value, dict):
        return _person(value.get("name"))
    if isinstance(value, str) and not _URL.match(value):
        return _clean(value)
    return None


def _from_jsonld(tree: lxml.html.HtmlElement) -> dict[str, str | None]:
    for obj in jsonld_objects(tree):
        if _types(obj) & ARTICLE_TYPES:
            return {
                "title": _clean(str(obj.get("headline") or obj.get("name") or "")),
                "author": _person(obj.get("author") or obj.get("creator")),
                "published": _clean(str(obj.get("datePublished") or obj.get("dateCreated") or "")),
                "modified": _clean(str(obj.get("dateModified") or "")),
            }
    return {}


def _metas(tree: lxml.html.HtmlElement) -> dict[str, str]:
    found: dict[str, str] = {}
    for meta in tree.iter("meta"):
        key = (meta.get("property") or meta.get("name") or "").strip().lower()
        content = _clean(meta.get("content"))
        if key and content and key not in found and not _in_comments(meta):
            found[key] = content
    return found


def _attr_time(element: Any) -> str | None:
    return _clean(element.get("datetime") or element.get("content") or element.get("title")) or _clean(element.text_content())


def _from_markup(tree: lxml.html.HtmlElement) -> dict[str, str | None]:
    """Microdata, microformats, ``<time>`` and ``rel=author``, outside comments."""
    found: dict[str, str | None] = {}

    def first(xpath: str, read: Any) -> str | None:
        for element in tree.xpath(xpath):
            if not _in_comments(element):
                value = read(element)
                if value:
                    return value
        return None

    def name_of(element: Any) -> str | None:
        names = element.xpath(".//*[@itemprop='name'] | .//*[contains(concat(' ', normalize-space(@class), ' '), ' fn ')]")
        target = names[0] if names else element
        return _clean(target.get("content")) or _clean(_BY.sub("", target.text_content()))

    found["title"] = first("//*[contains(concat(' ', normalize-space(@itemprop), ' '), ' headline ')]", lambda e: _clean(e.get("content") or e.text_content()))
    found["author"] = first("//*[@itemprop='author']", name_of) or first(
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' vcard ')"
        " and contains(concat(' ', normalize-space(@class), ' '), ' author ')] | //address[contains(@class, 'author')]",
        name_of,
    ) or first("//a[contains(concat(' ', normalize-space(@rel), ' '), ' author ')]", lambda e: _clean(e.text_content()))
    found["published"] = first("//*[@itemprop='datePublished']", _attr_time) or first(
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' published ')]", _attr_time
    ) or first("//time[@datetime]", lambda e: _clean(e.get("datetime")))
    found["modified"] = first("//*[@itemprop='dateModified']", _attr_time) or first(
        "//*[contains(concat(' ', normalize-space(@class), ' '), ' updated ')]", _attr_time
    )
    return found


def _headline(tree: lxml.html.HtmlElement) -> Any:
    for element in tree.xpath("//h1"):
        if _clean(element.text_content()):
            return element
    return None


def _byline_name(node: Any) -> str | None:
    """The name a "by" label in ``node`` introduces: the rest of its text (up to a separator),
    else its first child element, else the element after it."""
    match = _BY_WORD.match(_clean(node.text) or "")
    if match is None:
        return None
    name = _SEPARATOR.split(match.group(1), maxsplit=1)[0].strip()
    if not name:
        following = next(iter(node), None)
        if following is None:
            following = node.getnext()
        name = _clean(following.text_content()) if following is not None else ""
    return name if name and _NAME.match(name) else None


def _from_byline(tree: lxml.html.HtmlElement) -> dict[str, str | None]:
    """A "by" label and a written date in the few blocks after the headline (comments left out)."""
    headline = _headline(tree)
    if headline is None:
        return {}
    author = published = None
    for element in list(headline.itersiblings())[:BYLINE_BLOCKS]:
        if not isinstance(element.tag, str) or _COMMENT_CLASS.search(f"{element.get('class', '')} {element.get('id', '')}"):
            continue
        text = _clean(element.text_content()) or ""
        if published is None and (match := _WRITTEN_DATE.search(text)):
            published = match.group(0)
        if author is None and (zh := _ZH_BY.search(text)) is not None:
            author = zh.group(1).strip()
        if author is None:
            author = next((name for node in element.iter() if isinstance(node.tag, str) and (name := _byline_name(node))), None)
    return {"author": author, "published": published}


def marked_article(tree: lxml.html.HtmlElement | None) -> bool:
    """Whether the page declares itself one article: a JSON-LD article object or
    ``og:type=article``."""
    if tree is None:
        return False
    if any(_types(obj) & ARTICLE_TYPES for obj in jsonld_objects(tree)):
        return True
    return any((m.get("content") or "").strip().lower() == "article"
               for m in tree.xpath("//meta[@property='og:type']"))


def article_metadata(tree: lxml.html.HtmlElement | None) -> ArticleMeta:
    """The page's title, author, published and modified times, each from its most explicit mark."""
    if tree is None:
        return ArticleMeta()
    metas = _metas(tree)
    sources: list[dict[str, str | None]] = [_from_jsonld(tree)]
    og_author = metas.get("article:author")
    sources.append({
        "title": next((metas[k] for k in _META_TITLE if k in metas), None),
        "author": og_author if og_author and not _URL.match(og_author) else None,
        "published": metas.get("article:published_time"),
        "modified": next((metas[k] for k in _META_MODIFIED if k in metas), None),
    })
    sources.append(_from_markup(tree))
    sources.append({
        "author": next((metas[k] for k in _META_AUTHOR[1:] if k in metas and not _URL.match(metas[k])), None),
        "published": next((metas[k] for k in _META_PUBLISHED if k in metas), None),
    })
    sources.append(_from_byline(tree))
    headline = _headline(tree)
    sources.append({"title": _clean(headline.text_content()) if headline is not None else None})
    values: dict[str, str | None] = {}
    for name in ("title", "author", "published", "modified"):
        values[name] = next((s[name] for s in sources if s.get(name)), None)
    shown = _clean(headline.text_content()) if headline is not None else None
    cut = (values["title"] or "").rstrip(".…").strip()
    if shown and cut and shown != values["title"] and len(cut) < len(shown) and shown.startswith(cut):
        # A meta title cut short (Nikola cuts og:title at 70 characters): the headline shown.
        values["title"] = shown
    return ArticleMeta(**values, declared=marked_article(tree))
