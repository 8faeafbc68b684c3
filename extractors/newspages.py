"""News and blog pages: listing or article, the article's identity, body and reader comments.

A news site's article is identified by its canonical URL (the page's declared ``rel=canonical``,
else its URL without the parameters that never select content), never by a number read out of
the URL: date permalinks, slugs with digits and portal ids all name one article each. A listing
(home pager, category, tag, author, date archive) is told by what it shows, a run of linked
teaser headlines, or by a pager URL, never by its URL shape alone: ``/2024/05/`` is a listing on
one site and ``/n1/2024/0501/c1001-40227563.html`` an article on another.

Plain Python over lxml trees and URLs; no Scrapy.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import lxml.html
from forumcrawl.extractors.metadata import marked_article

__all__ = [
    "LISTING_LINKS",
    "LISTING_TEASERS",
    "Comment",
    "article_identity",
    "body_text",
    "comments",
    "is_pager_url",
    "page_role",
    "strip_params",
    "teaser_links",
    "trim_heading_lines",
    "without_extras",
]

#: Linked headlines (of distinct other pages, outside navigation, sidebars and teaser boxes of
#: related articles) from which a page that declares no article is a listing. Chosen on the
#: generated sites' dev seeds 0-29: article pages show none, listings one per teaser (a tag
#: or an author with one article shows one).
LISTING_TEASERS = 1
#: Title links not in headlines (a portal's list of dated links) from which a page that declares
#: no article is a listing: an article's text may link a few other articles inline.
LISTING_LINKS = 3
#: Linked headlines an undeclared article may show in a box whose name tells nothing ("Read
#: next", three related stories) when it has a headline of its own above this much prose
#: (see _prose_under_headline). Chosen on the generated sites' seeds 0-29: their shortest
#: Chinese article has 285, listings have none under a headline of their own.
RESCUED_TEASERS = 4
ARTICLE_PROSE = 250
#: Most text of a block holding a linked headline that is dropped with it as a teaser.
TEASER_CHARS = 400
#: A page that declares itself an article (JSON-LD, ``og:type``) is one unless it shows this many
#: linked headlines, or as many title links and no prose under a headline of its own: some home
#: pages carry an article's marks.
DECLARED_TEASERS = 8
#: Query parameters that never select content: reply forms, trackers, share and print views.
NOISE_PARAMS = re.compile(
    r"^(?:replytocom|utm_\w+|fbclid|gclid|share|shared|amp|output|print|ref|source|via|spm|from)$",
    re.IGNORECASE,
)
_PAGER = re.compile(
    r"/page/\d+/?$|/(?:index|list|default)[_-]?\d+\.s?html?$|[?&](?:paged|page|pg|pn|pagenum)=\d+(?:&|$)",
    re.IGNORECASE,
)
_SKIPPED_REGIONS = re.compile(
    r"widget|sidebar|related|comment|respond|menu|breadcrumb|footer|share|social|recommend|popular|"
    r"cookie|consent|gdpr|newsletter|subscribe|post-navigation|nav-links|pagination|advert|\bads?\b|"
    r"more-(?:stories|news|from)|read-?next|trending|most-?(?:read|popular)|also-?read|recirc|promo|"
    r"xiangguan|tuijian|remen",
    re.IGNORECASE,
)
_REGION_TAGS = frozenset({"nav", "aside", "footer", "form"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4"})
_BLOCKS = frozenset({"p", "pre", "li", "blockquote", "h2", "h3", "h4", "h5", "h6", "div", "tr",
                     "section", "figure", "figcaption", "table", "ul", "ol", "dl", "dd", "dt", "br"})
_CJK = re.compile(r"[\u3400-\u9fff]")
_DATE_LINE = re.compile(r"\d{4}[-年/.]\d{1,2}|\b(?:19|20)\d{2}\b")


def is_pager_url(url: str) -> bool:
    """Whether ``url`` names a later page of a listing (``/page/3/``, ``index2.html``,
    ``index_2.html``, ``?paged=2``)."""
    return bool(_PAGER.search(url))


def strip_params(url: str, extra: frozenset[str] = frozenset()) -> str:
    """``url`` without the fragment and the query parameters that never select content (and
    those in ``extra``, learned on the site)."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(k, v) for k, v in pairs if not NOISE_PARAMS.match(k) and k not in extra]
    query = parts.query if len(kept) == len(pairs) else urlencode(kept)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def article_identity(tree: lxml.html.HtmlElement | None, url: str) -> str:
    """The article's canonical URL: the one its page declares (same host), else ``url`` without
    the parameters that never select content."""
    if tree is not None:
        for href in tree.xpath("//head/link[@rel='canonical']/@href")[:1]:
            declared = urljoin(url, href.strip())
            if href.strip() and urlsplit(declared).netloc == urlsplit(url).netloc:
                return strip_params(declared)
    return strip_params(url)


