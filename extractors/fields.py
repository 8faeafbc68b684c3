"""Page-level fields that every extraction method shares: title, breadcrumb, page number, links.

These read standard places (``<h1>``, ``<title>``, breadcrumb navigation, ``og:title``, the URL's
page parameter) and are cheap calls on the already parsed tree. An article's title, author and
times are :mod:`~forumcrawl.extractors.metadata`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urldefrag, urljoin, urlsplit

import lxml.etree
import lxml.html

from forumcrawl.extractors.cx import PageLines

__all__ = [
    "anchors",
    "board",
    "page_links",
    "page_number",
    "title",
    "title_affixes",
    "title_core",
    "without_page_parts",
]

_SKIPPED_SCHEMES = ("#", "javascript:", "mailto:", "tel:")

_TITLE_SPLIT = re.compile(r"\s+[-|_–—·»]\s+|\s*[|_–—]\s*")
#: Where a ``<title>`` joins its parts: a separator with blanks around it (``Thread | Site``).
_TITLE_JOIN = re.compile(r"\s+[-|_–—·»:]\s+|\s*[|–—»]\s*")
#: A page marker among a title's parts (``Page 2``, ``第2页``, ``Seite 2``).
_PAGE_PART = re.compile(r"(?:page|seite|página|pagina|страница)\s*\d+(?:\s*(?:of|/|von|de)\s*\d+)?|第\s*\d+\s*[页頁]", re.I)
#: A title affix must be shared by more than this share of a site's sampled titles (and two).
_AFFIX_SHARE = 0.5
_PAGE_KEYS = ("page", "pn", "pg", "p", "pagenum", "pageno")
_STATIC_PAGE = re.compile(r"(?:thread|topic|t)-\d+-(\d+)(?:-\d+)?\.s?html?$", re.IGNORECASE)
_PATH_PAGE = re.compile(r"/(?:page[-/]?|p)(\d+)/?$", re.IGNORECASE)
#: Breadcrumb containers, most telling first: schema.org markup, then the word "breadcrumb",
#: then common forum-engine names (Discuz! ``#pt``, ``.crumbs``).
_CRUMB_XPATHS = (
    "//*[@itemtype='https://schema.org/BreadcrumbList' or @itemtype='http://schema.org/BreadcrumbList']",
    "//*[contains(translate(@class,'BREADCRUMB','breadcrumb'),'breadcrumb')"
    " or contains(translate(@id,'BREADCRUMB','breadcrumb'),'breadcrumb') or @aria-label='breadcrumb']",
    "//*[@id='pt' or contains(@class,'crumbs') or contains(@class,'crumb-trail')]",
)
#: The attributes :data:`_CRUMB_XPATHS` test, and the case folding of their ``translate``.
_CRUMB_ATTRS = frozenset({"itemtype", "class", "id", "aria-label"})
_CRUMB_ITEMTYPES = ("https://schema.org/BreadcrumbList", "http://schema.org/BreadcrumbList")
_CRUMB_CASE = str.maketrans("BREADCRUMB", "breadcrumb")
_HOME_PATH = re.compile(r"(?:\.{0,2}/)*(?:(?:index|forum|default|home|portal)\.(?:php|html?|aspx?|jsp))?/?", re.I)
_HOME_WORDS = frozenset({"home", "index", "首页", "论坛", "forum", "forums", "board index", "主页"})
def _clean(text: str) -> str:
    return " ".join(text.split())


def _alone(tree: lxml.html.HtmlElement) -> bool:
    """Whether ``tree`` is the whole document (no top-level element beside it): the elements
    its lines' walk gathered are then those of a search of the document (``//title``)."""
    return tree.getparent() is None and tree.getprevious() is None and tree.getnext() is None


