"""``forumcrawl report``: counts checked against the mock forum's truth, HTML drawn by a real
headless Chromium (skipped when none is installed)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections import Counter

import pytest

from forumcrawl.commands.report import BROWSERS
from forumcrawl.report import summarize
from tests.test_cli_crawl import forumcrawl_cmd, read_items

CHROMIUM = next((b for b in map(shutil.which, BROWSERS) if b), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed")


def test_summary_counts_posts_articles_and_misses():
    items = [
        {"site": "s", "board": "A", "title": "t1", "method": "ksf", "author": "x", "text": "..",
         "published": "2024-01-02T10:00:00",
         "posts": [{"author": "x", "published": "2024-01-02T10:00:00"},
                   {"author": "", "published": None}]},
        {"site": "s", "board": "A", "title": "t1", "method": "template", "author": "y", "text": ".",
         "published": "2024-01-03T10:00:00", "posts": [{"author": "y", "published": "2024-01-03"}]},
        {"site": "s", "title": "", "method": "cx", "author": None, "text": "an article",
         "published": "2024-01-03T08:00:00"},
    ]
    summary = summarize(items)
    assert (summary.threads, summary.pages, summary.posts) == (2, 3, 4)
    assert summary.threads_by_board == Counter({"A": 1, "(no board)": 1})
    assert summary.posts_by_day == Counter({"2024-01-02": 1, "2024-01-03": 2})
    assert summary.authors == Counter({"x": 1, "y": 1})
    assert summary.methods == Counter({"ksf": 1, "template": 1, "cx": 1})
    assert summary.missing == Counter(
        {"page/title": 1, "page/author": 1, "post/author": 2, "post/published": 1}
    )


def test_a_whole_thread_record_counts_as_its_pages():
    items = [{"site": "s", "board": "A", "title": "t", "author": "x", "published": "2024-01-02",
              "page_urls": ["u1", "u2"], "pages": 2,
              "posts": [{"author": "x", "published": "2024-01-02"},
                        {"author": "y", "published": "2024-01-03"}]}]
    summary = summarize(items)
    assert (summary.threads, summary.pages, summary.posts) == (1, 2, 2)
    assert not summary.missing  # a thread record has no text of its own
    assert summary.methods == Counter({"(whole thread)": 1})


@pytest.fixture(scope="module")
def feed(tmp_path_factory, forum_servers):
    """A real crawl of the phpBB-like forum, and its truth."""
    server = forum_servers["phpbb"]
    folder = tmp_path_factory.mktemp("report")
    proc = forumcrawl_cmd(
        ["crawl", "forum", server.url, "-O", "items.jsonl", "-L", "WARNING"], cwd=folder
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return folder, server.truth


def test_report_counts_match_the_truth(feed):
    folder, truth = feed
    proc = forumcrawl_cmd(["report", "items.jsonl", "--html", "report.html"], cwd=folder)
    assert proc.returncode == 0, proc.stderr
    posts = sum(len(truth.posts_for(url)) for url in truth.topic_urls)
    lines = proc.stdout.splitlines()
    totals = f"{len(truth.threads)} threads, {len(truth.topic_urls)} pages, {posts} posts"
    assert lines[0] == f"items.jsonl: {totals}"
    boards = Counter(thread.board for thread in truth.threads)
    for board, threads in boards.items():
        assert any(line.split(None, 4)[4:] == [board] and line.split()[0] == str(threads)
                   for line in lines)
    assert "methods: ksf" in proc.stdout and "empty: none" in proc.stdout
    page = (folder / "report.html").read_text("utf-8")
    assert totals in page
    items = read_items(folder / "items.jsonl")
    author, count = Counter(p["author"] for it in items for p in it["posts"]).most_common(1)[0]
    assert f"top authors: {author} {count}" in proc.stdout


def test_bad_feed_is_one_line(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"url": "a"}\n[1]\n', "utf-8")
    proc = forumcrawl_cmd(["report", "bad.jsonl"], cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "forumcrawl report: error: bad.jsonl:2: expected a JSON object\n"


@needs_chromium
def test_report_renders_in_headless_chromium(feed):
    folder, truth = feed
    proc = forumcrawl_cmd(
        ["report", "items.jsonl", "--html", "r.html", "--png", "r.png"], cwd=folder
    )
    assert proc.returncode == 0, proc.stderr
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
         (folder / "r.html").as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    assert '<p id="totals">' in dom and f"{len(truth.threads)} threads" in dom
    assert dom.count("<rect ") >= len({t.board for t in truth.threads})
    png = (folder / "r.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width == 1000 and height > 400
    image = pytest.importorskip("matplotlib.image").imread(folder / "r.png")
    bar = (abs(image[..., :3] - (0x4A / 255, 0x7A / 255, 0xB5 / 255)) < 0.02).all(axis=-1)
    assert bar.sum() > 1000  # the bars were drawn, in their colour
