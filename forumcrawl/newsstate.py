"""What a news crawl exported, kept for the next crawl (``FORUMCRAWL_INCREMENTAL``).

One JSON file per site in FORUMCRAWL_STATE_DIR (``news-<site>.json``): each exported article's
canonical URL, the URLs it was fetched under, and the time its sitemap or feed gave for its last
change. A recrawl fetches an article again only when a sitemap or feed names it with another time;
listings are fetched as on a first crawl (they announce the new articles), and their patterns
close as soon as they show nothing new.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["NewsState", "NewsStates"]

logger = logging.getLogger(__name__)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class NewsState:
    """One site's exported articles: URL fetched → (canonical URL, its last-change time)."""

    site: str
    #: Time of the crawl that wrote the state; None on a first crawl.
    previous: str | None = None
    fetched: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    def unchanged(self, url: str, modified: str | None) -> bool:
        """Whether ``url`` was exported before and its source gives no other change time
        (a time where none was known then is taken as the same: it is kept for next time)."""
        known = self.fetched.get(url)
        if known is None:
            return False
        if known[1] is None and modified is not None:
            self.fetched[url] = (known[0], modified)
            return True
        return modified is None or modified == known[1]

    def exported(self, urls: list[str], identity: str, modified: str | None) -> None:
        """Record an article exported under ``identity``, fetched as ``urls``."""
        for url in {*urls, identity}:
            self.fetched[url] = (identity, modified)


class NewsStates:
    """The states of a crawl's sites, read from and written to one folder."""

    def __init__(self, folder: Path, started: str) -> None:
        self.folder = folder
        self.started = started
        self.sites: dict[str, NewsState] = {}

    def _path(self, site: str) -> Path:
        return self.folder / f"news-{_UNSAFE.sub('_', site)}.json"

    def site(self, site: str) -> NewsState:
        """``site``'s state: the last crawl's, else empty (an unreadable file is logged)."""
        if site not in self.sites:
            state = NewsState(site)
            path = self._path(site)
            if path.exists():
                try:
                    data = json.loads(path.read_text("utf-8"))
                    state.previous = data["crawled_at"]
                    state.fetched = {url: (row[0], row[1]) for url, row in data["fetched"].items()}
                except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
                    logger.warning("ignored the crawl state %s: %s", path, exc)
            self.sites[site] = state
        return self.sites[site]

    def save_all(self) -> list[Path]:
        """Write every site's state (for the next crawl)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for state in self.sites.values():
            path = self._path(state.site)
            data = {"crawled_at": self.started, "fetched": {u: list(v) for u, v in state.fetched.items()}}
            path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
            paths.append(path)
        return paths