def _title_texts(tree: lxml.html.HtmlElement, lines: PageLines | None) -> list[str]:
    """The text nodes of the document's ``<title>`` elements; one childless ``<title>`` is read
    from the lines' walk, other cases by a search of the document."""
    if lines is not None and _alone(tree):
        titles = lines.elements["title"]
        if not titles:
            return []
        if len(titles) == 1 and not len(titles[0]):
            text = titles[0].text
            return [text] if text else []
    return tree.xpath("//title//text()")  # type: ignore[no-any-return]


def _og_titles(tree: lxml.html.HtmlElement, lines: PageLines | None) -> list[str]:
    """The ``content`` of every ``<meta property="og:title">`` of the document."""
    if lines is not None and _alone(tree):
        return [
            content
            for meta in lines.elements["meta"]
            if meta.get("property") == "og:title" and (content := meta.get("content")) is not None
        ]
    return tree.xpath("//meta[@property='og:title']/@content")  # type: ignore[no-any-return]


def title_affixes(titles: list[str]) -> list[str]:
    """What a site adds around its pages' titles (``" | Workbench Community"``,
    ``"[Forum] | "``): the prefixes and suffixes, cut at a separator, that more than half of
    ``titles`` (and at least two) share; longest first. Titles that differ only in a page
    marker (``Page 3``) count once: the pages of one thread are not the site. Learned once per
    site, they let :func:`title` take the thread title out of ``<title>`` however short it is.

    Examples
    --------
    >>> title_affixes(["Is it worth it? - Bench Forums", "My NAS - Bench Forums - Page 2",
    ...                "Fan noise - Hardware - Bench Forums"])
    [' - Bench Forums']
    >>> title_affixes(["Lens? | Page 2 | Bench", "Lens? | Page 3 | Bench", "Lens? | Bench", "NAS | Bench"])
    [' | Bench']
    """
    threads: dict[tuple[str, ...], str] = {}
    for raw in sorted((_clean(t) for t in titles if t), key=len):
        key = tuple(p for p in _TITLE_JOIN.split(raw) if not _PAGE_PART.fullmatch(p.strip()))
        threads.setdefault(key, raw)
    distinct = set(threads.values())
    counts: dict[str, int] = {}
    for raw in distinct:
        found = set()
        core = title_core(raw, [])  # page markers are not the site's
        for m in _TITLE_JOIN.finditer(core):
            if m.start() > 0:
                found.add(core[m.start():])
            if m.end() < len(core):
                found.add(core[: m.end()])
        for affix in found:
            counts[affix] = counts.get(affix, 0) + 1
    kept = [a for a, c in counts.items() if c >= 2 and c > _AFFIX_SHARE * len(distinct)]
    return sorted(kept, key=lambda a: (-len(a), a))


def without_page_parts(text: str) -> str:
    """``text`` without the parts (between title separators) that are page markers, wherever
    they stand: ``Thread | Page 4 | Site`` → ``Thread | Site``.

    Examples
    --------
    >>> without_page_parts("Is a lens worth it? | Page 4 | Bench"), without_page_parts("Page 2 - NAS")
    ('Is a lens worth it? | Bench', 'NAS')
    """
    parts: list[tuple[str, str]] = []  # (separator before, part)
    start, separator = 0, ""
    for join in _TITLE_JOIN.finditer(text):
        parts.append((separator, text[start:join.start()]))
        start, separator = join.end(), join.group()
    parts.append((separator, text[start:]))
    kept = [(sep, part) for sep, part in parts if not _PAGE_PART.fullmatch(part.strip())]
    if not kept or len(kept) == len(parts):
        return text
    return kept[0][1] + "".join(sep + part for sep, part in kept[1:])


def title_core(raw: str, affixes: list[str]) -> str:
    """``raw`` without page markers and the site's ``affixes`` (:func:`title_affixes`) at
    either end."""
    text = without_page_parts(_clean(raw))
    while text:
        before = text
        for affix in affixes:
            if text.endswith(affix) and len(text) > len(affix):
                text = text[: -len(affix)]
            elif text.startswith(affix) and len(text) > len(affix):
                text = text[len(affix):]
        if text == before:
            break
    return text.strip()


