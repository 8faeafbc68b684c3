"""The local forum: served over real HTTP, crawlable from its index, exactly as its truth says."""

from __future__ import annotations

import html
import json
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs, urldefrag, urljoin, urlsplit

import lxml.etree
import lxml.html
import pytest
from protego import Protego

from forumcrawl.mockforum import (
    ALL_FAMILIES,
    BROKEN_KINDS,
    DEFAULT_NOW,
    NAV_FAMILIES,
    PRESETS,
    ForumSite,
    MockForumServer,
    PostTruth,
    SiteTruth,
    serve,
    serve_all,
)

#: One xdist group: its module fixtures serve and walk every family (30 s): built once, on one test process.
pytestmark = pytest.mark.xdist_group("mockforum")

# -- helpers ---------------------------------------------------------------------------------------

#: Stands for ``published`` in posts read back from a page (the ISO value is not on the page).
UNKNOWN = "?"


@dataclass
class Fetched:
    status: int
    content_type: str
    body: bytes

    @property
    def charset(self) -> str:
        match = re.search(r"charset=([\w-]+)", self.content_type)
        return match.group(1) if match else "utf-8"


def fetch(url: str) -> Fetched:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            content_type = response.headers.get("Content-Type", "")
            return Fetched(response.status, content_type, response.read())
    except urllib.error.HTTPError as error:
        return Fetched(error.code, error.headers.get("Content-Type", ""), error.read())


def links(page_url: str, fetched: Fetched) -> set[str]:
    """Absolute, defragmented same-site ``<a href>`` targets of a page (read by lxml: Python's
    html.parser took three quarters of this module's time)."""
    text = fetched.body.decode(fetched.charset, errors="replace")
    try:
        hrefs = [str(h) for h in lxml.html.fromstring(text).xpath("//a/@href") if h] if text.strip() else []
    except (lxml.etree.ParserError, ValueError):
        hrefs = []
    site = urlsplit(page_url).netloc
    found = set()
    for href in hrefs:
        if href.startswith(("javascript:", "mailto:", "#")):
            continue
        url = urldefrag(urljoin(page_url, href)).url
        if urlsplit(url).netloc == site:
            found.add(url)
    return found


@dataclass
class Crawl:
    pages: dict[str, Fetched] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)
    #: Links the truth does not list one by one (only its query aliases cover them): not followed.
    unlisted: set[str] = field(default_factory=set)


def crawl(server: MockForumServer) -> Crawl:
    """Breadth-first over every link from the start URL, obeying robots.txt like a polite spider
    (read as Scrapy reads it); links that nest without end are where this crawler stops."""
    robots = Protego.parse(fetch(server.url + "robots.txt").body.decode())
    truth = server.truth
    listed = {*truth.topic_urls, *truth.non_topic_urls, *truth.url_aliases, *truth.broken,
              *truth.disallowed_urls}
    result = Crawl()
    frontier, seen = [server.url], {server.url}
    while frontier:
        with ThreadPoolExecutor(8) as pool:
            fetched = dict(zip(frontier, pool.map(fetch, frontier)))
        result.pages.update(fetched)
        frontier = []
        for url, page in fetched.items():
            if page.status != 200 or not page.content_type.startswith("text/html"):
                continue
            for link in sorted(links(url, page) - seen):
                seen.add(link)
                if not robots.can_fetch(link, "*"):
                    result.blocked.add(link)
                elif link in listed:
                    frontier.append(link)
                else:
                    result.unlisted.add(link)
    return result


def decode(truth: SiteTruth, url: str, body: bytes) -> str:
    """A page's text in the encoding its bytes are really in."""
    return body.decode(truth.actual_encodings.get(truth.canonical(url), truth.encoding))


_BLOCKS = {"p", "div", "blockquote", "li", "td", "tr", "table", "dd", "dt", "h3", "cite"}


def block_text(element: lxml.html.HtmlElement) -> str:
    """Visible text, one line per ``<br>`` or block, whitespace-normalised, no blank lines."""
    parts: list[str] = []

    def walk(node: lxml.html.HtmlElement) -> None:
        block = node.tag in _BLOCKS
        if node.tag == "br" or block:
            parts.append("\n")
        parts.append(node.text or "")
        for child in node:
            if isinstance(child.tag, str):
                walk(child)
            parts.append(child.tail or "")
        if block:
            parts.append("\n")

    walk(element)
    lines = (" ".join(line.split()) for line in "".join(parts).splitlines())
    return "\n".join(line for line in lines if line)


