"""Crawls of the navigation families of the mock forum (issue #16): every thread page exported
once under its canonical identity, whatever URL forms, traps and listings the site links."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from urllib.request import urlopen

import pytest

from forumcrawl.document import Document, site_of
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.navigation import ThreadIdentity, canonical_url
from forumcrawl.learning import SiteLearner
from forumcrawl.mockforum import NAV_FAMILIES, serve
from forumcrawl.sitemodel import FileRuleStore
from tests.conftest import run_crawl


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
    # Feeds (the modern family's boards link their RSS) are no pages: read, never sampled.
    feeds = [u for u in fetched if u.endswith(".xml")]
    assert result.stats.get("forumcrawl/page/skipped/xml", 0) == len(feeds)
    # An action that sends a visitor to log in (the modern family's favourite links) is a login
    # wall: its redirect ends the download, the login page it names is never requested.
    walls = [u for u in fetched if u.endswith("/favorite/")]
    assert result.stats.get("forumcrawl/nav/skipped/login", 0) == len(walls)
    assert family != "modern" or walls


def test_a_listing_sequence_goes_on_past_its_pooled_pattern_each_page_once(tmp_path: Path) -> None:
    """The ``qa`` family lists every question in eight sort orders whose pages share one URL
    pattern, and pages its listings with a window: the sorted orders' repeats closed the
    pattern before the default order's pager reached its later pages (69 % of the thread pages
    exported). A listing page that led to new thread pages has its page flips followed past the
    closed pattern; each listing page is still requested once (the dupefilter keeps a flip that
    many pages name to one request)."""
    with serve("qa") as server:
        truth = server.truth
        result = run_crawl(tmp_path, [server.url])
        requested = server.requested_urls()
    exported = {truth.canonical(item["url"]) for item in result.items}
    assert exported == readable_pages(truth)
    assert result.stats.get("forumcrawl/nav/chained", 0) > 0
    listings = [u for u in requested if "/questions/" in u]
    assert len(listings) == len(set(listings)), sorted(listings)


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
