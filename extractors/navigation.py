"""Navigation: one URL per page, and which thread page a URL is (after FoCUS, Jiang et al. 2013).

A forum links each page under many URLs. Three kinds of variation are folded here, without a
crawl, so the crawler can fetch each page once:

- **Noise parameters** (:func:`canonical_url`). Session ids, return-to parameters and view
  parameters do not name another page. A return-to parameter is recognised by its *value*
  (a path or URL of a page, as in ``/login/?next=/topic/3/``), whatever its name; the login page
  that links to itself with ``?next=<its own URL>`` then folds to one URL instead of nesting
  without end. Session ids are recognised by value shape (32 hex digits) or by a session name with
  a long token. Sort / order / filter parameters are recognised by name; patterns nobody listed
  are left to the crawl's yield budget (``forumcrawl.navigation``), which decides from what
  the pages lead to.
- **Thread identity** (:class:`ThreadIdentity`). Every thread page URL maps to
  ``(thread, page)``. Which number in the URL is the page is learned from the site's page-flip
  links (anchor text ``2`` on a URL whose number at one position is 2, or 10 = (2 − 1) × 10
  for ``start=`` offsets); which number is the thread is the one with most distinct values
  over the thread URLs. Numbers at positions that page-flip links never carry (a post number in
  ``/t/<slug>/<id>/<post>``, ``?p=<post>``) make a URL a *variant* of its thread: its page is
  unknown before it is fetched, so the crawler prefers the thread's canonical pages. Once one
  is fetched, the page says which page it is (:meth:`ThreadIdentity.page_of`): its pager's
  *previous* / *next* links, or the one number its numbered links leave out.
- **Fragments** are dropped.

Plain Python over URL strings; learned parts follow the scikit-learn estimator shape
(``fit``, then ``key``), and serialise to JSON with the site's other rules.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urljoin, urlsplit, urlunsplit

from forumcrawl.extractors.base import Estimator, not_fitted
from forumcrawl.extractors.fields import anchors

__all__ = [
    "NAV_VERSION",
    "ORDER_KEYS",
    "RETURN_KEYS",
    "VIEW_KEYS",
    "ListingOrders",
    "ThreadIdentity",
    "ThreadKey",
    "bare_query",
    "canonical_url",
    "continues_listing",
    "declared_canonical",
    "first_page_alias",
    "is_noise_param",
    "is_session_param",
    "listing_order",
    "next_links",
    "page_flip_number",
    "returns_to",
    "page_flips",
    "sequence_links",
    "pattern_key",
    "url_numbers",
]

NAV_VERSION = 1
#: Names of parameters that carry where to go back to. A value that is itself a path or URL
#: marks a return-to parameter under any name; these names also count with other values
#: (a page id such as ``from=portal``), but never with a plain number (``from=20`` may be an offset).
RETURN_KEYS = frozenset(
    "next redirect redirect_to redirect_uri redirecturl return return_to returnto returnurl "
    "return_url referer referrer from goto came_from continue _xfredirect backurl back_url "
    "destination dest origin".split()
)
#: Names of view parameters: the same listing sorted, filtered or windowed differently.
VIEW_KEYS = frozenset(
    "sort sortby sort_by sortorder sort_order order orderby order_by direction dir asc desc "
    "filter filters prefix_id daysprune last_days days timeframe".split()
)
#: Names of view parameters that only order a listing: each value lists the same pages. In a
#: path segment (askbot's ``/questions/scope:all/sort:votes-desc/page:2/``) they cannot be left
#: out of the URL as a query parameter can; one value is followed instead (:class:`ListingOrders`).
ORDER_KEYS = frozenset(
    "sort sortby sort_by sortorder sort_order order orderby order_by direction dir".split()
)
_ORDER_SEGMENT = re.compile(r"^([A-Za-z_]{1,24})[:=](.+)$")
_URL_VALUE = re.compile(r"^(?:/|https?://|//)", re.IGNORECASE)
#: Query parameters that carry a session, not a page: ``sid=<32 hex>`` (phpBB), ``s=`` (vBulletin).
SESSION_KEYS = frozenset({"s", "sid", "sess", "session", "sessionid", "session_id", "phpsessid",
                          "jsessionid", "oscsid"})
_SESSION_VALUE = re.compile(r"^[0-9A-Za-z]{16,}$")
_HEX32 = re.compile(r"^[0-9a-fA-F]{32}$")
#: A Java servlet's session id, carried in the path.
PATH_SESSION = re.compile(r";jsessionid=[^/?#]*", re.IGNORECASE)
_BLOCK_SPLIT = re.compile(r"[-_.,;~+!]")
_NUMBER = re.compile(r"^\d{1,12}$")
_WORD = re.compile(r"^[A-Za-z]{1,24}$")
#: Query names that count as a page number when page-flip links cannot tell (no paginated
#: thread in the sample).
_PAGE_NAMES = ("page", "pn", "pg", "pagenum", "pageno", "start")
_PAGE_WORDS = frozenset({"page", "p", "pg"})


def is_session_param(param: str) -> bool:
    """Whether a raw ``key=value`` query parameter carries a session id, not a page."""
    key, _, value = param.partition("=")
    value = unquote(value)
    return bool(_HEX32.match(value)) or (
        key.lower() in SESSION_KEYS and bool(_SESSION_VALUE.match(value))
    )


Position = tuple[Any, ...]
#: The id position of sites whose thread URLs carry no thread number: the path is the thread.
PATH_ID: Position = ("path",)


def is_noise_param(param: str) -> bool:
    """Whether one raw ``key=value`` query parameter names no page of its own.

    Session ids, return-to parameters (a path or URL as value, or a return-to name with a
    non-numeric value) and view parameters (sort, order, filter) are noise.
    """
    key, _, value = param.partition("=")
    name = unquote(key).strip().lower()
    if is_session_param(param):
        return True
    decoded = unquote(unquote(value)).strip()
    if decoded and _URL_VALUE.match(decoded):
        return True
    if name in RETURN_KEYS and decoded and not decoded.isdigit():
        return True
    return name in VIEW_KEYS


def canonical_url(url: str) -> str:
    """``url`` without noise parameters, ``;jsessionid=`` and fragment, so that every link form
    of one page is one request. The order and escapes of the other parameters are kept: robots.txt
    rules match the URL as written, and Scrapy's dupefilter already ignores their order.

    Examples
    --------
    >>> canonical_url("http://f.test/accounts/login/?next=/accounts/login/%3Fnext%3D/t/1/")
    'http://f.test/accounts/login/'
    >>> canonical_url("http://f.test/forumdisplay.php?f=2&sort=lastpost&order=desc#top")
    'http://f.test/forumdisplay.php?f=2'
    """
    parts = urlsplit(url)
    path = PATH_SESSION.sub("", parts.path)
    noise = [p.partition("=")[0] for p in parts.query.split("&") if p and is_noise_param(p)]
    cleaned = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
    if not noise:
        return cleaned
    # Imported here: w3lib.url loads urllib.request (an HTTP client), a tenth of the import
    # time of the single-page extractor, which rarely meets a noisy parameter.
    from w3lib.url import url_query_cleaner

    return url_query_cleaner(cleaned, noise, remove=True, unique=False)


def returns_to(location: str, asked: str) -> bool:
    """Whether a redirect from ``asked`` to ``location`` names ``asked`` as where to come back:
    a login wall (``/accounts/login/?next=/questions/close/7``), whatever the parameter's name.
    The page asked is not shown to a visitor, so the redirect's target (a login page) is no
    page of the site's content either.

    Examples
    --------
    >>> returns_to("/accounts/login/?next=/questions/close/7", "http://f.test/questions/close/7/")
    True
    >>> returns_to("/t/7/?page=2", "http://f.test/t/7/?p=30")
    False
    """
    target = urljoin(asked, location)
    here = urlsplit(canonical_url(asked))
    for _, value in parse_qsl(urlsplit(target).query, keep_blank_values=True):
        value = value.strip()
        if not _URL_VALUE.match(value):
            continue
        back = urlsplit(canonical_url(urljoin(asked, value)))
        if (back.netloc, back.path.rstrip("/"), back.query) == (
            here.netloc, here.path.rstrip("/"), here.query
        ):
            return True
    return False


_WORD_NUMBER = re.compile(r"^([A-Za-z]{1,24})(\d{1,12})$")


def bare_query(query: str) -> bool:
    """Whether a query string is no parameter list but more of the path (vBulletin 4's
    ``showthread.php?<id>-<slug>/page2``, Discuz's ``archiver/?tid-37.html``)."""
    return bool(query) and "=" not in query and "&" not in query


def _raw_segments(url: str) -> tuple[list[str], int]:
    """The raw path segments of ``url`` (``""`` first, as ``path.split("/")``), a bare query's
    segments after them, and how many of them are the path's."""
    parts = urlsplit(url)
    segments = parts.path.split("/")
    return (segments + parts.query.split("/") if bare_query(parts.query) else segments), len(segments)


def _rejoin(url: str, segments: list[str], n_path: int) -> str:
    """``url`` with the segments of :func:`_raw_segments` (``n_path`` of them the path's)."""
    parts = urlsplit(url)
    query = "/".join(segments[n_path:]) if bare_query(parts.query) else parts.query
    return urlunsplit((parts.scheme, parts.netloc, "/".join(segments[:n_path]) or "/", query, ""))


def _segments(url: str) -> list[str]:
    """The decoded path segments of ``url``, a bare query's after them (see :func:`_bare_query`)."""
    parts = urlsplit(url)
    segments = unquote(parts.path).split("/")[1:]
    return segments + unquote(parts.query).split("/") if bare_query(parts.query) else segments


def _tokens(segment: str) -> list[str]:
    """A path segment's blocks with the separators between them (``"".join`` gives it back), a
    block of letters then digits split in two (``page2``: ``page``, ``""``, ``2``)."""
    out: list[str] = []
    for i, token in enumerate(re.split(r"([-_.,;~+!])", segment)):
        match = _WORD_NUMBER.match(token) if i % 2 == 0 else None
        out += [match.group(1), "", match.group(2)] if match else [token]
    return out


def _blocks(segment: str) -> list[str]:
    """The non-empty blocks of a path segment (see :func:`_tokens`)."""
    return [b for b in _tokens(segment)[0::2] if b]


def url_numbers(
    url: str, words: frozenset[tuple[int, str]] = frozenset(), leading: frozenset[int] = frozenset()
) -> dict[Position, int]:
    """The numbers of a URL by position: ``("q", name)`` for a query parameter whose value is a
    number, ``("p", segment, word, k)`` for the k-th number from the end of a path segment, or
    ``-k`` for the k-th from its start in the segments of ``leading`` (where the thread number
    leads a slug, ``/topic/<id>-<slug>/``, and a title's numbers follow it).

    ``word`` is the block before the number when ``(segment, block)`` is in ``words`` (template
    words such as ``page`` in ``page-2`` or ``post`` in ``post-7``), else ``""``: a slug word
    before an id is not part of its position.
    """
    parts = urlsplit(url)
    out: dict[Position, int] = {}
    for i, segment in enumerate(_segments(url)):
        blocks = _blocks(segment)
        numbered = [j for j, b in enumerate(blocks) if _NUMBER.match(b)]
        order = [(-k, j) for k, j in enumerate(numbered, start=1)] if i in leading else \
            list(enumerate(reversed(numbered), start=1))
        for k, j in order:
            before = blocks[j - 1].lower() if j else ""
            word = before if (i, before) in words else ""
            out[("p", i, word, k)] = int(blocks[j])
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if _NUMBER.match(value) and not bare_query(parts.query):
            out[("q", key.lower())] = int(value)
    return out


def _shape(url: str, first: bool = True) -> str:
    """A URL path's shape: its first segment with numbers as ``#`` (``showthread.php``; masked
    like the others when not ``first``), then per segment ``*`` for words (a slug, ``latest``)
    followed by ``#`` when it ends with a number (``<slug>.781``, ``page-2``), ``#`` for a number
    alone; a trailing ``/`` does not count."""
    segments = _segments(url)
    while segments and not segments[-1]:
        segments.pop()
    out = []
    for i, segment in enumerate(segments):
        if i == 0 and first:
            out.append(re.sub(r"\d+", "#", segment))
            continue
        blocks = _blocks(segment)
        words = any(not b.isdigit() for b in blocks)
        out.append(("*" if words else "") + ("#" if blocks and blocks[-1].isdigit() else ""))
    return "/".join(out)


def _query_names(url: str) -> set[str]:
    """The lower-cased names of a URL's query parameters (none in a bare query)."""
    query = urlsplit(url).query
    return set() if bare_query(query) else {k.lower() for k, _ in parse_qsl(query, keep_blank_values=True)}


def _template_words(urls: Iterable[str]) -> frozenset[tuple[int, str]]:
    """``(segment, word)`` pairs of segments that are a word and a number, with the word in two
    or more of them: ``page`` of ``page-2``/``page-3`` and ``post`` of ``post-7`` are the URL
    template's; the last word of a slug (``help`` in ``wifi-help.12`` and ``grub-help.15``) is
    a title's."""
    forms: dict[tuple[int, str], set[str]] = defaultdict(set)
    for url in urls:
        for i, segment in enumerate(_segments(url)):
            blocks = _blocks(segment)
            if len(blocks) == 2 and _WORD.match(blocks[0]) and _NUMBER.match(blocks[1]):
                forms[(i, blocks[0].lower())].add(segment)
    return frozenset(key for key, seen in forms.items() if len(seen) >= 2)


def _leading_segments(urls: Iterable[str]) -> frozenset[int]:
    """Path segments whose numbers count from the start (see :func:`url_numbers`): where most
    URLs with a number there start the segment with it, and some of those end it with a word
    (``576-my-monitor-build-log`` beside ``577-is-it-worth-it-in-2024``: the leading number is
    the thread's, the others are the title's, however many it has)."""
    firsts: Counter[int] = Counter()
    numbered: Counter[int] = Counter()
    worded: set[int] = set()
    for url in urls:
        for i, segment in enumerate(_segments(url)):
            blocks = _blocks(segment)
            if not any(_NUMBER.match(b) for b in blocks):
                continue
            numbered[i] += 1
            if _NUMBER.match(blocks[0]):
                firsts[i] += 1
                if not _NUMBER.match(blocks[-1]):
                    worded.add(i)
    return frozenset(i for i in worded if 2 * firsts[i] > numbered[i])


def page_flip_number(text: str) -> int | None:
    """The page a page-flip link's anchor text names (``2``, ``[3]``), or None."""
    cleaned = text.strip().strip("[]()").strip()
    if cleaned.isdigit() and 1 <= len(cleaned) <= 5:
        return int(cleaned)
    return None


def _masked(segment: str) -> str:
    """A path segment with numbers as ``#`` and each run of words (a name, a slug) as ``*``."""
    out: list[str] = []
    for block in _BLOCK_SPLIT.split(segment):
        if not block:
            continue
        mark = "#" if block.isdigit() else "*"
        if not (mark == "*" and out and out[-1] == "*"):
            out.append(mark)
    return "".join(out)


#: Anchor texts of a link to the previous page.
_PREV = re.compile(
    r"^(?:prev(?:ious)?(?: page)?|newer|上一页|上页|上一頁|前页|前へ|이전|zurück|vorherige(?: seite)?|"
    r"précédente?|anterior|precedente|vorige|‹|«|<|<<|←)\W*$",
    re.IGNORECASE,
)
#: Anchor texts of a link to the next page (an arrow alone, or the word, in several languages).
_NEXT = re.compile(
    r"^(?:next(?: page)?|older|下一页|下页|下一頁|后页|次へ|다음|weiter|nächste(?: seite)?|suivant(?:e)?|"
    r"siguiente|successiva|próxima|volgende|›|»|>|>>|→)\W*$",
    re.IGNORECASE,
)


def _label(element: Any) -> str:
    """What a link says: its text, else its ``aria-label`` or ``title`` (a pager's arrows are
    icons: ``<a aria-label="previous">``)."""
    text = " ".join((element.text_content() or "").split())
    return text or " ".join((element.get("aria-label") or element.get("title") or "").split())


def sequence_links(tree: Any, url: str) -> list[str]:
    """The page's own word on its neighbours: ``<link rel="next|prev">`` in its head (canonical
    form). Some engines' visible pagers are scripts or broken; these links are not."""
    if tree is None:
        return []
    hrefs = tree.xpath("//head/link[@rel='next' or @rel='prev']/@href")
    return [canonical_url(urljoin(url, h.strip())) for h in hrefs if h.strip()]


def declared_canonical(tree: Any, url: str) -> str | None:
    """The absolute URL that the page at ``url`` names as itself (the first ``<link
    rel="canonical">`` of its head), None when it names none."""
    if tree is None:
        return None
    for href in tree.xpath("//head/link[@rel='canonical']/@href")[:1]:
        if href.strip():
            return urljoin(url, href.strip())
    return None


def next_links(tree: Any, url: str) -> list[str]:
    """The page's links to the page after it (canonical form, distinct, in page order):
    ``rel="next"`` on an ``<a>`` or ``<link>``, or an anchor such as "next page", "下一页", "»"
    (a numbered anchor names its page and is no *next* link)."""
    nexts: list[str] = []
    for element, href in anchors(tree, url):
        text = _label(element)
        if page_flip_number(text) is None and (
            "next" in (element.get("rel") or "").lower().split() or _NEXT.match(text)
        ):
            nexts.append(canonical_url(href))
    if tree is not None:
        nexts += [
            canonical_url(urljoin(url, h.strip()))
            for h in tree.xpath("//head/link[@rel='next']/@href")
            if h.strip()
        ]
    return list(dict.fromkeys(nexts))


def page_flips(tree: Any, url: str) -> list[tuple[str, int]]:
    """The page-flip links of a parsed page: ``(target URL in canonical form, page number)``.

    A link whose anchor text is a number names that page. A *next* link (``rel="next"`` on an
    ``<a>`` or ``<link>``, or an anchor such as "next page", "下一页", "»") names the page after
    this one: when the target differs from this page's URL by one number only, that number is
    page 2 if this URL lacks it (a first page), else the target's value if it grew by one.
    """
    flips: list[tuple[str, int]] = []
    for element, href in anchors(tree, url):
        number = page_flip_number(_label(element))
        if number is not None and number >= 2:
            flips.append((canonical_url(href), number))
    here = url_numbers(canonical_url(url))
    for target in next_links(tree, url):
        there = url_numbers(target)
        changed = [p for p in there if here.get(p) != there[p]]
        if len(changed) != 1 or any(p not in there for p in here):
            continue
        position = changed[0]
        if position not in here:
            flips.append((target, 2))
        elif there[position] == here[position] + 1:
            flips.append((target, there[position]))
    return flips


_DIGITS = re.compile(r"\d+")
_LETTERS = re.compile(r"[^\W\d_]+")


def continues_listing(source: str, target: str) -> bool:
    """Whether ``target`` is another page of the listing at ``source``: the two URLs differ in
    one place, where ``target`` holds one number and at most one word (``2``, ``page-2``,
    ``&start=40``, ``?page=3``). A listing's own pager names its pages so; the pagers in its
    rows name the pages of each thread listed (``showthread.php?t=942&page=2`` on
    ``forum-5-1.html``): another path and another number, not a continuation of the listing.

    Examples
    --------
    >>> continues_listing("http://f.test/forum-5-1.html", "http://f.test/forum-5-2.html")
    True
    >>> continues_listing("http://f.test/viewforum.php?f=5", "http://f.test/viewforum.php?f=5&start=20")
    True
    >>> continues_listing("http://f.test/forum-5-1.html", "http://f.test/showthread.php?t=942&page=2")
    False
    """
    a, b = unquote(canonical_url(source)), unquote(canonical_url(target))
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    # A number is compared whole (page 12 after page 2): the common ends stop outside it.
    while start and a[start - 1].isdigit() and (a[start:start + 1].isdigit() or b[start:start + 1].isdigit()):
        start -= 1
    end = 0
    while end < min(len(a), len(b)) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    while end and b[len(b) - end].isdigit() and (
        a[len(a) - end - 1:len(a) - end].isdigit() or b[len(b) - end - 1:len(b) - end].isdigit()
    ):
        end -= 1
    theirs, ours = b[start:len(b) - end], a[start:len(a) - end]
    return (
        len(_DIGITS.findall(theirs)) == 1
        and len(_LETTERS.findall(theirs)) <= 1
        and len(_DIGITS.findall(ours)) <= 1
        and len(_LETTERS.findall(ours)) <= 1
    )


def pager_targets(tree: Any, url: str) -> list[str]:
    """The targets of a page's pager links (canonical form, each once): links whose anchor is a
    page number or a *previous* link, and the page's :func:`next_links`, whichever numbers they
    change (unlike :func:`page_flips`, which keeps those that name a page number): which URLs
    the page's pager names, not which page each is."""
    found = []
    for element, href in anchors(tree, url):
        text = _label(element)
        rel = (element.get("rel") or "").lower().split()
        if page_flip_number(text) is not None or "prev" in rel or _PREV.match(text):
            found.append(canonical_url(href))
    return list(dict.fromkeys(found + next_links(tree, url)))


def first_page_alias(url: str) -> str | None:
    """``url`` without its one query parameter of value 1, or None: the listing that a page-flip
    link numbered 1 (``/board/6/?page=1``) names when that listing's plain URL serves page 1.
    Only the anchor's number says the parameter counts pages from 1 (``?page=1`` is the second
    page where pages count from 0), so the caller checks it."""
    parts = urlsplit(url)
    pairs = parts.query.split("&") if parts.query else []
    ones = [i for i, pair in enumerate(pairs) if pair.partition("=")[2] == "1"]
    if len(ones) != 1:
        return None
    rest = "&".join(pair for i, pair in enumerate(pairs) if i != ones[0])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, rest, ""))