def title(
    tree: lxml.html.HtmlElement | None, affixes: list[str] | None = None, lines: PageLines | None = None
) -> str | None:
    """The page's headline. ``lines``, the page's CX lines when they were cut, spare the scans
    of the tree for titles, headings and ``og:title`` (their walk gathered them).

    With the site's learned ``affixes`` (:func:`title_affixes`), the ``<title>`` without them is
    the thread title, or starts with it ("Thread - Board"): a heading, ``og:title`` or the
    breadcrumb's last item that it starts with is then the title, else it is itself.

    Without them, pages title themselves "Thread - Board - Site", and carry both the site's name
    and the thread's title as headings: of the ``<h1>``-``<h3>`` that the ``<title>`` contains,
    and the breadcrumb's last item that it opens with, the one standing earliest in it wins.
    Without such a heading, the ``og:title``, else the ``<title>``'s longest part.
    """
    if tree is None:
        return None
    raw = _clean(" ".join(_title_texts(tree, lines)))
    found = lines.headings if lines is not None else tree.iter("h1", "h2", "h3")
    headings = [_clean(h.text_content()) for h in found]
    if affixes and raw:
        core = title_core(raw, affixes)
        if core:
            named = [*headings, *map(_clean, _og_titles(tree, lines)), *_last_crumb(tree)]
            # A name the cut title starts with; or one that starts with it and stands whole in
            # the page's title: an affix learned from a few titles can be a common ending of
            # thread titles ("X vs Y – which one?"), and cuts one short.
            starting = [h for h in named if h and (core.startswith(h) or (h.startswith(core) and h in raw))]
            return max(starting, key=len) if starting else core
    # The breadcrumb's last item that the title opens with, up to a separator, is the page's
    # own name, whatever separators it holds ("X vs Y – which one? - Board - Site"); a category
    # a title merely opens with ("Sparks" of "Sparks, NV Homes for Sale") is not.
    inside = [h for h in headings if h and raw and h in raw] + [
        c for c in _last_crumb(tree) if c and raw.startswith(c) and _TITLE_JOIN.match(raw, len(c))
    ]
    if inside:
        return min(inside, key=lambda h: (raw.index(h), -len(h)))
    if not raw:
        first = next((h for h in headings[:1] if h), None)
        return first
    og = _og_titles(tree, lines)
    if og and _clean(og[0]):
        return without_page_parts(_clean(og[0]))
    raw = without_page_parts(raw)
    parts = [p for p in _TITLE_SPLIT.split(raw) if p.strip()]
    return max(parts, key=len).strip() if parts else raw


def _is_home(href: str | None) -> bool:
    """Whether a link points at a site's front page (``/``, ``index.php``, ``forum.php`` …)."""
    if not href:
        return False
    parts = urlsplit(href.strip())
    return not parts.query and _HOME_PATH.fullmatch(parts.path) is not None


def _crumbs(tree: lxml.html.HtmlElement) -> list[list[lxml.html.HtmlElement]]:
    """The elements each of :data:`_CRUMB_XPATHS` finds, in document order. Tested in one pass
    over the tree when it is the whole document: the three searches cost 2 ms on a forum page
    (the ``translate`` of every element's class), five times the pass."""
    if not _alone(tree):
        return [tree.xpath(query) for query in _CRUMB_XPATHS]
    found: list[list[lxml.html.HtmlElement]] = [[], [], []]
    for element in tree.iter(lxml.etree.Element):
        keys = element.keys()
        if not keys or _CRUMB_ATTRS.isdisjoint(keys):
            continue
        classes = element.get("class") or ""
        ident = element.get("id") or ""
        if element.get("itemtype") in _CRUMB_ITEMTYPES:
            found[0].append(element)
        if (
            "breadcrumb" in classes.translate(_CRUMB_CASE)
            or "breadcrumb" in ident.translate(_CRUMB_CASE)
            or element.get("aria-label") == "breadcrumb"
        ):
            found[1].append(element)
        if ident == "pt" or "crumbs" in classes or "crumb-trail" in classes:
            found[2].append(element)
    return found


