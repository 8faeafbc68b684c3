"""``forumcrawl crawl forum|news URL… -o FILE``: a crawl from any folder, as ``scrapy crawl`` runs it.

``scrapy crawl`` needs a Scrapy project folder (``scrapy.cfg``), which a ``pip install`` does not
give. This command runs the same spiders with the same project settings and Scrapy's own
``-o``/``-O``/``-s``/``-a`` meanings, checks the spider arguments and settings before the crawl
starts (a mistake is one line, not a traceback) and shows a progress line on a terminal.
"""

from __future__ import annotations

import argparse
import sys

NAME = "crawl"
HELP = "crawl sites with the forum or news spider from any folder (the options of scrapy crawl)"
SCRAPY_LOGS = True

SPIDERS = ("forum", "news", "forum_redis", "news_redis")
LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
#: Exit status of a crawl stopped by Ctrl-C (its feed holds what was exported so far).
INTERRUPTED = 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl crawl``, named as ``scrapy crawl`` names them."""
    parser.add_argument(
        "spider", choices=SPIDERS,
        help="forum: thread pages and posts; news: articles (the _redis variants are cluster "
        "workers that take their URLs from FORUMCRAWL_REDIS_URL)",
    )
    parser.add_argument(
        "urls", nargs="*", metavar="URL", help="start URL(s); the crawl stays on their sites"
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", action="append", default=[],
        help="append items to FILE (.jsonl, .json, .csv, .xml, or FILE:FORMAT; -:jsonl for stdout)",
    )
    parser.add_argument(
        "-O", "--overwrite-output", metavar="FILE", action="append", default=[],
        help="write items to FILE, replacing what it held",
    )
    parser.add_argument(
        "-s", "--set", metavar="NAME=VALUE", action="append", default=[],
        help="a Scrapy or FORUMCRAWL_* setting; lists as JSON or comma lists (repeatable)",
    )
    parser.add_argument(
        "-a", dest="spider_args", metavar="NAME=VALUE", action="append", default=[],
        help="a spider argument, e.g. topic_example=URL (repeatable)",
    )
    parser.add_argument(
        "-L", "--loglevel", type=str.upper, choices=LOG_LEVELS, metavar="LEVEL",
        help="log level: DEBUG, INFO (default), WARNING, ERROR or CRITICAL",
    )
    parser.add_argument("--logfile", metavar="FILE", help="write the log to FILE, not stderr")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress line, even on a terminal"
    )


def _pairs(values: list[str], option: str) -> dict[str, str]:
    from forumcrawl.cli import CommandError

    bad = [v for v in values if "=" not in v]
    if bad:
        raise CommandError(f"{option} takes NAME=VALUE, not {bad[0]!r}")
    return dict(v.split("=", 1) for v in values)


def run(args: argparse.Namespace) -> int:
    """Check the crawl's arguments and settings, run it, return 0 unless it ended abnormally."""
    from scrapy.exceptions import UsageError
    from scrapy.utils.conf import feed_process_params_from_cli

    from forumcrawl.cli import CommandError
    from forumcrawl.failures import failed_listing_pages, failed_thread_pages
    from forumcrawl.preflight import CrawlSetupError, check_crawl
    from forumcrawl.runner import project_settings, run_spider

    settings = project_settings(_pairs(args.set, "-s"))
    spider_args = _pairs(args.spider_args, "-a")
    starts = [s for s in (spider_args.get("start"), *args.urls) if s]
    if starts:
        spider_args["start"] = ",".join(starts)
    elif not args.spider.endswith("_redis"):
        raise CommandError(f"give the site(s) to crawl: forumcrawl crawl {args.spider} URL…")
    try:
        feeds = feed_process_params_from_cli(
            settings, args.output, overwrite_output=args.overwrite_output
        )
    except UsageError as exc:
        raise CommandError(str(exc)) from None
    if not feeds:
        raise CommandError("give -o FILE or -O FILE: where the items go")
    settings.set("FEEDS", feeds, priority="cmdline")
    if args.loglevel or args.verbose:
        settings.set("LOG_LEVEL", args.loglevel or "DEBUG", priority="cmdline")
    if args.logfile:
        settings.set("LOG_FILE", args.logfile, priority="cmdline")
    if not args.no_progress and sys.stderr.isatty():
        settings.set_in_component_priority_dict("EXTENSIONS", "forumcrawl.progress.ProgressLine", 0)
    try:
        check_crawl(args.spider, settings, spider_args)
    except CrawlSetupError as exc:
        raise CommandError(str(exc)) from None
    stats = run_spider(args.spider, settings, spider_args)
    reason = str(stats.get("finish_reason", "not started"))
    if reason == "shutdown":
        return INTERRUPTED
    if reason != "finished" and not reason.startswith("closespider_"):
        sys.stderr.write(f"forumcrawl crawl: the crawl ended early: {reason}\n")
        return 1
    pages = stats.get("response_received_count", 0) - stats.get("robotstxt/response_count", 0)
    if not pages and not args.spider.endswith("_redis"):
        sys.stderr.write("forumcrawl crawl: no page could be fetched (the log says why)\n")
        return 1
    unstored = sum(v for k, v in stats.items() if k.startswith("feedexport/failed_count/"))
    if unstored:
        sys.stderr.write("forumcrawl crawl: a feed could not be stored (the log says why)\n")
        return 1
    lost, listings = failed_thread_pages(stats), failed_listing_pages(stats)
    if lost or listings:
        missing = [f"{lost} thread pages"] if lost else []
        missing += [f"{listings} listing pages (their threads may be missing)"] if listings else []
        sys.stderr.write(
            f"forumcrawl crawl: {' and '.join(missing)} could not be fetched after their retries "
            "(listed at the end of the log and in the stat forumcrawl/failed/urls)\n"
        )
        return 1
    return 0