def one(element: lxml.html.HtmlElement, css: str) -> lxml.html.HtmlElement | None:
    found = element.cssselect(css)
    return found[0] if found else None


def drop(element: lxml.html.HtmlElement, css: str) -> None:
    for node in element.cssselect(css):
        node.drop_tree()


def quote_of(content: lxml.html.HtmlElement, css: str, inner: str | None = None,
             drop_css: str | None = None) -> str | None:
    """The text of the quote ``css`` in ``content`` (of its part ``inner``, without ``drop_css``),
    removing the quote from ``content``."""
    quote = one(content, css)
    if quote is None:
        return None
    if drop_css:
        drop(quote, drop_css)
    found = block_text(one(quote, inner) if inner else quote)
    quote.drop_tree()
    return found


def read_xenforo(tree: lxml.html.HtmlElement) -> list[PostTruth]:
    posts = []
    for node in tree.cssselect("article.message--post"):
        content = one(node, "article.message-body div.bbWrapper")
        quote = quote_of(content, "blockquote", "div.bbCodeBlock-expandContent")
        sign = one(node, "aside.message-signature")
        posts.append(PostTruth(
            floor=int(block_text(one(node, ".message-attribution-opposite li:last-child a"))[1:]),
            author=node.get("data-author"),
            published=UNKNOWN,
            published_raw=one(node, "header.message-attribution time.u-dt").get("datetime"),
            text=block_text(content),
            quote=quote,
            signature=block_text(sign) if sign is not None else None,
            edited=one(node, "div.message-lastEdit") is not None,
        ))
    return posts


def read_vbulletin(tree: lxml.html.HtmlElement) -> list[PostTruth]:
    posts = []
    for node in tree.xpath('//table[re:test(@id, "^post[0-9]+$")]',
                           namespaces={"re": "http://exslt.org/regular-expressions"}):
        content = one(node, "div[id^=post_message_]")
        quote = quote_of(content, 'div[style^="margin:20px"]', 'div[style="font-style:italic"]')
        cell = content.getparent()
        sign = next((d for d in cell.findall("div") if (d.text or "").startswith("_____")), None)
        posts.append(PostTruth(
            floor=int(block_text(one(node, "a[id^=postcount]"))),
            author=block_text(one(node, "a.bigusername")),
            published=UNKNOWN,
            published_raw=block_text(one(node, "td.thead")),
            text=block_text(content),
            quote=quote,
            signature=block_text(sign).split("\n", 1)[1] if sign is not None else None,
            edited="Last edited by" in block_text(cell),
        ))
    return posts


def read_discourse(tree: lxml.html.HtmlElement) -> list[PostTruth]:
    posts = []
    for node in tree.cssselect("div.crawler-post[id^=post_]"):
        content = one(node, "div.post")
        modified = one(node, "meta[itemprop=dateModified]").get("content")
        posts.append(PostTruth(
            floor=int(block_text(one(node, "span[itemprop=position]"))),
            author=block_text(one(node, "[itemprop=author] [itemprop=name]")),
            published=UNKNOWN,
            published_raw=block_text(one(node, "time.post-time")),
            quote=quote_of(content, "aside.quote", "blockquote"),
            text=block_text(content),
            edited=modified != one(node, "meta[itemprop=datePublished]").get("content"),
        ))
    return posts


def read_modern(tree: lxml.html.HtmlElement) -> list[PostTruth]:
    posts = []
    for node in tree.cssselect("article.post"):
        content = one(node, "div.post__content")
        sign = one(node, "div.post__signature")
        author = node.get("data-author")
        assert one(node, "a.avatar img").get("alt") == author
        assert author not in node.text_content(), "no visible author"
        assert one(node, "span.timeago").text is None, "times are left to the script"
        posts.append(PostTruth(
            floor=int(block_text(one(node, "a.post__floor"))[1:]),
            author=author,
            published=UNKNOWN,
            published_raw=one(node, "header span.timeago").get("title"),
            quote=quote_of(content, "blockquote.post-quote", drop_css="a.post-quote__source"),
            text=block_text(content),
            signature=block_text(sign) if sign is not None else None,
            edited=one(node, "span.post__edited") is not None,
        ))
    return posts


READERS = {"xenforo": read_xenforo, "vbulletin": read_vbulletin, "discourse": read_discourse,
           "modern": read_modern, "qa": read_modern}


