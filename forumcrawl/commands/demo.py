"""``forumcrawl demo``: serve the built-in forum on 127.0.0.1 and crawl it, no site needed.

A first-time user learns from it what forumcrawl does and how well, so it says what it is doing
from the start, compares what the crawl exported with the generator's truth in plain words
(threads, thread pages, posts with their authors and dates), and ends with what to try next.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # every command module is imported to build the CLI: keep that import light
    from forumcrawl.mockforum import SiteTruth

NAME = "demo"
HELP = "serve the built-in demo forum on 127.0.0.1, crawl it, write a feed and print a summary"
SCRAPY_LOGS = True

#: How each family is named to a reader: the engine it imitates and what makes it hard.
FAMILY_NAMES = {
    "discuz": "Discuz!-like forum (GBK-encoded Chinese, forum.php?mod=viewthread&tid=… URLs)",
    "phpbb": "phpBB-like forum (English, viewtopic.php?t=… URLs)",
    "static": "pseudo-static forum (Chinese, thread-123-2-1.html URLs, relative times)",
}
#: How many missed thread pages are named per family.
SHOWN_MISSES = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl demo``."""
    parser.add_argument("-o", "--output", default="demo-threads.jsonl", help="feed to write (JSON Lines)")
    parser.add_argument(
        "--families",
        default="discuz,phpbb,static",
        help="comma-separated markup families of the demo forum to serve and crawl",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated forum content")


@dataclass
class FamilyResult:
    """What one family's crawl found, counted against the generator's truth."""

    threads: int
    threads_found: int
    pages: int
    pages_found: int
    pages_extra: int
    posts: int
    posts_found: int
    posts_extra: int
    authors_right: int
    dates_right: int
    missed: list[str]


def compare(truth: SiteTruth, items: Iterable[Mapping[str, Any]]) -> FamilyResult:
    """Count the threads, thread pages and posts of ``items`` that ``truth`` has.

    A post is found when an exported post of the same page holds its words (token F1 ≥ 0.8, as
    ``forumcrawl eval`` matches posts); its author must then be the truth's and its date the
    truth's day.
    """
    from forumcrawl.evaluation import gold_day, match_posts, normalise_name

    pages = {truth.canonical(url) for url in truth.topic_urls}
    exported: dict[str, Mapping[str, Any]] = {}
    extra = 0
    for item in items:
        url = truth.canonical(item["url"])
        if url in pages:
            exported.setdefault(url, item)
        else:
            extra += 1
    found_threads = {truth.thread_for(url).url for url in exported}
    posts = posts_found = posts_extra = authors = dates = 0
    for url in pages:
        gold = truth.posts_for(url)
        posts += len(gold)
        mine = list((exported.get(url) or {}).get("posts") or [])
        matches = match_posts([str(p.get("text") or "") for p in mine], [g.text for g in gold])
        posts_extra += len(mine) - sum(m is not None for m in matches)
        for gold_post, index in zip(gold, matches):
            if index is None:
                continue
            posts_found += 1
            post = mine[index]
            authors += normalise_name(post.get("author")) == normalise_name(gold_post.author)
            day = gold_day(gold_post.published)
            dates += bool(day) and day in str(post.get("published") or "")
    missed = []
    for thread in truth.threads:
        numbers = [n for n, url in enumerate(thread.pages, 1) if truth.canonical(url) not in exported]
        if numbers:
            missed.append(f"“{thread.title}” page {', '.join(map(str, numbers))}")
    return FamilyResult(
        threads=len(truth.threads), threads_found=len(found_threads),
        pages=len(pages), pages_found=len(exported), pages_extra=extra,
        posts=posts, posts_found=posts_found, posts_extra=posts_extra,
        authors_right=authors, dates_right=dates, missed=missed,
    )


def describe(family: str, result: FamilyResult) -> list[str]:
    """The lines telling a reader how one family's crawl went."""
    extra_pages = f", and {result.pages_extra} other pages" if result.pages_extra else ", nothing else"
    extra_posts = f"; {result.posts_extra} posts that are not in the forum" if result.posts_extra else ""
    lines = [
        FAMILY_NAMES.get(family, family),
        f"  threads       {result.threads_found} of {result.threads} found",
        f"  thread pages  {result.pages_found} of {result.pages} exported{extra_pages}",
        f"  posts         {result.posts_found} of {result.posts} found with their text{extra_posts}",
        f"{'':16}{result.authors_right} with the right author, {result.dates_right} with the right date",
    ]
    if result.missed:
        shown = "; ".join(result.missed[:SHOWN_MISSES])
        more = f" and {len(result.missed) - SHOWN_MISSES} more" if len(result.missed) > SHOWN_MISSES else ""
        lines.append(f"  missed        {shown}{more}")
    return lines


def next_steps(output: Path) -> list[str]:
    """What to try after the demo, as commands to copy."""
    return [
        "Next:",
        f"  forumcrawl report {output}          what the feed holds, by board and author",
        f"  forumcrawl report {output} --html report.html",
        "  python -m forumcrawl.mockforum phpbb --truth truth   serve a forum and crawl it yourself",
        "  forumcrawl crawl forum https://bbs.example.com/ -O threads.jsonl   crawl a real forum",
        "  (the tutorial: docs/tutorial.md)",
    ]


def _forums(count: int) -> str:
    return "1 generated forum" if count == 1 else f"{count} generated forums"


def run(args: argparse.Namespace) -> int:
    """Start one server per family, crawl them all with the forum spider, compare with the truth."""
    from forumcrawl.cli import CommandError
    from forumcrawl.mockforum import FAMILIES, serve
    from forumcrawl.runner import crawl

    families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown or not families:
        raise CommandError(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    output = Path(args.output)
    print(
        f"forumcrawl demo: serving {_forums(len(families))} on 127.0.0.1 "
        f"({', '.join(families)}) and crawling {'it' if len(families) == 1 else 'them'} from the "
        "front page; this takes under a minute…",
        file=sys.stderr, flush=True,
    )
    # Relative times ("3 小时前") count back from the forum's clock: set it to the crawl's, so a
    # post's date read from its page can be compared with the truth's.
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    servers = [serve(family, seed=args.seed, now=now) for family in families]
    settings: dict[str, Any] = {
        # The demo's forums are local and answer at once; throttling would only make the first
        # run of a new user (and CI) wait. Real crawls keep AutoThrottle on.
        "AUTOTHROTTLE_ENABLED": False,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
        "LOG_LEVEL": "DEBUG" if args.verbose else "WARNING",
    }
    if sys.stderr.isatty():
        from forumcrawl.settings import EXTENSIONS

        settings["EXTENSIONS"] = {**EXTENSIONS, "forumcrawl.progress.ProgressLine": 0}
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="forumcrawl-demo-") as rules_dir:
            stats = crawl(
                "forum", [srv.url for srv in servers], output,
                settings={**settings, "FORUMCRAWL_RULES_DIR": rules_dir},
            )
    finally:
        for srv in servers:
            srv.stop()
    seconds = time.perf_counter() - started
    items = [json.loads(line) for line in output.read_text("utf-8").splitlines() if line.strip()]
    print(
        f"Crawled {_forums(len(families))} in {seconds:.0f} s: "
        f"{stats.get('response_received_count', 0)} pages fetched, "
        f"{len(items)} thread pages written to {output}.\n"
        "Compared with what the forum generator put there:\n"
    )
    for srv in servers:
        mine = [it for it in items if it["url"].startswith(srv.url)]
        print("\n".join(describe(srv.truth.family, compare(srv.truth, mine))) + "\n")
    print("\n".join(next_steps(output)))
    return 0
