"""``forumcrawl report ITEMS.jsonl``: what a crawl's feed holds, as text, HTML or PNG.

Threads, pages and posts per site and board, posts over time, top threads and authors, extraction
methods and the fields left empty with example pages (:mod:`forumcrawl.report`); with ``--stats``,
the crawl's requests, failures and times. ``--png`` renders the HTML page in headless Chromium (the
``chromium`` package of Debian), which must be installed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from forumcrawl.report import CrawlStats, FeedSummary

NAME = "report"
HELP = "summarize a feed: sites and boards, activity, top threads and authors, methods, misses"

#: Browsers tried for --png, in this order.
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
#: Seconds headless Chromium may take to draw the page.
RENDER_TIMEOUT = 120
#: Width of the drawn page, in CSS pixels: the report is a full-width page.
PNG_WIDTH = 1400
#: Chromium's switches for one screenshot in a scratch profile: no GPU, no sandbox (root in
#: containers), none of the background traffic a first run starts (updates, sync, metrics).
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl report``."""
    parser.add_argument("items", metavar="ITEMS.jsonl", type=Path, help="a JSON Lines feed")
    parser.add_argument("--html", metavar="FILE", type=Path, help="write the report as HTML")
    parser.add_argument(
        "--png", metavar="FILE", type=Path, help="draw the report as PNG (needs chromium)"
    )
    parser.add_argument(
        "--stats", metavar="FILE", type=Path,
        help="the crawl's stats file (crawl with -s FORUMCRAWL_STATS_FILE=FILE): requests, failures, times",
    )


def _png(page: Path, png: Path, height: int) -> None:
    """Screenshot ``page`` with headless Chromium into ``png``."""
    from forumcrawl.cli import CommandError

    browser = next((b for b in map(shutil.which, BROWSERS) if b), None)
    if browser is None:
        raise CommandError("--png needs Chromium (Debian: apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="forumcrawl-chromium-") as profile:
        command = [
            browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--window-size={PNG_WIDTH},{height}",
            f"--screenshot={png.resolve()}", page.resolve().as_uri(),
        ]
        done = _draw(command)
    if done.returncode != 0 or not png.is_file():
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CommandError(f"Chromium could not draw {png}: {last}")


def _draw(command: list[str]) -> subprocess.CompletedProcess[str]:
    from forumcrawl.cli import CommandError

    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=RENDER_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise CommandError(f"Chromium drew nothing in {RENDER_TIMEOUT} s") from None


def run(args: argparse.Namespace) -> int:
    """Read the feed, print the summary, write the HTML and PNG asked for."""
    from forumcrawl.cli import CommandError
    from forumcrawl.feeds import read_feed
    from forumcrawl.report import read_stats, render_html, summarize

    try:
        summary = summarize(read_feed(args.items))
        stats = read_stats(args.stats) if args.stats else None
    except UnicodeDecodeError as exc:
        raise CommandError(f"{args.items}: not UTF-8 text ({exc.reason})") from None
    except (ValueError, OSError) as exc:  # not JSON objects, or a file that cannot be read
        raise CommandError(str(exc)) from None
    print("\n".join(text_report(args.items.name, summary, stats)))
    if not (args.html or args.png):
        return 0
    page = render_html(summary, f"forumcrawl report: {args.items.name}", stats)
    with tempfile.TemporaryDirectory(prefix="forumcrawl-report-") as scratch:
        target = args.html or Path(scratch) / "report.html"
        try:
            target.write_text(page, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {target}: {exc.strerror}") from None
        if args.png:
            _png(target, args.png, page_height(summary))
    for path in (args.html, args.png):
        if path:
            print(f"wrote {path}")
    return 0


def text_report(name: str, summary: FeedSummary, stats: CrawlStats | None) -> list[str]:
    """The summary as lines for a terminal: totals, then each site's boards."""
    lines = [f"{name}: {len(summary.threads)} threads, {summary.pages} pages, {summary.posts} posts"]
    if stats is not None:
        lines.append(f"crawl: {stats.start} to {stats.finish} ({stats.reason}), {stats.requests} requests, "
                     f"{sum(stats.failures.values())} failures")
    for site in summary.sites:
        lines.append(site)
        for board, count in summary.boards_of(site):
            lines.append(f"  {count.threads:>6} threads {count.posts:>7} posts  {board}")
    methods: Counter[str] = Counter()
    for (_, method), n in summary.methods.items():
        methods[method] += n
    lines.append("methods: " + ", ".join(f"{m} {n}" for m, n in methods.most_common()))
    lines.append("empty: " + (", ".join(f"{k} {n}" for k, n in sorted(summary.missing.items())) or "none"))
    top = ", ".join(f"{author} {n}" for (_, author), n in summary.authors.most_common(5))
    lines.append(f"top authors: {top or 'none'}")
    return lines


def page_height(summary: FeedSummary) -> int:
    """Pixels of the drawn page: its fixed parts and a row per table line."""
    from forumcrawl.report import TOP_AUTHORS, TOP_THREADS

    rows = len(summary.boards) + min(max(len(summary.threads), len(summary.authors)), max(TOP_THREADS, TOP_AUTHORS))
    rows += len(summary.methods) + 2 * len(summary.missing)
    return 1000 + 46 * rows
