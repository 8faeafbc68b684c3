"""News crawl accuracy on generated news sites (``forumcrawl.mocknews``), beside trafilatura's crawler.

Each site is a :class:`~forumcrawl.mocknews.NewsSite` of one seed and URL shape (its other
dimensions drawn from the seed), served here. ``forumcrawl crawl news URL`` crawls it at the
shipped defaults (AutoThrottle on, robots.txt obeyed; 4 requests at once per site as the tests
use), then per site:

- article precision / recall / F: exported URLs against the truth's canonical article URLs;
- listings exported (must be 0), duplicates (one article exported twice);
- responses per article: every request the server answered (robots.txt, sitemaps and feeds
  included) per article found;
- body F1 (token F1 of the exported text against the truth's body, mean over articles found),
  title accuracy (exact, whitespace normalised), author accuracy (exact), date accuracy (the day).

``--peer`` also runs trafilatura's crawler on the same site: its feed and sitemap finders
(``trafilatura.feeds.find_feed_urls``, ``trafilatura.sitemaps.sitemap_search``) and its focused
crawler (``trafilatura.spider.focused_crawler``), the union of their URLs scored as its article
list, its responses counted; then ``trafilatura.bare_extraction`` on each true article it found
(those fetches not counted) for body, title, author and date.

The constants of the news navigation and page roles were chosen on seeds 0-29 (``--seeds 0-29``);
report on others (``--seeds 100-139``)::

    python benchmarks/news_eval.py --seeds 100-115 --articles 200 --peer --json news.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from forumcrawl.evaluation import tokens
from forumcrawl.mocknews import SHAPES, NewsTruth, serve_news

#: Settings of the benchmark's crawls: the shipped defaults, with the tests' per-site concurrency.
SETTINGS = {"AUTOTHROTTLE_ENABLED": "True", "CONCURRENT_REQUESTS_PER_DOMAIN": "4", "LOG_LEVEL": "INFO"}


def token_f1(got: str, want: str) -> float:
    """Token F1 of two texts (the evaluation module's tokens: CJK characters one by one)."""
    a, b = Counter(tokens(got)), Counter(tokens(want))
    overlap = sum((a & b).values())
    return 2 * overlap / (sum(a.values()) + sum(b.values())) if overlap else 0.0


def _norm(text: str | None) -> str:
    return " ".join((text or "").split())


def score(items: list[dict[str, Any]], truth: NewsTruth, responses: int) -> dict[str, Any]:
    """The figures of one crawl's items against the site's truth (see the module's docstring)."""
    urls = [item["url"] for item in items]
    got, want = set(urls), set(truth.articles)
    found = got & want
    precision = len(found) / len(got) if got else 0.0
    recall = len(found) / len(want) if want else 0.0
    f = 2 * precision * recall / (precision + recall) if found else 0.0
    firsts = {}
    for item in items:
        firsts.setdefault(item["url"], item)
    rows = [(firsts[u], truth.articles[u]) for u in found]

    def share(hits: list[bool]) -> float:
        return round(sum(hits) / len(hits), 4) if hits else 0.0

    return {
        "articles": len(want),
        "exported": len(items),
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f": round(f, 4),
        "listings_exported": len(got & truth.listings),
        "duplicates": len(urls) - len(got),
        "responses": responses,
        "responses_per_article": round(responses / len(found), 3) if found else None,
        "body_f1": round(statistics.mean(token_f1(i.get("text") or "", t.text) for i, t in rows), 4) if rows else 0.0,
        "title": share([_norm(i.get("title")) == _norm(t.title) for i, t in rows]),
        "author": share([_norm(i.get("author")) == _norm(t.author) for i, t in rows]),
        "date": share([(i.get("published") or "")[:10] == t.date for i, t in rows]),
    }


def crawl_site(seed: int, shape: str, articles: int, timeout: float) -> dict[str, Any]:
    """Serve one generated site, crawl it with ``forumcrawl crawl news``, score the items."""
    with serve_news(seed=seed, articles=articles, shape=shape, keep_alive=True) as server:
        truth = server.truth
        with tempfile.TemporaryDirectory() as tmp:
            feed = Path(tmp) / "items.jsonl"
            command = [sys.executable, "-m", "forumcrawl", "crawl", "news", server.url, "-O", str(feed)]
            for name, value in SETTINGS.items():
                command += ["-s", f"{name}={value}"]
            started = time.perf_counter()
            proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp, timeout=timeout, check=False)
            seconds = time.perf_counter() - started
            if proc.returncode:
                raise RuntimeError(f"crawl of seed {seed} failed: {proc.stderr[-2000:]}")
            items = [json.loads(line) for line in feed.read_text("utf-8").splitlines() if line.strip()]
        result = score(items, truth, len(server.requests))
    plan = truth.plan
    return {"seed": seed, "shape": shape, "sitemap": plan.sitemap, "feed": plan.feed, "pager": plan.pager,
            "seconds": round(seconds, 1), **result}


