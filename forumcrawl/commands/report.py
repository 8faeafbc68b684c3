"""``forumcrawl report ITEMS.jsonl``: what a crawl's feed holds, as text, HTML or PNG.

Threads, pages and posts per board, posts per day, top authors, extraction methods and the fields
left empty (:mod:`forumcrawl.report`). ``--png`` renders the HTML page in headless Chromium (the
``chromium`` package of Debian), which must be installed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

NAME = "report"
HELP = "summarize a feed: threads and posts per board, posts per day, authors, methods, misses"

#: Browsers tried for --png, in this order.
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
#: Seconds headless Chromium may take to draw the page.
RENDER_TIMEOUT = 120


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl report``."""
    parser.add_argument("items", metavar="ITEMS.jsonl", type=Path, help="a JSON Lines feed")
    parser.add_argument("--html", metavar="FILE", type=Path, help="write the report as HTML")
    parser.add_argument(
        "--png", metavar="FILE", type=Path, help="draw the report as PNG (needs chromium)"
    )


def _png(page: Path, png: Path, height: int) -> None:
    """Screenshot ``page`` with headless Chromium into ``png``."""
    from forumcrawl.cli import CommandError

    browser = next((b for b in map(shutil.which, BROWSERS) if b), None)
    if browser is None:
        raise CommandError("--png needs Chromium (Debian: apt-get install chromium)")
    command = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        f"--window-size=1000,{height}", f"--screenshot={png.resolve()}", page.resolve().as_uri(),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RENDER_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise CommandError(f"Chromium drew nothing in {RENDER_TIMEOUT} s") from None
    if done.returncode != 0 or not png.is_file():
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CommandError(f"Chromium could not draw {png}: {last}")


def run(args: argparse.Namespace) -> int:
    """Read the feed, print the summary, write the HTML and PNG asked for."""
    from forumcrawl.cli import CommandError
    from forumcrawl.feeds import read_feed
    from forumcrawl.report import TOP_AUTHORS, render_html, summarize

    try:
        summary = summarize(read_feed(args.items))
    except UnicodeDecodeError as exc:
        raise CommandError(f"{args.items}: not UTF-8 text ({exc.reason})") from None
    except ValueError as exc:  # a line that is not a JSON object, or a file that cannot be read
        raise CommandError(str(exc)) from None
    print(f"{args.items}: {summary.threads} threads, {summary.pages} pages, {summary.posts} posts")
    for board in sorted(summary.pages_by_board, key=lambda b: -summary.posts_by_board[b]):
        print(f"  {summary.threads_by_board[board]:>6} threads {summary.posts_by_board[board]:>7} "
              f"posts  {board}")
    print("methods: " + ", ".join(f"{m} {n}" for m, n in summary.methods.most_common()))
    print("empty: " + (", ".join(f"{k} {n}" for k, n in sorted(summary.missing.items())) or "none"))
    top = ", ".join(f"{a} {n}" for a, n in summary.authors.most_common(5))
    print(f"top authors: {top or 'none'}")
    if not (args.html or args.png):
        return 0
    page = render_html(summary, f"forumcrawl report: {args.items.name}")
    with tempfile.TemporaryDirectory(prefix="forumcrawl-report-") as scratch:
        target = args.html or Path(scratch) / "report.html"
        try:
            target.write_text(page, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {target}: {exc.strerror}") from None
        if args.png:
            rows = 2 * len(summary.pages_by_board) + min(len(summary.posts_by_day), 61)
            rows += min(len(summary.authors), TOP_AUTHORS)
            rows += len(summary.methods) + len(summary.missing)
            _png(target, args.png, 420 + 26 * rows)
    for path in (args.html, args.png):
        if path:
            print(f"wrote {path}")
    return 0
