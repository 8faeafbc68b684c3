"""Serving a :class:`ForumSite` over real HTTP on 127.0.0.1, one port per site.

Each server is a ``ThreadingHTTPServer`` in a daemon thread: concurrent requests are answered in
parallel, nothing sleeps, and :meth:`MockForumServer.stop` returns once the port is closed.
Connections close after each response (HTTP/1.0), so no request can slip in after ``stop``;
``keep_alive=True`` serves HTTP/1.1 persistent connections instead, as a real forum's server does,
for benchmarks, where a new connection per page costs the crawler and this in-process server CPU
that a remote site would not take from the crawler's cores.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urljoin

from forumcrawl.mockforum.faults import Faults, first_fault
from forumcrawl.mockforum.site import FAMILIES, ForumSite, request_target
from forumcrawl.mockforum.truth import SiteTruth

__all__ = ["MockForumServer", "RequestLog", "serve", "serve_all"]


class RequestLog:
    """Thread-safe record of the request targets (``/path?query``) a server received, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._targets: list[str] = []

    def add(self, target: str) -> None:
        """Record one request."""
        with self._lock:
            self._targets.append(target)

    @property
    def paths(self) -> list[str]:
        """A copy of every target so far, in arrival order (repeats kept)."""
        with self._lock:
            return list(self._targets)

    def count(self, target: str | None = None) -> int:
        """How many requests were received in all, or for one exact target."""
        with self._lock:
            return len(self._targets) if target is None else self._targets.count(target)

    def counts(self) -> Counter[str]:
        """Requests per target."""
        return Counter(self.paths)

    def clear(self) -> None:
        """Forget everything recorded so far."""
        with self._lock:
            self._targets.clear()

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __contains__(self, target: object) -> bool:
        with self._lock:
            return target in self._targets


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False
    request_queue_size = 128

    def __init__(
        self, address: tuple[str, int], site: ForumSite, log: RequestLog, keep_alive: bool = False,
        faults: Sequence[Faults] = (),
    ) -> None:
        self.site = site
        self.log = log
        self.faults = faults
        super().__init__(address, _KeepAliveHandler if keep_alive else _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    server_version = "Apache/2.4.41"
    sys_version = ""

    def _answer(self, *, body: bool) -> None:
        target = request_target(self.path)
        self.server.log.add(target)
        fault = first_fault(self.server.faults, target)
        if fault is not None and fault.kind == "reset":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.delay)
        response = self.server.site.render(target)
        kind = fault.kind if fault is not None else ""
        content = response.body[: len(response.body) // 2] if kind == "truncate" else response.body
        try:
            if fault is not None and kind == "status":
                self.send_response(fault.status)
                if fault.retry_after is not None:
                    self.send_header("Retry-After", str(fault.retry_after))
                self.send_header("Content-Type", "text/html; charset=utf-8")
                content = b"<html><body><h1>Service unavailable</h1></body></html>"
            else:
                self.send_response(response.status)
                for name, value in response.headers.items():
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(response.body) if kind == "truncate" else len(content)))
            self.end_headers()
            if body:
                self.wfile.write(content)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        if kind == "truncate":
            self.close_connection = True

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        """Answer a GET from the site."""
        self._answer(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        """Answer a HEAD: the GET's headers, no body."""
        self._answer(body=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (signature of the base)
        """Stay quiet: the request log is in :class:`RequestLog`."""


class _KeepAliveHandler(_Handler):
    protocol_version = "HTTP/1.1"


class MockForumServer:
    """A running server for one :class:`ForumSite`; a context manager that stops on exit."""

    def __init__(
        self, site: ForumSite, host: str = "127.0.0.1", port: int = 0, keep_alive: bool = False,
        faults: Faults | Sequence[Faults] = (),
    ) -> None:
        self.site = site
        self.requests = RequestLog()
        #: Faults injected (:mod:`forumcrawl.mockforum.faults`); the first that spoils a request
        #: wins. A list the server reads at each request: add or clear faults while it runs.
        self.faults = [faults] if isinstance(faults, Faults) else list(faults)
        self._httpd = _HTTPServer((host, port), site, self.requests, keep_alive, self.faults)
        self.host, self.port = self._httpd.server_address[:2]
        self.url = f"http://{self.host}:{self.port}/"
        self._stopped = False
        self._truth: tuple[int, SiteTruth] | None = None
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"mockforum-{site.family}-{self.port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def truth(self) -> SiteTruth:
        """The site's truth, with URLs under this server's :attr:`url` (built again after the
        site changed)."""
        if self._truth is None or self._truth[0] != self.site.version:
            self._truth = (self.site.version, self.site.truth(self.url))
        return self._truth[1]

    def absolute(self, target: str) -> str:
        """The absolute URL of a request target or relative link on this server."""
        return urljoin(self.url, target)

    def requested_urls(self) -> list[str]:
        """Every request so far as an absolute URL, comparable with the truth's URLs."""
        return [self.absolute(target) for target in self.requests]

    def stop(self) -> None:
        """Stop serving and free the port (safe to call twice)."""
        if self._stopped:
            return
        self._stopped = True
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> MockForumServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<MockForumServer {self.site.family} at {self.url}>"


def serve(
    family_or_site: str | ForumSite,
    host: str = "127.0.0.1",
    port: int = 0,
    keep_alive: bool = False,
    faults: Faults | Sequence[Faults] = (),
    **site_options: Any,
) -> MockForumServer:
    """Start serving a site (a family name builds one; ``preset=`` and ForumSite arguments apply).

    ``port=0`` picks a free port; read it from ``.url``. ``keep_alive``: HTTP/1.1 persistent
    connections (see the module's docstring). ``faults``: faults to inject
    (:mod:`forumcrawl.mockforum.faults`), the first that spoils a request wins.
    """
    if isinstance(family_or_site, ForumSite):
        if site_options:
            raise TypeError("site options only apply when a family name is given")
        site = family_or_site
    else:
        preset = site_options.pop("preset", "default")
        site = ForumSite.from_preset(family_or_site, preset, **site_options)
    return MockForumServer(site, host, port, keep_alive, faults)


def serve_all(families: Iterable[str] = FAMILIES, **kwargs: Any) -> dict[str, MockForumServer]:
    """One server per family (the demo's by default), each on its own free port; arguments as
    for :func:`serve`."""
    if kwargs.get("port"):
        raise ValueError("serve_all picks one free port per family; do not pass a port")
    kwargs.pop("port", None)
    servers: dict[str, MockForumServer] = {}
    try:
        for family in families:
            servers[family] = serve(family, **kwargs)
    except BaseException:
        for server in servers.values():
            server.stop()
        raise
    return servers