def extract_posts(family: str, page: str) -> list[PostTruth]:
    """Read a thread page's posts with family-specific selectors (what a site rule would do)."""
    tree = lxml.html.document_fromstring(page)
    if family in READERS:
        return READERS[family](tree)
    posts = []
    if family == "discuz":
        labels = {"楼主": 1, "沙发": 2, "板凳": 3, "地板": 4}
        for node in tree.xpath('//div[re:test(@id, "^post_[0-9]+$")]',
                               namespaces={"re": "http://exslt.org/regular-expressions"}):
            label = block_text(one(node, "a[id^=postnum]"))
            body = one(node, "td.t_f")
            quote = one(body, "div.quote blockquote")
            quote_text = None
            if quote is not None:
                drop(quote, "font")
                quote_text = block_text(quote)
            edited = one(body, "i.pstatus") is not None
            drop(body, "i.pstatus")
            drop(body, "div.quote")
            sign = one(node, "div.sign")
            posts.append(PostTruth(
                floor=labels.get(label) or int(label.rstrip("#")),
                author=block_text(one(node, "a.xw1")),
                published=UNKNOWN,
                published_raw=block_text(one(node, "em[id^=authorposton]")).removeprefix("发表于 "),
                text=block_text(body),
                quote=quote_text,
                signature=block_text(sign) if sign is not None else None,
                edited=edited,
            ))
    elif family == "phpbb":
        for n, node in enumerate(tree.cssselect("div.post"), start=1):
            author_line = one(node, "p.author")
            content = one(node, "div.content")
            quote = one(content, "blockquote")
            quote_text = None
            if quote is not None:
                drop(quote, "cite")
                quote_text = block_text(quote)
                quote.drop_tree()
            sign = one(node, "div.signature")
            posts.append(PostTruth(
                floor=n,
                author=block_text(one(author_line, "a.username")),
                published=UNKNOWN,
                published_raw=block_text(author_line).split("»")[-1].strip(),
                text=block_text(content),
                quote=quote_text,
                signature=block_text(sign) if sign is not None else None,
                edited=one(node, "div.notice") is not None,
            ))
    else:
        labels = {"楼主": 1, "沙发": 2, "板凳": 3}
        for node in tree.cssselect("article.floor"):
            label = block_text(one(node, "span.floor-no"))
            content = one(node, "div.floor-content")
            quote = one(content, "blockquote")
            quote_text = None
            if quote is not None:
                drop(quote, "p.quote-from")
                quote_text = block_text(quote)
                quote.drop_tree()
            edited = one(content, "div.edit-tip") is not None
            drop(content, "div.edit-tip")
            sign = one(node, "div.floor-sign")
            posts.append(PostTruth(
                floor=labels.get(label) or int(label.rstrip("楼")),
                author=block_text(one(node, "a.floor-name")),
                published=UNKNOWN,
                published_raw=block_text(one(node, "span.floor-time")),
                text=block_text(content),
                quote=quote_text,
                signature=block_text(sign) if sign is not None else None,
                edited=edited,
            ))
    return posts



def parse_raw_time(family: str, raw: str, now: datetime) -> datetime:
    """An independent reading of the time texts, to check the truth's ISO values."""
    if family == "phpbb":
        return datetime.strptime(raw, "%a %b %d, %Y %I:%M %p")
    if family == "xenforo":
        return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%S%z").replace(tzinfo=None)
    if family in ("modern", "qa"):
        return datetime.fromisoformat(raw).replace(tzinfo=None)
    if family == "discourse":
        return datetime.strptime(raw, "%B %d, %Y, %I:%M%p")
    if family == "vbulletin":
        day, clock = raw.split(", ")
        days = {"Today": 0, "Yesterday": 1}
        date = (now - timedelta(days=days[day])).strftime("%m-%d-%Y") if day in days else day
        return datetime.strptime(f"{date} {clock}", "%m-%d-%Y %I:%M %p")
    today = datetime.combine(now.date(), datetime.min.time())
    rules = [
        (r"(\d+) 分钟前", lambda m: now - timedelta(minutes=int(m[1]))),
        (r"半小时前", lambda m: now - timedelta(minutes=30)),
        (r"(\d+) 小时前", lambda m: now - timedelta(hours=int(m[1]))),
        (r"昨天 (\d\d):(\d\d)", lambda m: today.replace(hour=int(m[1]), minute=int(m[2]))
         - timedelta(days=1)),
        (r"前天 (\d\d):(\d\d)", lambda m: today.replace(hour=int(m[1]), minute=int(m[2]))
         - timedelta(days=2)),
        (r"(\d+) 天前", lambda m: now - timedelta(days=int(m[1]))),
    ]
    for pattern, value in rules:
        match = re.fullmatch(pattern, raw)
        if match:
            return value(match)
    return datetime.strptime(raw, "%Y-%m-%d %H:%M")


