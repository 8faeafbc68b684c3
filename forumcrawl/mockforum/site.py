"""``ForumSite``: one generated forum, answering request targets with bytes, and its truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from forumcrawl.mockforum.discourse import Discourse
from forumcrawl.mockforum.discuz import Discuz
from forumcrawl.mockforum.family import Family, Page
from forumcrawl.mockforum.modern import Modern
from forumcrawl.mockforum.phpbb import PhpBB
from forumcrawl.mockforum.plan import Plan, build_plan
from forumcrawl.mockforum.qa import QA
from forumcrawl.mockforum.static import Static
from forumcrawl.mockforum.times import DEFAULT_NOW
from forumcrawl.mockforum.truth import SiteTruth
from forumcrawl.mockforum.vbulletin import VBulletin
from forumcrawl.mockforum.xenforo import XenForo

__all__ = ["ALL_FAMILIES", "FAMILIES", "NAV_FAMILIES", "PRESETS", "ForumSite", "Response",
           "request_target"]

_FAMILY_CLASSES: dict[str, type[Family]] = {
    "discuz": Discuz, "phpbb": PhpBB, "static": Static,
    "xenforo": XenForo, "vbulletin": VBulletin, "discourse": Discourse, "modern": Modern,
    "qa": QA,
}

#: The demo's markup families, each served as its own site.
FAMILIES = ("discuz", "phpbb", "static")
#: Families that reproduce the navigation of real engines: permalinks, sorts, session ids,
#: listings that look like threads, links that nest without end, sort orders sharing a pattern.
NAV_FAMILIES = ("xenforo", "vbulletin", "discourse", "modern", "qa")
#: Every family.
ALL_FAMILIES = FAMILIES + NAV_FAMILIES

#: Named sizes. ``default`` crawls in about a hundred pages per family; ``small`` in a few dozen.
#: A family may enlarge them (:attr:`Family.presets`).
PRESETS: dict[str, dict[str, int]] = {
    "default": {},
    "small": {"boards": 2, "threads_per_board": 3, "posts_per_page": 5, "max_thread_pages": 3,
              "threads_per_list_page": 2, "users": 10},
}

_SIZES = {"boards": 3, "threads_per_board": 8, "posts_per_page": 10, "max_thread_pages": 4,
          "threads_per_list_page": 5, "users": 24}

_NOT_FOUND = (b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>"
              b"<h1>Not Found</h1><p>The requested URL was not found on this server.</p>"
              b"</body></html>")
_FORBIDDEN = (b"<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body>"
              b"<h1>Forbidden</h1><p>You don't have permission to access this resource.</p>"
              b"</body></html>")


@dataclass(frozen=True)
class Response:
    """What the site answers: status, headers (without Content-Length) and body bytes."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def request_target(raw: str) -> str:
    """``/path?query`` of a request line's target (origin form, or an absolute URL)."""
    if raw.startswith("/"):
        return raw.split("#", 1)[0]
    parts = urlsplit(raw)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _encode(page: Page) -> Response:
    body = page.body if isinstance(page.body, bytes) else page.body.encode(page.encoding,
                                                                           "xmlcharrefreplace")
    headers = {"Content-Type": f"{page.media_type}; charset={page.charset}"}
    if page.location is not None:
        headers["Location"] = page.location
    return Response(page.status, headers, body)


class ForumSite:
    """A deterministic generated forum of one markup family; pure (no sockets).

    Same arguments, same site, byte for byte: content comes from ``random.Random`` seeded with
    the family and ``seed``, pages are rendered on request from that plan. ``now`` is the
    site's clock for relative times ("3 天前"); it defaults to :data:`DEFAULT_NOW`. A size left
    out is the family's default-preset size.
    """

    def __init__(
        self,
        family: str,
        *,
        boards: int | None = None,
        threads_per_board: int | None = None,
        posts_per_page: int | None = None,
        max_thread_pages: int | None = None,
        seed: int = 0,
        now: datetime | None = None,
        threads_per_list_page: int | None = None,
        users: int | None = None,
    ) -> None:
        if family not in _FAMILY_CLASSES:
            raise ValueError(f"unknown family {family!r}; choose from {', '.join(ALL_FAMILIES)}")
        self.family = family
        self.seed = seed
        kind = _FAMILY_CLASSES[family]
        given = {"boards": boards, "threads_per_board": threads_per_board,
                 "posts_per_page": posts_per_page, "max_thread_pages": max_thread_pages,
                 "threads_per_list_page": threads_per_list_page, "users": users}
        sizes = {**_SIZES, **kind.presets.get("default", {}),
                 **{name: value for name, value in given.items() if value is not None}}
        self.plan: Plan = build_plan(kind.lang, f"{family}:{seed}", now=now or DEFAULT_NOW,
                                     **sizes)
        self._kind = kind
        #: Times the site was changed (:meth:`rebuild`); a server's truth follows it.
        self.version = 0
        self.rebuild()
        self.version = 0

    def rebuild(self) -> None:
        """Render from the plan again, after it was changed (:mod:`forumcrawl.mockforum.growth`)."""
        self._family = self._kind(self.plan)
        self._render = lru_cache(maxsize=512)(self._render_href)
        self.version += 1

    @classmethod
    def from_preset(cls, family: str, preset: str = "default", **overrides: Any) -> ForumSite:
        """A site of a named size from :data:`PRESETS`, with any argument overridden."""
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
        kind = _FAMILY_CLASSES.get(family)
        sizes = kind.presets.get(preset, {}) if kind else {}
        return cls(family, **{**PRESETS[preset], **sizes, **overrides})

    @property
    def now(self) -> datetime:
        """The site's clock."""
        return self.plan.now

    @property
    def robots_txt(self) -> str:
        """The site's robots.txt."""
        return self._family.robots_txt()

    def render(self, path_and_query: str) -> Response:
        """Answer a request target (``/forum.php?mod=…``; an absolute URL is reduced to it)."""
        target = request_target(path_and_query)
        if target == "/robots.txt":
            return Response(200, {"Content-Type": "text/plain; charset=utf-8"},
                            self.robots_txt.encode())
        if self._family.is_disallowed(target):
            return Response(403, {"Content-Type": "text/html; charset=utf-8"}, _FORBIDDEN)
        found = self._family.lookup(target)
        if found is not None:
            return self._render(found[0])
        dynamic = self._family.dynamic(target)
        if dynamic is None or dynamic.render is None:
            return Response(404, {"Content-Type": "text/html; charset=utf-8"}, _NOT_FOUND)
        return _encode(dynamic.render())

    def _render_href(self, href: str) -> Response:
        route = self._family.routes[href]
        if route.role == "alias" and route.render is None:
            route = self._family.routes[str(route.target)]
        if route.render is None:
            raise LookupError(f"route {href!r} leads to nothing to render")
        return _encode(route.render())

    def truth(self, base_url: str) -> SiteTruth:
        """Everything this site holds, with URLs made absolute against ``base_url``."""
        return self._family.truth(base_url)

    def __repr__(self) -> str:
        return f"ForumSite({self.family!r}, seed={self.seed}, threads={len(self.plan.threads)})"
