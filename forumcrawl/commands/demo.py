"""``forumcrawl demo``: serve the built-in forum on 127.0.0.1 and crawl it, no site needed."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

NAME = "demo"
HELP = "serve the built-in demo forum on 127.0.0.1, crawl it, write a feed and print a summary"
SCRAPY_LOGS = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl demo``."""
    parser.add_argument("-o", "--output", default="demo-threads.jsonl", help="feed to write (JSON Lines)")
    parser.add_argument(
        "--families",
        default="discuz,phpbb,static",
        help="comma-separated markup families of the demo forum to serve and crawl",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated forum content")


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
    servers = [serve(family, seed=args.seed) for family in families]
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="forumcrawl-demo-") as rules_dir:
            stats = crawl(
                "forum",
                [srv.url for srv in servers],
                output,
                settings={
                    "AUTOTHROTTLE_ENABLED": False,
                    "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
                    "FORUMCRAWL_RULES_DIR": rules_dir,
                    "LOG_LEVEL": "DEBUG" if args.verbose else "WARNING",
                },
            )
    finally:
        for srv in servers:
            srv.stop()
    seconds = time.perf_counter() - started
    items = [json.loads(line) for line in output.read_text("utf-8").splitlines() if line.strip()]
    print(f"crawled {stats.get('response_received_count', 0)} pages in {seconds:.1f}s; "
          f"{len(items)} thread pages written to {output}")
    for srv in servers:
        truth = srv.truth
        topics = {truth.url_aliases.get(u, u) for u in truth.topic_urls}
        mine = [it for it in items if it["url"].startswith(srv.url)]
        urls = {truth.url_aliases.get(it["url"], it["url"]) for it in mine}
        hits = len(urls & topics)
        methods = Counter(it.get("method") for it in mine)
        posts = sum(len(it.get("posts") or []) for it in mine)
        precision = hits / len(urls) if urls else 0.0
        recall = hits / len(topics) if topics else 0.0
        print(
            f"  {truth.family:<7} {srv.url}  threads {len(mine):>4}  posts {posts:>5}  "
            f"topic precision {precision:.2f} recall {recall:.2f}  methods {dict(methods)}"
        )
    return 0