# -- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, MockForumServer]]:
    """Every family's default-size site, served for this module."""
    running = serve_all(ALL_FAMILIES)
    try:
        yield running
    finally:
        for server in running.values():
            server.stop()


@pytest.fixture(scope="module")
def crawls(servers: dict[str, MockForumServer]) -> dict[str, Crawl]:
    return {family: crawl(server) for family, server in servers.items()}


# -- crawling --------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_every_truth_url_is_reachable_from_the_start_url(
    family: str, servers: dict[str, MockForumServer], crawls: dict[str, Crawl]
) -> None:
    truth, result = servers[family].truth, crawls[family]
    covered = {url for url in result.unlisted if truth.canonical(url) != url}
    assert covered == result.unlisted, sorted(result.unlisted - covered)[:5]
    assert bool(result.unlisted) == bool(truth.query_aliases)
    reached = {truth.canonical(url) for url in result.pages}
    assert set(truth.topic_urls) <= reached
    assert set(truth.non_topic_urls) <= reached
    assert set(truth.broken) <= reached
    known = {*truth.topic_urls, *truth.non_topic_urls, *truth.url_aliases, *truth.broken}
    assert set(result.pages) <= known, sorted(set(result.pages) - known)[:5]
    assert set(truth.url_aliases) <= set(result.pages), "every alias is linked somewhere"
    assert len(truth.topic_urls) == len(set(truth.topic_urls))
    assert not set(truth.topic_urls) & set(truth.non_topic_urls)


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_robots_disallowed_links_are_exactly_the_truths_and_never_fetched(
    family: str, servers: dict[str, MockForumServer], crawls: dict[str, Crawl]
) -> None:
    server = servers[family]
    truth, result = server.truth, crawls[family]
    assert result.blocked == set(truth.disallowed_urls)
    assert truth.disallowed_urls, "each site links some disallowed pages"
    assert not set(server.requested_urls()) & set(truth.disallowed_urls)
    robots = fetch(server.url + "robots.txt").body.decode()
    assert any(line.startswith("Disallow: /adm") for line in robots.splitlines())
    assert all(fetch(url).status == 403 for url in truth.disallowed_urls[:20])


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_healthy_pages_answer_200_html(
    family: str, servers: dict[str, MockForumServer], crawls: dict[str, Crawl]
) -> None:
    truth, pages = servers[family].truth, crawls[family].pages
    for url, page in pages.items():
        if truth.broken.get(truth.canonical(url), "wrong-charset") != "wrong-charset":
            continue
        assert page.status == 200, url
        if page.body.startswith(b"<?xml"):  # a board's feed (the modern family)
            assert page.content_type == f"application/rss+xml; charset={truth.encoding}", url
            assert page.body.rstrip().endswith(b"</rss>"), url
            continue
        assert page.content_type == f"text/html; charset={truth.encoding}", url
        assert page.body.rstrip().endswith(b"</html>"), url


# -- broken pages ----------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_broken_pages_behave_as_declared(family: str, servers: dict[str, MockForumServer]) -> None:
    truth = servers[family].truth
    kinds = set(truth.broken.values())
    assert kinds == set(BROKEN_KINDS)
    for url, kind in truth.broken.items():
        page = fetch(url)
        assert page.content_type.startswith("text/html"), url
        if kind == "truncated":
            assert page.status == 200
            text = page.body.decode(truth.encoding)
            assert "</html>" not in text and not text.endswith(">")
            assert re.search(r"<div\Z", text)
        elif kind == "binary":
            assert page.status == 200 and page.body.startswith(b"\x89PNG\r\n\x1a\n")
        elif kind == "not-found":
            assert page.status == 404
        elif kind == "server-error":
            assert page.status == 500
        elif kind == "empty":
            assert page.status == 200 and page.body == b""
        else:
            assert kind == "wrong-charset" and page.status == 200
            assert page.charset == truth.encoding != truth.actual_encodings[url]


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_wrong_charset_thread_keeps_its_posts_in_the_other_encoding(
    family: str, servers: dict[str, MockForumServer]
) -> None:
    truth = servers[family].truth
    wrong = [url for url, kind in truth.broken.items() if kind == "wrong-charset"]
    assert wrong and set(wrong) <= set(truth.topic_urls)
    assert set(wrong) == set(truth.actual_encodings)
    for url in wrong:
        body = fetch(url).body
        posts = truth.posts_for(url)
        assert posts
        page = html.unescape(body.decode(truth.actual_encodings[url]))
        assert all(line in page for post in posts for line in post.text.split("\n"))
        assert f"charset={truth.encoding}" in page.lower() or f'charset="{truth.encoding}"' in page
        misread = html.unescape(body.decode(truth.encoding, errors="replace"))
        assert not all(line in misread for post in posts for line in post.text.split("\n"))


