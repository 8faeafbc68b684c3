"""What a generated site contains, in the terms a crawler and an extractor are judged by.

Every URL is absolute, as a page links it (``&`` unescaped, fragment dropped); a URL that is
linked in several forms has one canonical form in ``topic_urls`` / ``non_topic_urls`` and the
others in ``url_aliases``. A path whose links nest without end (a login page that links itself
with ``?next=`` its own URL) is in ``query_aliases``: any query on it is that one page.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl, quote, unquote_to_bytes, urlsplit, urlunsplit

__all__ = ["BROKEN_KINDS", "PostTruth", "SiteTruth", "ThreadTruth", "path_key"]


def path_key(path: str) -> str:
    """A URL path with its percent-escapes in one form (``%3a``, ``%3A`` and ``:`` alike), as a
    server decodes a path before routing it."""
    return quote(unquote_to_bytes(path), safe="/:@!$&'()*+,;=-._~")


def _key(url: str) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """Host, path (escapes in one form) and sorted query pairs (read bytewise, so any
    percent-encoding compares)."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True, encoding="latin-1")
    return parts.netloc.lower(), path_key(parts.path or "/"), tuple(sorted(pairs))

#: The ways a linked page can be broken, as ``SiteTruth.broken`` names them.
BROKEN_KINDS = {
    "truncated": "200, HTML cut off in the middle of a tag",
    "wrong-charset": "200, a thread page whose body is not in the charset its header and <meta> "
    "declare (its posts are still in the truth; see SiteTruth.actual_encodings)",
    "binary": "200, Content-Type text/html but the body is a PNG image",
    "not-found": "404, a thread row whose thread no longer exists",
    "server-error": "500, a plugin page that fails",
    "empty": "200 with an empty body",
}


@dataclass(frozen=True)
class PostTruth:
    """One post as it should be extracted.

    ``text`` is the post's own words, paragraphs joined by ``\\n``: no quote, no signature, no
    edit notice. ``published_raw`` is the time exactly as the post header writes it (without
    "发表于" / "by … »"); ``published`` is what that text denotes, ISO 8601, local time.
    """

    floor: int
    author: str
    published: str
    published_raw: str
    text: str
    quote: str | None = None
    signature: str | None = None
    edited: bool = False


@dataclass(frozen=True)
class ThreadTruth:
    """One thread: title, board name, and its posts page by page (page URLs in order)."""

    url: str
    title: str
    board: str
    pages: dict[str, list[PostTruth]]


@dataclass
class SiteTruth:
    """Everything a perfect crawl and extraction of one served site would find."""

    base_url: str
    family: str
    #: Time the site's relative dates count back from, ISO 8601.
    now: str
    #: Charset every healthy page declares and is written in.
    encoding: str
    topic_urls: list[str] = field(default_factory=list)
    url_aliases: dict[str, str] = field(default_factory=dict)
    #: URL without query → canonical page: every query string on that path serves the page.
    query_aliases: dict[str, str] = field(default_factory=dict)
    non_topic_urls: list[str] = field(default_factory=list)
    disallowed_urls: list[str] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)
    #: Body encoding of the pages that declare another one (the wrong-charset pages).
    actual_encodings: dict[str, str] = field(default_factory=dict)
    threads: list[ThreadTruth] = field(default_factory=list)

    def canonical(self, url: str) -> str:
        """The canonical form of ``url``: aliases resolved, fragment ignored, query order free.

        A URL the site never links comes back unchanged.
        """
        if url in self.url_aliases:
            return self.url_aliases[url]
        found = self._by_key.get(_key(url))
        if found is not None:
            return found
        parts = urlsplit(url)
        bare = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        return self.query_aliases.get(bare, url) if parts.query else url

    def is_topic(self, url: str) -> bool:
        """Whether ``url`` (or the page it is an alias of) is a thread page."""
        return self.canonical(url) in self._posts

    def posts_for(self, page_url: str) -> list[PostTruth]:
        """The posts of one thread page (aliases accepted); ``KeyError`` for other pages."""
        return list(self._posts[self.canonical(page_url)])

    def thread_for(self, page_url: str) -> ThreadTruth:
        """The thread a thread page belongs to (aliases accepted); ``KeyError`` for other pages."""
        canonical = self.canonical(page_url)
        for thread in self.threads:
            if canonical in thread.pages:
                return thread
        raise KeyError(page_url)

    @cached_property
    def _by_key(self) -> dict[tuple[str, str, tuple[tuple[str, str], ...]], str]:
        """Normalised key → canonical URL, for every page and alias of the site."""
        pages = [*self.topic_urls, *self.non_topic_urls, *self.broken]
        index = {_key(url): url for url in pages}
        index.update({_key(alias): target for alias, target in self.url_aliases.items()})
        return index

    @cached_property
    def _posts(self) -> dict[str, list[PostTruth]]:
        """Page URL → posts, built on first use (a truth is not modified once built)."""
        return {url: posts for thread in self.threads for url, posts in thread.pages.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (``json.dumps`` works on it as is)."""
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        """The truth as JSON text (Chinese kept readable)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SiteTruth:
        """Rebuild a truth from :meth:`to_dict` output."""
        fields = dict(data)
        fields["threads"] = [
            ThreadTruth(
                url=t["url"],
                title=t["title"],
                board=t["board"],
                pages={u: [PostTruth(**p) for p in posts] for u, posts in t["pages"].items()},
            )
            for t in data.get("threads", [])
        ]
        return cls(**fields)
