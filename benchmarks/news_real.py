"""News crawl accuracy on blogs built by real publishing software: Nikola (PyPI) and Hexo (npm).

Neither is a dependency of forumcrawl: install Nikola in a virtualenv of its own and name its
``nikola`` command, or make a Hexo blog folder (``npm install hexo-cli@4.3.2`` then ``npx hexo
init blog --no-clone``: hexo 7, the ``landscape`` theme, no sitemap or feed plugin) and name it.
The posts are generated here from a seed (``forumcrawl.mocknews``'s writer: headline, author,
time, paragraphs, category, tags) and built with the software's defaults: Nikola's ``bootblog4``
theme (``/posts/<slug>/`` permalinks, ``index-N.html`` pagers, category, tag, author and archive
listings, RSS, sitemap index and robots.txt), Hexo's ``/:year/:month/:day/:title/`` permalinks,
``/page/N/`` pagers, category, tag and archive listings (its pages name the site's author,
``article:author``, whoever wrote the post: that is the truth's author there). The output folder
is served, crawled with ``forumcrawl crawl news`` at the shipped defaults (4 requests at once per
site) and scored as :mod:`benchmarks.news_eval` scores the generated sites::

    python -m venv /tmp/nikola && /tmp/nikola/bin/pip install nikola==8.3.3
    python benchmarks/news_real.py --nikola /tmp/nikola/bin/nikola --posts 200 --seed 1
    python benchmarks/news_real.py --hexo /tmp/hexo/blog --posts 200 --seed 2
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
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from news_eval import SETTINGS, score

from forumcrawl.mocknews import ArticleTruth, NewsPlan, NewsTruth
from forumcrawl.mocknews.text import NewsWriter, slugify


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _posts(count: int, seed: int) -> Iterator[dict[str, Any]]:
    """Generated posts: title, slug, author, time, paragraphs, category, tags."""
    rng = random.Random(f"realnews-{seed}")
    writer = NewsWriter("en", rng)
    authors, categories, tags = writer.names(4), writer.terms(4), writer.terms(8)
    taken: set[str] = set()
    slugs: set[str] = set()
    moment = datetime(2023, 3, 1, 8, 0, tzinfo=timezone.utc)
    for _ in range(count):
        moment += timedelta(hours=rng.choice((3, 9, 26, 49)), minutes=rng.randint(0, 59))
        title = writer.title(taken)
        slug = base_slug = slugify(title)
        n = 2
        while slug in slugs:
            slug, n = f"{base_slug}-{n}", n + 1
        slugs.add(slug)
        yield {"title": title, "slug": slug, "author": rng.choice(authors), "moment": moment,
               "paragraphs": writer.paragraphs(), "category": rng.choice(categories), "tags": rng.sample(tags, 2)}


def build_nikola(nikola: str, folder: Path, base: str, posts: int, seed: int) -> tuple[Path, dict[str, ArticleTruth]]:
    """A Nikola site in ``folder`` with ``posts`` generated posts: its output folder, the truth."""
    subprocess.run([nikola, "init", "-q", str(folder / "site")], check=True, capture_output=True)
    site = folder / "site"
    conf = site / "conf.py"
    conf.write_text(re.sub(r'^SITE_URL = .*$', f'SITE_URL = "{base}"', conf.read_text("utf-8"), flags=re.MULTILINE), "utf-8")
    truth = {}
    (site / "posts").mkdir(exist_ok=True)
    for post in _posts(posts, seed):
        meta = [
            f".. title: {post['title']}", f".. slug: {post['slug']}", f".. date: {post['moment']:%Y-%m-%d %H:%M:%S} UTC",
            f".. author: {post['author']}", f".. category: {post['category']}", f".. tags: {', '.join(post['tags'])}", "",
        ]
        (site / "posts" / f"{post['slug']}.rst").write_text("\n".join(meta + ["\n\n".join(post["paragraphs"]), ""]), "utf-8")
        url = f"{base}posts/{post['slug']}/"
        truth[url] = ArticleTruth(url, post["title"], post["author"], post["moment"].isoformat(), "\n".join(post["paragraphs"]))
    subprocess.run([nikola, "build"], cwd=site, check=True, capture_output=True)
    return site / "output", truth


def build_hexo(blog: Path, base: str, posts: int, seed: int) -> tuple[Path, dict[str, ArticleTruth]]:
    """The Hexo blog folder ``blog`` with ``posts`` generated posts (its own posts removed):
    its output folder, the truth."""
    config = blog / "_config.yml"
    text = re.sub(r"^url: .*$", f"url: {base.rstrip('/')}", config.read_text("utf-8"), flags=re.MULTILINE)
    config.write_text(text, "utf-8")
    site_author = re.search(r"^author: (.*)$", text, flags=re.MULTILINE).group(1).strip()  # type: ignore[union-attr]
    folder = blog / "source" / "_posts"
    for old in folder.glob("*.md"):
        old.unlink()
    truth = {}
    for post in _posts(posts, seed):
        front = [
            "---", f"title: \"{post['title']}\"", f"date: {post['moment']:%Y-%m-%d %H:%M:%S}",
            f"categories:\n- {post['category']}", "tags:", *(f"- {t}" for t in post["tags"]), "---", "",
        ]
        (folder / f"{post['slug']}.md").write_text("\n".join(front) + "\n\n".join(post["paragraphs"]) + "\n", "utf-8")
        url = f"{base}{post['moment']:%Y/%m/%d}/{post['slug']}/"
        truth[url] = ArticleTruth(url, post["title"], site_author, post["moment"].isoformat(), "\n".join(post["paragraphs"]))
    subprocess.run(["npx", "hexo", "clean"], cwd=blog, check=True, capture_output=True)
    subprocess.run(["npx", "hexo", "generate"], cwd=blog, check=True, capture_output=True)
    return blog / "public", truth


def listings(output: Path, base: str, articles: dict[str, ArticleTruth]) -> set[str]:
    """Every other HTML page of the built site (indexes, categories, tags, authors, archives)."""
    pages = set()
    for path in output.rglob("*.html"):
        rel = path.relative_to(output).as_posix()
        url = base + (rel.removesuffix("index.html"))
        if url not in articles:
            pages.add(url)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    software = parser.add_mutually_exclusive_group(required=True)
    software.add_argument("--nikola", help="the nikola command of its own virtualenv")
    software.add_argument("--hexo", type=Path, help="a Hexo blog folder (hexo init --no-clone)")
    parser.add_argument("--posts", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.nikola:
            output, articles = build_nikola(args.nikola, folder, base, args.posts, args.seed)
        else:
            output, articles = build_hexo(args.hexo, base, args.posts, args.seed)
        requests: list[str] = []

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, format: str, *log_args: Any) -> None:
                requests.append(self.path)

        server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=str(output)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            feed = folder / "items.jsonl"
            command = [sys.executable, "-m", "forumcrawl", "crawl", "news", base, "-O", str(feed)]
            for name, value in SETTINGS.items():
                command += ["-s", f"{name}={value}"]
            proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp, timeout=900, check=False)
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
    print(json.dumps({"software": "nikola" if args.nikola else "hexo", "posts": args.posts, "seed": args.seed, **result,
                      "missed_examples": missed, "extra_examples": extra}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