def _skipped(element: Any) -> bool:
    for node in element.iterancestors():
        if node.tag in _REGION_TAGS:
            return True
        if _SKIPPED_REGIONS.search(f"{node.get('class', '')} {node.get('id', '')}"):
            return True
    return False


def _title_like(text: str) -> bool:
    if _CJK.search(text):
        return len(_CJK.findall(text)) >= 6
    return len(text.split()) >= 3


def teaser_links(tree: lxml.html.HtmlElement | None, url: str) -> tuple[int, int]:
    """Distinct other pages of the site linked with a title-like text, outside navigation,
    sidebars, related-article boxes, comments and footers: those linked from a headline
    (``h1``-``h4``, a blog's teasers) and those linked otherwise (a portal's list of dated
    links)."""
    if tree is None:
        return 0, 0
    host = urlsplit(url).netloc
    here = strip_params(url)
    headed: set[str] = set()
    listed: set[str] = set()
    for link in tree.xpath("//body//a[@href]"):
        target = strip_params(urljoin(url, link.get("href", "").strip()))
        if urlsplit(target).netloc != host or target == here:
            continue
        if _title_like(" ".join(link.text_content().split())) and not _skipped(link):
            in_heading = any(node.tag in _HEADINGS for node in link.iterancestors())
            (headed if in_heading else listed).add(target)
    return len(headed), len(listed - headed)


def page_role(tree: lxml.html.HtmlElement | None, url: str) -> str:
    """``listing`` (a pager URL, or a run of linked headlines or title links), ``article``
    (declared one), or ``unknown`` (the caller decides: the page's kind, a publication time)."""
    if tree is None:
        return "unknown"
    headed, listed = teaser_links(tree, url)
    if is_pager_url(url) or headed >= DECLARED_TEASERS:
        return "listing"
    prose = _prose_under_headline(tree, url) >= ARTICLE_PROSE
    if marked_article(tree) and (prose or listed < DECLARED_TEASERS):
        return "article"
    if headed < LISTING_TEASERS and listed < LISTING_LINKS:
        return "unknown"
    if headed <= RESCUED_TEASERS and prose:
        # A headline of its own above a long text: an article with a box of related links.
        return "unknown"
    return "listing"


def _links_away(element: Any, url: str) -> bool:
    here = strip_params(url)
    return any(strip_params(urljoin(url, a.get("href", ""))) != here for a in element.xpath(".//a[@href]"))


def _prose_under_headline(tree: lxml.html.HtmlElement, url: str) -> int:
    """Unlinked paragraph text after the page's first ``h1``, when that is a headline of its own
    (no link to another page), up to the next linked headline, outside navigation, boxes and
    comments; in characters, a CJK character counting for two (it carries about a word). A
    listing's teasers each sit under their own linked headline."""
    total = 0
    started = False
    for element in tree.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if not started:
            if tag == "h1" and " ".join(element.text_content().split()):
                if _links_away(element, url):
                    return 0
                started = True
            continue
        if tag in _HEADINGS and _links_away(element, url) and not _skipped(element):
            break
        if tag == "p" and not _skipped(element):
            text = "".join(element.itertext())
            linked = "".join(t for a in element.xpath(".//a") for t in a.itertext())
            total += len(text) - len(linked) + len(_CJK.findall(text))
    return total


