"""Page clustering + wrapper induction benchmark (issue 7, seed 001 §2–3, seed 002 §2).

Usage (from the repository root)::

    python benchmarks/bench_wrapper.py                  # mock families + machina (if it is up)
    python benchmarks/bench_wrapper.py --only phpbb --sample 50
    python benchmarks/bench_wrapper.py --distance       # exact vs restricted tree distance only

Per site: a learning sample of ``--sample`` pages (thread, list, profile and other pages, drawn at
random in the proportions the site has), clustered and turned into templates with
:func:`forumcrawl.extractors.wrapper.learn_templates`. Reported:

- cluster F-measure (seed 001 formulas 6–7) of the sample's clusters against its true page types.
  Types come from the truth (thread = a truth topic URL) and, for the other pages, from the
  engine's URL shapes (:data:`TYPE_PATTERNS`), written down once per engine;
- field precision/recall on every thread page of the truth: title (exact, case-folded), post text
  (a post is found when token F1 ≥ 0.8 against a gold post, ``forumcrawl.evaluation``), author
  (exact) and time (same minute) of the found posts; a page that fits no template counts as
  missed. Machina renders times in its local zone, UTC+8, without showing the zone, while its
  truth ``created`` is UTC: gold times are shifted by :data:`MACHINA_UTC_OFFSET` before comparing
  (the extractor cannot know an offset the page does not state);
- cost: extraction per page as a ratio to a bare ``lxml.html`` parse of the same page;
- learning time for 20 / 50 / 100 pages.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import lxml.html

from forumcrawl.document import Document
from forumcrawl.evaluation import match_posts, normalise_name
from forumcrawl.extractors.page_clustering import TemplateClustering, cluster_f_measure, page_trees, similarity_matrix
from forumcrawl.extractors.tree_distance import simple_tree_matching, tag_tree, tree_edit_distance
from forumcrawl.extractors.wrapper import extract_with_templates, learn_templates

SHARED = Path(__file__).resolve().parents[2] / "shared"
MACHINA = "http://127.0.0.1:8102/"
#: Machina's display zone (settings.TIME_ZONE "Asia/Shanghai", no DST): page times UTC+8, truth UTC.
MACHINA_UTC_OFFSET = timedelta(hours=8)
#: URL shapes of the non-thread pages, per engine (thread pages come from the truth).
TYPE_PATTERNS: dict[str, list[tuple[str, str]]] = {
    "phpbb": [("list", r"viewforum\.php"), ("profile", r"memberlist\.php\?mode=viewprofile")],
    "discuz": [("list", r"mod=forumdisplay"), ("profile", r"home\.php\?mod=space")],
    "static": [("list", r"/forum-\d+-\d+\.html"), ("profile", r"/space-uid-\d+\.html")],
    "machina": [("profile", r"/member/profile/\d+/$"), ("list", r"/forum/[^/]+/(\?page=\d+)?$")],
}


@dataclass
class GoldPost:
    author: str
    published: str
    text: str


@dataclass
class Site:
    name: str
    docs: dict[str, Document]
    types: dict[str, str]
    gold: dict[str, list[GoldPost]]
    titles: dict[str, str]
    now: datetime | None = None
    #: Shift from the truth's times to the times the pages show.
    time_offset: timedelta = timedelta(0)


@dataclass
class Counts:
    pred: int = 0
    gold: int = 0
    hit: int = 0

    def add(self, pred: int, gold: int, hit: int) -> None:
        self.pred, self.gold, self.hit = self.pred + pred, self.gold + gold, self.hit + hit

    def pr(self) -> str:
        p = self.hit / self.pred if self.pred else 0.0
        r = self.hit / self.gold if self.gold else 0.0
        return f"P {p:.3f} R {r:.3f}"


@dataclass
class Result:
    fields: dict[str, Counts] = field(default_factory=lambda: {k: Counts() for k in ("title", "post", "author", "time")})
    unmatched_pages: int = 0


def fetch(urls: list[str]) -> dict[str, Document]:
    def get(url: str) -> tuple[str, Document | None]:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return url, Document.from_bytes(response.read(), url, response.headers.get("Content-Type"))
        except Exception:  # a broken page of the mock forum: not part of the measure
            return url, None

    with ThreadPoolExecutor(8) as pool:
        return {u: d for u, d in pool.map(get, urls) if d is not None and d.tree is not None}


def page_type(engine: str, url: str, topics: set[str]) -> str:
    if url in topics:
        return "thread"
    for name, pattern in TYPE_PATTERNS[engine]:
        if re.search(pattern, url):
            return name
    return "other"


def mock_site(family: str, server: Any) -> Site:
    truth = server.truth
    urls = [u for u in truth.topic_urls + truth.non_topic_urls if u not in truth.broken]
    docs = fetch(urls)
    topics = set(truth.topic_urls)
    gold = {
        u: [GoldPost(p.author, p.published, p.text) for p in truth.posts_for(u)] for u in truth.topic_urls if u in docs
    }
    titles = {u: truth.thread_for(u).title for u in gold}
    types = {u: page_type(family, u, topics) for u in docs}
    return Site(family, docs, types, gold, titles, datetime.fromisoformat(truth.now))


def machina_site() -> Site | None:
    path = SHARED / "forums/machina/truth/truth.json"
    try:
        urllib.request.urlopen(MACHINA, timeout=5).read()
    except OSError:
        print("machina: not running on", MACHINA, file=sys.stderr)
        return None
    truth = json.loads(path.read_text(encoding="utf-8"))
    topics = set(truth["topic_urls"])
    gold: dict[str, list[GoldPost]] = {u: [] for u in truth["topic_urls"]}
    titles: dict[str, str] = {}
    for thread in truth["threads"]:
        for post in thread["posts"]:
            gold[post["page_url"]].append(GoldPost(post["author"], post["created"], post["rendered_own_text"]))
        for page in thread["page_urls"]:
            titles[page] = thread["title"]
    docs = fetch(sorted(topics))
    # Non-thread pages: the truth's examples and every board or profile page the threads link.
    others = set(truth["non_topic_url_examples"])
    for url, doc in list(docs.items())[:80]:
        for href in doc.tree.xpath("//a/@href"):
            absolute = urljoin(url, href).split("#")[0]
            if absolute.startswith(MACHINA) and absolute not in topics and page_type("machina", absolute, topics) != "other":
                others.add(absolute)
    docs.update(fetch(sorted(others)))
    types = {u: page_type("machina", u, topics) for u in docs}
    return Site("machina", docs, types, {u: g for u, g in gold.items() if u in docs}, titles,
                time_offset=MACHINA_UTC_OFFSET)


def sample(site: Site, n: int, rng: random.Random) -> list[str]:
    urls = sorted(site.docs)
    rng.shuffle(urls)
    return urls[:n]


def shown_time(site: Site, published: str) -> str:
    """A truth time as the site's pages show it (ISO, minute precision)."""
    if not site.time_offset:
        return published[:16]
    return (datetime.fromisoformat(published) + site.time_offset).isoformat()[:16]


