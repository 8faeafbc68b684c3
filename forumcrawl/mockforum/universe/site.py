"""``UniverseSite``: forum ``seed`` of the universe as a :class:`ForumSite`, with its faults.

The pages and the truth are pure functions of the seed (and the clock ``now`` relative times
count from). The ``faults`` dimension is the one stateful part: a server that answers a burst of
503s, fails some pages once with a 500, or answers some slowly, depends on the order of the
requests. ``faults=False`` leaves them out (tests of the pages, rule-stability walks).
"""

from __future__ import annotations

import threading
import time
import zlib
from dataclasses import asdict
from datetime import datetime
from typing import Any

from forumcrawl.mockforum.plan import build_plan
from forumcrawl.mockforum.server import MockForumServer
from forumcrawl.mockforum.site import ForumSite, Response, request_target
from forumcrawl.mockforum.times import DEFAULT_NOW
from forumcrawl.mockforum.universe.dimensions import Dimensions, draw, sizes_for
from forumcrawl.mockforum.universe.forum import Universe

__all__ = ["Faults", "UniverseSite", "serve_seed"]

_HTML = {"Content-Type": "text/html; charset=utf-8"}
#: Seconds a slow page takes.
SLOW_SECONDS = 1.0


class Faults:
    """What a faulty server does to the responses of one forum (thread-safe).

    ``burst_503``: requests number ``start`` to ``start + length`` (counted from the first) answer
    503 with ``Retry-After: 1``; ``flaky_500``: one page in five answers 500 the first time it is
    asked for; ``slow``: one page in four takes :data:`SLOW_SECONDS`.
    """

    def __init__(self, kind: str, seed: int) -> None:
        self.kind = kind
        spread = zlib.crc32(f"faults:{seed}".encode())
        self.start = 15 + spread % 25
        self.length = 6 + spread % 7
        self._lock = threading.Lock()
        self._count = 0
        self._seen: set[str] = set()

    def apply(self, target: str, response: Response) -> Response:
        """The response the faulty server gives instead of ``response`` to ``target``."""
        if self.kind == "none" or target == "/robots.txt":
            return response
        picked = zlib.crc32(target.encode())
        with self._lock:
            self._count += 1
            number, first = self._count, target not in self._seen
            self._seen.add(target)
        if self.kind == "burst_503" and self.start <= number < self.start + self.length:
            return Response(503, {**_HTML, "Retry-After": "1"},
                            b"<html><body><h1>503 Service Unavailable</h1></body></html>")
        if self.kind == "flaky_500" and first and picked % 5 == 0:
            return Response(500, _HTML, b"<html><body><h1>500 Internal Server Error</h1></body></html>")
        if self.kind == "slow" and picked % 4 == 0:
            time.sleep(SLOW_SECONDS)
        return response


class UniverseSite(ForumSite):
    """Forum ``seed`` of the universe: its dimensions (:attr:`dims`), plan, pages and truth.

    ``faults=False``: a server that always answers."""

    def __init__(self, seed: int, *, now: datetime | None = None, faults: bool = True,
                 dims: Dimensions | None = None) -> None:
        self.family = "universe"
        self.seed = seed
        #: What the forum looks like: the seed's draw, or ``dims`` (the seed's content and size
        #: in another look, to see which dimension a failure follows).
        self.dims: Dimensions = dims or draw(seed)
        self.plan = build_plan(self.dims.lang, f"universe:{seed}", now=now or DEFAULT_NOW,
                               **asdict(sizes_for(seed)))
        self._kind = lambda plan: Universe(plan, self.dims, seed)
        self.version = 0
        self.rebuild()
        self.version = 0
        self.faults = Faults(self.dims.faults if faults else "none", seed)

    def render(self, path_and_query: str) -> Response:
        """The page, as the forum's faulty server answers it."""
        return self.faults.apply(request_target(path_and_query), super().render(path_and_query))

    def __repr__(self) -> str:
        return f"UniverseSite({self.seed}, threads={len(self.plan.threads)})"


def serve_seed(seed: int, host: str = "127.0.0.1", port: int = 0, **site_options: Any) -> MockForumServer:
    """Serve forum ``seed`` (``now=``, ``faults=`` as for :class:`UniverseSite`); stop it after."""
    keep_alive = site_options.pop("keep_alive", False)
    return MockForumServer(UniverseSite(seed, **site_options), host, port, keep_alive)
