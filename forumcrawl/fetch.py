"""Pages fetched one by one for the commands that look at a live site (``links URL``, ``urls --fetch``).

They keep the crawl's manners without starting Scrapy: the project's ``USER_AGENT``, robots.txt
obeyed (read with Protego, the parser Scrapy uses, once per site), a timeout and the page size
limit of FORUMCRAWL_MAX_PAGE_BYTES. Whatever goes wrong is a :class:`FetchError` whose message is
one line: refused by robots.txt, HTTP status, no connection, no answer in time, too large.
"""

from __future__ import annotations

import argparse
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from protego import Protego

__all__ = ["FetchError", "Fetched", "Fetcher", "add_timeout_option"]

#: Seconds to wait for a page (or a robots.txt) before giving up on it.
DEFAULT_TIMEOUT = 15.0


def add_timeout_option(parser: argparse.ArgumentParser) -> None:
    """``--timeout SECONDS`` of the commands that fetch pages."""
    parser.add_argument(
        "--timeout", metavar="SECONDS", type=float, default=DEFAULT_TIMEOUT,
        help=f"seconds to wait for a page (default {DEFAULT_TIMEOUT:g})",
    )


class FetchError(Exception):
    """A page that could not be fetched; the message is one line for users."""


@dataclass(frozen=True)
class Fetched:
    """A fetched page: its final URL (after redirects), body and Content-Type."""

    url: str
    body: bytes
    content_type: str | None


class Fetcher:
    """Fetches http(s) pages as the crawl would, caching each site's robots.txt."""

    def __init__(self, user_agent: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int) -> None:
        self.user_agent = user_agent
        self.timeout = timeout
        self.max_bytes = max_bytes
        self._robots: dict[str, Protego | None] = {}

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any], *, timeout: float = DEFAULT_TIMEOUT) -> Fetcher:
        """The fetcher of the project's settings (USER_AGENT, FORUMCRAWL_MAX_PAGE_BYTES)."""
        return cls(
            str(settings["USER_AGENT"]),
            timeout=timeout,
            max_bytes=int(settings["FORUMCRAWL_MAX_PAGE_BYTES"]),
        )

    def _get(self, url: str, limit: int) -> tuple[str, bytes, str | None]:
        request = urllib.request.Request(
            url, headers={"User-Agent": self.user_agent, "Accept": "text/html,*/*;q=0.8"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                body = response.read(limit + 1)
                return response.geturl(), body, response.headers.get("Content-Type")
        except urllib.error.HTTPError as exc:
            raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from None
        except TimeoutError:
            raise FetchError(f"{url}: no answer within {self.timeout:g} s") from None
        except urllib.error.URLError as exc:
            reason = "no answer in time" if isinstance(exc.reason, TimeoutError) else exc.reason
            raise FetchError(f"{url}: cannot connect: {reason}") from None
        except OSError as exc:
            raise FetchError(f"{url}: {exc.strerror or exc}") from None

    def robots(self, url: str) -> Protego | None:
        """The robots.txt rules of ``url``'s site; None when it has none (or it cannot be read)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            try:
                _, body, _ = self._get(f"{origin}/robots.txt", self.max_bytes)
            except FetchError:
                # As Scrapy's RobotsTxtMiddleware: a missing or unreadable robots.txt allows all.
                self._robots[origin] = None
            else:
                self._robots[origin] = Protego.parse(body.decode("utf-8", "replace"))
        return self._robots[origin]

    def fetch(self, url: str) -> Fetched:
        """The page at ``url``; FetchError if it is not http(s), robots.txt forbids it, or it fails."""
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise FetchError(f"not an http(s) URL: {url!r}")
        rules = self.robots(url)
        if rules is not None and not rules.can_fetch(url, self.user_agent):
            raise FetchError(f"{url}: robots.txt of {parts.netloc} forbids it")
        final, body, content_type = self._get(url, self.max_bytes)
        if len(body) > self.max_bytes:
            raise FetchError(f"{url}: larger than {self.max_bytes} bytes")
        return Fetched(final, body, content_type)