#: What stands between breadcrumb items (``Board › Thread``, ``Forum > Board``).
_CRUMB_SEPARATORS = "›»>/|→·"


def _last_crumb(tree: lxml.html.HtmlElement) -> list[str]:
    """The last item of the page's innermost breadcrumb: the text after its last link when the
    page's own item is no link (``<a>Board</a> › Thread``), else its last link's text; none
    without a breadcrumb. A thread page's breadcrumb ends with the thread's title as it is,
    where ``<title>`` adds the board's name ("Thread - Board - Site")."""
    for crumbs in _crumbs(tree):
        if not crumbs:
            continue
        crumb = crumbs[-1]
        links = list(crumb.iter("a"))
        if not links:
            return []
        after: list[str] = []
        node = links[-1]
        while node is not crumb:  # the text after the link, up to the crumb's end
            after.append(node.tail or "")
            after.extend(f"{sib.text_content() if isinstance(sib.tag, str) else ''} {sib.tail or ''}"
                         for sib in node.itersiblings())
            node = node.getparent()
        trailing = _clean(" ".join(after)).strip(_CRUMB_SEPARATORS + " ")
        return [trailing or _clean(links[-1].text_content())]
    return []


def board(tree: lxml.html.HtmlElement | None, page_title: str | None = None) -> str | None:
    """Breadcrumb trail without the home link(s) and the page's own title, joined with `` > ``."""
    if tree is None:
        return None
    for crumbs in _crumbs(tree):
        for crumb in reversed(crumbs):  # innermost first: nested matches narrow down
            names = [_clean(a.text_content()) for a in crumb.iter("a") if not _is_home(a.get("href"))]
            names = [n for n in names if n and n.lower() not in _HOME_WORDS and n != page_title]
            if names:
                return " > ".join(dict.fromkeys(names))
    return None


def page_number(url: str) -> int:
    """Page number of a paginated page from its URL (query ``page=``/``pn=``, ``thread-1-2-1.html``,
    ``/page/2``); 1 when the URL names none."""
    parts = urlsplit(url)
    query = {k.lower(): v for k, v in parse_qsl(parts.query)}
    for key in _PAGE_KEYS:
        if query.get(key, "").isdigit():
            return max(int(query[key]), 1)
    for pattern in (_STATIC_PAGE, _PATH_PAGE):
        found = pattern.search(parts.path)
        if found:
            return max(int(found.group(1)), 1)
    return 1


def anchors(tree: lxml.html.HtmlElement | None, base_url: str) -> Iterator[tuple[lxml.html.HtmlElement, str]]:
    """Each ``<a href>`` with an http(s) target, in page order, with its absolute URL
    (``<base href>`` honoured, fragment removed); skips ``javascript:``, ``mailto:`` and ``#``."""
    if tree is None:
        return
    base = base_url
    for href in tree.xpath("//base/@href")[:1]:
        base = urljoin(base_url, str(href).strip())
    for element in tree.iter("a"):
        href = (element.get("href") or "").strip()
        if not href or href.lower().startswith(_SKIPPED_SCHEMES):
            continue
        try:
            url = urldefrag(urljoin(base, href)).url
        except ValueError:
            continue
        if url.startswith(("http://", "https://")):
            yield element, url


def page_links(tree: lxml.html.HtmlElement | None, base_url: str) -> list[str]:
    """Absolute http(s) URLs of the page's links, in page order, each once. Reuses the parsed
    tree (no second parse for links)."""
    return list(dict.fromkeys(url for _, url in anchors(tree, base_url)))
