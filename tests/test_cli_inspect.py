"""``forumcrawl links`` and ``forumcrawl urls`` on live pages, as a user runs them: the console
script in a child process, fetching from local HTTP servers (robots.txt, user agent, timeouts)."""

from __future__ import annotations

import json
import re
import time
import unicodedata
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from forumcrawl.commands.links import HEADER, URL_WIDTH
from tests.conftest import serving
from tests.test_cli_crawl import forumcrawl_cmd

PAGE = b"""<html><body><a href="/thread/1">A thread with a long title</a>
<a href="/private/2">private</a><a href="/board?id=3">Board</a></body></html>"""


class _Site(BaseHTTPRequestHandler):
    """robots.txt forbids /private; /slow answers after 3 s; everything else is PAGE or a 404."""

    agents: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.agents.append(f"{self.path} {self.headers.get('User-Agent')}")
        if self.path == "/robots.txt":
            body, kind = b"User-agent: *\nDisallow: /private\n", "text/plain"
        elif self.path == "/slow":
            time.sleep(3)
            body, kind = PAGE, "text/html"
        elif self.path in {"/", "/private/2"}:
            body, kind = PAGE, "text/html; charset=utf-8"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


@pytest.fixture
def site() -> Iterator[str]:
    _Site.agents = []
    with serving(_Site) as url:
        yield url


def test_links_of_a_live_page_as_jsonl_with_our_user_agent(tmp_path, site):
    proc = forumcrawl_cmd(["links", f"{site}/", "--format", "jsonl"], cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["url"] for row in rows] == [f"{site}/thread/1", f"{site}/private/2", f"{site}/board?id=3"]
    assert rows[0]["text"] == "A thread with a long title"
    assert all(0 <= row["probability"] + row["list_probability"] <= 1 and "path_similarity" in row["features"]
               for row in rows)
    threads, lists = (sum(r[key] >= 0.5 for r in rows) for key in ("probability", "list_probability"))
    assert proc.stderr.strip() == f"{site}/: 3 links, {threads} to thread pages, {lists} to list pages"
    assert _Site.agents[0].startswith("/robots.txt forumcrawl/")  # robots.txt first, our agent
    assert _Site.agents[1].startswith("/ forumcrawl/")


@pytest.mark.parametrize(
    ("path", "args", "message"),
    [
        ("/private/2", [], "robots.txt of 127.0.0.1:{port} forbids it"),
        ("/missing", [], "HTTP 404 Not Found"),
        ("/slow", ["--timeout", "0.5"], "no answer within 0.5 s"),
    ],
)
def test_links_fetch_errors_are_one_line(tmp_path, site, path, args, message):
    proc = forumcrawl_cmd(["links", site + path, *args], cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    port = site.rsplit(":", 1)[1]
    assert proc.stderr == f"forumcrawl links: error: {site}{path}: {message.format(port=port)}\n"
    assert not any(line.startswith("/private") for line in _Site.agents)  # never fetched


def test_links_tsv_cuts_nothing_where_the_table_does(tmp_path, forum_servers):
    server = forum_servers["discuz"]
    board = next(u for u in server.truth.topic_urls if len(u) > URL_WIDTH)
    table = forumcrawl_cmd(["links", board], cwd=tmp_path, timeout=120)
    tsv = forumcrawl_cmd(["links", board, "--format", "tsv"], cwd=tmp_path, timeout=120)
    assert table.returncode == tsv.returncode == 0, table.stderr + tsv.stderr
    header, *rows = [line.split("\t") for line in tsv.stdout.splitlines()]
    assert header[:4] == ["probability", "list_probability", "text", "url"]
    assert all(len(r) == len(header) for r in rows)
    urls = [row[3] for row in rows]
    assert any(len(url) > URL_WIDTH for url in urls)
    assert not any(url.endswith("…") for url in urls)
    assert "…" in table.stdout
    assert table.stdout.splitlines()[0] == tsv.stderr.strip()
    assert table.stdout.splitlines()[1] == HEADER
    assert len(table.stdout.splitlines()) == len(rows) + 2


@pytest.mark.parametrize("family", ["phpbb", "discuz"])
def test_links_table_fits_100_columns(tmp_path, forum_servers, family):
    """A terminal of 100 columns shows the table unwrapped, Chinese anchors (two columns a
    character) included; the features are left to --format tsv/jsonl."""
    server = forum_servers[family]
    thread = max(server.truth.topic_urls, key=len)
    proc = forumcrawl_cmd(["links", thread], cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()[2:]
    assert len(rows) > 10
    width = [sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in row) for row in rows]
    assert max(width) <= 100, rows[width.index(max(width))]
    assert all(re.match(r"  [01]\.\d\d  [01]\.\d\d  ", row) for row in rows) and "same_site=" not in proc.stdout


def test_urls_rows_with_fetched_evidence(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    truth = server.truth
    urls = sorted({*truth.topic_urls, *truth.non_topic_urls})
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(urls), encoding="utf-8")
    proc = forumcrawl_cmd(
        ["urls", str(listing), "--fetch", "30", "--format", "jsonl"], cwd=tmp_path, timeout=180
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [row["url"] for row in rows] == urls
    topic = {row["url"] for row in rows if row["topic"]}
    assert f"topic URLs in {listing}: {len(topic)} of {len(urls)}" in proc.stderr
    assert len(topic & set(truth.topic_urls)) >= 0.95 * len(topic) > 0
    fetched = re.search(r"fetched (\d+) of 30 pages", proc.stderr)
    assert fetched and int(fetched.group(1)) > 0, proc.stderr
