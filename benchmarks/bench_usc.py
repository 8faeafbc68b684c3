"""USC topic-URL learning: accuracy on real and local forums, and its cost.

Accuracy is topic-page precision/recall/F of the learned resolver over every URL a bounded
breadth-first crawl of the site found, learned the way the crawl learns it
(:class:`forumcrawl.learning.SiteLearner`): the first ``--url-sample`` URLs in discovery order, and
the pages fetched until there are ``--min-pages`` of them, with no example URL. ::

    python benchmarks/bench_usc.py timing                  # clustering 1k/5k/10k URLs, resolver speed
    python benchmarks/bench_usc.py mock                    # the three mockforum families
    python benchmarks/bench_usc.py machina                 # http://127.0.0.1:8102/ (start it first)
    python benchmarks/bench_usc.py harvest                 # ../shared/data/harvest-forum-posts
    python benchmarks/bench_usc.py all --json usc.json

``harvest`` has two thread pages per site: its URLs are those two plus every same-site link on
them, labelled by the per-site thread patterns in :data:`HARVEST_THREADS` (written by hand from
the links; post permalinks that serve the thread page, such as XenForo's ``post-<id>``, are
thread pages; redirects such as ``goto/post?id=`` and print views are not).
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import re
import statistics
import sys
import time
import urllib.parse
import urllib.request
import urllib.robotparser
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from forumcrawl.document import Document, DocumentError, site_of
from forumcrawl.extractors.dpc import KNNDensityPeaks
from forumcrawl.extractors.topic import learn_topic_rule
from forumcrawl.extractors.url_rules import UrlResolver
from forumcrawl.extractors.usc import usc_distance_matrix

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"

#: Thread-page URLs of each harvest site (path and query after the host), by hand.
HARVEST_THREADS: dict[str, str] = {
    "bbs.archlinux.org": r"^/viewtopic\.php\?(id|pid)=\d+",
    "community.bitdefender.com": r"^/en/discussion/\d+/[^/]+(/p\d+)?$",
    "community.kaspersky.com": r"^/[^/]+-\d+/[^/]+-\d+(\?.*)?$",
    "community.scope.org.uk": r"^/discussion/\d+/[^/]+(/p\d+)?$",
    "forum.digitalfernsehen.de": r"^/threads/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "forum.glamour.de": r"^/t/[^/]+/\d+(/\d+)?(\?page=\d+)?$",
    "forum.mein-schoener-garten.de": r"^/viewtopic\.php\?(?!.*view=print)",
    "forum.openoffice.org": r"^/en/forum/viewtopic\.php\?(?!.*view=print)",
    "forum.statcounter.com": r"^/threads/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "forum.ubuntuusers.de": r"^/topic/[^/]+/(\d+/)?$",
    "forum.videolan.org": r"^/viewtopic\.php\?(?!.*view=print)",
    "forum.wordreference.com": r"^/threads/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "forum.worldofplayers.de": r"^/forum/(threads/\d+-[^?]*|showthread\.php\?(?!.*goto=))",
    "forums.futura-sciences.com": r"^/[^/]+/\d+-[^/]+\.html$",
    "forums.macrumors.com": r"^/threads/[^/]+\.\d+/(page-\d+|post-\d+)?(\?.*)?$",
    "kiwifarms.net": r"^/threads/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "skyscraperpage.com": r"^/forum/showthread\.php\?(?!.*goto=)",
    "www.airliners.net": r"^/forum/viewtopic\.php\?(?!.*view=print)",
    "www.amsel.de": r"^/multiple-sklerose-forum/(index\.php)?\?(?!.*user_profile).*mnr=\d+",
    "www.computerbase.de": r"^/forum/threads/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "www.gtplanet.net": r"^/forum/threads/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "www.juraforum.de": r"^/forum/t/[^/]+\.\d+/(page-\d+|post-\d+)?$",
    "www.med1.de": r"^/forum/[^/]+/[^/]+-\d+/(\?.*)?$",
    "www.medhelp.org": r"^/posts/[^/]+/[^/]+/show/\d+",
    "www.msconnection.org": r"^/Discussions/f\d+/t\d+/tp\d+/",
    "www.mumsnet.com": r"^/Talk/[^/]+/\d+-",
    "www.pistonheads.com": r"^/gassing/topic\.asp\?",
}


# -- scoring -------------------------------------------------------------------------------------


def prf(predicted: Iterable[bool], truth: Iterable[bool]) -> dict[str, float]:
    """Precision, recall and F of the topic class."""
    tp = fp = fn = 0
    for p, t in zip(predicted, truth):
        tp += p and t
        fp += p and not t
        fn += t and not p
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f": f, "tp": tp, "fp": fp, "fn": fn}


def evaluate(
    resolver: UrlResolver, urls: list[str], is_topic: Callable[[str], bool]
) -> dict[str, Any]:
    """Score ``resolver`` on ``urls``; lists the first misclassified URLs."""
    predicted = resolver.predict(urls)
    truth = [is_topic(u) for u in urls]
    report = prf(predicted.tolist(), truth)
    report["errors"] = [
        ("FP" if p else "FN", u) for u, p, t in zip(urls, predicted, truth) if bool(p) != t
    ][:10]
    return report


# -- a small crawler, and the crawl's way of sampling ----------------------------------------------


def links_of(document: Document) -> list[str]:
    """Absolute, defragmented links of a page, resolved against its ``<base href>``."""
    tree = document.tree
    if tree is None:
        return []
    base_el = tree.find(".//base[@href]")
    base = urllib.parse.urljoin(document.url, base_el.get("href")) if base_el is not None else document.url
    out = []
    for a in tree.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("javascript:", "mailto:")):
            continue
        try:
            out.append(urllib.parse.urldefrag(urllib.parse.urljoin(base, href))[0])
        except ValueError:
            continue
    return out


def bfs(start: str, limit: int) -> tuple[list[str], dict[str, tuple[Document, list[str]]]]:
    """Fetch up to ``limit`` pages of ``start``'s site breadth-first (robots.txt obeyed).

    Returns every same-site URL found, in discovery order, and the fetched pages with their
    links, in fetch order.
    """
    robots = urllib.robotparser.RobotFileParser(urllib.parse.urljoin(start, "/robots.txt"))
    robots.read()
    site = site_of(start)
    seen: dict[str, None] = {start: None}
    queue = deque([start])
    pages: dict[str, tuple[Document, list[str]]] = {}
    fetched = 0
    while queue and fetched < limit:
        url = queue.popleft()
        if not robots.can_fetch("*", url):
            continue
        fetched += 1
        try:
            with urllib.request.urlopen(url, timeout=15) as response:  # noqa: S310 (local sites)
                body = response.read()
                ctype = response.headers.get("Content-Type", "")
        except OSError:
            continue
        if "html" not in ctype:
            continue
        try:
            document = Document.from_bytes(body, url, ctype)
        except DocumentError:
            continue
        links = [u for u in links_of(document) if site_of(u) == site]
        for u in links:
            if u not in seen:
                seen[u] = None
                queue.append(u)
        pages[url] = (document, links)
    return list(seen), pages


def learner_sample(
    pages: dict[str, tuple[Document, list[str]]], url_sample: int, min_pages: int
) -> tuple[list[str], dict[str, Document]]:
    """What ``SiteLearner.observe`` has collected when ``ready()`` first holds."""
    urls: dict[str, None] = {}
    held: dict[str, Document] = {}
    for url, (document, links) in pages.items():
        urls.setdefault(url, None)
        for link in links:
            if len(urls) >= url_sample:
                break
            urls.setdefault(link, None)
        held[url] = document
        if len(urls) >= url_sample and len(held) >= min_pages:
            break
    return list(urls), held


def run_site(
    name: str,
    all_urls: list[str],
    pages: dict[str, tuple[Document, list[str]]],
    is_topic: Callable[[str], bool],
    samples: list[tuple[int, int]],
    also: dict[str, tuple[list[str], Callable[[str], bool]]] | None = None,
) -> list[dict[str, Any]]:
    """Learn from each (URL sample, page sample) size and score over ``all_urls``, and over
    each ``also`` (name → URLs and truth) with the same rule."""
    rows = []
    for url_sample, min_pages in samples:
        urls, held = learner_sample(pages, url_sample, min_pages)
        started = time.perf_counter()
        try:
            found = learn_topic_rule(urls, held)
        except ValueError as exc:
            rows.append({"site": name, "urls": len(urls), "pages": len(held), "error": str(exc)})
            continue
        seconds = time.perf_counter() - started
        report = evaluate(found.resolver, all_urls, is_topic)
        report.update(
            site=name, urls=len(urls), pages=len(held), scored=len(all_urls), seconds=seconds,
            rule=str(found.resolver), reason=found.reason,
        )
        for key, (urls_also, truth_also) in (also or {}).items():
            sub = evaluate(found.resolver, urls_also, truth_also)
            report[key] = {k: v for k, v in sub.items() if k != "errors"} | {"scored": len(urls_also)}
        rows.append(report)
    return rows


# -- the three evaluations --------------------------------------------------------------------------


def bench_mock(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every family of :mod:`forumcrawl.mockforum`; the truth knows aliases and broken pages."""
    from forumcrawl.mockforum import FAMILIES, serve

    rows = []
    for family in FAMILIES:
        with serve(family) as server:
            truth = server.truth
            seen, pages = bfs(server.url, args.limit)
            every = sorted(set(seen) | set(truth.topic_urls) | set(truth.non_topic_urls))
            # Links to a thread that answers 404 look like any thread link: scored apart.
            served = [u for u in every if truth.broken.get(u) != "not-found"]
            rows += run_site(family, every, pages, truth.is_topic, args.samples,
                             {"served": (served, truth.is_topic)})
    return rows


