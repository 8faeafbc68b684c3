"""KSF benchmark: rule learning and post extraction on local forums and on the evaluation data.

Usage (from the repository root)::

    python benchmarks/bench_ksf.py                       # everything that is available
    python benchmarks/bench_ksf.py --only machina --repeats 10
    python benchmarks/bench_ksf.py --only data --data ../shared/data

Measures, per site (issue 4):

- local forums (the django-machina forum on 127.0.0.1:8102 and the mock forum's families): the
  rule learned from 5 random thread pages, repeated ``--repeats`` times with different samples;
  rule correct (learned body selector = the engine's true post-body element, and every page's
  post count right); per-post P/R/F1 over every thread page (token F1 ≥ 0.8, as
  ``forumcrawl.evaluation``), author and date accuracy; learning time;
- cost: applying the rule to a parsed page, as a ratio to a bare ``lxml.html`` parse of it;
- ``magic-forums``, ``wcxb-dev`` (forum pages) and ``harvest-forum-posts``: single-page KSF (one
  page, background IDF) against trafilatura in the same run, whole-thread text F1, and per-post
  P/R/F1 where the gold has posts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import time
import urllib.request
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import lxml.html

from forumcrawl.document import Document
from forumcrawl.evaluation import evaluate, match_posts
from forumcrawl.extractors.ksf import KeywordScoringExtractor, KsfRule, apply_rule, extract_single

SHARED = Path(__file__).resolve().parents[2] / "shared"
#: The element each engine really puts a post's body in (the paper's §4.2 criterion).
TRUE_BODY = {"machina": "div.post-content"}


@dataclass
class Site:
    """Thread pages of one local forum with their exact posts."""

    name: str
    pages: dict[str, Document]
    gold: dict[str, list[dict[str, Any]]]
    true_body: str | None = None
    #: The fetch time relative dates are read from (the mock forum pins its own "now").
    now: datetime | None = None


@dataclass
class SiteResult:
    name: str
    pages: int
    correct: list[bool] = field(default_factory=list)
    learn_seconds: list[float] = field(default_factory=list)
    post_f1: list[float] = field(default_factory=list)
    author: list[float] = field(default_factory=list)
    date: list[float] = field(default_factory=list)
    cost_ratio: float = float("nan")
    rules: set[str] = field(default_factory=set)


def _fetch(urls: list[str]) -> dict[str, Document]:
    def get(url: str) -> tuple[str, Document]:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read()
            return url, Document.from_bytes(body, url, response.headers.get("Content-Type"))

    with ThreadPoolExecutor(8) as pool:
        return dict(pool.map(get, urls))


def machina_site(truth_path: Path) -> Site:
    truth = json.loads(truth_path.read_text("utf-8"))
    gold: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for thread in truth["threads"]:
        for post in thread["posts"]:
            gold[post["page_url"]].append(
                {"text": post["rendered_own_text"], "author": post["author"], "published": post["created"]}
            )
    return Site("machina", _fetch(truth["topic_urls"]), dict(gold), TRUE_BODY["machina"])


def mock_sites() -> list[Site]:
    try:
        from forumcrawl.mockforum import FAMILIES, serve
    except ImportError:
        return []
    sites = []
    for family in FAMILIES:
        with serve(family) as srv:
            gold: dict[str, list[dict[str, Any]]] = {}
            for thread in srv.truth.threads:
                for url, posts in thread.pages.items():
                    gold[url] = [
                        {"text": p.text, "author": p.author, "published": p.published} for p in posts
                    ]
            now = datetime.fromisoformat(srv.truth.now).replace(tzinfo=None)
            sites.append(Site(f"mock-{family}", _fetch(list(gold)), gold, now=now))
    return sites


def _score(posts: list[Any], gold: list[dict[str, Any]]) -> tuple[int, int, int, int, int]:
    matches = match_posts([p.text for p in posts], [g["text"] for g in gold])
    found = author = date = 0
    for g, index in zip(gold, matches):
        if index is None:
            continue
        found += 1
        author += posts[index].author == g["author"]
        date += (posts[index].published or "")[:10] == (g["published"] or "")[:10]
    return found, len(posts), len(gold), author, date


def _apply_cost(rule: KsfRule, pages: dict[str, Document], now: datetime) -> float:
    """Σ time(apply_rule on the parsed tree) / Σ time(bare lxml parse), best of 3 each."""
    parse_total = apply_total = 0.0
    for doc in pages.values():
        html = doc.html
        best_parse = best_apply = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            lxml.html.document_fromstring(html)
            best_parse = min(best_parse, time.perf_counter() - t0)
        parsed = Document.from_text(html, doc.url)
        _ = parsed.tree
        for _ in range(3):
            t0 = time.perf_counter()
            apply_rule(rule, parsed, now=now)
            best_apply = min(best_apply, time.perf_counter() - t0)
        parse_total += best_parse
        apply_total += best_apply
    return apply_total / parse_total


def bench_site(site: Site, repeats: int, n_pages: int, now: datetime) -> SiteResult:
    result = SiteResult(site.name, len(site.pages))
    urls = sorted(site.pages)
    rule = None
    for seed in range(repeats):
        sample = random.Random(seed).sample(urls, min(n_pages, len(urls)))
        t0 = time.perf_counter()
        rule = KeywordScoringExtractor(n_pages=n_pages, random_state=seed).fit(
            [site.pages[u] for u in sample]
        ).rule_
        result.learn_seconds.append(time.perf_counter() - t0)
        result.rules.add(rule.body)
        found = predicted = gold_n = authors = dates = 0
        counts_right = True
        for url in urls:
            posts = apply_rule(rule, site.pages[url], now=now)
            f, p, g, a, d = _score(posts, site.gold.get(url, []))
            found, predicted, gold_n, authors, dates = (
                found + f, predicted + p, gold_n + g, authors + a, dates + d
            )
            counts_right &= p == g
        correct = counts_right and (site.true_body is None or rule.body == site.true_body)
        result.correct.append(correct)
        result.post_f1.append(2 * found / (predicted + gold_n) if predicted + gold_n else 1.0)
        result.author.append(authors / found if found else 0.0)
        result.date.append(dates / found if found else 0.0)
    if rule is not None:
        result.cost_ratio = _apply_cost(rule, site.pages, now)
    return result


def _data_pages(folder: Path, kind: str | None) -> list[tuple[dict[str, Any], Document]]:
    out = []
    for line in (folder / "gold.jsonl").read_text("utf-8").splitlines():
        gold = json.loads(line)
        if kind and gold.get("kind") != kind:
            continue
        body = gzip.decompress((folder / "pages" / f"{gold['id']}.html.gz").read_bytes())
        out.append((gold, Document.from_bytes(body, gold.get("url", ""))))
    return out


def bench_data(data_dir: Path, now: datetime) -> list[tuple[str, str, float, float, float | None, float]]:
    """Rows: (folder, method, text F1 mean, median, posts F1 mean or None, seconds per page)."""
    import trafilatura

    rows = []
    for name, kind in (("magic-forums", "forum"), ("wcxb-dev", "forum"), ("harvest-forum-posts", "forum")):
        folder = data_dir / name
        if not folder.exists():
            continue
        pages = _data_pages(folder, kind)
        preds: dict[str, list[dict[str, Any]]] = {"ksf": [], "trafilatura": []}
        seconds = {"ksf": 0.0, "trafilatura": 0.0}
        for gold, doc in pages:
            t0 = time.perf_counter()
            posts = extract_single(doc, now=now)
            seconds["ksf"] += time.perf_counter() - t0
            preds["ksf"].append({
                "id": gold["id"],
                "text": "\n\n".join(p.text for p in posts),
                "posts": [{"text": p.text, "author": p.author, "published": p.published} for p in posts],
            })
            t0 = time.perf_counter()
            text = trafilatura.extract(doc.html, url=gold.get("url") or None) or ""
            seconds["trafilatura"] += time.perf_counter() - t0
            preds["trafilatura"].append({"id": gold["id"], "text": text})
        ids = {g["id"] for g, _ in pages}
        for method, predictions in preds.items():
            report = evaluate(folder, predictions)
            scored = [p for p in report.pages if p.id in ids]
            f1 = [p.metrics["text_f1"] for p in scored if p.metrics["text_f1"] is not None]
            post = [p.metrics["posts_f1"] for p in scored if p.metrics["posts_f1"] is not None]
            rows.append((
                name, method, statistics.fmean(f1) if f1 else float("nan"),
                statistics.median(f1) if f1 else float("nan"),
                statistics.fmean(post) if post and method == "ksf" else None,
                seconds[method] / max(len(pages), 1),
            ))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["machina", "mock", "data"], action="append")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--n-pages", type=int, default=5)
    parser.add_argument("--machina-truth", type=Path, default=SHARED / "forums/machina/truth/truth.json")
    parser.add_argument("--data", type=Path, default=SHARED / "data")
    args = parser.parse_args(argv)
    wanted = set(args.only or ["machina", "mock", "data"])
    now = datetime.now(timezone.utc).replace(tzinfo=None)

    sites: list[Site] = []
    if "machina" in wanted and args.machina_truth.exists():
        try:
            sites.append(machina_site(args.machina_truth))
        except OSError as exc:
            print(f"machina forum not reachable ({exc}); start it with ../shared/forums/machina/start.sh")
    if "mock" in wanted:
        sites.extend(mock_sites())
    if sites:
        print(f"local forums: {args.repeats} random samples of {args.n_pages} thread pages each")
        print(f"{'site':14} {'pages':>5} {'rule ok':>8} {'post F1':>8} {'min F1':>7} {'author':>7} "
              f"{'date':>6} {'learn s':>8} {'apply/parse':>12}  rules")
        for site in sites:
            r = bench_site(site, args.repeats, args.n_pages, site.now or now)
            print(
                f"{r.name:14} {r.pages:5d} {sum(r.correct) / len(r.correct):8.0%} "
                f"{statistics.fmean(r.post_f1):8.3f} {min(r.post_f1):7.3f} "
                f"{statistics.fmean(r.author):7.3f} {statistics.fmean(r.date):6.3f} "
                f"{statistics.fmean(r.learn_seconds):8.2f} {r.cost_ratio:12.2f}  {sorted(r.rules)}"
            )
    if "data" in wanted and args.data.exists():
        print("\nsingle-page mode (one page, background IDF) vs trafilatura, same run")
        print(f"{'folder':20} {'method':12} {'text F1':>8} {'median':>7} {'posts F1':>9} {'s/page':>7}")
        for name, method, mean, median, posts, secs in bench_data(args.data, now):
            posts_s = f"{posts:9.3f}" if posts is not None else f"{'-':>9}"
            print(f"{name:20} {method:12} {mean:8.3f} {median:7.3f} {posts_s} {secs:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
