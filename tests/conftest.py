"""Shared fixtures: the local forum servers and a real Scrapy crawl in a child process.

Each crawl runs in its own process (a Twisted reactor cannot restart) against servers that run in
the test process on 127.0.0.1; the child writes the feeds and its stats, which tests read back.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from forumcrawl.mockforum import FAMILIES, MockForumServer, serve

CRAWL_SCRIPT = """
import json, sys
from forumcrawl.runner import crawl
args = json.loads(sys.argv[1])
stats = crawl(args["spider"], args["start"], args["feed"], settings=args["settings"], **args["spider_args"])
with open(args["stats"], "w", encoding="utf-8") as fh:
    json.dump(stats, fh, default=str)
"""


@dataclass
class CrawlResult:
    """What a finished crawl left behind."""

    items: list[dict[str, Any]]
    stats: dict[str, Any]
    log: str
    feed: Path


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 running ``handler`` in a thread; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def extract_page(tmp_path: Path, name: str, html: str) -> dict[str, Any]:
    """Run ``forumcrawl extract`` on one saved page, as a user does, and read its one record
    back from the JSON-lines output."""
    page = tmp_path / name
    page.write_text(html, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "extract", str(page), "-o", str(out), "-j", "1"],
        capture_output=True, text=True, check=False, timeout=180,
    )
    assert done.returncode == 0, done.stderr
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return record


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` that keeps its promise: a module that declares
    ``pytestmark = pytest.mark.xdist_group(...)`` runs on one test process, so its costly
    module fixtures are made once.

    pytest-xdist (3.8) groups tests by renaming them through ``item._nodeid``, which pytest 9.2
    no longer reads: its groups were silently spread over both processes, each making the
    group's module fixtures (the mock-forum walk, the report's crawl) again. Here the controller
    groups by module, reading which modules declare a group from their source; a group's name
    is not used (each group is one module).
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if _declares_group(config.rootpath / module) else nodeid

    return ModuleGroups(config, log)


@functools.cache
def _declares_group(path: Path) -> bool:
    try:
        return "pytestmark = pytest.mark.xdist_group(" in path.read_text("utf-8")
    except OSError:
        return False


@pytest.fixture(scope="session", autouse=True)
def _private_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Caches the tests make (the copy of jieba's dictionary) go to a temporary folder, not
    the user's ``~/.cache``; child processes inherit it."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache-home"))
    yield
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def forum_servers() -> Iterator[dict[str, MockForumServer]]:
    """One running server per markup family of the demo forum, for the whole session."""
    servers = {family: serve(family) for family in FAMILIES}
    try:
        yield servers
    finally:
        for server in servers.values():
            server.stop()


def run_crawl(
    tmp_path: Path,
    start: list[str],
    *,
    spider: str = "forum",
    settings: dict[str, Any] | None = None,
    feeds: dict[str, Any] | None = None,
    timeout: float = 240,
    **spider_args: str,
) -> CrawlResult:
    """Crawl ``start`` for real in a child process, at the shipped settings (AutoThrottle,
    robots.txt, retries) unless ``settings`` overrides them; return the JSON Lines items and the
    stats."""
    feed = tmp_path / "items.jsonl"
    args = {
        "spider": spider,
        "start": start,
        "feed": str(feed),
        "stats": str(tmp_path / "stats.json"),
        "spider_args": spider_args,
        "settings": {
            "FORUMCRAWL_RULES_DIR": str(tmp_path / "rules"),
            "LOG_LEVEL": "INFO",
            **({"FEEDS": {str(feed): {"format": "jsonlines"}, **feeds}} if feeds else {}),
            **(settings or {}),
        },
    }
    proc = subprocess.run(
        [sys.executable, "-c", CRAWL_SCRIPT, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    items = [json.loads(line) for line in feed.read_text("utf-8").splitlines() if line.strip()]
    stats = json.loads((tmp_path / "stats.json").read_text("utf-8"))
    return CrawlResult(items=items, stats=stats, log=proc.stderr, feed=feed)
