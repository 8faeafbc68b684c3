"""``forumcrawl cluster status SPIDER``: what a cluster's workers are doing, read from Redis.

Cluster-wide pages, items and errors come from the stats HASH the workers' collectors sum
(``<spider>:stats``, :mod:`forumcrawl.redis.stats`); the frontier from its queue, leases and seeds;
the workers alive from the ZSET of their last exchanges;
per site, whether its rules are learned, being learned (lock held) or not yet.
"""

from __future__ import annotations

import argparse

NAME = "cluster"
HELP = "show a cluster's progress (pages, items, queue, leases, per-site learning) from its Redis"

#: Counters shown, in this order, with their labels.
COUNTERS = (
    ("response_received_count", "pages fetched"),
    ("item_scraped_count", "items exported"),
    ("forumcrawl/redis/popped", "requests leased"),
    ("forumcrawl/redis/requeued", "leases expired"),
    ("forumcrawl/redis/robots_filtered", "links refused by robots.txt"),
    ("forumcrawl/redis/errors", "Redis errors"),
    ("log_count/ERROR", "errors logged"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl cluster``."""
    parser.add_argument("action", choices=["status"], help="status: print the cluster's state")
    parser.add_argument("spider", help="forum or news (their cluster variants forum_redis/news_redis)")
    parser.add_argument("--redis-url", help="Redis of the cluster (default: FORUMCRAWL_REDIS_URL or REDIS_URL)")


def run(args: argparse.Namespace) -> int:
    """Read the cluster's keys in one round trip, then one more for the sites' rules and locks."""
    from forumcrawl.cli import CommandError
    from forumcrawl.commands.push import cluster_of
    from forumcrawl.redis.keys import REDIS_ERRORS
    from forumcrawl.redis.queue import WORKER_ALIVE_SECONDS
    from forumcrawl.runner import project_settings

    url, keys, client = cluster_of(args)
    spider = keys.spider
    rules = f"{project_settings()['FORUMCRAWL_REDIS_PREFIX']}:rules:"
    try:
        pipe = client.pipeline(transaction=False)
        pipe.hgetall(keys.stats)
        pipe.zcard(keys.queue)
        pipe.zcard(keys.leases)
        pipe.scard(keys.seeds) if keys.seeds_as_set else pipe.llen(keys.seeds)
        pipe.smembers(keys.sites)
        pipe.time()
        pipe.zrange(keys.workers, 0, -1, withscores=True)
        stats, queued, leased, seeds, sites, (now, micros), workers = pipe.execute()
        names = sorted(s.decode("utf-8") for s in sites)
        pipe = client.pipeline(transaction=False)
        for site in names:
            pipe.exists(rules + site)
            pipe.exists(rules + site + ":lock")
        flags = pipe.execute()
    except REDIS_ERRORS as exc:
        raise CommandError(f"Redis at {url} unavailable: {exc}") from exc
    counters = {k.decode("utf-8"): int(v) for k, v in stats.items()}
    print(f"cluster {spider} at {url}")
    for key, label in COUNTERS:
        print(f"  {label:<30} {counters.get(key, 0)}")
    print(f"  {'requests queued':<30} {queued}")
    print(f"  {'requests leased (in work)':<30} {leased}")
    print(f"  {'seeds waiting':<30} {seeds}")
    alive = sum(1 for _, seen in workers if now + micros / 1e6 - seen <= WORKER_ALIVE_SECONDS)
    print(f"  {'workers alive':<30} {alive}")
    state = "idle" if not (queued or leased or seeds) else "crawling"
    print(f"  {'frontier':<30} {state}")
    for i, site in enumerate(names):
        learned, locked = flags[2 * i], flags[2 * i + 1]
        status = "rules learned" if learned else "learning (lock held)" if locked else "sampling"
        print(f"  site {site:<25} {status}" + (", relearning" if learned and locked else ""))
    return 0
