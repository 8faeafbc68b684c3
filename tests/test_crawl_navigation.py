"""Crawls of the navigation families of the mock forum (issue #16): every thread page exported
once under its canonical identity, whatever URL forms, traps and listings the site links."""

from __future__ import annotations

from collections import defaultdict
from http.server import BaseHTTPRequestHandler
from datetime import datetime, timezone
from pathlib import Path
from urllib.request import urlopen

import pytest

from forumcrawl.document import Document, site_of
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.navigation import ThreadIdentity, canonical_url
from forumcrawl.learning import SiteLearner
from forumcrawl.mockforum import NAV_FAMILIES, serve
from forumcrawl.mockforum.qa import DEFAULT
from forumcrawl.sitemodel import FileRuleStore
from forumcrawl.spiders.base import SAMPLE_PER_PATTERN
from tests.conftest import run_crawl, serving


def readable_pages(truth) -> set[str]:
    """Thread pages a perfect crawl exports (pages broken on purpose, other than a mislabelled
    charset, have nothing to export)."""
    return {
        url for url in truth.topic_urls if truth.broken.get(url, "wrong-charset") == "wrong-charset"
    }


@pytest.mark.parametrize("family", NAV_FAMILIES)
def test_every_thread_page_once_and_little_else(tmp_path: Path, family: str) -> None:
    with serve(family) as server:
        truth = server.truth
        result = run_crawl(tmp_path, [server.url])
        requested = server.requested_urls()
    pages = readable_pages(truth)
    exported = [truth.canonical(item["url"]) for item in result.items]
    assert len(exported) == len(set(exported)), "a thread page was exported twice"
    assert set(exported) == pages
    # One identity per thread: all its pages share its first page's URL, and numbers run 1, 2 ….
    by_thread: dict[str, list[int]] = defaultdict(list)
    for item in result.items:
        thread = truth.thread_for(item["url"])
        assert truth.canonical(item["thread_url"]) == thread.url, item["url"]
        by_thread[thread.url].append(item["page"])
    for thread in truth.threads:
        if thread.url in by_thread:
            assert sorted(by_thread[thread.url]) == list(range(1, len(by_thread[thread.url]) + 1))
    # Few fetches beyond the thread pages: boards, the sample, a few probes of each other kind
    # (about 1.5 per thread page on these forums of 100-120 thread pages; follows every link,
    # 4 to 13 without navigation).
    fetched = [u for u in requested if not u.endswith("/robots.txt")]
    assert len(fetched) <= 1.75 * len(pages), sorted(fetched)
    assert result.stats.get("forumcrawl/nav/skipped/duplicate", 0) > 0
    # A return-to parameter never nests: each login page is requested under one URL at most.
    assert sum("next=" in u or "_xfRedirect" in u for u in fetched) == 0
    # Feeds (the modern family's boards link their RSS) are no pages: never fetched.
    assert not [u for u in fetched if u.endswith(".xml")]
    assert family != "modern" or result.stats.get("forumcrawl/nav/skipped/feed", 0) > 0
    # An action that sends a visitor to log in (the modern family's favourite links) is a login
    # wall: its redirect ends the download, the login page it names is never requested.
    walls = [u for u in fetched if u.endswith("/favorite/")]
    assert result.stats.get("forumcrawl/nav/skipped/login", 0) == len(walls)
    assert family != "modern" or walls


def test_a_sorted_listing_is_crawled_in_one_order_to_its_end(tmp_path: Path) -> None:
    """The ``qa`` family lists every question in eight sort orders whose pages share one URL
    pattern, and pages its listings with a window. Every order is the same questions: the crawl
    follows the order the plain listing (``/questions/``) goes on in, through to its last page
    whatever the pattern's budget, and skips the others' pages (it fetched 27 to 50 listing
    pages when it took every order as a listing of its own; the sorted orders' repeats then
    closed the pattern before the default order's pager reached its later pages)."""
    with serve("qa") as server:
        truth = server.truth
        result = run_crawl(tmp_path, [server.url])
        requested = server.requested_urls()
    exported = {truth.canonical(item["url"]) for item in result.items}
    assert exported == readable_pages(truth)
    assert result.stats.get("forumcrawl/nav/skipped/order", 0) > 0
    listings = [u for u in requested if "/questions/" in u]
    assert len(listings) == len(set(listings)), sorted(listings)
    # Before the rules, the sample takes a few pages of the pattern (SAMPLE_PER_PATTERN); after
    # them, no page of another order.
    others = [u for u in listings if "/sort:" in u and f"/sort:{DEFAULT}/" not in u]
    assert len(others) <= SAMPLE_PER_PATTERN, sorted(others)


