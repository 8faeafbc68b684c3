"""Link pre-classification: leave-one-site-out P/R with and without the structural feature, and
the crawl effect on the machina forum (fetches before the first N thread pages).

    python benchmarks/bench_links.py [--machina-truth PATH] [--gold DIR] [--crawl] [--threads 100]

Needs the machina forum on 127.0.0.1:8102 (../shared/forums/README.md) for its fold and --crawl.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

from forumcrawl.mockforum import FAMILIES
from forumcrawl.training.links import (
    LabelledLinks,
    gold_listing_links,
    leave_one_site_out,
    mock_links,
    site_links,
    truth_file_labeller,
)

MACHINA_TRUTH = Path("/work/shared/forums/machina/truth/truth.json")
_CRAWLED = re.compile(r"Crawled \((\d+)\) <GET (\S+)>")


def loso_table(links: LabelledLinks) -> None:
    """Print P/R/F1 per held-out site, with and without the structural features."""
    print("| held-out site | links | structural P | R | F1 | without P | R | F1 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with_s = dict(leave_one_site_out(links, structural=True))
    without = dict(leave_one_site_out(links, structural=False))
    for site, a in with_s.items():
        b = without[site]
        print(f"| {site} | {a['links']} | {a['precision']:.3f} | {a['recall']:.3f} | {a['f1']:.3f} "
              f"| {b['precision']:.3f} | {b['recall']:.3f} | {b['f1']:.3f} |")


def fetches_before(
    start: str, topics: set[str], n_threads: int, *, scoring: bool, learning: bool = True
) -> tuple[int, int]:
    """Crawl ``start`` for real; (fetches until the n-th thread page, thread pages seen).

    With ``learning`` off, no USC rule ever steers the crawl: the classifier's effect alone."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.conftest import run_crawl

    settings = {
        "LOG_LEVEL": "DEBUG",
        "CLOSESPIDER_PAGECOUNT": 25 * n_threads,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 4,
    }
    settings["FORUMCRAWL_LINK_SCORING_ENABLED"] = scoring  # the middleware is on in the project settings
    settings["FORUMCRAWL_LEARN_ENABLED"] = learning
    with tempfile.TemporaryDirectory() as tmp:
        result = run_crawl(Path(tmp), [start], settings=settings, timeout=900)
    fetched = threads = 0
    for status, url in _CRAWLED.findall(result.log):
        if url.endswith("/robots.txt"):
            continue
        fetched += 1
        threads += status == "200" and url in topics
        if threads == n_threads:
            return fetched, threads
    return fetched, threads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machina-truth", type=Path, default=MACHINA_TRUTH)
    parser.add_argument("--gold", type=Path, help="a gold folder whose listing pages form a fold")
    parser.add_argument("--crawl", action="store_true", help="also run the machina crawls")
    parser.add_argument("--threads", type=int, default=100)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)

    links = LabelledLinks()
    for family in FAMILIES:
        links.extend(mock_links(family))
    base, is_topic = truth_file_labeller(args.machina_truth)
    links.extend(site_links(base, is_topic))
    print(f"forum sites: {len(links)} links, {sum(links.labels)} positive")
    loso_table(links)
    if args.gold:
        gold = gold_listing_links(args.gold)
        links.extend(gold)
        print(f"\nwith {args.gold} listing pages ({len(gold)} links, {sum(gold.labels)} positive), "
              "one fold per gold site, summed below")
        scores = dict(leave_one_site_out(links))
        tp = fp = fn = 0
        for site, s in scores.items():
            if site.startswith("gold:"):
                tp_site = s["recall"] * s["positives"]
                tp += tp_site
                fn += s["positives"] - tp_site
                fp += tp_site / s["precision"] - tp_site if s["precision"] else 0
        print(f"gold listing links: P={tp / max(tp + fp, 1):.3f} R={tp / max(tp + fn, 1):.3f}")
        for site, s in scores.items():
            if not site.startswith("gold:"):
                print(f"  {site}: P={s['precision']:.3f} R={s['recall']:.3f}")
    if args.crawl:
        truth = json.loads(args.machina_truth.read_text("utf-8"))
        topics = set(truth["topic_urls"]) | set(truth["topic_url_aliases"])
        for scoring in (False, True):
            fetched, threads = fetches_before(base, topics, args.threads, scoring=scoring)
            label = "with classifier   " if scoring else "without classifier"
            print(f"machina {label}: {fetched} fetches for {threads} thread pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
