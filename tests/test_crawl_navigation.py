"""Crawls of the navigation families of the mock forum (issue #16): every thread page exported
once under its canonical identity, whatever URL forms, traps and listings the site links."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from forumcrawl.mockforum import NAV_FAMILIES, serve
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
