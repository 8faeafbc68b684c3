"""``forumcrawl report``: counts checked against the mock forum's truth, per site and board, with
the crawl's own facts from its stats file; the HTML drawn by a real headless Chromium (skipped when
none is installed: Debian's ``chromium`` package, which pip cannot install)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from forumcrawl.commands.report import BROWSERS, CHROMIUM_FLAGS, PNG_WIDTH
from forumcrawl.report import FONT_STACK, render_html, summarize
from tests.browser import has_cjk_font
from tests.test_cli_crawl import forumcrawl_cmd, read_items

#: One xdist group: its crawl is a module fixture: made once, on one test process.
pytestmark = pytest.mark.xdist_group("cli_report")

CHROMIUM = next((b for b in map(shutil.which, BROWSERS) if b), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium: the screenshot tests need Debian's chromium package, which pip cannot "
           "install; `python -m tests.browser` installs it as root on a machine with apt-get "
           "(else: sudo apt-get install chromium fonts-noto-cjk)",
)


def test_summary_counts_per_site_and_board_with_misses_and_examples():
    items = [
        {"site": "s", "board": "A", "title": "t1", "method": "ksf", "author": "x", "text": "..",
         "url": "http://s/t1", "published": "2024-01-02T10:00:00",
         "posts": [{"author": "x", "published": "2024-01-02T10:00:00"},
                   {"author": "", "published": None}]},
        {"site": "s", "board": "A", "title": "t1", "method": "template", "author": "y", "text": ".",
         "url": "http://s/t1?page=2", "published": "2024-01-03T10:00:00",
         "posts": [{"author": "y", "published": "2024-01-03"}]},
        {"site": "s", "title": "", "method": "cx", "author": None, "text": "an article",
         "url": "http://s/a", "published": "2024-01-03T08:00:00"},
        {"site": "other", "board": "A", "title": "t1", "method": "ksf", "author": "x", "text": "x",
         "url": "http://other/t1", "published": "2024-01-05", "posts": [{"author": "x", "published": "2024-01-05"}]},
    ]
    summary = summarize(items)
    assert (len(summary.threads), summary.pages, summary.posts) == (3, 4, 5)
    assert summary.sites == ["s", "other"]
    assert [(b, c.threads, c.pages, c.posts) for b, c in summary.boards_of("s")] == [("A", 1, 2, 3), ("(no board)", 1, 1, 1)]
    assert [(b, c.threads, c.posts, c.last_post) for b, c in summary.boards_of("other")] == [("A", 1, 1, "2024-01-05")]
    assert summary.threads["s", "A", "t1"].pages == 2 and summary.threads["s", "A", "t1"].posts == 3
    assert summary.posts_by_day == Counter({"2024-01-02": 1, "2024-01-03": 2, "2024-01-05": 1})
    assert summary.authors == Counter({("s", "x"): 1, ("s", "y"): 1, ("other", "x"): 1})
    assert summary.methods == Counter({("s", "ksf"): 1, ("s", "template"): 1, ("s", "cx"): 1, ("other", "ksf"): 1})
    assert summary.missing == Counter({"page/title": 1, "page/author": 1, "post/author": 2, "post/published": 1})
    assert summary.miss_examples["post/author"] == ["http://s/t1", "http://s/a"]
    page = render_html(summary, "r")
    assert "<tr><td>s</td><td>A</td>" in page and "<tr><td>other</td><td>A</td>" in page, \
        "boards of two sites are two rows"
    assert '<a href="http://s/a">http://s/a</a>' in page, "misses link their example pages"


def test_a_whole_thread_record_counts_as_its_pages():
    items = [{"site": "s", "board": "A", "title": "t", "author": "x", "published": "2024-01-02",
              "page_urls": ["u1", "u2"], "pages": 2,
              "posts": [{"author": "x", "published": "2024-01-02"},
                        {"author": "y", "published": "2024-01-03"}]}]
    summary = summarize(items)
    assert (len(summary.threads), summary.pages, summary.posts) == (1, 2, 2)
    assert not summary.missing  # a thread record has no text of its own
    assert summary.methods == Counter({("s", "(whole thread)"): 1})


def test_the_page_declares_cjk_fonts_and_the_feeds_language():
    items = [{"site": "s", "board": "电脑硬件", "title": "显卡", "language": "zh", "text": "好",
              "author": "大白菜", "published": "2024-01-02", "posts": [{"author": "大白菜", "published": "2024-01-02"}]}]
    page = render_html(summarize(items), "r")
    assert '<html lang="zh">' in page and "电脑硬件" in page
    assert FONT_STACK in page and "Noto Sans CJK SC" in FONT_STACK and "Microsoft YaHei" in FONT_STACK
    assert "max-width" not in page, "a full-width page"


@pytest.fixture(scope="module")
def feed(tmp_path_factory, forum_servers):
    """A real crawl of the phpBB-like and the Discuz!-like (Chinese) forums, with its stats file."""
    servers = [forum_servers["phpbb"], forum_servers["discuz"]]
    folder = tmp_path_factory.mktemp("report")
    proc = forumcrawl_cmd(
        ["crawl", "forum", *(s.url for s in servers), "-O", "items.jsonl", 
         "-s", "FORUMCRAWL_STATS_FILE=stats.json", "-L", "WARNING"], cwd=folder,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return folder, servers


def test_report_counts_match_the_truth_per_site(feed):
    folder, servers = feed
    proc = forumcrawl_cmd(["report", "items.jsonl", "--html", "report.html", "--stats", "stats.json"],
                          cwd=folder)
    assert proc.returncode == 0, proc.stderr
    truths = [s.truth for s in servers]
    posts = sum(len(t.posts_for(url)) for t in truths for url in t.topic_urls)
    threads = sum(len(t.threads) for t in truths)
    pages = sum(len(t.topic_urls) for t in truths)
    lines = proc.stdout.splitlines()
    totals = f"{threads} threads, {pages} pages, {posts} posts"
    assert lines[0] == f"items.jsonl: {totals}"
    stats = json.loads((folder / "stats.json").read_text("utf-8"))
    assert lines[1].startswith("crawl: ") and f"{stats['downloader/request_count']} requests" in lines[1]
    for server in servers:
        site = server.url.split("/")[2]
        block = lines[lines.index(site) + 1:]
        boards = Counter(thread.board for thread in server.truth.threads)
        for board, count in boards.items():
            assert any(line.split(None, 4)[4:] == [board] and line.split()[0] == str(count)
                       for line in block[:len(boards)]), (site, board)
    assert "methods: ksf" in proc.stdout and "empty: none" in proc.stdout
    page = (folder / "report.html").read_text("utf-8")
    assert totals in page and f"{stats['downloader/request_count']:,}" in page
    items = read_items(folder / "items.jsonl")
    (site, author), count = Counter((it["site"], p["author"]) for it in items for p in it["posts"]).most_common(1)[0]
    assert f"top authors: {author} {count}" in proc.stdout


def test_bad_feed_and_bad_stats_are_one_line(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"url": "a"}\n[1]\n', "utf-8")
    proc = forumcrawl_cmd(["report", "bad.jsonl"], cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "forumcrawl report: error: bad.jsonl:2: expected a JSON object\n"
    (tmp_path / "good.jsonl").write_text('{"url": "a"}\n', "utf-8")
    (tmp_path / "stats.json").write_text("not json", "utf-8")
    proc = forumcrawl_cmd(["report", "good.jsonl", "--stats", "stats.json"], cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("forumcrawl report: error: stats.json: not a stats file")


@needs_chromium
def test_report_renders_in_headless_chromium(feed, tmp_path):
    folder, servers = feed
    proc = forumcrawl_cmd(
        ["report", "items.jsonl", "--stats", "stats.json", "--html", "r.html", "--png", "r.png"], cwd=folder
    )
    assert proc.returncode == 0, proc.stderr
    dom = subprocess.run(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         (folder / "r.html").as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    assert 'id="totals"' in dom and all(s.url.split("/")[2] in dom for s in servers)
    assert "电脑硬件" in dom or any(t.board in dom for t in servers[1].truth.threads)
    png = (folder / "r.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width == PNG_WIDTH and height > 1000
    image = pytest.importorskip("matplotlib.image").imread(folder / "r.png")
    bar = (abs(image[..., :3] - (0x4A / 255, 0x7A / 255, 0xB5 / 255)) < 0.02).all(axis=-1)
    assert bar.sum() > 1000  # the activity chart was drawn, in its colour
    right = image[:, width * 3 // 4:, :3]
    assert (right < 0.5).all(axis=-1).sum() > 500, "the page's right quarter holds text: full width"


@needs_chromium
def test_the_browser_step_of_the_readme_says_the_screenshot_tests_run():
    """With Chromium and a CJK font installed, ``python -m tests.browser`` installs nothing and
    says so in one line (without them it would install them as root: not done by a test)."""
    if not has_cjk_font():
        pytest.skip("no CJK font installed (Debian: fonts-noto-cjk)")
    done = subprocess.run([sys.executable, "-m", "tests.browser"], cwd=Path(__file__).parents[1],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"tests.browser: {CHROMIUM} and a CJK font are installed: the screenshot tests will run\n"


def _cells(chars: str, folder: Path, name: str) -> list:
    """``chars`` drawn by headless Chromium in the report's fonts, one 100-pixel cell each; the
    dark pixels of each cell."""
    spans = "".join(f"<span>{c}</span>" for c in chars)
    style = (f"body{{margin:0;font:60px {FONT_STACK}}}"
             "span{display:inline-block;width:100px;height:100px;text-align:center;overflow:hidden}")
    page = folder / f"{name}.html"
    page.write_text(f'<html lang="zh"><head><style>{style}</style></head><body>{spans}</body></html>', "utf-8")
    subprocess.run(
        [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={folder / ('profile-' + name)}", "--window-size=600,300",
         f"--screenshot={folder / (name + '.png')}", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    )
    ink = (pytest.importorskip("matplotlib.image").imread(folder / f"{name}.png")[..., :3] < 0.5).all(axis=-1)
    return [ink[:100, 100 * i:100 * (i + 1)] for i in range(len(chars))]


def _unlike(a, b) -> float:
    """Share of two cells' ink that is not common to both."""
    return float((a ^ b).sum() / max(int(a.sum() + b.sum()), 1))


@needs_chromium
def test_cjk_text_renders_as_glyphs_not_boxes(tmp_path):
    """With the report's font stack, four Chinese characters are four different shapes. A browser
    without a font for them draws each as the same missing-glyph box, as it draws characters of the
    private use area here, which no font has."""
    if not has_cjk_font():
        pytest.skip("no CJK font installed (Debian: fonts-noto-cjk)")
    boxes = _cells("\U000f0001\U000f0102\U000f0a03\U000f0b04", tmp_path, "boxes")
    assert all(b.sum() > 100 for b in boxes) and _unlike(boxes[0], boxes[3]) < 0.1, "the reference boxes"
    glyphs = _cells("电脑硬件", tmp_path, "cjk")
    assert all(g.sum() > 300 for g in glyphs), "every character drawn"
    assert min(_unlike(a, b) for i, a in enumerate(glyphs) for b in glyphs[i + 1:]) > 0.3