# -- content ---------------------------------------------------------------------------------------


def test_discuz_pages_are_gbk_and_say_so(servers: dict[str, MockForumServer]) -> None:
    truth = servers["discuz"].truth
    assert truth.encoding == "gbk"
    healthy = [u for u in truth.topic_urls if u not in truth.actual_encodings]
    for url in healthy[:12]:
        page = fetch(url)
        assert page.content_type == "text/html; charset=gbk"
        with pytest.raises(UnicodeDecodeError):
            page.body.decode("utf-8")
        text = html.unescape(page.body.decode("gbk"))
        assert 'content="text/html; charset=gbk"' in text
        for post in truth.posts_for(url):
            assert post.text.split("\n")[0] in text


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_post_truths_appear_literally_in_their_page(
    family: str, servers: dict[str, MockForumServer], crawls: dict[str, Crawl]
) -> None:
    truth, pages = servers[family].truth, crawls[family].pages
    for url in truth.topic_urls:
        page = html.unescape(decode(truth, url, pages[url].body))
        for post in truth.posts_for(url):
            assert post.author in page, (url, post.floor)
            assert post.published_raw in page, (url, post.floor)
            for line in post.text.split("\n"):
                assert line in page, (url, post.floor, line)
            if post.quote:
                assert post.quote in page
            if post.signature:
                assert post.signature in page


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_posts_read_with_site_selectors_match_the_truth_exactly(
    family: str, servers: dict[str, MockForumServer], crawls: dict[str, Crawl]
) -> None:
    truth, pages = servers[family].truth, crawls[family].pages
    per_page = ForumSite(family).plan.posts_per_page
    for thread in truth.threads:
        for n, (url, expected) in enumerate(thread.pages.items(), start=1):
            found = extract_posts(family, decode(truth, url, pages[url].body))
            if family == "phpbb":
                found = [
                    PostTruth(**{**vars(p), "floor": p.floor + (n - 1) * per_page}) for p in found
                ]
            first = (n - 1) * per_page + 1
            assert [p.floor for p in expected] == list(range(first, first + len(expected)))
            assert found == [PostTruth(**{**vars(p), "published": UNKNOWN}) for p in expected], url


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_truth_times_are_what_the_raw_text_denotes(family: str) -> None:
    site = ForumSite(family)
    truth = site.truth("http://127.0.0.1:1/")
    now = datetime.fromisoformat(truth.now)
    assert now == DEFAULT_NOW
    for thread in truth.threads:
        times = []
        for posts in thread.pages.values():
            for post in posts:
                assert parse_raw_time(family, post.published_raw, now).isoformat() == post.published
                assert post.published <= truth.now
                times.append(post.published)
        assert times == sorted(times), thread.url


def test_static_site_uses_every_relative_time_form() -> None:
    truth = ForumSite("static").truth("http://127.0.0.1:1/")
    raws = [p.published_raw for t in truth.threads for ps in t.pages.values() for p in ps]
    for pattern in (r"\d+ 分钟前", r"半小时前", r"\d+ 小时前", r"昨天 \d\d:\d\d", r"前天 \d\d:\d\d",
                    r"\d+ 天前", r"\d{4}-\d{1,2}-\d{1,2} \d\d:\d\d"):
        assert any(re.fullmatch(pattern, raw) for raw in raws), pattern


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_content_is_varied(family: str) -> None:
    site = ForumSite(family)
    truth = site.truth("http://127.0.0.1:1/")
    posts = [p for t in truth.threads for ps in t.pages.values() for p in ps]
    short = {"顶", "沙发", "+1", "谢谢分享", "Thanks!", "bump", "Same here."}
    assert any(p.text in short for p in posts)
    assert max(len(p.text) for p in posts) > 150
    assert sum(p.quote is not None for p in posts) >= 3
    assert sum(p.signature is not None for p in posts) >= 10 or family == "discourse"
    assert sum(p.edited for p in posts) >= 3
    assert len({t.title for t in truth.threads}) == len(truth.threads)
    page_counts = {len(t.pages) for t in truth.threads}
    assert 1 in page_counts and 4 in page_counts and len(page_counts) >= 3
    assert all(len(ps) <= 10 for t in truth.threads for ps in t.pages.values())
    assert len({t.board for t in truth.threads}) == len(site.plan.boards) >= 3