def pattern_key(url: str) -> str:
    """A coarse template of a URL, for budgets: the first path segment with its numbers as
    ``#`` (``space-uid-#.html``, ``forum``), later segments masked (names and slugs as ``*``,
    numbers as ``#``) except a last one-word segment from depth 3 (``/u/*/activity``) that does
    not follow a number (after an id it is the slug naming the same thing: askbot's
    ``/users/11/wangfang/``), then the query names with their numbers as ``#`` and their word
    values (``mod=space``), or a bare query's segments masked as the path's. One user's profile
    and another's, two boards, or two threads' archive copies share a key; a board list and a
    profile do not."""
    parts = urlsplit(url)
    segments = [unquote(s) for s in parts.path.split("/") if s]
    path = []
    for i, segment in enumerate(segments):
        if i == 0:
            path.append(re.sub(r"\d+", "#", segment))
        elif i == len(segments) - 1 and i >= 2 and _WORD.match(segment) and not segments[i - 1].isdigit():
            path.append(segment.lower())
        else:
            path.append(_masked(segment))
    if bare_query(parts.query):
        return "/" + "/".join(path) + "?" + "/".join(_masked(unquote(s)) for s in parts.query.split("/"))
    # A number in a parameter's name is an id (Discuz's archiver ``?tid-37.html&page=2``).
    query = sorted(
        re.sub(r"\d+", "#", k.lower()) + (f"={v}" if _WORD.match(v) else "")
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )
    return "/" + "/".join(path) + ("?" + "&".join(query) if query else "")


