"""The Naive Bayes value filter on exported items: real crawls of a forum with contentless
replies and a spam opening post, the offline command, and the dom stage's blocks.

The forum is the generated Discuz!-like one, with every short reply replaced by "顶", "沙发" …
or an ad, and one thread opened by an ad; the truth says which posts those are, so every
expectation comes from what the pages hold.
"""

from __future__ import annotations

import csv
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors.fields import page_number
from forumcrawl.extractors.value_model import WORTHLESS, load_value_model
from forumcrawl.mockforum import MockForumServer, serve
from forumcrawl.mockforum.site import ForumSite
from forumcrawl.mockforum.truth import SiteTruth
from forumcrawl.pages import Cascade
from tests.conftest import CrawlResult, run_crawl

AD = "出售发票，联系QQ 123456"
#: Replies without content, as they appear in the site's threads.
CONTENTLESS = ("顶", "沙发", "帮顶", "路过", AD)
#: An ad opening a thread. The opening post is judged at the stricter threshold, which this ad
#: passes for its words 搜索 and 官方 (the model knows boilerplate, not spam: AD would not).
SPAM_OPENING = "本站招聘兼职，详情请搜索我们的官方网站"
#: A seed the shipped value model was not trained on (it saw seeds 0-3).
SEED = 21


def contentless_site() -> tuple[ForumSite, int]:
    """A small generated forum whose short replies are contentless ones and whose first thread
    (by id) opens with an ad; returns the site and that thread's id."""
    site = ForumSite.from_preset("discuz", "small", seed=SEED)
    replies = itertools.cycle(CONTENTLESS)
    threads = sorted(site.plan.threads.values(), key=lambda t: t.tid)
    for thread in threads:
        for post in thread.posts:
            if post.short:
                post.paragraphs = (next(replies),)
    threads[0].posts[0].paragraphs = (SPAM_OPENING,)
    return site, threads[0].tid


@pytest.fixture
def spam_forum() -> Iterator[tuple[MockForumServer, str]]:
    """The forum served on 127.0.0.1 (a fresh request log per test), and the URL of the page
    opened by an ad."""
    site, spam_tid = contentless_site()
    server = serve(site)
    try:
        spam_thread = next(t for t in server.truth.threads if f"tid={spam_tid}&" in t.url)
        yield server, spam_thread.url
    finally:
        server.stop()


def readable_pages(truth: SiteTruth) -> dict[str, list[str]]:
    """Post texts of every thread page the crawler can read (a wrong charset is detected), by
    canonical URL."""
    return {
        truth.canonical(url): [p.text for p in posts]
        for thread in truth.threads
        for url, posts in thread.pages.items()
        if truth.broken.get(url, "wrong-charset") == "wrong-charset"
    }


def crawl(
    tmp_path: Path, server: MockForumServer, feeds: dict[str, Any] | None = None, **settings: Any
) -> CrawlResult:
    """A crawl where a page holding a single "顶" is still a hit of the learned rule."""
    settings = {"FORUMCRAWL_EXTRACT_MIN_CHARS": 1, **settings}
    return run_crawl(tmp_path, [server.url], settings=settings, feeds=feeds)


