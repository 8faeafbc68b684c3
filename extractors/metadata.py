"""Title, author and times of an article from what its page marks, most explicit mark first.

Publishing software states these facts for machines in several ways; each is read in turn and
the first that gives a value wins, field by field:

1. JSON-LD objects of an article type (``NewsArticle``, ``BlogPosting``, ``Article`` …), also
   inside ``@graph`` or a list: ``headline``, ``author`` (a name, a Person, or a list),
   ``datePublished``, ``dateModified``;
2. OpenGraph and ``article:*`` meta (``og:title``, ``article:published_time``,
   ``article:modified_time``, ``article:author`` when it is a name, not a profile URL);
3. microdata (``itemprop=headline|author|datePublished|dateModified``), ``rel=author`` links
   and ``<time datetime>``;
4. ``<meta name=author>`` and the date metas Chinese portals use (``publishdate``, ``pubdate``);
5. a JSON-LD ``WebPage``'s author and dates.

What the page shows then decides between them, as a reader sees the article: the ``<h1>`` that
the marked titles name is the title, the byline by it ("By …", "Written by" / name, "作者：",
a meta row's "· By …") is the author when it names the marked one, nothing is marked or the
mark names the site or its publisher (an ``Organization`` as the writer), and of the dates written by
the headline, the one that is the marked publication or change day is the date, else the
first (:func:`article_metadata`). An hCard's or hAtom's byline is read as the reader reads it there.

Marks inside reader comments (``.comment``, ``#comments``) are never read: a comment's time
and its author's hCard are not the article's. Plain Python over an lxml tree; no Scrapy.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from datetime import datetime, timezone
from typing import Any

import lxml.etree
import lxml.html

from forumcrawl.extractors import fields
from forumcrawl.extractors.cx import WRITER_CLASSES, WRITER_PATHS, PageLines, page_lines
from forumcrawl.extractors.dates import find_time, read_time, to_iso

__all__ = [
    "ARTICLE_TYPES",
    "ArticleMeta",
    "article_metadata",
    "jsonld_objects",
    "marked_article",
    "without_labels",
]

#: schema.org types of an article (``NewsArticle`` and its kin).
ARTICLE_TYPES = frozenset({
    "article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle",
    "opinionnewsarticle", "reviewnewsarticle", "backgroundnewsarticle", "techarticle",
    "scholarlyarticle", "liveblogposting", "socialmediaposting",
})
#: schema.org types whose dates and author are the page's when no article object gives them
#: (a ``WebPage`` in a ``@graph`` beside the site's ``Organization``).
PAGE_TYPES = frozenset({"webpage", "itempage", "aboutpage", "medicalwebpage", "collectionpage"})
#: schema.org types whose ``name`` is the site's (besides every ``…Organization``).
_SITE_TYPES = frozenset({"website", "corporation", "newsmediaorganization", "brand"})
#: Words a site's name may open with or leave out ("The Commercial Appeal").
_ARTICLES = frozenset({"the", "a", "an"})
_COMMENT_CLASS = re.compile(r"\bcomments?\b|\bcomment-|\breply\b|\brespond\b", re.IGNORECASE)
#: An address given for a writer, not a name: a profile's URL, an e-mail address, a handle
#: ("Follow @ann"): no name holds an "@".
_ADDRESS = re.compile(r"^(?:https?:)?//|^/|@", re.IGNORECASE)
_WORD = re.compile(r"\w+")
#: A byline's label at the start of a line: "By", "Written by", "Author:", "Von" …; the name
#: follows on the line or, after a label alone, on the next shown line.
_BY_LABEL = re.compile(
    r"^\s*(?:(?:written|posted|authored|words|story|text)\s+by|by|authors?|von|par|por)\b\s*[:：]?\s*",
    re.IGNORECASE,
)
#: A byline's label inside a meta row, after the row's separator or its date ("March 15, 2022 ·
#: 3 min read · By ASU Online", "03/01/2017 by Ann Lee"): a row joins its items so, while "by" in
#: a sentence follows a word ("Photo by …", "reviewed by …").
_BY_INSIDE = re.compile(r"(?:[|·•]|\d)\s*\bby\s+", re.IGNORECASE)
#: A reviewer's label at the start of a line ("Medically reviewed by", "Reviewed by"): who vouches
#: for the text, named as its writer only where the page names no other person.
_REVIEWED_BY = re.compile(r"^\s*(?:(?:medically|fact[- ]checked and)\s+)?reviewed\s+by\b\s*[:：]?\s*", re.IGNORECASE)
#: A label that names the article's writer wherever it stands (an author box below the text).
_WRITTEN_BY = ("Written by", "Posted by", "Authored by", "written by", "posted by", "WRITTEN BY", "Written By", "Posted By")
#: Where a byline's name ends: a separator, or a word that starts the rest of the line.
_BYLINE_CUT = re.compile(
    r"\s+[-|·•–—]\s+|\s*[|·•]\s*|\s+(?:on|in|for|updated|published|posted|last|am|le)\b"
    r"|(?-i:(?<=[a-z])(?=(?:Updated|Published|Posted)\b))",
    re.IGNORECASE,
)
#: A byline's or a date's line is at most this long: longer lines are the text's (a date in a
#: sentence is not the article's). The shortest that reads the even-numbered wcxb-dev articles'
#: fields as 160 does (40 lost dates); reading a line for a date costs 70 µs.
BYLINE_MAX_CHARS = 60
_DIGIT = re.compile(r"\d")
#: A numeric date whose day and month may be read either way (``8/1/2025``).
_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[/.-](\d{1,2})[/.-]\d{2,4}\b")
_YEAR = re.compile(r"\d{4}|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\b")
#: A second label after a byline's first ("Author" then "Posted by").
_BY_AGAIN = re.compile(r"^\s*(?:(?:written|posted|authored)\s+)?by\s+", re.IGNORECASE)
#: Spaces before a comma (the lines join a link's text to the comma after it with one).
_SPACE_BEFORE_COMMA = re.compile(r"\s+(?=,)")
#: Writers joined after a name in a byline.
_MORE_WRITERS = re.compile(r"\s*,?\s*(?:and|&)\s", re.IGNORECASE)
#: A byline's name is at most this long (a sentence that starts with "By" is longer); a line
#: of that many characters after its label is read for a byline (three names and "and").
NAME_MAX_CHARS = 90
#: Shown lines before and after the headline searched for the byline and its dates: chosen on
#: the even-numbered wcxb-dev articles.
BYLINE_BEFORE = 3
BYLINE_AFTER = 8
#: An ``<h1>`` is the article's headline when its words' Jaccard likeness to a marked title
#: reaches this: the middle of the plateau 0.1-0.2 on the even-numbered wcxb-dev articles
#: (0.4: titles 0.782, 0.15: 0.844, 0: 0.837).
HEADLINE_LIKENESS = 0.15
#: A meta row's label left alone on its line, its value gone (a byline's name, a date, tags
#: and share buttons the extraction left out): never the article's text. Read on the articles'
#: outputs of the evaluation folders, where 54 such lines stood and the gold kept one.
_LABEL_LINE = re.compile(
    r"\s*(?:(?:written|posted)\s+by|by|authors?|published(?:\s+on)?|(?:last\s+)?updated|posted(?:\s+on)?"
    r"|tags|tagged|categor(?:y|ies)|filed\s+under|share(?:\s+this(?:\s+article|\s+post)?)?"
    r"|comments?|reading\s+time|read\s+time)\s*[:：]?\s*$",
    re.IGNORECASE,
)
#: The longest line :data:`_LABEL_LINE` is tried on: lines are tested by length first.
LABEL_MAX_CHARS = 32
#: Whether a line after the first may be a label: a pattern that opens with a newline is searched
#: for newlines first, in C, so a text without labels costs no loop over its lines.
_LABEL_AFTER_BREAK = re.compile("\n" + _LABEL_LINE.pattern.replace("$", "(?:\n|$)"), re.IGNORECASE)
#: Where a marked title joins the site's name to the article's.
_TITLE_PARTS = re.compile(r"\s+[|–—•·-]\s+")
_ZH_BY = re.compile(r"(?:作者|记者)\s*[:：]\s*([\u4e00-\u9fff·]{2,6}|[A-Za-z][\w .'-]{1,40}?)(?=\s|$|[|，,）)])")
_META_TITLE = ("og:title", "twitter:title")
_META_PUBLISHED = ("article:published_time", "og:article:published_time", "datepublished", "published",
                   "publishdate", "pubdate", "publish-date", "dc.date.issued", "dc.date", "date",
                   "parsely-pub-date", "sailthru.date")
_META_MODIFIED = ("article:modified_time", "og:updated_time", "datemodified", "lastmod")
_META_AUTHOR = ("article:author", "author", "dc.creator", "byl", "parsely-author", "sailthru.author")
_META_KEYS = frozenset((*_META_TITLE, *_META_PUBLISHED, *_META_MODIFIED, *_META_AUTHOR, "og:site_name", "og:type"))


@dataclass(frozen=True)
class ArticleMeta:
    """What a page marks about its article; each field is the raw text found, or None."""

    title: str | None = None
    author: str | None = None
    published: str | None = None
    modified: str | None = None
    #: Whether the page declares itself an article (JSON-LD article type or ``og:type=article``).
    declared: bool = False


#: Characters a page puts in its text that show nothing: soft hyphens (``Paläs\xadti\xadnenser``),
#: zero-width spaces, word joiners and byte-order marks; dropped from the title and author given
#: (the lines keep them, so a heading is found among them as it is). Joiners that shape a
#: script (U+200C, U+200D) are kept.
_INVISIBLE = dict.fromkeys(map(ord, "\xad\u200b\u2060\ufeff"))


def _shown(text: str | None) -> str | None:
    """``text`` as it shows: without :data:`_INVISIBLE` characters, spaces collapsed."""
    return " ".join(text.translate(_INVISIBLE).split()) or None if text else None


def _clean(text: str | None) -> str | None:
    """Whitespace collapsed, and character references a page escaped twice read
    (``&amp;#8211;`` in a JSON-LD headline)."""
    cleaned = " ".join((text or "").split())
    if "&" in cleaned:
        cleaned = html.unescape(cleaned)
    return cleaned or None


#: The ancestors whose class or id may name a comment section (:data:`_COMMENT_CLASS` needs
#: one of these words): found by libxml2, a tenth of the cost of reading every ancestor's names.
_MAY_BE_COMMENTS = lxml.etree.XPath(
    "ancestor::*[contains(@class, 'comment') or contains(@id, 'comment') or contains(@class, 'repl')"
    " or contains(@id, 'repl') or contains(@class, 'respond') or contains(@id, 'respond')]"
)


def _in_comments(element: Any) -> bool:
    return any(
        _COMMENT_CLASS.search(f"{node.get('class', '')} {node.get('id', '')}") for node in _MAY_BE_COMMENTS(element)
    )


def json_ld_data(scripts: Iterable[Any]) -> Iterator[Any]:
    """The parsed content of each JSON-LD script among the ``<script>`` elements ``scripts``; a
    script that is not valid JSON is skipped (one reading for the fields and the arbiter)."""
    for script in scripts:
        if script.get("type") != "application/ld+json":
            continue
        try:
            yield json.loads(script.text or "")
        except ValueError:
            continue


def _jsonld(scripts: Iterable[Any]) -> Iterator[dict[str, Any]]:
    for data in json_ld_data(scripts):
        stack = [data]
        while stack:
            node = stack.pop(0)
            if isinstance(node, list):
                stack[:0] = node
            elif isinstance(node, dict):
                yield node
                if isinstance(node.get("@graph"), list):
                    stack[:0] = node["@graph"]


def jsonld_objects(tree: lxml.html.HtmlElement) -> Iterator[dict[str, Any]]:
    """Every JSON object of the page's JSON-LD scripts, ``@graph`` members and lists flattened;
    a script that is not valid JSON is skipped."""
    return _jsonld(tree.iter("script"))


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
    if isinstance(value, str) and not _ADDRESS.search(value):
        return _clean(value.strip(" ,;"))
    return None


def _from_jsonld(objects: list[dict[str, Any]], types: frozenset[str] = ARTICLE_TYPES) -> dict[str, str | None]:
    """The fields of the first JSON-LD object of one of ``types`` (``None``: of
    :data:`PAGE_TYPES`, which give no title: a page's name is often the site's)."""
    for obj in objects:
        if _types(obj) & (types or PAGE_TYPES):
            return {
                "title": _clean(str(obj.get("headline") or obj.get("name") or "")) if types else None,
                "author": _person(obj.get("author") or obj.get("creator")),
                "published": _clean(str(obj.get("datePublished") or obj.get("dateCreated") or "")),
                "modified": _clean(str(obj.get("dateModified") or "")),
            }
    return {}


def _metas(elements: Iterable[Any]) -> dict[str, str]:
    """The contents of the ``<meta>`` read here (:data:`_META_KEYS`; a news page has 50-100
    others), by lower-case name or property, the first of each."""
    found: dict[str, str] = {}
    for meta in elements:
        key = meta.get("property") or meta.get("name")
        if key is None:
            continue
        key = key.lower()
        if key in _META_KEYS and key not in found and (content := _clean(meta.get("content"))):
            parent = meta.getparent()
            if parent is not None and parent.tag == "head" or not _in_comments(meta):
                found[key] = content
    return found


#: The microdata properties read, by field.
_PROPS = {"headline": "title", "author": "author", "datePublished": "published", "dateModified": "modified"}


def _attr_time(element: Any) -> str | None:
    return _clean(element.get("datetime") or element.get("content") or element.get("title")) or _clean(element.text_content())


#: An author element's ``itemprop=name`` (compiled once: a path given as a string is compiled
#: at every call).
_NAME_PROP = lxml.etree.XPath(".//*[@itemprop='name']")


def _name_of(element: Any) -> str | None:
    names = _NAME_PROP(element)
    target = names[0] if names else element
    value = _clean(target.get("content")) or _clean(target.text_content())
    return _clean(_BY_LABEL.sub("", value)) if value else None


def _from_markup(lines: PageLines) -> dict[str, str | None]:
    """Microdata, ``rel=author`` and ``<time datetime>``, as the lines' walk found them (in one
    pass over them: most are links' ``rel``), outside comments."""
    found: dict[str, str | None] = dict.fromkeys(_READ)
    for element in lines.marked:
        # Most are ``<link rel>`` and ``<a rel>``: an attribute read costs a microsecond, so
        # each element is asked only what its tag may hold.
        tag = element.tag
        if tag == "link":  # a <link rel=author> names no one: its text is empty
            continue
        slots = []
        props = element.get("itemprop")
        if props is not None:
            slots = [name for prop in props.split() if (name := _PROPS.get(prop)) and found[name] is None]
        if tag == "a":
            rel = element.get("rel")
            if rel is not None and found["rel"] is None and "author" in rel.split():
                slots.append("rel")
        elif tag == "time" and found["time"] is None and element.get("datetime"):
            slots.append("time")
        if not slots or _in_comments(element):
            continue
        for slot in slots:
            found[slot] = _READ[slot](element)
    rel, time = found.pop("rel"), found.pop("time")
    found["author"] = found["author"] or rel
    found["published"] = found["published"] or time
    return found


#: How each slot of :func:`_from_markup` reads its element.
_READ = {
    "title": lambda e: _clean(e.get("content") or e.text_content()),
    "author": _name_of,
    "published": _attr_time,
    "modified": _attr_time,
    "rel": lambda e: _clean(e.text_content()),
    "time": lambda e: _clean(e.get("datetime")),
}


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _title_names(titles: list[str], site: str | None) -> set[str]:
    """The lower-cased names of the site and its sections the marked titles show: ``og:site_name``
    and each shorter part of a title joined to the rest (``Article | Site``)."""
    names = set()
    for title in titles:
        parts = [part.strip().lower() for part in _TITLE_PARTS.split(title)]
        names.update(sorted(parts, key=len)[:-1])  # all but the longest: the site's, a section's
    if len(titles) == 2 and titles[0] != titles[1] and titles[0] in titles[1]:
        # What the ``<title>`` adds to the marked headline ("Silicon Exposed: Headline").
        names.update(part.strip(" :|-–—·•").lower() for part in titles[1].split(titles[0]))
        names.discard("")
    if site:
        names.add(site.lower())
    return names


def _headline(lines: PageLines, titles: list[str], names: set[str], site: str | None) -> tuple[str | None, int]:
    """The article's visible headline and its line: of the page's shown ``<h1>``, the one most
    like the titles the page marks (JSON-LD headline, ``og:title``, ``<title>``: the Jaccard
    likeness of their words) when it is like one at all; without marked titles, the first shown
    ``<h1>``. A site's or section's name (:func:`_title_names`) in an ``<h1>`` (its logo) is
    none, and one the site joins to its titles (:func:`_suffixes`) is cut off the headline."""
    suffixes = _suffixes(titles, site)
    shown = [
        text for element in lines.elements["h1"] if (text := _clean(element.text_content())) and text.lower() not in names
    ]
    where: dict[str, tuple[int, str]] = {}
    for text in shown:
        if text not in where:
            where[text] = _line_of(lines.texts, text)
    title_words = [_words(title) for title in titles]
    best, best_line, best_score = None, -1, -1.0
    for line, text in map(where.__getitem__, shown):
        if line < 0:
            continue
        if not titles:
            return _without_names(text, suffixes), line
        words = _words(text)
        score = max(len(words & title) / len(words | title) if words and title else 0.0 for title in title_words)
        if score > best_score:
            best, best_line, best_score = text, line, score
    if best is None or best_score < HEADLINE_LIKENESS:
        return None, -1
    return _without_names(best, suffixes), best_line


def _line_of(texts: list[str], text: str) -> tuple[int, str]:
    """The line a shown heading's ``text`` stands on, and the text it shows there; a break may
    cut it over several lines (``Real Estate Investing <br>Real Estate 101``), of which those
    with a date and the ones after (a byline put in the heading) are no part of it. ``(-1,
    text)`` for a hidden heading, which is in no line."""
    try:
        return texts.index(text), text  # compared in C
    except ValueError:
        pass
    for at, line in enumerate(texts):
        if line and text.startswith(line):
            pieces, end = [line], at + 1
            while len(" ".join(pieces)) < len(text) and end < len(texts):
                pieces += [texts[end]] if texts[end] else []
                end += 1
            if " ".join(pieces) == text:
                dated = next((n for n, piece in enumerate(pieces) if find_time(piece)), len(pieces))
                return at, " ".join(pieces[: max(dated, 1)])
    return -1, text


def _suffixes(titles: list[str], site: str | None) -> set[str]:
    """The lower-cased names the site joins to its titles: ``og:site_name``, and a part that
    ends two different marked titles (``… | Opinion``; one title's last part may be its
    subtitle, and the part two titles open with is the headline's)."""
    ends = [parts[-1].strip().lower() for title in set(titles) if len(parts := _TITLE_PARTS.split(title)) > 1]
    found = {part for part in ends if ends.count(part) > 1}
    if site:
        found.add(site.lower())
    return found


#: Characters a page shows where its encoding lost one (``Beginner? Guide`` for ``Beginner's``).
_LOST = "?\ufffd"


def _mended(headline: str, titles: list[str], site: str | None) -> str:
    """The marked title (without the site's name) that a headline shows with characters lost to
    a wrong encoding: the same text, each lost mark standing for one to three characters; else
    the headline."""
    if not any(mark in headline for mark in _LOST):
        return headline
    pattern = re.compile("".join(".{1,3}?" if ch in _LOST else re.escape(ch) for ch in headline))
    return next((title for t in titles if pattern.fullmatch(title := _without_site(t, site))), headline)


def _without_names(headline: str, names: set[str]) -> str:
    """A headline without the parts joined to it that are the site's or a section's name
    (:func:`_suffixes`: ``Headline | Opinion``); a headline of one part is kept whole."""
    parts = _TITLE_PARTS.split(headline)
    if len(parts) < 2:
        return headline
    joints = _TITLE_PARTS.findall(headline)
    start, end = 0, len(parts)
    while end - start > 1 and parts[end - 1].strip().lower() in names:
        end -= 1
    while end - start > 1 and parts[start].strip().lower() in names:
        start += 1  # a site's name before the headline is og:site_name
    return parts[start] + "".join(joint + part for joint, part in zip(joints[start : end - 1], parts[start + 1 : end]))


def _byline_name(text: str) -> str | None:
    """The name a byline's text gives once its label was taken off: up to a date or a
    separator, if it looks like a name: opening with a letter that is not lower case (a capital,
    or CJK), no digits ("By the end of 2024, …" opens a sentence, not a byline), no "@" (a
    handle). A space the lines put before a comma, where a name's link ends, is not the page's
    ("Till Eckert , Max Bernhard")."""
    text = _BY_AGAIN.sub("", text, count=1)  # "Author: Posted by Ann"
    if " ," in text:
        text = _SPACE_BEFORE_COMMA.sub("", text)
    date = find_time(text)
    if date:
        text = text[: text.find(date)] if date in text else text
    name = _BYLINE_CUT.split(text, maxsplit=1)[0].strip(" ,:;")
    if not name or len(name) > NAME_MAX_CHARS or not name[0].isalpha() or name[0].islower() or "@" in name:
        return None
    return name if _DIGIT.search(name) is None else None


@dataclass(frozen=True, slots=True)
class ShownDate:
    """A date written by the headline: as written, and the days it may be read as (a numeric
    date whose day and month are both at most 12 is either: ``8/1/2025``)."""

    raw: str
    days: tuple[str, ...]


def _shown_date(raw: str, day: str) -> ShownDate:
    numeric = _NUMERIC_DATE.search(raw)
    days: tuple[str, ...] = (day,)
    if numeric is not None and int(numeric.group(1)) <= 12 and int(numeric.group(2)) <= 12:
        days = (day, f"{day[:4]}-{day[8:10]}-{day[5:7]}")
    return ShownDate(raw, days)


@dataclass(frozen=True, slots=True)
class Byline:
    """What the lines about the headline show: the byline's writer, the reviewer a line names
    ("Reviewed by …") and the written dates."""

    author: str | None = None
    reviewer: str | None = None
    dates: tuple[ShownDate, ...] = ()


def _from_lines(lines: PageLines, at: int, now: datetime) -> Byline:
    """The byline's author, the reviewer and the written dates in the lines about the headline
    at line ``at`` (:data:`BYLINE_BEFORE` shown lines before it, :data:`BYLINE_AFTER` after)."""
    texts = lines.texts
    before = list(islice(filter(None, reversed(texts[:at])), BYLINE_BEFORE))
    window = [*reversed(before), *islice(filter(None, texts[at + 1 :]), BYLINE_AFTER)]
    author = reviewer = None
    dates = []
    for n, text in enumerate(window):
        if len(text) > NAME_MAX_CHARS:
            continue
        # A date without a year ("today", "3 days ago", "May 5") dates the page, not the article;
        # lines without a year's digits are not read (the time expression costs 70 µs a line).
        if (
            len(text) <= BYLINE_MAX_CHARS
            and _YEAR.search(text) is not None
            and (found := read_time(text, now=now)) is not None
            and found[1]
        ):
            if _YEAR.search(found[0]) is not None:
                dates.append(_shown_date(found[0], found[1][:10]))
        if author is not None:
            continue
        if ("作者" in text or "记者" in text) and (zh := _ZH_BY.search(text)) is not None:
            author = zh.group(1).strip()
        elif (label := _BY_LABEL.match(text)) is not None:
            rest = text[label.end():]
            if rest.strip(" :："):
                author = _byline_name(rest)
            elif n + 1 < len(window):
                author = _byline_name(window[n + 1])
        elif (inside := _BY_INSIDE.search(text)) is not None:
            author = _byline_name(text[inside.end() :])
        elif reviewer is None and (label := _REVIEWED_BY.match(text)) is not None:
            # The credentials after the reviewer's name ("…, Trial Attorney at …") vouch for the
            # review; they are no part of the name that stands for the writer.
            reviewer = _byline_name(text[label.end() :].split(",", 1)[0])
    return Byline(author, reviewer, tuple(dates))


def _written_by(lines: PageLines) -> str | None:
    """The name after the first "Written by" label that opens one of the page's shown lines (the
    byline far from the headline, or no headline found). The lines are searched as one text for
    each spelling of the label, by ``str.find``: a regular expression tried at every line start
    cost a twentieth of a parse, and lower-casing the text more than the searches."""
    text = "\n".join(lines.texts)
    found = end = -1
    for label in _WRITTEN_BY:
        at = text.find(label)
        while at >= 0 and text[text.rfind("\n", 0, at) + 1 : at].strip():
            at = text.find(label, at + 1)
        if at >= 0 and (found < 0 or at < found):
            found, end = at, at + len(label)
    if found < 0:
        return None
    rest = text[end:].lstrip(" \t:：").split("\n", 1)[0]
    if not rest.strip():
        rest = text[end:].lstrip(" \t:：\n").split("\n", 1)[0]
    return _byline_name(rest)


#: An author box's or link's text is a name when it has at most this many words (a team's name,
#: a title and a name): its first piece may be a teaser's headline or "Articles by …". The
#: names the boxes give on the even-numbered wcxb-dev articles have 1-4 words; a teaser's
#: headline of 15 words was taken for a name on an odd-numbered one before this bound.
BOX_NAME_MAX_WORDS = 6


def _writer_elements(lines: PageLines) -> Iterator[Any]:
    """The links to a writer's page (one with a name after ``/author/``), then the blocks
    classed ``author`` or ``byline``, each in document order, of the elements the lines' walk
    gathered (:attr:`~forumcrawl.extractors.cx.PageLines.writers`)."""
    writers = lines.writers
    for link in writers:
        if link.tag == "a":
            href = link.get("href", "")
            if any(path in href for path in WRITER_PATHS) and href.split("/author", 1)[-1].lstrip("s").strip("/ "):
                yield link
    for block in writers:
        names = block.get("class")
        if names is not None and any(word in names for word in WRITER_CLASSES):
            yield block


def _author_box(lines: PageLines) -> str | None:
    """The writer a page names by its links and classes alone, read only on a page whose marks
    and byline name no one but the site or its publisher: the first link to a writer's page
    (a WordPress author link), else the first block classed ``author`` or ``byline``, outside
    comments, whose text reads as a name (its first shown piece, the byline label taken off;
    not "Articles by …" nor "Source: …")."""
    for element in _writer_elements(lines):
        # The first shown piece, or the one after a label shown alone ("By" / "Ann Lee").
        pieces = (piece for piece in map(_clean, element.itertext()) if piece)
        text = next(pieces, None)
        if text and not _BY_LABEL.sub("", text).strip(" :："):
            text = next(pieces, None)
        if not text or len(text) > NAME_MAX_CHARS or _in_comments(element):
            continue
        name = _byline_name(_BY_LABEL.sub("", text))
        if name is not None and len(name.split()) <= BOX_NAME_MAX_WORDS and " by " not in name and ":" not in name:
            return name
        if element.tag == "a" and (shown := _slug_name(lines.texts, element.get("href", ""))) is not None:
            return shown
    return None


def _slug_name(texts: list[str], href: str) -> str | None:
    """The shown line that a writer's link names by its address where its text names no one
    ("Articles by Juliette" to ``/authors/juliette-carreiro``): the line whose words are the
    slug's, as the page writes them. A slug of one word (``/author/admin``) names no one here."""
    words = [word for word in href.rstrip("/").rsplit("/", 1)[-1].lower().split("-") if word]
    if len(words) < 2:
        return None
    return next(
        (text for text in texts if text and len(text) <= NAME_MAX_CHARS and _WORD.findall(text.lower()) == words), None
    )


def _without_site(title: str, site: str | None) -> str:
    """A marked title without the site's name joined to it (``Article | Site``, ``Article -
    Site``): the parts other than the site's name, and of parts joined by ``|`` the longest."""
    parts = [part for part in _TITLE_PARTS.split(title) if part.strip()]
    if site:
        parts = [part for part in parts if part.strip().lower() != site.lower()] or parts
    if " | " in title:
        return max(parts, key=len).strip()
    return " - ".join(part.strip() for part in parts) if len(parts) < len(_TITLE_PARTS.split(title)) else title


def _declared(objects: list[dict[str, Any]], metas: dict[str, str]) -> bool:
    return any(_types(obj) & ARTICLE_TYPES for obj in objects) or metas.get("og:type", "").lower() == "article"


def marked_article(tree: lxml.html.HtmlElement | None, lines: PageLines | None = None) -> bool:
    """Whether the page declares itself one article: a JSON-LD article object or
    ``og:type=article`` (read from the scripts and metas of its ``lines`` when given)."""
    if tree is None:
        return False
    if lines is not None:
        return _declared(list(_jsonld(lines.elements["script"])), _metas(lines.elements["meta"]))
    return _declared(list(jsonld_objects(tree)), _metas(tree.iter("meta")))


def without_labels(text: str) -> str:
    """An article's ``text`` without its meta rows' labels left alone on a line
    (``Posted by:``, ``Updated``, ``Share``, ``Categories``)."""
    if _LABEL_AFTER_BREAK.search(text) is None and _LABEL_LINE.match(text.split("\n", 1)[0]) is None:
        return text
    lines = text.split("\n")
    labels = [len(line) <= LABEL_MAX_CHARS and _LABEL_LINE.match(line) is not None for line in lines]
    return "\n".join(line for line, label in zip(lines, labels) if not label)


def _day(raw: str | None, now: datetime) -> str | None:
    found = to_iso(raw, now=now) if raw else None
    return found[:10] if found else None


def _as_marked(marked: str, shown: str) -> str:
    """A byline that names the marked author, up to the marked name's last word: it writes the
    name as the reader reads it ("Dr.", "and" between two), and the role after it ("Ann
    Reporter, Senior Analyst") is no part of it; writers joined after it ("and Bo Lee") are."""
    words, seen = _words(marked), set()
    for match in _WORD.finditer(shown):
        seen.add(match.group().lower())
        if words <= seen:
            end = match.end()
            while end < len(shown) and not shown[end].isspace() and shown[end] != ",":
                end += 1  # the name's word as written: "CEPF®", "Jr."
            return shown if _MORE_WRITERS.match(shown[end:]) else shown[:end]
    return shown


def _site_names(objects: list[dict[str, Any]], site: str | None) -> list[set[str]]:
    """The words of each name the page gives its site or publisher: ``og:site_name``, the JSON-LD
    organisations' and web sites', an object's ``publisher`` and its ``author`` when that is an
    organisation (not a title's shorter part: a title may end with its writer's name)."""
    found = [site or ""]
    for obj in objects:
        named = [part for part in (obj, obj.get("author")) if isinstance(part, dict) and _is_organization(part)]
        if isinstance(obj.get("publisher"), dict):
            named.append(obj["publisher"])
        found.extend(str(part.get("name") or "") for part in named)
    return [words for name in found if (words := _words(name) - _ARTICLES)]


def _is_organization(obj: dict[str, Any]) -> bool:
    return any(kind.endswith("organization") or kind in _SITE_TYPES for kind in _types(obj))


def _names_site(name: str, sites: list[set[str]]) -> bool:
    """Whether an author's ``name`` is the site's or its publisher's: all its words (but
    articles) are of one of their names (``The Commercial Appeal`` of ``Memphis Commercial
    Appeal``)."""
    words = _words(name) - _ARTICLES
    return bool(words) and any(words <= site for site in sites)


def _without_publisher(author: str, sites: list[set[str]]) -> str:
    """A marked author without the publisher's name written after the writers'
    (``Ann Reporter, The Gazette``)."""
    parts = author.split(", ")
    kept = [parts[0], *(part for part in parts[1:] if not _names_site(part, sites))]
    return ", ".join(kept) if len(kept) < len(parts) else author


def _same_name(marked: str, shown: str) -> bool:
    """Whether a byline names the marked author: every word of the marked name is in it."""
    words = _words(marked)
    return bool(words) and words <= _words(shown)


def article_metadata(
    tree: lxml.html.HtmlElement | None,
    lines: PageLines | None = None,
    *,
    now: datetime | None = None,
) -> ArticleMeta:
    """The page's title, author, published and modified times, each from its most explicit mark,
    as a reader sees them where the page shows them too. ``lines`` are the page's CX lines
    (cut here when not given): their walk gathered the scripts, metas, headings and marked
    elements read here, and the byline is read from the lines about the headline (an hCard's
    "By …" is read there: a search of the tree for microformats' classes cost 2.6 parses).

    - title: the shown ``<h1>`` that the marked titles name (:func:`_headline`), without a
      section's name the site joins to its titles, or the marked title it shows with
      characters a wrong encoding lost; else the marked title (JSON-LD, ``og:title``,
      microdata), else the ``<title>``'s main part;
    - author: the byline when it names the marked author, up to the marked name (it writes
      "Dr.", "and"; a role after a comma is not the name); else the marked author without the
      publisher's name after the writers'; the byline when the marked author is the site or
      its publisher, or none is marked; and then an author link or box
      (:func:`_author_box`), and last the person a line by the headline says reviewed the text;
    - published: of the dates written by the headline with their year, the one that is the
      marked publication or change day (the page shows the day the reader is told), else the
      first of them; without one, the marked publication time.
    """
    if tree is None:
        return ArticleMeta()
    now = now or datetime.now(timezone.utc)
    if lines is None:
        lines = page_lines(tree)
    metas = _metas(lines.elements["meta"])
    objects = list(_jsonld(lines.elements["script"]))
    og_author = metas.get("article:author")
    # Most explicit first. The page's own declarations (JSON-LD, Open Graph) are read always;
    # the others only for a field that neither they nor the headline's lines gave: reading
    # microdata walks every link's ``rel``, and the byline or a shown date is what they would
    # be checked against.
    sources: list[Callable[[], dict[str, str | None]]] = [
        lambda: _from_jsonld(objects),
        lambda: {
            "title": next((metas[k] for k in _META_TITLE if k in metas), None),
            "author": og_author if og_author and not _ADDRESS.search(og_author) else None,
            "published": metas.get("article:published_time"),
            "modified": next((metas[k] for k in _META_MODIFIED if k in metas), None),
        },
        lambda: _from_markup(lines),
        lambda: {
            "author": next((metas[k] for k in _META_AUTHOR[1:] if k in metas and not _ADDRESS.search(metas[k])), None),
            "published": next((metas[k] for k in _META_PUBLISHED if k in metas), None),
        },
        lambda: _from_jsonld(objects, types=None),
    ]
    marked: dict[str, str | None] = dict.fromkeys(("title", "author", "published", "modified"))

    def read(source: Callable[[], dict[str, str | None]]) -> None:
        found = source()
        for name, value in marked.items():
            if value is None:
                marked[name] = found.get(name)

    read(sources[0])
    read(sources[1])
    page_title = _clean(" ".join(t.text_content() for t in lines.elements["title"][:1]))
    titles = [t for t in (marked["title"], page_title) if t]
    names = _title_names(titles, metas.get("og:site_name"))
    headline, at = _headline(lines, titles, names, metas.get("og:site_name"))
    byline = _from_lines(lines, at, now) if at >= 0 else Byline()
    shown_author, shown_dates = byline.author, byline.dates
    for source in sources[2:]:
        if (marked["title"] or headline) and (marked["author"] or shown_author) and (marked["published"] or shown_dates):
            break
        read(source)
    if headline:
        title = _mended(headline, titles, metas.get("og:site_name"))
    elif marked["title"]:
        title = _without_site(marked["title"], metas.get("og:site_name"))
    else:
        title = fields.title(tree, None, lines)
    author = _clean(_BY_LABEL.sub("", marked["author"])) if marked["author"] else None
    publisher = False
    if author is not None:
        sites = _site_names(objects, metas.get("og:site_name"))
        author = _without_publisher(author, sites)
        publisher = _names_site(author, sites)
    if shown_author is None and (author is None or publisher):
        shown_author = _written_by(lines) or _author_box(lines) or byline.reviewer
    if shown_author and (author is None or publisher):
        author = shown_author
    elif shown_author and _same_name(author, shown_author):
        author = _as_marked(author, shown_author)
    published = marked["published"]
    if shown_dates:
        # The publication's time where it was changed the same day (a later key wins).
        days = {_day(marked["modified"], now): marked["modified"], _day(published, now): published}
        shown = next((days[day] or date.raw for date in shown_dates for day in date.days if day in days), None)
        published = shown or shown_dates[0].raw
    return ArticleMeta(
        title=_shown(title),
        author=_shown(author),
        published=published,
        modified=marked["modified"],
        declared=_declared(objects, metas),
    )
