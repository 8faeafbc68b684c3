"""Real crawls of the local forum: Scrapy runs, feeds are written and read back, values are exact."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

import forumcrawl
from tests.conftest import run_crawl

ROOT = Path(forumcrawl.__file__).resolve().parents[1]


def canonical(truth, url: str) -> str:
    return truth.canonical(url)


def unexpected_errors(log: str) -> list[str]:
    """ERROR lines other than Scrapy giving up on the forum's deliberate HTTP 500 page."""
    return [line for line in log.splitlines() if " ERROR: " in line and "Gave up retrying" not in line]


def thread_items_by_url(truth, items):
    out = {}
    for item in items:
        url = canonical(truth, item["url"])
        assert url not in out, f"thread page exported twice: {url}"
        out[url] = item
    return out


@pytest.mark.parametrize("family", ["discuz", "phpbb", "static"])
def test_forum_crawl_exports_exactly_the_thread_pages(tmp_path, forum_servers, family):
    server = forum_servers[family]
    truth = server.truth
    server.requests.clear()
    result = run_crawl(tmp_path, [server.url])
    got = thread_items_by_url(truth, result.items)
    topics = {canonical(truth, u) for u in truth.topic_urls}
    readable_topics = topics - set(truth.broken)
    assert set(got) <= topics, f"non-thread pages exported: {sorted(set(got) - topics)[:5]}"
    assert set(got) >= readable_topics, f"thread pages missed: {sorted(readable_topics - set(got))[:5]}"
    assert not unexpected_errors(result.log)
    assert result.stats["forumcrawl/learn/sites"] == 1
    fetched = set(server.requested_urls())
    assert fetched, "the server saw no request"
    assert not fetched & set(truth.disallowed_urls), "robots.txt was not obeyed"
    # Attachments whose anchor names a file (``IMG_3.png`` behind ``?mod=attachment&aid=``,
    # ``photo_5.png`` behind ``download/file.php?id=``) are downloads: not fetched.
    binaries = {u for u, kind in truth.broken.items() if kind == "binary"}
    assert binaries and not fetched & binaries


def test_posts_of_every_thread_page_match_the_truth(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    truth = server.truth
    result = run_crawl(tmp_path, [server.url])
    got = thread_items_by_url(truth, result.items)
    checked = 0
    for thread in truth.threads:
        for page_url, posts in thread.pages.items():
            item = got.get(canonical(truth, page_url))
            if item is None or page_url in truth.broken:
                continue
            assert item["title"] == thread.title
            assert [p["author"] for p in item["posts"]] == [p.author for p in posts]
            assert [p["text"] for p in item["posts"]] == [p.text for p in posts]
            assert item["method"] == "ksf"
            checked += 1
    assert checked >= len(truth.threads)


def test_gbk_forum_text_is_decoded_and_written_as_utf8(tmp_path, forum_servers):
    server = forum_servers["discuz"]
    result = run_crawl(tmp_path, [server.url])
    raw = result.feed.read_bytes().decode("utf-8")
    first = server.truth.threads[0]
    page_url, posts = next(iter(first.pages.items()))
    assert posts[0].author in raw
    assert "\\u" not in raw.split('"text"', 1)[1][:200]


def test_csv_feed_keeps_posts_as_json_cells(tmp_path, forum_servers):
    server = forum_servers["static"]
    csv_path = tmp_path / "threads.csv"
    result = run_crawl(tmp_path, [server.url], feeds={str(csv_path): {"format": "csv"}})
    with csv_path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(result.items)
    by_url = {item["url"]: item for item in result.items}
    for row in rows:
        assert json.loads(row["posts"]) == by_url[row["url"]]["posts"]
    assert list(rows[0])[:4] == ["url", "thread_url", "site", "title"]


def test_scrapy_crawl_command_from_the_repository_root(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    out = tmp_path / "threads.jsonl"
    proc = subprocess.run(
        [
            sys.executable, "-m", "scrapy", "crawl", "forum",
            "-a", f"start={server.url}", "-O", str(out),
            "-s", f"FORUMCRAWL_RULES_DIR={tmp_path / 'rules'}",
            "-s", "CLOSESPIDER_ITEMCOUNT=5", "-s", "LOG_LEVEL=INFO",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(items) == 5, "CLOSESPIDER_ITEMCOUNT is an exact number of exported items"
    assert all(item["url"].startswith(server.url) for item in items)


def test_missing_start_argument_is_a_clear_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "forum", "-O", str(tmp_path / "x.jsonl")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert "give the site(s) to crawl: -a start=URL" in proc.stderr