# -- determinism, parameters, serialisation --------------------------------------------------------


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_same_seed_same_site_other_seed_other_site(family: str) -> None:
    a, b, c = ForumSite(family, seed=7), ForumSite(family, seed=7), ForumSite(family, seed=8)
    base = "http://127.0.0.1:8000/"
    assert a.truth(base).to_dict() == b.truth(base).to_dict()
    assert a.truth(base).to_dict() != c.truth(base).to_dict()
    for url in a.truth(base).topic_urls[:5] + a.truth(base).non_topic_urls[:5]:
        assert a.render(url).body == b.render(url).body


def test_parameters_shape_the_site() -> None:
    site = ForumSite("phpbb", boards=2, threads_per_board=4, posts_per_page=3, max_thread_pages=2,
                     seed=3, now=datetime(2023, 1, 1, 9, 0))
    truth = site.truth("http://example.test/")
    assert len(truth.threads) == 8 and {len(t.pages) for t in truth.threads} == {1, 2}
    assert all(len(ps) <= 3 for t in truth.threads for ps in t.pages.values())
    assert truth.now == "2023-01-01T09:00:00"
    posts = [p for t in truth.threads for ps in t.pages.values() for p in ps]
    assert all(p.published < truth.now for p in posts)
    small = ForumSite.from_preset("static", "small")
    small_truth = small.truth("http://example.test/")
    small_size = PRESETS["small"]
    assert len(small_truth.threads) == small_size["boards"] * small_size["threads_per_board"]
    with pytest.raises(ValueError):
        ForumSite("ipb")
    aware = ForumSite("static", now=datetime(2024, 5, 1, 9, 5, tzinfo=timezone(timedelta(hours=8))))
    aware_truth = aware.truth("http://example.test/")
    assert aware_truth.now == "2024-05-01T09:05:00+08:00"
    assert all(p.published.endswith("+08:00") for t in aware_truth.threads for p in t.pages[t.url])


def test_truth_round_trips_through_json() -> None:
    truth = ForumSite.from_preset("discuz", "small").truth("http://127.0.0.1:9/")
    data = json.loads(json.dumps(truth.to_dict(), ensure_ascii=False))
    again = SiteTruth.from_dict(data)
    assert again == truth
    first = truth.topic_urls[0]
    assert again.posts_for(first) == truth.posts_for(first)
    alias = next(a for a, c in truth.url_aliases.items() if c == first)
    assert truth.posts_for(alias) == truth.posts_for(first) and truth.is_topic(alias)
    assert truth.thread_for(first).url == first
    query = urlsplit(first).query.split("&")
    reordered = first.split("?")[0] + "?" + "&".join(reversed(query)) + "#pid1"
    assert truth.canonical(reordered) == first and truth.canonical(alias + "#top") == first
    assert truth.canonical("http://127.0.0.1:9/elsewhere.php") == "http://127.0.0.1:9/elsewhere.php"
    with pytest.raises(KeyError):
        truth.posts_for(truth.non_topic_urls[0])


# -- the server ------------------------------------------------------------------------------------


def test_server_answers_concurrent_requests_and_logs_them() -> None:
    with serve("discuz", preset="small") as server:
        urls = server.truth.topic_urls * 4
        with ThreadPoolExecutor(32) as pool:
            statuses = list(pool.map(lambda u: fetch(u).status, urls))
        assert statuses == [200] * len(urls)
        assert server.requests.count() == len(urls)
        target = urlsplit(urls[0])
        assert server.requests.count(f"{target.path}?{target.query}") == 4
        disallowed = server.truth.disallowed_urls[0]
        assert disallowed not in server.requested_urls()
        assert fetch(disallowed).status == 403
        assert disallowed in server.requested_urls()
        assert fetch(server.url + "no/such/page.php").status == 404
        head = urllib.request.Request(server.truth.topic_urls[0], method="HEAD")
        with urllib.request.urlopen(head, timeout=10) as response:
            assert int(response.headers["Content-Length"]) > 1000 and response.read() == b""