def items_by_page(truth: SiteTruth, items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {truth.canonical(item["url"]): item for item in items}


def shown(posts: list[dict[str, Any]]) -> str:
    """A thread page's text as the README defines it: the kept posts, each with its quotes back
    where they stood (``quote_at``: the offset of the line each came before)."""
    texts = []
    for post in posts:
        text, lines, done = post["text"], [], 0
        for at, quote in sorted(zip(post["quote_at"], post["quotes"]), key=lambda pair: pair[0]):
            lines += [text[done:at].strip("\n"), quote]
            done = at
        lines.append(text[done:].strip("\n"))
        texts.append("\n".join(line for line in lines if line))
    return "\n\n".join(texts)


def fetched_pages(server: MockForumServer, pages: dict[str, list[str]]) -> list[str]:
    """The page behind every thread URL the crawl fetched: one page has several URLs, and each
    fetched URL is extracted (and judged) before deduplication keeps one item."""
    canonical = [server.truth.canonical(url) for url in set(server.requested_urls())]
    return [url for url in canonical if url in pages]


def test_the_forum_holds_what_the_tests_need(spam_forum):
    server, spam_url = spam_forum
    pages = readable_pages(server.truth)
    replies = [text for texts in pages.values() for text in texts[1:]]
    assert {"顶", "沙发", AD} <= set(replies)
    assert sum(text not in CONTENTLESS for text in replies) > 10
    assert pages[server.truth.canonical(spam_url)][0] == SPAM_OPENING
    # A later page opened by a contentless reply: flagged like any reply, the page is kept.
    assert any(page_number(url) > 1 and texts[0] in CONTENTLESS for url, texts in pages.items())


def test_filter_off_changes_nothing(tmp_path, spam_forum):
    server, spam_url = spam_forum
    truth = server.truth
    result = crawl(tmp_path, server)
    got = items_by_page(truth, result.items)
    assert set(got) == set(readable_pages(truth))
    assert [p["text"] for p in got[truth.canonical(spam_url)]["posts"]][0] == SPAM_OPENING
    assert all(p["worthless"] is None for item in result.items for p in item["posts"])
    assert not [key for key in result.stats if key.startswith("forumcrawl/value/")]


def test_filter_flags_contentless_replies_and_drops_a_page_opened_by_spam(tmp_path, spam_forum):
    server, spam_url = spam_forum
    truth = server.truth
    csv_path = tmp_path / "threads.csv"
    csv_feed = {str(csv_path): {"format": "csv"}}
    result = crawl(tmp_path, server, feeds=csv_feed, FORUMCRAWL_VALUE_FILTER_ENABLED=True)
    pages = readable_pages(truth)
    spam_page = truth.canonical(spam_url)
    got = items_by_page(truth, result.items)
    assert set(got) == set(pages) - {spam_page}
    for url, item in got.items():
        assert [p["text"] for p in item["posts"]] == pages[url]
        assert [p["worthless"] for p in item["posts"]] == [t in CONTENTLESS for t in pages[url]]
    fetched = fetched_pages(server, pages)
    dropped_urls = re.findall(r"dropped (\S+): its first post is worthless", result.log)
    assert {truth.canonical(url) for url in dropped_urls} == {spam_page}
    assert len(dropped_urls) == 1 <= fetched.count(spam_page)  # judged once, whatever its URL forms
    assert result.stats["forumcrawl/value/page_dropped"] == len(dropped_urls)
    # Each thread page is judged once, however many of its URL forms were fetched.
    flagged = sum(t in CONTENTLESS for url in set(fetched) if url != spam_page for t in pages[url])
    assert flagged > 0
    assert result.stats["forumcrawl/value/post_flagged"] == flagged
    assert "forumcrawl/value/post_dropped" not in result.stats
    with csv_path.open(encoding="utf-8", newline="") as fh:
        rows = {row["url"]: json.loads(row["posts"]) for row in csv.DictReader(fh)}
    assert rows == {item["url"]: item["posts"] for item in result.items}


def test_drop_setting_removes_worthless_replies_and_the_text_follows(tmp_path, spam_forum):
    server, spam_url = spam_forum
    truth = server.truth
    result = crawl(
        tmp_path, server, FORUMCRAWL_VALUE_FILTER_ENABLED=True, FORUMCRAWL_VALUE_FILTER_DROP=True
    )
    pages = readable_pages(truth)
    fetched = fetched_pages(server, pages)
    spam_page = truth.canonical(spam_url)
    pages.pop(spam_page)
    kept = {url: [t for t in texts if t not in CONTENTLESS] for url, texts in pages.items()}
    got = items_by_page(truth, result.items)
    # A page whose posts are all worthless is left with no text, so validation drops it as empty.
    assert set(got) == {url for url, texts in kept.items() if texts}
    emptied = sum(not kept[url] for url in set(fetched) if url in kept)
    assert result.stats.get("forumcrawl/drop/empty", 0) == emptied
    assert result.stats["forumcrawl/value/page_dropped"] == 1 <= fetched.count(spam_page)
    for url, item in got.items():
        assert [p["text"] for p in item["posts"]] == kept[url]
        assert all(p["worthless"] is False for p in item["posts"])
        assert item["text"] == shown(item["posts"])
        assert item["reply_count"] == len(kept[url]) - 1
    dropped = sum(len(pages[url]) - len(kept[url]) for url in set(fetched) if url in pages)
    assert dropped > 0
    assert result.stats["forumcrawl/value/post_dropped"] == dropped
    assert "forumcrawl/value/post_flagged" not in result.stats


def run_extract(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "extract", *args],
        capture_output=True, text=True, timeout=180,
    )


