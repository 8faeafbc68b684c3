"""News crawl accuracy on a blog built by real publishing software: Nikola (PyPI, default theme).

Nikola is not a dependency of forumcrawl: install it in a virtualenv of its own and name its
``nikola`` command. The posts are generated here from a seed (``forumcrawl.mocknews``'s writer:
headline, author, time, paragraphs, category, tags), built with Nikola's defaults (its
``bootblog4`` theme, ``/posts/<slug>/`` permalinks, ``index-N.html`` pagers, category, tag,
author and archive listings, RSS, sitemap index and robots.txt), served from the output folder,
crawled with ``forumcrawl crawl news`` at the shipped defaults (4 requests at once per site) and
scored as :mod:`benchmarks.news_eval` scores the generated sites::

    python -m venv /tmp/nikola && /tmp/nikola/bin/pip install nikola==8.3.3
    python benchmarks/news_real.py --nikola /tmp/nikola/bin/nikola --posts 120 --seed 1
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
from datetime import datetime, timedelta, timezone
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from news_eval import SETTINGS, score  # noqa: E402

from forumcrawl.mocknews import ArticleTruth, NewsPlan, NewsTruth  # noqa: E402
from forumcrawl.mocknews.text import NewsWriter, slugify  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build(nikola: str, folder: Path, base: str, posts: int, seed: int) -> dict[str, ArticleTruth]:
    """A Nikola site in ``folder`` with ``posts`` generated posts; the truth by post URL."""
    subprocess.run([nikola, "init", "-q", str(folder / "site")], check=True, capture_output=True)
    site = folder / "site"
    conf = site / "conf.py"
    text = conf.read_text("utf-8")
    text = re.sub(r'^SITE_URL = .*$', f'SITE_URL = "{base}"', text, flags=re.M)
    conf.write_text(text, "utf-8")
    rng = random.Random(f"nikola-{seed}")
    writer = NewsWriter("en", rng)
    authors = writer.names(4)
    categories = writer.terms(4)
    tags = writer.terms(8)
    taken: set[str] = set()
    slugs: set[str] = set()
    moment = datetime(2023, 3, 1, 8, 0, tzinfo=timezone.utc)
    truth = {}
    (site / "posts").mkdir(exist_ok=True)
    for _ in range(posts):
        moment += timedelta(hours=rng.choice((3, 9, 26, 49)), minutes=rng.randint(0, 59))
        title = writer.title(taken)
        slug = base_slug = slugify(title)
        n = 2
        while slug in slugs:
            slug, n = f"{base_slug}-{n}", n + 1
        slugs.add(slug)
        author = rng.choice(authors)
        paragraphs = writer.paragraphs()
        meta = [
            f".. title: {title}", f".. slug: {slug}", f".. date: {moment:%Y-%m-%d %H:%M:%S} UTC",
            f".. author: {author}", f".. category: {rng.choice(categories)}",
            f".. tags: {', '.join(rng.sample(tags, 2))}", "",
        ]
        (site / "posts" / f"{slug}.rst").write_text("\n".join(meta + ["\n\n".join(paragraphs), ""]), "utf-8")
        url = f"{base}posts/{slug}/"
        truth[url] = ArticleTruth(url, title, author, moment.isoformat(), "\n".join(paragraphs))
    subprocess.run([nikola, "build"], cwd=site, check=True, capture_output=True)
    return truth


def listings(output: Path, base: str, articles: dict[str, ArticleTruth]) -> set[str]:
    """Every other HTML page of the built site (indexes, categories, tags, authors, archives)."""
    pages = set()
    for path in output.rglob("*.html"):
        rel = path.relative_to(output).as_posix()
        url = base + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)
        if url not in articles:
            pages.add(url)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nikola", required=True, help="the nikola command of its own virtualenv")
    parser.add_argument("--posts", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        articles = build(args.nikola, folder, base, args.posts, args.seed)
        output = folder / "site" / "output"
        requests: list[str] = []

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, format: str, *log_args: Any) -> None:  # noqa: A002
                requests.append(self.path)

        server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=str(output)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            feed = folder / "items.jsonl"
            command = [sys.executable, "-m", "forumcrawl", "crawl", "news", base, "-O", str(feed)]
            for name, value in SETTINGS.items():
                command += ["-s", f"{name}={value}"]
            proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp, timeout=900)
            if proc.returncode:
                raise RuntimeError(proc.stderr[-2000:])
            items = [json.loads(line) for line in feed.read_text("utf-8").splitlines() if line.strip()]
        finally:
            server.shutdown()
            server.server_close()
        plan = NewsPlan.draw(0)
        truth = NewsTruth(articles, listings(output, base, articles), set(), plan)
        result = score(items, truth, len(requests))
        missed = sorted(set(articles) - {i["url"] for i in items})[:5]
        extra = sorted({i["url"] for i in items} - set(articles))[:5]
    print(json.dumps({"software": "nikola 8.3.3", "posts": args.posts, "seed": args.seed, **result,
                      "missed_examples": missed, "extra_examples": extra}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