def listing_order(url: str) -> tuple[str, str] | None:
    """A URL's listing family and its order: the path with the values of its order segments
    masked and its numbers as ``#``, and those values; None when no segment orders it."""
    parts = urlsplit(url)
    segments = parts.path.split("/")
    values = []
    for i, segment in enumerate(segments):
        match = _ORDER_SEGMENT.match(unquote(segment))
        if match and match.group(1).lower() in ORDER_KEYS:
            segments[i] = f"{match.group(1).lower()}:*"
            values.append(match.group(2))
    if not values:
        return None
    family = re.sub(r"\d+", "#", "/".join(segments))
    if parts.query:
        family += "?" + "&".join(sorted(_query_names(url)))
    return family, "/".join(values)


class ListingOrders(Estimator):
    """Which order of each sorted listing a crawl follows.

    A listing offered in several orders whose order is a path segment (``sort:activity-desc``)
    is the same pages in each: following every order fetches the listing once per order (eight
    times on askbot). Every listing page links each order it offers, so one order per listing
    family (the path with order values masked and numbers as ``#``) reaches all its pages.

    :meth:`fit` keeps, per family shown in two orders or more, the order in which a listing's
    plain URL (``/questions/``, no order in its path) goes on to its page 2, else the least of
    the order values the sample's URLs show: the site's own default, or a choice that does not
    depend on which pages were sampled nor in what order, so every worker of a cluster, and
    every crawl, follows the same order. The family that continues a plain listing is the
    site's listing of everything: its pages in that order are walked to the end (see
    :meth:`verdict`), as its other orders are no longer there to reach what a closed pattern
    would leave. Families shown in one order, or not at all, are left to the crawl's budgets.
    """

    def fit(self, urls: Iterable[str], continued: Iterable[str] = ()) -> ListingOrders:
        """Learn the order followed per family from a site's sample of URLs, and ``continued``:
        the page-flip targets of the sampled pages whose own URL orders nothing."""
        seen: dict[str, set[str]] = defaultdict(set)
        for url in urls:
            found = listing_order(url)
            if found is not None:
                seen[found[0]].add(found[1])
        defaults: dict[str, set[str]] = defaultdict(set)
        for url in continued:
            found = listing_order(url)
            if found is not None:
                seen[found[0]].add(found[1])
                defaults[found[0]].add(found[1])
        self.orders_ = {
            family: min(defaults.get(family) or values)
            for family, values in seen.items()
            if len(values) >= 2
        }
        self.walked_ = sorted(family for family in defaults if family in self.orders_)
        return self

    def verdict(self, url: str) -> bool | None:
        """Whether ``url`` is a page of a walked family's listing in its followed order (True),
        lists in an order not followed (False), or neither (None)."""
        if not hasattr(self, "orders_"):
            raise not_fitted("ListingOrders is not fitted")
        found = listing_order(url)
        if found is None or found[0] not in self.orders_:
            return None
        if self.orders_[found[0]] != found[1]:
            return False
        return True if found[0] in self.walked_ else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the site model's ``orders`` rule)."""
        return {"orders": dict(sorted(self.orders_.items())), "walked": self.walked_}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ListingOrders:
        """Rebuild from :meth:`to_dict`'s output."""
        orders = cls()
        orders.orders_ = {str(k): str(v) for k, v in dict(data["orders"]).items()}
        orders.walked_ = [str(family) for family in data.get("walked", [])]
        return orders


