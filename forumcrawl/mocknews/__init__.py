"""Generated news sites and blogs with the exact truth of their articles and listings.

A :class:`NewsSite` varies, seed by seed, along dimensions taken from real publishing software
(article URL shapes, pagers and archives, the marks of title, author and time, comments,
sitemaps and feeds; see :mod:`forumcrawl.mocknews.site`). Served by the forum mock's server::

    with serve_news(seed=3, articles=80) as server:
        truth = server.site.truth(server.url)   # NewsTruth: articles, listings, others
        ...crawl server.url...

Standard library only; nothing listens beyond the given host (127.0.0.1 by default).
"""

from __future__ import annotations

from typing import Any

from forumcrawl.mockforum.server import MockForumServer
from forumcrawl.mocknews.site import (
    SHAPES,
    ArticleTruth,
    CommentTruth,
    NewsPlan,
    NewsSite,
    NewsTruth,
)

__all__ = ["SHAPES", "ArticleTruth", "CommentTruth", "NewsPlan", "NewsSite", "NewsTruth", "serve_news"]


def serve_news(seed: int = 0, host: str = "127.0.0.1", keep_alive: bool = False, **site_options: Any) -> MockForumServer:
    """Start serving a generated news site (``NewsSite(seed, **site_options)``) on a free port."""
    site = NewsSite(seed, **site_options)
    server = MockForumServer(site, host, 0, keep_alive)  # type: ignore[arg-type]
    site.base_url = server.url
    return server