def test_stop_closes_the_port_and_is_idempotent() -> None:
    server = serve(ForumSite.from_preset("static", "small"))
    port = server.port
    assert fetch(server.url).status == 200
    server.stop()
    server.stop()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
    with serve("static", port=port, preset="small") as again:
        assert again.url == f"http://127.0.0.1:{port}/"
        assert fetch(again.url).status == 200


# -- navigation families ---------------------------------------------------------------------------

#: How each navigation family's permalinks name their post, and how the served page marks it.
PERMALINKS = {
    "xenforo": (r"/(?:threads/[^/]+/post-|posts/|goto/post\?id=)(\d+)/?$", 'id="post-{}"'),
    "vbulletin": (r"/showthread\.php\?p=(\d+)$", 'id="post{}"'),
    "discourse": (r"/t/[^/]+/\d+/(\d+)$", "<span itemprop='position'>{}</span>"),
}


@pytest.mark.parametrize("family", sorted(PERMALINKS))
def test_permalinks_serve_the_thread_page_that_holds_the_post(family: str) -> None:
    with serve(family, preset="small") as server:
        truth = server.truth
        pattern, marker = PERMALINKS[family]
        permalinks = {a: t for a, t in truth.url_aliases.items() if re.search(pattern, a)}
        assert len(permalinks) >= sum(len(ps) for t in truth.threads for ps in t.pages.values())
        for alias, target in permalinks.items():
            pid = re.search(pattern, alias)[1]
            assert truth.is_topic(alias) and target in truth.topic_urls
            page = fetch(alias)
            assert page.status == 200 and page.body == fetch(target).body, alias
            assert marker.format(pid).encode() in page.body, alias


def test_xenforo_board_views_reorder_and_filter_the_same_threads() -> None:
    with serve("xenforo", preset="small") as server:
        truth = server.truth

        def threads(url: str) -> list[str]:
            tree = lxml.html.document_fromstring(fetch(url).body)
            titles = tree.cssselect(".structItem-title a[data-tp-primary]")
            return [urljoin(url, a.get("href")) for a in titles]

        board = next(u for u in truth.non_topic_urls if re.search(r"/forums/[^/?]+/$", u))
        views = {u for u in truth.non_topic_urls if u.startswith(board) and u != board}
        assert {urlsplit(u).query for u in views} >= {"order=reply_count&direction=desc",
                                                      "prefix_id=2", "last_days=7"}
        assert truth.canonical(board + "?order=last_post_date&direction=desc") == board
        listed = [t for u in sorted(truth.non_topic_urls) if re.fullmatch(rf"{board}(page-\d+)?", u)
                  for t in threads(u)]
        missing = [t for t in listed if not truth.is_topic(t)]
        by_replies = [t for u in sorted(views) if "reply_count" in u for t in threads(u)]
        assert sorted(by_replies) == sorted(set(listed) - set(missing))
        counts = [len(truth.thread_for(t).pages) for t in by_replies]
        assert counts == sorted(counts, reverse=True)
        assert all(not truth.is_topic(u) for u in views)


@pytest.mark.parametrize("family", NAV_FAMILIES)
def test_navigation_sites_are_sized_for_tests(family: str) -> None:
    small = ForumSite.from_preset(family, "small").truth("http://127.0.0.1:1/")
    default = ForumSite(family).truth("http://127.0.0.1:1/")
    assert 20 <= len(small.topic_urls) <= 40
    assert 100 <= len(default.topic_urls) <= 150
    assert default.to_dict() == ForumSite.from_preset(family).truth("http://127.0.0.1:1/").to_dict()


def test_vbulletin_session_ids_print_pages_and_thread_jumps() -> None:
    with serve("vbulletin", preset="small") as server:
        truth = server.truth
        sessions = {a: t for a, t in truth.url_aliases.items() if "?s=" in a}
        assert len({re.search(r"s=([0-9a-f]{32})&", a)[1] for a in sessions}) >= 2
        assert any(truth.is_topic(a) for a in sessions)
        assert any(not truth.is_topic(a) for a in sessions)
        for alias, target in sessions.items():
            assert fetch(alias).body == fetch(target).body
        prints = [u for u in truth.non_topic_urls if "printthread.php" in u]
        assert len(prints) == len(truth.threads)
        for url in prints:
            thread = truth.thread_for(url.replace("printthread", "showthread"))
            page = html.unescape(fetch(url).body.decode(truth.encoding))
            posts = [p for ps in thread.pages.values() for p in ps]
            assert all(p.text.split("\n")[0] in page for p in posts) and not truth.is_topic(url)
        jumps = {a: t for a, t in truth.url_aliases.items() if "goto=next" in a}
        assert jumps and all(truth.thread_for(t).url == t for t in jumps.values())
        assert all(truth.thread_for(t).url != a.split("&")[0] for a, t in jumps.items())
        views = [u for u in truth.non_topic_urls if "forumdisplay.php" in u and "sort=" in u]
        assert any("daysprune=30" in u for u in truth.non_topic_urls) and views


