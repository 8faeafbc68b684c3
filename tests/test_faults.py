"""Faults at the shipped settings: every thread page a crawl meant to export is exported once, or
it is listed as failed and the exit status is 1 (#47).

Each test runs the installed ``forumcrawl crawl`` command in a child process against a mock forum
served on 127.0.0.1 that injects faults (:mod:`forumcrawl.mockforum.faults`), at the shipped
settings: AutoThrottle, robots.txt, retries with backoff. The pages a fault-free crawl of the same
forum exports are the reference.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import urlopen

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors.fields import page_links
from forumcrawl.feeds import read_feed
from forumcrawl.mockforum import serve
from forumcrawl.mockforum.faults import Faults
from tests.conftest import run_crawl, serving
from tests.test_cli_crawl import FORUMCRAWL, forumcrawl_cmd, read_items

#: One xdist group: its reference crawl is a module fixture: made once, on one test process.
pytestmark = pytest.mark.xdist_group("faults")


def targets(items: list[dict]) -> Counter[str]:
    """Exported pages by request target (``/path?query``), so crawls of two ports compare."""
    return Counter(urlsplit(item["url"])._replace(scheme="", netloc="").geturl() for item in items)


def crawl(tmp_path: Path, url: str, *extra: str, feed: str = "items.jsonl") -> tuple[subprocess.CompletedProcess[str], list[dict]]:
    out = tmp_path / feed
    proc = forumcrawl_cmd(["crawl", "forum", url, "-O", str(out), "-s", "FORUMCRAWL_RULES_DIR=rules", *extra], cwd=tmp_path)
    return proc, list(read_feed(out)) if out.exists() and out.stat().st_size else []


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Counter[str]:
    """What a fault-free crawl of the (small) phpBB-like mock forum exports, by target."""
    with serve("phpbb", preset="small") as server:
        proc, items = crawl(tmp_path_factory.mktemp("reference"), server.url)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert items and max(targets(items).values()) == 1
    return targets(items)


def test_server_errors_in_bursts_are_retried_and_nothing_is_lost(tmp_path, reference):
    faults = Faults(kind="status", statuses=(503, 500), share=0.5, attempts=2, retry_after=1)
    with serve("phpbb", preset="small", faults=faults) as server:
        proc, items = crawl(tmp_path, server.url)
    assert faults.spoilt() > 5
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert targets(items) == reference, "every thread page exported, each once"
    retried = re.search(r"'retry/count': (\d+)", proc.stderr)
    assert retried and int(retried.group(1)) >= faults.spoilt()


@pytest.mark.parametrize("kind", ["reset", "truncate", "slow"])
def test_broken_connections_are_retried_and_nothing_is_lost(tmp_path, reference, kind):
    faults = Faults(kind=kind, share=0.3, attempts=1, delay=3.0, seed=1)
    # A slow answer becomes a timeout only when the timeout is shorter than its delay: the one
    # setting changed here, DOWNLOAD_TIMEOUT (60 s shipped) down to 1 s.
    extra = ["-s", "DOWNLOAD_TIMEOUT=1"] if kind == "slow" else []
    with serve("phpbb", preset="small", faults=faults) as server:
        proc, items = crawl(tmp_path, server.url, *extra)
    assert faults.spoilt() > 3
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert targets(items) == reference


def test_a_page_that_never_answers_is_listed_and_the_exit_status_says_so(tmp_path, reference):
    lost = sorted(reference)[:2]
    faults = Faults(kind="status", statuses=(503,), targets=frozenset(lost), attempts=None)
    with serve("phpbb", preset="small", faults=faults) as server:
        proc, items = crawl(tmp_path, server.url)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "2 thread pages could not be fetched" in proc.stderr
    for target in lost:
        assert f"failed: {server.url.rstrip('/')}{target} HTTP 503" in proc.stderr
    exported = targets(items)
    assert not exported & Counter(lost) and max(exported.values()) == 1
    # the rest as without the fault, but for pages only the lost ones linked
    assert set(exported) <= set(reference) and len(exported) >= len(reference) - 4
    assert "'forumcrawl/failed/thread_pages': 2" in proc.stderr


def test_a_board_page_that_never_answers_is_listed_and_the_exit_status_says_so(tmp_path, reference):
    # A board's second page: the thread pages only it links are missing, and only its failure
    # can tell the user so.
    board = "/viewforum.php?f=2&start=2"
    faults = Faults(kind="status", statuses=(503,), targets=frozenset({board}), attempts=None)
    with serve("phpbb", preset="small", faults=faults) as server:
        proc, items = crawl(tmp_path, server.url)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "1 listing pages (their threads may be missing) could not be fetched" in proc.stderr
    assert f"failed: {server.url.rstrip('/')}{board} HTTP 503" in proc.stderr
    assert "'forumcrawl/failed/listing_pages': 1" in proc.stderr
    assert "'forumcrawl/failed/thread_pages'" not in proc.stderr or "'forumcrawl/failed/thread_pages': 0" in proc.stderr
    exported = targets(items)
    assert set(exported) < set(reference) and max(exported.values()) == 1


def test_a_sampled_thread_page_whose_retries_all_failed_is_fetched_again_once_the_rules_exist(tmp_path, reference):
    """The first thread page the learning sample fetches answers 503 to its first four requests,
    its retries included: once the rules take its URL for a thread page it is fetched again, and
    it is exported and not listed as failed. A sample taking one page of a kind at a time has few
    downloads under way, so a burst of 503s can outlast one page's retries (universe forum 114:
    a thread page lost in its sample)."""
    faults = Faults(kind="status", statuses=(503,), targets=frozenset(), attempts=4, retry_after=1)
    with serve("phpbb", preset="small", faults=faults) as server:
        index = Document.from_bytes(urlopen(server.url).read(), server.url, None)
        board = next(u for u in page_links(index.tree, index.url) if "viewforum.php" in u)
        listing = Document.from_bytes(urlopen(board).read(), board, None)
        first = next(u for u in page_links(listing.tree, board) if re.search(r"viewtopic\.php\?t=\d+$", u))
        target = urlsplit(first)._replace(scheme="", netloc="").geturl()
        faults.targets = frozenset({target})
        proc, items = crawl(tmp_path, server.url)
    assert target in reference and faults.spoilt() == 4
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert targets(items) == reference
    assert "'forumcrawl/learn/sample_fetched_again': 1" in proc.stderr
    assert f"failed: {server.url.rstrip('/')}{target} " not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux) for a full disk")
def test_a_full_disk_ends_the_crawl_with_status_1(tmp_path, forum_servers):
    proc = forumcrawl_cmd(["crawl", "forum", forum_servers["phpbb"].url, "-O", "/dev/full:jsonl",
                           "-s", "FORUMCRAWL_RULES_DIR=rules"], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "cannot write the feed" in proc.stderr
    assert "'finish_reason': 'feed_error'" in proc.stderr
    # one traceback at most: Scrapy's own "Error storing" for the file it cannot close; not one
    # per item, as before
    assert proc.stderr.count("Traceback") <= 1


def test_an_unwritable_feed_is_refused_before_the_crawl(tmp_path):
    with serve("phpbb") as server:
        proc = forumcrawl_cmd(["crawl", "forum", server.url, "-O", "/proc/nope/x.jsonl"], cwd=tmp_path)
        assert proc.returncode == 2
        assert "cannot write the feed /proc/nope/x.jsonl" in proc.stderr
        assert len(server.requests) == 0, "nothing fetched for a crawl that could keep nothing"


def test_two_crawls_cannot_write_one_feed(tmp_path):
    # Keeps the first crawl running while the second starts: it ends at its third item, exported
    # once its site is learned, and a sample of one page per plain URL pattern is in sooner.
    faults = Faults(kind="slow", share=1.0, attempts=None, delay=0.4)
    with serve("phpbb", preset="small", faults=faults) as server:
        feed = tmp_path / "shared.jsonl"
        first = subprocess.Popen([FORUMCRAWL, "crawl", "forum", server.url, "-O", str(feed), "-s",
                                  "CLOSESPIDER_ITEMCOUNT=3", "-s", "FORUMCRAWL_RULES_DIR=rules"],
                                 cwd=tmp_path, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not len(server.requests) and time.monotonic() < deadline:
            time.sleep(0.1)
        second = forumcrawl_cmd(["crawl", "forum", server.url, "-O", str(feed)], cwd=tmp_path)
        assert second.returncode == 2
        assert "is being written by another crawl" in second.stderr
        assert "%(worker)s" in second.stderr
        _, log = first.communicate(timeout=240)
    assert first.returncode == 0, log[-3000:]
    assert len(read_items(feed)) == 3


def test_feeds_append_only_where_the_file_stays_readable(tmp_path, forum_servers):
    url = forum_servers["phpbb"].url
    few = ["-s", "CLOSESPIDER_ITEMCOUNT=3"]
    # One crawl writes the three feeds (as three -O), each of its three items.
    proc = forumcrawl_cmd(["crawl", "forum", url, "-O", "pages.json", "-O", "pages.xml", "-O", "pages.csv",
                           *few, "-s", "FORUMCRAWL_RULES_DIR=rules"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for feed in ("pages.json", "pages.xml"):
        proc = forumcrawl_cmd(["crawl", "forum", url, "-o", feed, *few], cwd=tmp_path)
        assert proc.returncode == 2 and "cannot append" in proc.stderr
    proc = forumcrawl_cmd(["crawl", "forum", url, "-o", "pages.csv", *few, "-s", "FORUMCRAWL_RULES_DIR=rules"],
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = (tmp_path / "pages.csv").read_text("utf-8").splitlines()
    assert sum(line.startswith("url,") for line in lines) == 1, "one header line"
    for feed, pages in (("pages.json", 3), ("pages.xml", 3), ("pages.csv", 6)):
        report = forumcrawl_cmd(["report", feed], cwd=tmp_path)
        assert report.returncode == 0, report.stderr
        assert f", {pages} pages, " in report.stdout.splitlines()[0]


def test_stored_rules_are_checked_before_they_are_trusted(tmp_path):
    """A forum served later at the address of another one: the stored rules do not fit, a
    WARNING says so, and the site is learned again; the same forum again: they fit."""
    # The small forums: their rules are learned as the default-size ones' are, in fewer pages.
    with serve("xenforo", preset="small") as server:
        port, url = server.port, server.url
        proc, fresh = crawl(tmp_path, url, feed="xenforo.jsonl")
    assert proc.returncode == 0 and fresh
    with serve("phpbb", preset="small", port=port) as server:
        proc, first = crawl(tmp_path, url, feed="phpbb-1.jsonl")
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "the stored rules of 127.0.0.1" in proc.stderr and "no longer fit its pages" in proc.stderr
        proc, again = crawl(tmp_path, url, feed="phpbb-2.jsonl")
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "fit its pages" in proc.stderr and "no longer fit" not in proc.stderr
    assert targets(again) == targets(first)
    assert len(first) >= 0.9 * len(server.truth.topic_urls)
    site = f"127.0.0.1:{port}"
    listed = forumcrawl_cmd(["rules", "list", "--rules-dir", "rules"], cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith(site) and "viewtopic" in listed.stdout
    shown = forumcrawl_cmd(["rules", "show", site, "--rules-dir", "rules"], cwd=tmp_path)
    assert json.loads(shown.stdout)["site"] == site
    assert forumcrawl_cmd(["rules", "forget", site, "--rules-dir", "rules"], cwd=tmp_path).returncode == 0
    assert forumcrawl_cmd(["rules", "show", site, "--rules-dir", "rules"], cwd=tmp_path).returncode == 1


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("FORUMCRAWL_LEARN_URL_SAMPLE=-5", "FORUMCRAWL_LEARN_URL_SAMPLE: expected a number above 0"),
        ("FORUMCRAWL_LINK_MIN_PROBABILITY=1.5", "expected a probability from 0 to 1"),
        ("FORUMCRAWL_RETRY_BACKOFF=-1", "FORUMCRAWL_RETRY_BACKOFF: expected 0 or more"),
    ],
)
def test_settings_out_of_their_range_are_refused(tmp_path, setting, message):
    proc = forumcrawl_cmd(["crawl", "forum", "http://127.0.0.1:9/", "-O", "x.jsonl", "-s", setting], cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_a_site_given_without_a_scheme_is_taken_as_http(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    proc, items = crawl(tmp_path, f"127.0.0.1:{server.port}", "-s", "CLOSESPIDER_ITEMCOUNT=3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(items) == 3 and all(item["url"].startswith(server.url) for item in items)


class _PermalinkFailingOnce(BaseHTTPRequestHandler):
    """A thread page ``/t/1`` and a post permalink ``/p/9`` that answers 500 once, then
    redirects to ``/t/1#p9``; counts the hits of each path."""

    hits: Counter[str]

    def do_GET(self) -> None:
        self.hits[self.path] += 1
        if self.path == "/p/9":
            self.send_response(500 if self.hits[self.path] == 1 else 302)
            self.send_header("Location", "/t/1#p9")
            self.end_headers()
        elif self.path == "/t/1":
            body = (b"<html><head><title>Grub</title></head><body><h1>Grub</h1><div class=post>"
                    b"<b>ann</b> 2024-01-02 10:00<p>hello there world</p><a href='/p/9'>#</a></div></body></html>")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_a_retried_permalink_does_not_fetch_its_thread_page_again(tmp_path):
    """Held-apart universe forum 100: a post permalink that answered 500 was retried, and its
    redirect to a thread page crawled already fetched that page again (a retry skips the seen
    set, and Scrapy handed that on to the redirect); in a cluster the page was exported twice."""
    _PermalinkFailingOnce.hits = Counter()
    with serving(_PermalinkFailingOnce) as url:
        result = run_crawl(tmp_path, [f"{url}/t/1", f"{url}/p/9"])
    assert result.stats["retry/count"] == 1
    assert _PermalinkFailingOnce.hits["/p/9"] == 2, "retried, then redirected"
    assert _PermalinkFailingOnce.hits["/t/1"] == 1, "the thread page was fetched again"