def test_extract_command_value_filter_and_drop_worthless(tmp_path):
    site, spam_tid = contentless_site()
    truth = site.truth("http://forum.test/")
    folder = tmp_path / "pages"
    folder.mkdir()
    readable = [
        (url, posts)
        for thread in truth.threads
        for url, posts in thread.pages.items()
        if url not in truth.broken
    ]
    expected: dict[str, list[str]] = {}
    for number, (url, posts) in enumerate(readable):
        (folder / f"p{number}.html").write_bytes(site.render(url).body)
        expected[f"p{number}"] = [p.text for p in posts]
    spam_page = next(pid for pid, texts in expected.items() if texts[0] == SPAM_OPENING)

    def records(*flags: str) -> tuple[dict[str, dict[str, Any]], str]:
        out = tmp_path / "out.jsonl"
        proc = run_extract(str(folder), "-o", str(out), "-j", "1", *flags)
        assert proc.returncode == 0, proc.stderr
        lines = out.read_text("utf-8").splitlines()
        return {r["id"]: r for r in map(json.loads, lines)}, proc.stderr

    flagged, log = records("--value-filter")
    assert flagged[spam_page]["worthless"] is True and flagged[spam_page]["text"] == ""
    assert "1 dropped as worthless" in log
    threads = {pid: r for pid, r in flagged.items() if r.get("kind") == "thread"}
    assert len(threads) >= len(expected) // 2
    for pid, record in threads.items():
        assert [p["text"] for p in record["posts"]] == expected[pid]
        verdicts = [p["worthless"] for p in record["posts"]]
        assert verdicts == [t in CONTENTLESS for t in expected[pid]]
    dropped, _ = records("--value-filter", "--drop-worthless")
    for pid in threads:
        kept = [t for t in expected[pid] if t not in CONTENTLESS]
        assert [p["text"] for p in dropped[pid]["posts"]] == kept
        assert dropped[pid]["text"] == shown(dropped[pid]["posts"])
        assert dropped[pid]["reply_count"] == max(len(kept) - 1, 0)
    plain, _ = records()
    assert plain[spam_page]["posts"][0]["text"] == SPAM_OPENING
    assert all(p["worthless"] is None for r in plain.values() for p in r.get("posts", []))
    alone = run_extract(str(folder), "--drop-worthless")
    assert alone.returncode == 2 and "go with --value-filter" in alone.stderr
    # A user's model (as `forumcrawl train value` writes) replaces the shipped one: this one
    # believes every text worthless: opening pages go, the posts of later pages are all flagged.
    shipped = load_value_model().to_dict()
    worthless_first = [0.0 if c == WORTHLESS else -1000.0 for c in shipped["classes"]]
    own = tmp_path / "own.json"
    own.write_text(json.dumps({**shipped, "class_log_prior": worthless_first}), encoding="utf-8")
    harsh, _ = records("--value-filter", "--value-model", str(own))
    for record in harsh.values():
        posts = record.get("posts") or []
        assert record.get("worthless") is True or (posts and all(p["worthless"] for p in posts)), record
    assert sum(r.get("worthless") is True for r in harsh.values()) > len(expected) // 2
    missing = run_extract(str(folder), "--value-filter", "--value-model", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "cannot read the value model" in missing.stderr


LONG = (
    "我的显卡用了快三年了，最近开始出问题。之前在网上查了很多资料，说法都不太一样。"
    "有没有懂行的朋友帮忙分析一下原因？"
)
#: A forum signature line (boilerplate in the model's training data).
SIGNATURE = "生活不止眼前的苟且，还有诗和远方。"


def dom_page(*blocks: str) -> Document:
    body = "".join(f'<div class="post"><p>{text}</p></div>' for text in blocks)
    html = f"<html><body><div id=posts>{body}</div></body></html>"
    return Document.from_text(html, "http://x.test/t/1")


def test_dom_blocks_are_kept_or_dropped_and_a_worthless_first_block_drops_the_page():
    page = dom_page(LONG, SIGNATURE, LONG[::-1])
    plain = Cascade(["dom"]).run(page)
    assert plain.value is None and SIGNATURE in plain.extraction.text
    kept = Cascade(["dom"], value_filter=True).run(page)
    assert kept.extraction.text == plain.extraction.text
    assert (kept.value.unit, kept.value.flagged, kept.value.dropped) == ("block", 1, 0)
    dropped = Cascade(["dom"], value_filter=True, value_drop=True).run(page)
    assert SIGNATURE not in dropped.extraction.text
    assert LONG in dropped.extraction.text and LONG[::-1] in dropped.extraction.text
    assert dropped.value.dropped == 1
    # The page is dropped, not handed to the next stage.
    opened = Cascade(["dom", "cx"], value_filter=True).run(dom_page(SIGNATURE, LONG, LONG[::-1]))
    assert opened.extraction is None and opened.value.page_worthless and not opened.misses
