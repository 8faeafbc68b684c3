"""Does a forum's topic rule depend on its sample? Five shuffled samples of a live forum, each
learned from scratch, and the topic rule and thread identity each gives (issue #16).

Each sample is ``--pages`` pages reached from the home page, the next one drawn at random from
the links found so far (redirects followed, feeds, login and logout links left out), learned
as the crawl learns (:class:`forumcrawl.learning.SiteLearner`). ``tests/test_rule_stability.py``
does the same on the mock families, without HTTP. ::

    python benchmarks/rule_stability.py http://127.0.0.1:8102/ http://127.0.0.1:8104/
"""

from __future__ import annotations

import argparse
import urllib.error
import urllib.request

from forumcrawl.learning import Fetched, learn_from_walk
from forumcrawl.sitemodel import SiteModel

SKIPPED_WORDS = ("logout", "login", "/feeds/", "rss")


class Fetcher:
    """GET with redirects followed, each URL once per run; login, logout and feed links are not
    fetched (status 0): a login page links back with a return-to, and feeds are no pages."""

    def __init__(self) -> None:
        self.cache: dict[str, Fetched] = {}

    def get(self, url: str) -> Fetched:
        if any(word in url for word in SKIPPED_WORDS):
            return 0, "", b"", url
        if url not in self.cache:
            try:
                with urllib.request.urlopen(url, timeout=20) as r:
                    self.cache[url] = (r.status, r.headers.get("Content-Type", ""), r.read(), r.url)
            except urllib.error.HTTPError as exc:
                self.cache[url] = (exc.code, "", b"", url)
            except (urllib.error.URLError, OSError, ValueError):
                self.cache[url] = (0, "", b"", url)
        return self.cache[url]


def rule_of(model: SiteModel) -> tuple[str | None, tuple, tuple]:
    """The topic rule's pattern and the thread identity's positions."""
    nav = model.rules.get("nav", {})
    return (
        model.rules.get("usc", {}).get("pattern"),
        tuple(nav.get("id_position") or ()),
        tuple(nav.get("page_position") or ()),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bases", nargs="+", help="home page URLs of running forums")
    parser.add_argument("--samples", type=int, default=5, help="%(default)s")
    parser.add_argument("--pages", type=int, default=60, help="pages a sample (%(default)s)")
    args = parser.parse_args(argv)
    unstable = 0
    for base in args.bases:
        fetcher = Fetcher()
        rules = {
            seed: rule_of(learn_from_walk(fetcher.get, base, seed=seed, pages=args.pages))
            for seed in range(1, args.samples + 1)
        }
        distinct = set(rules.values())
        unstable += len(distinct) > 1
        print(f"{base}: {len(distinct)} distinct rule(s) from {args.samples} samples")
        for seed, rule in rules.items():
            print(f"  seed {seed}: {rule[0]}  thread {rule[1]}  page {rule[2]}")
    return 1 if unstable else 0


if __name__ == "__main__":
    raise SystemExit(main())