def test_discourse_activity_lists_look_like_threads_but_are_not() -> None:
    with serve("discourse", preset="small") as server:
        truth = server.truth
        activity = [u for u in truth.non_topic_urls if "/activity" in u]
        assert len(activity) > len({u.split("/activity")[0] for u in activity})
        for url in activity:
            page = fetch(url)
            tree = lxml.html.document_fromstring(page.body)
            assert len(read_discourse(tree)) >= 1 and not truth.is_topic(url)
            for link in tree.cssselect("div.stream-topic-title a.title"):
                assert truth.is_topic(urljoin(url, link.get("href")))
        categories = sorted(u for u in truth.non_topic_urls if re.search(r"/c/[^/]+/\d+", u))
        second = next(u for u in categories if u.endswith("?page=1"))
        assert truth.canonical(second) == second != second.split("?")[0]
        topic = next(t for t in truth.threads if len(t.pages) > 1)
        assert truth.canonical(f"{topic.url}?page=1") == topic.url
        assert f"{topic.url}?page=2" in topic.pages


def test_modern_login_links_nest_without_end_and_the_truth_covers_them() -> None:
    with serve("modern", preset="small") as server:
        truth = server.truth
        login = server.url + "accounts/login/"
        assert login in truth.non_topic_urls and truth.query_aliases == {login: login}
        listed = {a for a, t in truth.url_aliases.items() if t == login}
        served = [*truth.topic_urls, *truth.non_topic_urls,
                  *(u for u, kind in truth.broken.items() if kind == "truncated")]
        # Feeds and the favourite action's redirects link no login page.
        quiet = [u for u in served if u.endswith((".xml", "/favorite/"))]
        assert any(u.endswith("/favorite/") for u in quiet)
        assert len(listed) == len(served) - len(quiet), "each served page links the login page once"
        url, chain = truth.topic_urls[-1], []
        for _ in range(30):
            page = fetch(url)
            assert page.status == 200
            (href,) = {h for h in links(url, page) if h.startswith(login + "?")}
            target = urlsplit(url)
            assert parse_qs(urlsplit(href).query)["next"] == [f"{target.path}?{target.query}"
                                                              if target.query else target.path]
            assert truth.canonical(href) == login and not truth.is_topic(href)
            assert len(href) > len(url)
            chain.append(href)
            url = href
        assert chain[0] in listed and not set(chain[1:]) & listed
        assert truth.canonical(login + "?next=/anything/at/all") == login


def test_modern_page_one_variants_sorts_and_post_lists() -> None:
    truth = ForumSite.from_preset("modern", "small").truth("http://127.0.0.1:1/")
    page_one = {a: t for a, t in truth.url_aliases.items() if a.endswith("page=1")}
    assert any(t in truth.topic_urls for t in page_one.values())
    assert any("sort=" in a for a in page_one) or any("/category/" in a for a in page_one)
    assert any(u.endswith("?sort=top") for u in truth.non_topic_urls)
    assert any(u.endswith("?sort=latest") for u in truth.non_topic_urls)
    listings = [u for u in truth.non_topic_urls if re.search(r"/user/[^/]+/posts", u)]
    assert any(u.endswith("?page=2") for u in listings)
    assert not any(truth.is_topic(u) for u in listings)
    assert any("%E" in u for u in truth.topic_urls), "Chinese slugs are percent-encoded"


def test_keep_alive_serves_several_requests_on_one_connection() -> None:
    """Benchmarks ask for persistent connections, as a real forum's server keeps them; the
    default closes each connection after its response (HTTP/1.0)."""
    import http.client

    for keep_alive, version in ((True, 11), (False, 10)):
        with serve("phpbb", keep_alive=keep_alive) as forum:
            connection = http.client.HTTPConnection(forum.host, forum.port, timeout=5)
            connection.request("GET", "/")
            response = connection.getresponse()
            response.read()
            assert response.version == version
            if keep_alive:
                connection.request("GET", "/index.php")
                assert connection.getresponse().status == 200
                assert forum.requests.paths == ["/", "/index.php"]
            else:
                assert response.will_close
            connection.close()
