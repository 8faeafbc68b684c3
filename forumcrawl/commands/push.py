"""``forumcrawl push SPIDER URL…``: give a cluster's workers their start URLs."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import redis

    from forumcrawl.redis.keys import ClusterKeys

NAME = "push"
HELP = "push start URLs to the Redis seed list of a cluster spider (forum, news, forum_redis, news_redis)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl push``."""
    parser.add_argument("spider", help="forum or news (their cluster variants forum_redis/news_redis)")
    parser.add_argument("urls", nargs="+", metavar="URL", help="start URL(s) of the site(s)")
    parser.add_argument("--redis-url", help="Redis of the cluster (default: FORUMCRAWL_REDIS_URL)")
    parser.add_argument("--reset", action="store_true", help="first delete the spider's queue, leases, seen set and items")
    parser.add_argument("--forget", action="store_true",
                        help="with --reset, also delete the recrawl state (FORUMCRAWL_INCREMENTAL): the next crawl is a first crawl")


def cluster_of(args: argparse.Namespace) -> tuple[str, ClusterKeys, redis.Redis]:
    """The Redis URL, keys and client of ``args.spider``'s cluster (``--redis-url`` or the settings)."""
    from forumcrawl.cli import CommandError
    from forumcrawl.redis.keys import ClusterKeys, connect, redis_url_from_settings
    from forumcrawl.runner import project_settings

    settings = project_settings()
    url = args.redis_url or redis_url_from_settings(settings)
    if not url:
        raise CommandError("give --redis-url or set FORUMCRAWL_REDIS_URL (or REDIS_URL)")
    spider = args.spider if args.spider.endswith("_redis") else f"{args.spider}_redis"
    if spider not in {"forum_redis", "news_redis"}:
        raise CommandError(f"unknown spider {args.spider!r}: forum or news")
    return url, ClusterKeys.from_settings(settings, spider), connect(url, settings.getdict("REDIS_PARAMS"))


def run(args: argparse.Namespace) -> int:
    """Validate the URLs, then append them to ``<spider>_redis:start_urls`` and allow their sites."""
    from forumcrawl.cli import CommandError
    from forumcrawl.document import site_of
    from forumcrawl.redis.keys import REDIS_ERRORS, push_seeds
    from forumcrawl.spiders.base import parse_start_urls

    forget = getattr(args, "forget", False)
    if forget and not args.reset:
        raise CommandError("--forget goes with --reset")
    url, keys, client = cluster_of(args)
    try:
        urls = parse_start_urls(",".join(args.urls))
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    try:
        if args.reset:
            patterns = [*keys.patterns(), *([keys.state("*")] if forget else [])]
            client.delete(*keys.all(), *(k for pattern in patterns for k in client.scan_iter(match=pattern)))
        push_seeds(client, keys, urls, sorted({site_of(u) for u in urls}))
    except REDIS_ERRORS as exc:
        raise CommandError(f"Redis at {url} unavailable: {exc}") from exc
    print(f"pushed {len(urls)} seed(s) to {keys.seeds}")
    return 0