@dataclass(frozen=True)
class ThreadKey:
    """Which thread page a URL is: ``thread`` (None when the URL does not say) and ``page``
    (None for a variant, whose page is known only once fetched)."""

    thread: str | None
    page: int | None

    @property
    def canonical(self) -> bool:
        """Whether the URL names one page of one thread."""
        return self.thread is not None and self.page is not None


def _position_to_json(position: Position) -> list[Any]:
    return list(position)


def _position_from_json(data: Sequence[Any]) -> Position:
    return tuple(data)


class ThreadIdentity(Estimator):
    """Map thread-page URLs of one site to ``(thread, page)``, learned from its URLs.

    Parameters
    ----------
    min_votes : int, default=2
        Page-flip links that must agree before a position counts as the page number; with
        fewer, a query parameter named like a page (``page``, ``start`` …) or a path segment
        ``page-N`` is taken.

    Attributes
    ----------
    id_position_ : the position of the thread number.
    page_position_ : the position of the page number, or None (threads of one page only).
    page_step_ : the page number is ``value // page_step_ + 1`` for offsets (``start=20``), or
        ``value`` itself when 0.
    page_optional_ : whether page 1's URL omits the page number.
    slash_ : whether page 1's URL ends with ``/`` when a path page segment is taken out.
    page_word_ : whether page 1's URL also leaves out the word segment before such a page
        segment (``/page/2/``), as the site's own links to first pages show.
    allowed_ : positions a canonical thread page URL may carry numbers at.
    params_ : query parameters a canonical thread page URL may carry (``goto=nextnewest`` or
        ``view=print`` make a variant: page-flip links never carry them).
    shapes_ : path shapes (:func:`_shape`) of canonical thread page URLs, from the page flips
        and their first pages: ``printthread.php?t=5`` is not the page ``showthread.php?t=5``,
        nor ``/threads/<slug>.5/latest`` the page ``/threads/<slug>.5/``.
    words_ : template words of path segments (see :func:`url_numbers`).
    leading_ : path segments whose numbers count from the start (see :func:`url_numbers`).
    """

    def __init__(self, min_votes: int = 2) -> None:
        self.min_votes = min_votes

    def fit(self, topic_urls: Sequence[str], flips: Iterable[tuple[str, int]] = ()) -> ThreadIdentity:
        """Learn from the site's thread-page URLs and its page-flip links ``(URL, page number)``.

        Raises
        ------
        ValueError
            When there is no thread URL.
        """
        urls = [canonical_url(u) for u in topic_urls]
        flip_list = [(canonical_url(u), n) for u, n in flips if n >= 2]
        if not urls:
            raise ValueError("no thread URL to learn thread identity from")
        self.words_ = _template_words([*urls, *(u for u, _ in flip_list)])
        # The thread URLs count too: the page flips may all be of threads whose titles end with
        # a number (``652-is-a-monitor-still-worth-it-in-2024/page/2/``), which alone show no
        # thread number leading a title (seed 104: the year was taken for the thread).
        self.leading_ = _leading_segments([*(u for u, _ in flip_list), *urls])
        numbers = [self._numbers(u) for u in urls]
        flip_numbers = [(self._numbers(u), n) for u, n in flip_list]
        self.page_position_, self.page_step_ = self._page(numbers, flip_numbers)
        # A link whose anchor is a number but whose URL does not carry it at the page position
        # is no page flip (a post permalink labelled with its floor).
        flip_numbers = [(nums, n) for nums, n in flip_numbers if self._names_page(nums, n)]
        counts: Counter[Position] = Counter(p for nums in numbers for p in nums)
        distinct: dict[Position, set[int]] = defaultdict(set)
        for nums in numbers:
            for p, v in nums.items():
                distinct[p].add(v)
        # Page-flip links name canonical pages: the thread number is among what they carry,
        # however many post permalinks the sample holds.
        in_flips: Counter[Position] = Counter(p for nums, _ in flip_numbers for p in nums)
        if flip_numbers:
            candidates = [
                p for p, c in in_flips.items()
                if p != self.page_position_ and 2 * c >= len(flip_numbers)
            ]
        else:
            candidates = [
                p for p, c in counts.items() if p != self.page_position_ and 2 * c >= len(numbers)
            ]
        # No number names the thread (``/c/<board>/<topic-slug>/``): its path does.
        candidates = [p for p in candidates if len(distinct[p]) >= 2 or len(numbers) == 1]
        self.id_position_ = (
            max(candidates, key=lambda p: (len(distinct[p]), counts[p], repr(p)))
            if candidates else PATH_ID
        )
        self.page_optional_ = self.page_position_ is None or any(
            self.page_position_ not in nums for nums in numbers
        )
        if flip_numbers:
            allowed = set(in_flips)
        else:
            allowed = {p for p, c in counts.items() if 2 * c >= len(numbers)}
            # Without a page position every URL of a thread is its page 1, which has one URL: a
            # number taking several values among one thread's URLs (askbot's ``?answer=<id>``
            # on most thread links of its sample) names no page 1, and makes a variant.
            within: dict[tuple[int, Position], set[int]] = defaultdict(set)
            for nums in numbers:
                thread = nums.get(self.id_position_)
                if thread is not None:
                    for p, v in nums.items():
                        within[(thread, p)].add(v)
            allowed -= {p for (_, p), values in within.items() if len(values) >= 2 and p != self.page_position_}
        allowed |= {self.id_position_} | ({self.page_position_} if self.page_position_ else set())
        self.allowed_ = frozenset(allowed)
        names: Counter[str] = Counter(
            k for u in (u for u, _ in flip_list) or urls for k in _query_names(u)
        )
        total = len(flip_list) or len(urls)
        self.params_ = frozenset(
            n for n, c in names.items() if flip_list or 2 * c >= total
        ) | {p[1] for p in self.allowed_ if p[0] == "q"}
        self.slash_ = False
        self.page_word_ = False
        self.shapes_: frozenset[str] = frozenset()
        canonical = [u for u, _ in flip_list] or urls
        # A first segment that varies between threads (a board's slug at the root) is a name.
        self.first_ = len({urlsplit(u).path.strip("/").split("/")[0] for u in canonical}) < 3
        self.page_word_ = self._page_word(flip_list, urls)
        if flip_list:
            firsts = [self.first_page(u) for u, _ in flip_list]
            self.shapes_ = frozenset(
                _shape(u, self.first_) for u in [*(u for u, _ in flip_list), *firsts] if u
            )
        else:
            shapes = Counter(_shape(u, self.first_) for u in urls)
            self.shapes_ = frozenset(s for s, c in shapes.items() if 2 * c >= len(urls))
        bare = [
            u for u, nums in zip(urls, numbers)
            if self.page_position_ not in nums and self.key(u).canonical
        ]
        self.slash_ = 2 * sum(urlsplit(u).path.endswith("/") for u in bare) > len(bare)
        return self

    def _page(
        self,
        numbers: list[dict[Position, int]],
        flips: list[tuple[dict[Position, int], int]],
        min_votes: int | None = None,
    ) -> tuple[Position | None, int]:
        """The page position and its step, by the votes of page-flip links (``min_votes``,
        by default the estimator's, must agree; see the class)."""
        votes: Counter[tuple[Position, int]] = Counter()
        for nums, n in flips:
            for p, v in nums.items():
                if v == n:
                    votes[(p, 0)] += 1
                elif v and v % (n - 1) == 0 and v // (n - 1) > 1:
                    votes[(p, v // (n - 1))] += 1
        if votes:
            (position, step), count = max(votes.items(), key=lambda kv: (kv[1], repr(kv[0])))
            if count >= (self.min_votes if min_votes is None else min_votes):
                return position, step
        seen = {p for nums in numbers for p in nums}
        for name in _PAGE_NAMES:
            if ("q", name) in seen:
                return ("q", name), 0
        for p in sorted(seen, key=repr):
            if p[0] == "p" and p[2] in _PAGE_WORDS:
                return p, 0
        return None, 0

    def add_pages(self, flips: Iterable[tuple[str, int]], page_url: str) -> bool:
        """Learn the page number from page-flip links ``(URL, page number)`` met after
        :meth:`fit` on the thread page at ``page_url``, when the sample showed none (its threads
        had one page each): the position the links vote for (as in :meth:`fit`, the thread's
        own number left out) becomes the page position, and their parameter and path shape
        those of canonical pages (as :meth:`fit` has them with page flips: a URL with other
        numbers or parameters is a variant); page 1 omits the number when ``page_url`` does. Returns
        whether the identity changed: not when it has a page position already, nor when the
        links carrying the voted number would not all be canonical pages of their numbers
        (``page_url`` may be a post permalink: the links name the pages of its thread)."""
        self._check()
        flip_list = [(canonical_url(u), n) for u, n in flips if n >= 2]
        if self.page_position_ is not None or not flip_list:
            return False
        # The thread's own number is no page number (one thread's links agree on it too).
        numbers = [
            {p: v for p, v in self._numbers(u).items() if p != self.id_position_}
            for u, _ in flip_list
        ]
        # One page's links: a single vote is enough when every link carrying its number then
        # names its page (checked below); the names (``start``) would miss an offset's step.
        position, step = self._page(numbers, [(nums, n) for nums, (_, n) in zip(numbers, flip_list)], 1)
        if position is None:
            return False
        trial = ThreadIdentity.from_dict(self.to_dict())
        trial.page_position_, trial.page_step_ = position, step
        trial.page_optional_ = position not in self._numbers(canonical_url(page_url))
        # As fit() does from page flips: a canonical page carries the numbers and parameters
        # that they carry (without them, ``?answer=`` on most thread URLs of the sample passed
        # for part of a thread's page 1 URL).
        paged_urls = [u for (u, _), nums in zip(flip_list, numbers) if position in nums]
        trial.allowed_ = frozenset(
            {p for u in paged_urls for p in self._numbers(u)} | {self.id_position_, position}
        )
        trial.params_ = frozenset(
            {k for u in paged_urls for k in _query_names(u)} | {p[1] for p in trial.allowed_ if p[0] == "q"}
        )
        if self.shapes_:
            trial.shapes_ = self.shapes_ | {_shape(u, self.first_) for u in paged_urls}
        trial.page_word_ = trial._page_word(flip_list, [canonical_url(page_url)])
        paged = [(u, trial.key(u), n) for (u, n), nums in zip(flip_list, numbers) if position in nums]
        if not paged or any(key.thread is None or key.page != n for _, key, n in paged):
            return False
        self.__dict__.update(trial.__dict__)
        return True

    def _page_word(self, flip_list: Sequence[tuple[str, int]], known: Iterable[str]) -> bool:
        """Whether page 1's URL also leaves out the word segment before a page number that is a
        segment of its own (``/topic/5-x/page/2/`` → ``/topic/5-x/``, not ``/topic/5-x/page/``),
        by what the site shows: the first pages so formed are among ``known`` (the thread URLs
        its lists and pagers link) more often than the first pages without that word."""
        position = self.page_position_
        if position is None or position[0] != "p" or position[2] or not self.page_optional_:
            return False
        seen = {urlsplit(u)._replace(fragment="").geturl().rstrip("/") for u in known}
        hits = Counter()
        for url, _ in flip_list:
            for dropped in (False, True):
                self.page_word_ = dropped
                first = self.first_page(url)
                hits[dropped] += first is not None and first.rstrip("/") in seen
        self.page_word_ = False
        return hits[True] > hits[False]

    def _numbers(self, url: str) -> dict[Position, int]:
        """:func:`url_numbers` of ``url`` with the site's template words and leading segments."""
        return url_numbers(url, self.words_, self.leading_)

    def _names_page(self, nums: dict[Position, int], n: int) -> bool:
        """Whether URL numbers ``nums`` carry page ``n`` at the learned page position."""
        if self.page_position_ is None:
            return False
        value = nums.get(self.page_position_)
        if value is None:
            return False
        return value // self.page_step_ + 1 == n if self.page_step_ else value == n

    def _check(self) -> None:
        if not hasattr(self, "id_position_"):
            raise not_fitted("this ThreadIdentity is not fitted yet: call fit() or from_dict()")

    def key(self, url: str) -> ThreadKey:
        """The thread and page of a thread-page URL (see :class:`ThreadKey`)."""
        self._check()
        canonical = canonical_url(url)
        nums = self._numbers(canonical)
        if self.id_position_ == PATH_ID:
            ident: str | None = self._path_id(canonical)
        else:
            thread = nums.get(self.id_position_)
            ident = None if thread is None else str(thread)
        slugs = self._slug_segments(canonical)
        if (
            ident is None
            or slugs is None
            or any(p not in self.allowed_ and not self._in_slug(p) and p[1] not in slugs for p in nums)
            or any(n not in self.params_ for n in _query_names(canonical))
        ):
            return ThreadKey(ident, None)
        if self.page_position_ is None or self.page_position_ not in nums:
            return ThreadKey(ident, 1)
        value = nums[self.page_position_]
        page = value // self.page_step_ + 1 if self.page_step_ else value
        return ThreadKey(ident, max(page, 1))

    def _slug_segments(self, url: str) -> set[int] | None:
        """The path segments of ``url`` whose numbers are words of a slug (``2`` of
        ``/question/1092/aptitude-2/`` where the template's segment is words alone; in a segment
        whose number leads a title, a title's last number or none), or None when its path has
        none of the template's shapes even so (a variant)."""
        shape = _shape(url, self.first_)
        if not self.shapes_ or shape in self.shapes_:
            return set()
        parts = shape.split("/")
        for known in self.shapes_:
            template = known.split("/")
            if len(template) != len(parts):
                continue
            slugs = {i for i, (a, b) in enumerate(zip(parts, template)) if a != b}
            if all(parts[i] == "*#" and template[i] == "*"
                   or i in self.leading_ and {parts[i], template[i]} == {"*", "*#"} for i in slugs):
                return slugs
        return None

    def _in_slug(self, position: Position) -> bool:
        """Whether a number at ``position`` is a word of a slug (``2`` of ``dpkg-2-260``,
        ``8`` of ``utf-8-with-iconv-194``): left of a number the template puts at the end of
        the same path segment (right of one it puts at its start, ``576-my-1-build``), with no
        template word before it. Such numbers vary with the
        title, not the page, so they do not make a URL a variant."""
        if position[0] != "p" or position[2]:
            return False
        return any(
            p[0] == "p" and p[1] == position[1] and (p[3] > 0) == (position[3] > 0)
            and abs(p[3]) < abs(position[3])
            for p in self.allowed_ if len(p) == 4
        )

    def page_of(self, tree: Any, url: str) -> tuple[ThreadKey, str] | None:
        """Which page of which thread a fetched page is, and its thread's first-page URL, from
        the page itself: for a variant URL (a post permalink), whose URL does not say.

        The thread is the URL's own, else (when the URL names none, or a number the page links
        no page of: XenForo's ``/posts/<post id>/``) its ``<link rel="canonical">``'s. The page
        is one before the pager's *next* link, one after its *previous* link (``rel`` or anchor text),
        else the one number that the numbered links to the thread's pages leave out of a run
        from 1. A page without a pager is the first page of a one-page thread only when its
        ``rel=canonical`` says so (a print view of a whole thread has no pager either). Engines
        point ``rel=canonical`` at a thread's first page from every page, so beside a pager it
        names the thread, not the page. None when the page does not tell (an elided pager with
        no neighbour links), or links to no page of its thread.
        """
        key = self.key(url)
        if key.canonical:
            first = self.first_page(url)
            return (key, first) if first else None
        named = declared_canonical(tree, url)
        declared = ThreadKey(None, None) if named is None else self.key(named)
        found, linked = self._page_in(tree, url, key.thread, declared)
        if linked or declared.thread in (None, key.thread):
            return found
        return self._page_in(tree, url, declared.thread, declared)[0]

    def _page_in(
        self, tree: Any, url: str, thread: str | None, declared: ThreadKey
    ) -> tuple[tuple[ThreadKey, str] | None, bool]:
        """:meth:`page_of` for one thread, and whether the page links a page of it (None when it
        does not, or its pager does not tell which page it is)."""
        if thread is None:
            return None, False
        first_url: str | None = None
        numbered: set[int] = set()
        before: set[int] = set()
        after: set[int] = set()
        links = [(e, h) for e, h in anchors(tree, url)]
        if tree is not None:
            links += [(e, urljoin(url, e.get("href", "").strip())) for e in tree.xpath(
                "//head/link[@rel='next' or @rel='prev'][@href]")]
        for element, href in links:
            there = self.key(href)
            if there.thread != thread or not there.canonical:
                continue
            first_url = first_url or self.first_page(href)
            rel = (element.get("rel") or "").lower().split()
            text = _label(element)
            # An arrow before the word (``‹ Prev``) says no more than the word: the last page of
            # a pager of "‹ Prev" and "Next ›" shows the first alone (each post-number URL of
            # such a page was fetched again under its canonical URL, seed 106 of the universe).
            word = text.lstrip("‹«<←‹ \u00a0")
            if "next" in rel or _NEXT.match(text) or _NEXT.match(word):
                after.add(int(there.page or 1))
            elif "prev" in rel or _PREV.match(text) or _PREV.match(word):
                before.add(int(there.page or 1))
            elif page_flip_number(text) == there.page:
                numbered.add(int(there.page or 1))
        if first_url is None:
            return None, False
        # A "next" link to page 1 is a disabled arrow (askbot's ``?page=None`` on a last page).
        from_next, from_prev = {n - 1 for n in after if n > 1}, {n + 1 for n in before}
        guesses = from_next | from_prev
        if len(guesses) > 1:
            # Four arrows (« first, ‹ previous, › next, » last): the page both neighbours agree
            # on, else the one ``rel=canonical`` names among them (each such page of seed 7 of
            # the universe was fetched again under its canonical URL).
            guesses = from_next & from_prev or guesses
            if len(guesses) > 1 and declared.thread == thread and declared.page in guesses:
                guesses = {declared.page}
        if not guesses and numbered:
            last = max(numbered)
            guesses = set(range(1, last + 1)) - numbered or {last + 1}
        elif not guesses and declared == ThreadKey(thread, 1):
            guesses = {1}
        if len(guesses) != 1:
            return None, True
        return (ThreadKey(thread, guesses.pop()), first_url), True

    def _path_id(self, url: str) -> str:
        """The path of ``url`` without its page segment and trailing ``/``, as a thread id."""
        segments, n_path = _raw_segments(url)
        position = self.page_position_
        if position is not None and position[0] == "p" and position[1] + 1 < len(segments):
            blocks = _blocks(unquote(segments[position[1] + 1]))
            if len(blocks) <= 2 and any(_NUMBER.match(b) for b in blocks):
                n_path -= position[1] + 1 < n_path
                del segments[position[1] + 1]
        # A bare query is part of the path (``showthread.php?<id>-<slug>``); a query is not.
        return "/".join(segments if bare_query(urlsplit(url).query) else segments[:n_path]).rstrip("/") or "/"

    def first_page(self, url: str) -> str | None:
        """The URL of the first page of the thread of a canonical thread-page URL (None for a
        variant): the page number taken out, or set to the first page's value."""
        key = self.key(url)
        if not key.canonical:
            return None
        canonical = canonical_url(url)
        position = self.page_position_
        if position is None or key.page == 1 and position not in self._numbers(canonical):
            return canonical
        parts = urlsplit(canonical)
        first = 0 if self.page_step_ else 1
        if position[0] == "q":
            pairs = [
                p for p in parts.query.split("&")
                if unquote(p.partition("=")[0]).lower() != position[1] or not self.page_optional_
            ]
            pairs = [
                f"{p.partition('=')[0]}={first}"
                if unquote(p.partition("=")[0]).lower() == position[1] else p
                for p in pairs
            ]
            return urlunsplit((*parts[:3], "&".join(pairs), ""))
        _, segment, word, k = position
        segments, n_path = _raw_segments(canonical)
        blocks = _tokens(segments[segment + 1])
        numbered = [j for j, b in enumerate(blocks) if j % 2 == 0 and _NUMBER.match(b)]
        if self.page_optional_ and (len(numbered) == 1 and (not word or len(blocks) <= 3)):
            n_path -= segment + 1 < n_path
            del segments[segment + 1]
            if self.page_word_ and segment >= 1 and _WORD.match(segments[segment]):
                n_path -= segment < n_path
                del segments[segment]
            if self.slash_ and segments[-1]:
                segments.append("")
        else:
            blocks[numbered[-k] if k > 0 else numbered[-k - 1]] = str(first)
            segments[segment + 1] = "".join(blocks)
        return _rejoin(canonical, segments, n_path if bare_query(parts.query) else len(segments))

    def to_dict(self) -> dict[str, Any]:
        """JSON form, stored in the site model beside the topic rule."""
        self._check()
        return {
            "version": NAV_VERSION,
            "id_position": _position_to_json(self.id_position_),
            "page_position": None if self.page_position_ is None
            else _position_to_json(self.page_position_),
            "page_step": self.page_step_,
            "page_optional": self.page_optional_,
            "allowed": sorted((_position_to_json(p) for p in self.allowed_), key=repr),
            "words": sorted([i, w] for i, w in self.words_),
            "leading": sorted(self.leading_),
            "slash": self.slash_,
            "page_word": self.page_word_,
            "params": sorted(self.params_),
            "shapes": sorted(self.shapes_),
            "first_segment": self.first_,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ThreadIdentity:
        """Inverse of :meth:`to_dict`; refuses a newer format."""
        version = int(data.get("version", NAV_VERSION))
        if version > NAV_VERSION:
            raise ValueError(f"navigation rule version {version} is newer than supported ({NAV_VERSION})")
        identity = cls()
        identity.id_position_ = _position_from_json(data["id_position"])
        page = data.get("page_position")
        identity.page_position_ = None if page is None else _position_from_json(page)
        identity.page_step_ = int(data.get("page_step", 0))
        identity.page_optional_ = bool(data.get("page_optional", True))
        identity.allowed_ = frozenset(_position_from_json(p) for p in data.get("allowed", ()))
        identity.words_ = frozenset((int(i), str(w)) for i, w in data.get("words", ()))
        identity.leading_ = frozenset(int(i) for i in data.get("leading", ()))
        identity.slash_ = bool(data.get("slash", False))
        identity.page_word_ = bool(data.get("page_word", False))
        identity.shapes_ = frozenset(str(r) for r in data.get("shapes", ()))
        identity.first_ = bool(data.get("first_segment", True))
        identity.params_ = frozenset(str(n) for n in data.get("params", ())) | {
            p[1] for p in identity.allowed_ if p[0] == "q"
        }
        return identity
