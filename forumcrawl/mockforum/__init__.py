"""A parametric local forum for tests and ``forumcrawl demo``, with the exact truth of its content.

Markup families, each its own site on its own port. The demo's three (:data:`FAMILIES`):
``discuz`` (Discuz! X3 dynamic URLs, GBK), ``phpbb`` (phpBB 3 prosilver, English) and ``static``
(rewritten Discuz URLs, another theme, relative Chinese times). The navigation families
(:data:`NAV_FAMILIES`) copy what real engines do to a crawler: ``xenforo`` (post permalinks,
sorted and filtered board views, ``page-N`` paths), ``vbulletin`` (session ids in links,
``showthread.php?p=`` permalinks, sort views, whole-thread print pages) and ``discourse`` (its
crawler view: per-post permalinks, lists counted from 0, user activity lists built like thread
pages) and ``modern`` (a Django-style Chinese site: login links whose ``?next=`` nests without
end, ``?page=1`` variants, times and authors only in attributes) and ``qa`` (askbot's question list:
eight sort orders whose pages share one URL pattern, windowed pagers). Content is generated from a seed; the truth
lists every thread page with its posts, every other page, the aliases, the robots-disallowed
links and the pages that are broken on purpose (truncated, wrong charset, binary, 404, 500,
empty)::

    with serve("discuz", preset="small") as server:
        truth = server.truth            # SiteTruth for server.url
        ...crawl server.url...
        assert not set(server.requested_urls()) & set(truth.disallowed_urls)

Standard library only; nothing listens beyond the given host (127.0.0.1 by default).
"""

from __future__ import annotations

from forumcrawl.mockforum.server import MockForumServer, RequestLog, serve, serve_all
from forumcrawl.mockforum.site import (
    ALL_FAMILIES,
    FAMILIES,
    NAV_FAMILIES,
    PRESETS,
    ForumSite,
    Response,
)
from forumcrawl.mockforum.times import DEFAULT_NOW
from forumcrawl.mockforum.truth import BROKEN_KINDS, PostTruth, SiteTruth, ThreadTruth

__all__ = [
    "ALL_FAMILIES",
    "BROKEN_KINDS",
    "DEFAULT_NOW",
    "FAMILIES",
    "NAV_FAMILIES",
    "PRESETS",
    "ForumSite",
    "MockForumServer",
    "PostTruth",
    "RequestLog",
    "Response",
    "SiteTruth",
    "ThreadTruth",
    "serve",
    "serve_all",
]