def score(site: Site, rule: dict[str, Any]) -> tuple[Result, list[float]]:
    result = Result()
    ratios: list[float] = []
    for url, gold in site.gold.items():
        doc = site.docs[url]
        html = lxml.html.tostring(doc.tree, encoding="unicode")
        t0 = time.perf_counter()
        lxml.html.fromstring(html)
        t1 = time.perf_counter()
        got = extract_with_templates(rule, doc, now=site.now)
        t2 = time.perf_counter()
        ratios.append((t2 - t1) / (t1 - t0))
        f = result.fields
        if got is None or got.page_type != "thread":
            result.unmatched_pages += 1
            for name in ("post", "author", "time"):
                f[name].add(0, len(gold), 0)
            f["title"].add(0, 1, 0)
            continue
        f["title"].add(got.title is not None, 1, normalise_name(got.title) == normalise_name(site.titles[url]))
        matches = match_posts([p.text for p in got.posts], [g.text for g in gold])
        found = [(got.posts[m], g) for m, g in zip(matches, gold) if m is not None]
        f["post"].add(len(got.posts), len(gold), len(found))
        f["author"].add(sum(p.author is not None for p in got.posts), len(gold),
                        sum(normalise_name(p.author) == normalise_name(g.author) for p, g in found))
        f["time"].add(sum(p.published is not None for p in got.posts), len(gold),
                      sum(bool(p.published) and p.published[:16] == shown_time(site, g.published) for p, g in found))
    return result, ratios