def test_navigation_off_follows_every_link(tmp_path: Path) -> None:
    (tmp_path / "on").mkdir()
    (tmp_path / "off").mkdir()
    with serve("discourse", preset="small") as server:
        run_crawl(tmp_path / "on", [server.url])
        on = len(server.requested_urls())
        server.requests.clear()
        off = run_crawl(
            tmp_path / "off", [server.url], settings={"FORUMCRAWL_NAVIGATION_ENABLED": False}
        )
        off_fetched = len(server.requested_urls())
    assert not any(key.startswith("forumcrawl/nav/") for key in off.stats)
    assert off_fetched > 2 * on


@pytest.mark.parametrize("family", ["vbulletin", "phpbb", "static"])
def test_rules_learned_from_one_page_threads_take_in_later_pages(tmp_path: Path, family: str) -> None:
    """Rules stored from a sample of one-page threads (a new forum, a lucky sample) reject every
    later page, as a path segment (``page-2``) or a parameter (``&page=2``); the crawl widens
    them at the first long thread it meets, before that page's links are decided."""
    with serve(family) as server:
        truth = server.truth
        short = [t.url for t in truth.threads if len(t.pages) == 1]
        later = [url for t in truth.threads for url in list(t.pages)[1:]]
        learner = SiteLearner(FileRuleStore(tmp_path / "rules"))
        for url in [server.url + "/", *short]:
            with urlopen(url) as response:
                doc = Document.from_bytes(response.read(), response.geturl(), response.headers["Content-Type"])
            learner.observe(doc, [canonical_url(u) for u in page_links(doc.tree, doc.url)], datetime.now(timezone.utc))
        model = learner.learn(site_of(server.url))
        identity = ThreadIdentity.from_dict(model.rules["nav"])
        assert later and not any(
            learner.is_topic(model, url) and identity.key(url).page not in (None, 1) for url in later
        )
        result = run_crawl(tmp_path, [server.url])
    assert "using the stored rules" in result.log
    assert result.stats["forumcrawl/learn/pages_added"] == 1
    exported = [truth.canonical(item["url"]) for item in result.items]
    assert len(exported) == len(set(exported)), "a thread page was exported twice"
    assert set(exported) == readable_pages(truth)
    for item in result.items:
        thread = truth.thread_for(item["url"])
        assert truth.canonical(item["thread_url"]) == thread.url
        assert item["page"] == list(thread.pages).index(truth.canonical(item["url"])) + 1


_RSS = (
    '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>t</title>'
    '<item><title>A post</title><link>/t/1</link><pubDate>Mon, 02 Mar 2026 10:00:00 +0000</pubDate>'
    "<description>A reply long enough to look like a post to an extractor that reads it.</description>"
    "</item></channel></rss>"
)


class _FeedSite(BaseHTTPRequestHandler):
    pages = {
        "/": ("text/html", '<html><body><h1>Board</h1><a href="/t/1">A thread about feeds</a> '
                           '<a href="/feeds/latest.xml">RSS</a> <a href="/feed/">RSS too</a></body></html>'),
        "/t/1": ("text/html", "<html><body><h1>A thread about feeds</h1><p>" + "Posted words. " * 40
                              + "</p></body></html>"),
        "/feeds/latest.xml": ("application/rss+xml", _RSS),
        "/feed/": ("application/rss+xml", _RSS),
        "/robots.txt": ("text/plain", ""),
    }
    requested: list[str] = []

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        self.requested.append(self.path)
        kind, body = self.pages.get(self.path, ("text/html", ""))
        self.send_response(200 if self.path in self.pages else 404)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        pass


def test_feeds_are_no_pages_a_feed_suffix_is_not_even_fetched(tmp_path: Path) -> None:
    """A feed is read as no page (as HTML its items look like posts with times, and machina's
    topic feeds once made their URL shape part of the thread rule); a link whose path names an
    XML document is not followed at all."""
    _FeedSite.requested = []
    with serving(_FeedSite) as url:
        result = run_crawl(tmp_path, [f"{url}/"], settings={"FORUMCRAWL_LEARN_ENABLED": False})
    assert "/feeds/latest.xml" not in _FeedSite.requested
    assert result.stats.get("forumcrawl/nav/skipped/feed") == 1
    assert "/feed/" in _FeedSite.requested
    assert result.stats.get("forumcrawl/page/skipped/xml") == 1
    assert {item["url"] for item in result.items} <= {f"{url}/", f"{url}/t/1"}