def _marked_body(tree: lxml.html.HtmlElement) -> Any:
    """The element the page marks as the article's body: ``itemprop=articleBody``, else the one
    hAtom ``entry-content`` / h-entry ``e-content`` outside comments."""
    for element in tree.xpath("//*[contains(concat(' ', normalize-space(@itemprop), ' '), ' articleBody ')]"):
        if not _skipped(element):
            return element
    marked = [
        e for e in tree.xpath(
            "//*[contains(concat(' ', normalize-space(@class), ' '), ' entry-content ')"
            " or contains(concat(' ', normalize-space(@class), ' '), ' e-content ')]"
        )
        if not _skipped(e)
    ]
    return marked[0] if len(marked) == 1 else None


def body_text(tree: lxml.html.HtmlElement | None) -> str | None:
    """The text of the body the page marks, one line per block (None when it marks none)."""
    if tree is None:
        return None
    element = _marked_body(tree)
    if element is None:
        return None
    element = copy.deepcopy(element)
    for node in element.xpath(".//script | .//style"):
        node.drop_tree()
    for node in element.iter():
        if node.tag in _BLOCKS:
            node.tail = "\n" + (node.tail or "")
    lines = (" ".join(line.split()) for line in element.text_content().split("\n"))
    return "\n".join(line for line in lines if line) or None


def without_extras(tree: lxml.html.HtmlElement, url: str) -> lxml.html.HtmlElement:
    """A copy of the page without what is never an article's body: consent dialogs, reader
    comments, share bars, related-article boxes, sidebars, navigation, footers, and teasers of
    other articles (a linked headline with the short block around it)."""
    cleaned = copy.deepcopy(tree)
    doomed = [
        e for e in cleaned.iter()
        if isinstance(e.tag, str) and e.tag not in {"body", "html"} and (
            e.tag in _REGION_TAGS or e.get("role") == "dialog"
            or _SKIPPED_REGIONS.search(f"{e.get('class', '')} {e.get('id', '')}")
        )
    ]
    for heading in cleaned.xpath("//h2 | //h3 | //h4"):
        if _links_away(heading, url):
            parent = heading.getparent()
            short = parent is not None and parent.tag not in {"body", "main", "article"} and (
                len(parent.text_content()) <= TEASER_CHARS
            )
            doomed.append(parent if short else heading)
    for element in doomed:
        if element.getparent() is not None:
            element.drop_tree()
    return cleaned


def trim_heading_lines(text: str, title: str | None, author: str | None) -> str:
    """``text`` without its leading headline and byline lines (the title again, a short line
    naming the author or a date), which single-page extraction keeps above the body."""
    lines = text.split("\n")
    norm_title = " ".join((title or "").split()).lower()
    while lines:
        line = " ".join(lines[0].split())
        short = len(line.split()) <= 14 if not _CJK.search(line) else len(line) <= 40
        if not line or line.lower() == norm_title or (
            short and ((author and author in line) or _DATE_LINE.search(line))
        ):
            lines.pop(0)
            continue
        break
    return "\n".join(lines)


@dataclass(frozen=True)
class Comment:
    """A reader's comment under an article."""

    author: str | None
    published: str | None
    text: str


def comments(tree: lxml.html.HtmlElement | None) -> list[Comment]:
    """Reader comments as comment software marks them (``.comment`` items under ``#comments``
    with ``.fn`` / ``.comment-author``, ``<time datetime>`` and ``.comment-content``)."""
    if tree is None:
        return []
    found = []
    for item in tree.xpath("//*[@id='comments']//*[contains(concat(' ', normalize-space(@class), ' '), ' comment ')]"):
        author = item.xpath(".//*[contains(concat(' ', normalize-space(@class), ' '), ' fn ')]")
        when = item.xpath(".//time/@datetime")
        body = item.xpath(".//*[contains(@class, 'comment-content')]")
        text = " ".join(body[0].text_content().split()) if body else ""
        if text:
            found.append(Comment(
                author=" ".join(author[0].text_content().split()) if author else None,
                published=str(when[0]) if when else None,
                text=text,
            ))
    return found