def bench_machina(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The django-machina forum of ``../shared/forums/machina`` (start it with its start.sh)."""
    truth = json.loads(Path(args.machina_truth).read_text(encoding="utf-8"))
    topic = set(truth["topic_urls"])
    aliases = {a: canonical for th in truth["threads"] for a, canonical in th.get("url_aliases", {}).items()}
    seen, pages = bfs(args.machina, args.limit)
    # Aliases (``?page=1``, ``?post=<id>``) serve a thread page: topic pages in the main score,
    # left out of the second.
    canonical_only = [u for u in seen if u not in aliases]
    return run_site("machina", seen, pages, lambda u: u in topic or u in aliases, args.samples,
                    {"without_aliases": (canonical_only, topic.__contains__)})


def bench_harvest(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Thread pages of harvest-forum-posts and the same-site links on them, per site."""
    folder = Path(args.harvest)
    sites: dict[str, dict[str, Any]] = {}
    for line in (folder / "gold.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        body = gzip.decompress((folder / "pages" / f"{record['id']}.html.gz").read_bytes())
        document = Document.from_bytes(body, record["url"])
        entry = sites.setdefault(document.site, {"urls": {}, "pages": {}})
        entry["urls"].setdefault(record["url"], None)
        entry["pages"][record["url"]] = document
        for link in links_of(document):
            if link.startswith("http") and site_of(link) == document.site:
                entry["urls"].setdefault(link, None)
    rows = []
    for site, entry in sorted(sites.items()):
        pattern = re.compile(HARVEST_THREADS[site])

        def is_topic(url: str, pattern: re.Pattern[str] = pattern) -> bool:
            parts = urllib.parse.urlsplit(url)
            return bool(pattern.search(parts.path + ("?" + parts.query if parts.query else "")))

        urls = list(entry["urls"])
        started = time.perf_counter()
        try:
            found = learn_topic_rule(urls, entry["pages"])
        except ValueError as exc:
            rows.append({"site": site, "urls": len(urls), "error": str(exc)})
            continue
        report = evaluate(found.resolver, urls, is_topic)
        report.update(
            site=site, urls=len(urls), pages=len(entry["pages"]),
            seconds=time.perf_counter() - started, rule=str(found.resolver),
        )
        rows.append(report)
    return rows


# -- cost ----------------------------------------------------------------------------------------


def synthetic_urls(n: int, seed: int = 0) -> list[str]:
    """A forum-like URL mix: threads (with pages and post links), boards, profiles, search."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(400)]
    out: list[str] = []
    for _ in range(n):
        kind = rng.choice(["thread", "thread", "thread", "board", "member", "misc"])
        board = f"{words[rng.integers(12)]}-{rng.integers(1, 13)}"
        if kind == "thread":
            slug = "-".join(rng.choice(words, size=rng.integers(1, 9))) + f"-{rng.integers(1, 5000)}"
            tail = rng.choice(["", f"?page={rng.integers(2, 6)}", f"?post={rng.integers(1, 99999)}"])
            out.append(f"http://forum.example/forum/{board}/topic/{slug}/{tail}")
        elif kind == "board":
            out.append(f"http://forum.example/forum/{board}/?page={rng.integers(1, 30)}")
        elif kind == "member":
            out.append(f"http://forum.example/member/profile/{rng.integers(1, 3000)}/")
        else:
            out.append(f"http://forum.example/search/?q={rng.choice(words)}&p={rng.integers(1, 9)}")
    return out


def bench_timing(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Distance matrix and KNN-DPC time per size, and resolver throughput."""
    rows = []
    for n in args.sizes:
        urls = list(dict.fromkeys(synthetic_urls(n * 2)))[:n]
        started = time.perf_counter()
        distances = usc_distance_matrix(urls)
        matrix = time.perf_counter() - started
        started = time.perf_counter()
        clustering = KNNDensityPeaks(center_selection="local_peaks").fit(distances)
        dpc = time.perf_counter() - started
        rows.append({
            "urls": n, "matrix_s": matrix, "dpc_s": dpc, "total_s": matrix + dpc,
            "clusters": len(clustering.centers_), "matrix_mb": distances.nbytes / 2**20,
        })
        del distances
    urls = synthetic_urls(300, seed=1)
    resolver = UrlResolver().fit(urls, ["/topic/" in u for u in urls])
    stream = synthetic_urls(args.stream, seed=2)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        resolver.predict(stream)
        best = min(best, time.perf_counter() - started)
    one = urls[0]
    started = time.perf_counter()
    for _ in range(10000):
        resolver.predict([one])
    single = (time.perf_counter() - started) / 10000
    rows.append({
        "resolver": str(resolver), "stream": len(stream), "urls_per_s": len(stream) / best,
        "us_per_url": 1e6 * best / len(stream), "us_per_single_call": 1e6 * single,
    })
    return rows


# -- command line --------------------------------------------------------------------------------


def show(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n## {title}\n")
    if not rows:
        return
    if "urls_per_s" in rows[-1] or "matrix_s" in rows[0]:
        for row in rows:
            print("  " + ", ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
            ))
        return
    print("| site | URLs sampled | pages | scored | P | R | F | seconds | rule |")
    print("|---|---|---|---|---|---|---|---|---|")
    fs = []
    for row in rows:
        if "error" in row:
            print(f"| {row['site']} | {row['urls']} | {row.get('pages', '')} | | | | | | "
                  f"error: {row['error']} |")
            fs.append(0.0)
            continue
        fs.append(row["f"])
        print(f"| {row['site']} | {row['urls']} | {row['pages']} | {row.get('scored', row['urls'])} "
              f"| {row['precision']:.3f} | {row['recall']:.3f} | {row['f']:.3f} "
              f"| {row['seconds']:.2f} | `{row['rule']}` |")
        for key in ("served", "without_aliases"):
            if key in row:
                sub = row[key]
                print(f"|  ↳ {key.replace('_', ' ')} | | | {sub['scored']} "
                      f"| {sub['precision']:.3f} | {sub['recall']:.3f} | {sub['f']:.3f} | | |")
    print(f"\nmean F {statistics.mean(fs):.3f}, min F {min(fs):.3f} over {len(fs)} runs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("timing", "mock", "machina", "harvest", "all"))
    parser.add_argument("--sizes", default="1000,5000,10000", help="URL counts to cluster")
    parser.add_argument("--stream", type=int, default=100000, help="URLs for resolver speed")
    parser.add_argument("--limit", type=int, default=5000, help="pages a BFS fetches at most")
    parser.add_argument("--url-sample", type=int, default=300, help="as FORUMCRAWL's learner")
    parser.add_argument("--min-pages", type=int, default=30, help="as FORUMCRAWL's learner")
    parser.add_argument("--machina", default="http://127.0.0.1:8102/")
    parser.add_argument("--machina-truth", default=str(SHARED / "forums/machina/truth/truth.json"))
    parser.add_argument("--harvest", default=str(SHARED / "data/harvest-forum-posts"))
    parser.add_argument("--json", help="write every result here")
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.samples = [(args.url_sample, args.min_pages), (1000, 100), (10**9, 10**9)]
    results: dict[str, Any] = {"python": platform.python_version(), "machine": platform.machine()}
    jobs = {"timing": bench_timing, "mock": bench_mock, "machina": bench_machina,
            "harvest": bench_harvest}
    for name, job in jobs.items():
        if args.what in (name, "all"):
            results[name] = job(args)
            show(name, results[name])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