def run_site(site: Site, n_sample: int, seed: int) -> None:
    rng = random.Random(seed)
    chosen = sample(site, n_sample, rng)
    docs = [site.docs[u] for u in chosen]
    counts = {t: sum(site.types[u] == t for u in chosen) for t in ("thread", "list", "profile", "other")}
    t0 = time.perf_counter()
    trees = page_trees(docs, classes=True)
    sim = similarity_matrix(trees, method="stm")
    labels = TemplateClustering().fit(1.0 - sim).labels_
    cluster_seconds = time.perf_counter() - t0
    f_measure = cluster_f_measure([site.types[u] for u in chosen], labels)
    t0 = time.perf_counter()
    rule = learn_templates(docs)
    learn_seconds = time.perf_counter() - t0
    result, ratios = score(site, rule)
    print(f"\n== {site.name}: {len(site.docs)} pages, {len(site.gold)} thread pages; sample {len(chosen)} {counts}")
    print(f"   clusters {int(labels.max()) + 1}, cluster F {f_measure:.3f} ({cluster_seconds:.2f} s); "
          f"templates {rule['page_types']}; learning {learn_seconds:.2f} s")
    print("   fields: " + "; ".join(f"{k} {c.pr()}" for k, c in result.fields.items())
          + f"; pages fitting no thread template {result.unmatched_pages}")
    print(f"   extraction / lxml parse: median {statistics.median(ratios):.1f}x, "
          f"p90 {sorted(ratios)[int(0.9 * len(ratios))]:.1f}x")
    for n in (20, 50, 100):
        if n > len(site.docs):
            continue
        subset = [site.docs[u] for u in sample(site, n, random.Random(seed + n))]
        t0 = time.perf_counter()
        learn_templates(subset)
        print(f"   learning {n} pages: {time.perf_counter() - t0:.2f} s")


def distance_costs(site: Site) -> None:
    """Exact Zhang–Shasha vs restricted matching on pairs of real pages and of post subtrees."""
    urls = sorted(site.gold)[:6]
    trees = [tag_tree(site.docs[u]) for u in urls]
    print(f"\n== tree distance on {site.name} pages (sizes {[t.size for t in trees]})")
    for a, b in zip(trees, trees[1:]):
        t0 = time.perf_counter()
        w = simple_tree_matching(a, b)
        t1 = time.perf_counter()
        line = f"   {a.size}/{b.size} nodes: stm es {2 * w / (a.size + b.size):.3f} in {1000 * (t1 - t0):.1f} ms"
        if a.size * b.size <= 400 * 400:
            ed = tree_edit_distance(a, b)
            line += f"; exact es {1 - ed / (a.size + b.size):.3f} in {1000 * (time.perf_counter() - t1):.0f} ms"
        print(line)
    for size in (20, 40, 60, 100, 150):
        subs = [n for t in trees for n in t.preorder() if size * 0.8 <= n.size <= size * 1.2][:2]
        if len(subs) == 2:
            t0 = time.perf_counter()
            ed = tree_edit_distance(*subs)
            t1 = time.perf_counter()
            w = simple_tree_matching(*subs)
            total = subs[0].size + subs[1].size
            print(f"   subtrees ~{size} nodes: exact es {1 - ed / total:.3f} in {1000 * (t1 - t0):.1f} ms; "
                  f"stm es {2 * w / total:.3f} in {1000 * (time.perf_counter() - t1):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="phpbb, discuz, static or machina")
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--distance", action="store_true", help="only the tree-distance timings")
    args = parser.parse_args()
    from forumcrawl.mockforum import FAMILIES, serve

    for family in FAMILIES:
        if args.only and args.only != family:
            continue
        with serve(family) as server:
            site = mock_site(family, server)
            distance_costs(site) if args.distance else run_site(site, args.sample, args.seed)
    if args.only in (None, "machina"):
        site = machina_site()
        if site is not None:
            distance_costs(site) if args.distance else run_site(site, args.sample, args.seed)


if __name__ == "__main__":
    main()