@contextlib.contextmanager
def _named_host(name: str) -> Iterator[None]:
    """``name`` resolves to 127.0.0.1 in this process: trafilatura's URL filter (courlan) drops
    URLs whose host is an address or has no public suffix, and the sites are served locally."""
    real = socket.getaddrinfo

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        return real("127.0.0.1" if host == name else host, *args, **kwargs)

    socket.getaddrinfo = resolve
    try:
        yield
    finally:
        socket.getaddrinfo = real


def peer_site(seed: int, shape: str, articles: int) -> dict[str, Any]:
    """trafilatura's feed, sitemap and focused crawl on the same site, then its extraction."""
    from trafilatura import bare_extraction, fetch_url
    from trafilatura.feeds import find_feed_urls
    from trafilatura.settings import DEFAULT_CONFIG
    from trafilatura.sitemaps import sitemap_search
    from trafilatura.spider import focused_crawler

    # Its SSRF guard refuses 127.0.0.1, where the generated sites are served; its politeness
    # sleeps (5 s a page) are left out, as AutoThrottle's delays cost forumcrawl no responses.
    DEFAULT_CONFIG["DEFAULT"]["SSRF_PROTECTION"] = "off"
    DEFAULT_CONFIG["DEFAULT"]["SLEEP_TIME"] = "0"
    host = f"news{seed}.example.com"
    with serve_news(seed=seed, articles=articles, shape=shape, keep_alive=True) as server, _named_host(host):
        home = f"http://{host}:{server.port}/"
        server.site.base_url = home
        truth = server.site.truth(home)
        listed = set(find_feed_urls(home, sleep_time=0)) | set(sitemap_search(home, sleep_time=0))
        to_visit, known = focused_crawler(home, max_seen_urls=articles * 2, max_known_urls=articles * 20)
        urls = {u.split("#")[0] for u in listed | set(known) | set(to_visit)}
        responses = len(server.requests)
        items = []
        for url in sorted(urls & set(truth.articles)):
            html = fetch_url(url)
            data = bare_extraction(html, url=url, with_metadata=True) if html else None
            data = data.as_dict() if hasattr(data, "as_dict") else (data or {})
            items.append({"url": url, "text": data.get("text") or "", "title": data.get("title"),
                          "author": data.get("author"), "published": data.get("date")})
        items += [{"url": u} for u in urls - set(truth.articles)]
        result = score(items, truth, responses)
    # Its precision counts every URL it lists: it does not tell articles from listings itself.
    return {"seed": seed, "shape": shape, "peer": "trafilatura", **result}


def _seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds += list(range(int(low), int(high or low) + 1))
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="100-107", help="seeds, e.g. 0-29 or 100,101")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="URL shapes, cycled over the seeds")
    parser.add_argument("--articles", type=int, default=200)
    parser.add_argument("--peer", action="store_true", help="also run trafilatura's crawler")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    shapes = args.shapes.split(",")
    rows = []
    keys = ("f", "listings_exported", "duplicates", "responses_per_article", "body_f1", "title", "author", "date")
    print("seed shape      sitemap feed  " + " ".join(f"{k[:9]:>9}" for k in keys))
    for i, seed in enumerate(_seeds(args.seeds)):
        shape = shapes[i % len(shapes)]
        runs = [crawl_site(seed, shape, args.articles, args.timeout)]
        if args.peer:
            runs.append(peer_site(seed, shape, args.articles))
        for row in runs:
            rows.append(row)
            name = "trafilatura" if row.get("peer") else f"{row['sitemap']:7} {row['feed']:5}"
            print(f"{seed:4} {shape:10} {name:13} " + " ".join(f"{row[k]!s:>9}" for k in keys), flush=True)
    for peer in (False, True):
        chosen = [r for r in rows if bool(r.get("peer")) == peer]
        if chosen:
            means = {k: round(statistics.mean(r[k] or 0 for r in chosen), 4) for k in keys}
            print(("trafilatura" if peer else "forumcrawl") + " mean: " + json.dumps(means))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
