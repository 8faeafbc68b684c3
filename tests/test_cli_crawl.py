"""``forumcrawl crawl`` and ``scrapy crawl`` as a user runs them: the installed console scripts in a
child process, from a folder that is not the repository, against the local forum servers."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import forumcrawl

ROOT = Path(forumcrawl.__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
FORUMCRAWL = shutil.which("forumcrawl", path=str(BIN)) or "forumcrawl"
SCRAPY = shutil.which("scrapy", path=str(BIN)) or "scrapy"


def forumcrawl_cmd(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [FORUMCRAWL, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def read_items(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_crawl_from_any_folder_appends_and_logs_each_line_once(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    out = tmp_path / "threads.jsonl"
    out.write_text('{"url": "kept from before"}\n', "utf-8")
    proc = forumcrawl_cmd(
        ["crawl", "forum", server.url, "-o", str(out), "-s", "FORUMCRAWL_RULES_DIR=rules"],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = read_items(out)
    assert items[0] == {"url": "kept from before"}  # -o appends, as in Scrapy
    truth = server.truth
    exported = {truth.canonical(item["url"]) for item in items[1:]}
    assert exported == {truth.canonical(url) for url in truth.topic_urls}
    assert (tmp_path / "rules").is_dir()  # settings of the project, relative to the current folder
    log = proc.stderr.splitlines()
    timestamped = [line for line in log if re.match(r"\d{4}-\d\d-\d\d ", line)]
    assert len(timestamped) == len(set(timestamped)), "a log line was written twice"
    assert "Dropped: duplicate" not in proc.stderr  # DEBUG, below the default INFO
    # Other URL forms of a fetched thread page are skipped, counted, and not logged.
    duplicates = re.search(r"'forumcrawl/nav/skipped/duplicate': (\d+)", proc.stderr)
    assert duplicates and int(duplicates.group(1)) > 0
    assert "duplicate:" not in proc.stderr
    assert "pages fetched |" not in proc.stderr  # no progress line when stderr is not a terminal


def test_json_list_setting_overwrite_and_news_spider(tmp_path, forum_servers):
    server = forum_servers["static"]
    out = tmp_path / "pages.jsonl"
    out.write_text('{"url": "gone"}\n', "utf-8")
    proc = forumcrawl_cmd(
        [
            "crawl", "news", server.url, "-O", str(out),
            "-s", 'FORUMCRAWL_EXTRACT_CASCADE=["dom", "cx"]', "-s", "FORUMCRAWL_LEARN_ENABLED=false",
            "-s", "CLOSESPIDER_ITEMCOUNT=3", "-L", "WARNING",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = read_items(out)
    assert len(items) >= 3 and all(item["url"].startswith(server.url) for item in items)
    assert {item["method"] for item in items} <= {"dom", "cx"}
    assert "posts" not in items[0]  # news writes articles


def test_environment_variable_sets_a_list_setting(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    out = tmp_path / "pages.jsonl"
    proc = forumcrawl_cmd(
        ["crawl", "forum", server.url, "-O", str(out), "-s", "CLOSESPIDER_ITEMCOUNT=3"],
        cwd=tmp_path,
        env={"FORUMCRAWL_EXTRACT_CASCADE": "cx", "FORUMCRAWL_LEARN_ENABLED": "0"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = read_items(out)
    assert items and {item["method"] for item in items} == {"cx"}


def test_progress_line_on_a_terminal(tmp_path, forum_servers):
    server = forum_servers["phpbb"]
    out = tmp_path / "threads.jsonl"
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [FORUMCRAWL, "crawl", "forum", server.url, "-O", str(out), "-L", "WARNING"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=240) == 0
    screen = b"".join(chunks).decode("utf-8")
    lines = re.findall(
        r"\r\x1b\[K(\d+) pages fetched \| (\d+) thread pages, (\d+) posts exported \| (\d+) queued", screen
    )
    assert lines, screen[-2000:]
    pages, threads, posts, queued = map(int, lines[-1])
    items = read_items(out)
    assert threads == len(items) and posts == sum(len(item["posts"]) for item in items)
    assert pages > threads and queued == 0
    assert screen.rstrip().endswith("pages/s")  # the last line is the final progress line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["crawl", "forum", "-O", "x.jsonl"], "give the site(s) to crawl"),
        (["crawl", "forum", "ftp://example.org/", "-O", "x.jsonl"], "not an http(s) URL"),
        (["crawl", "forum", "http://127.0.0.1:9/", "-a", "topic_example=ftp://x/", "-O", "x.jsonl"],
         "not an http(s) URL: 'ftp://x/'"),
        (["crawl", "forum", "http://127.0.0.1:9/", "-O", "x.jsonl", "-s",
          "FORUMCRAWL_EXTRACT_CASCADE=ksf,cy"], "unknown cascade stage(s) ['cy']"),
        (["crawl", "forum", "http://127.0.0.1:9/", "-O", "x.jsonl", "-s",
          'FORUMCRAWL_EXTRACT_CASCADE=["ksf",'], "FORUMCRAWL_EXTRACT_CASCADE: not a JSON list"),
        (["crawl", "forum", "http://127.0.0.1:9/", "-O", "x.jsonl", "-s",
          "FORUMCRAWL_EXTRACT_MIN_CHARS=many"], "FORUMCRAWL_EXTRACT_MIN_CHARS: expected an integer"),
        (["crawl", "forum", "http://127.0.0.1:9/"], "give -o FILE or -O FILE"),
        (["crawl", "forum_redis", "-O", "x.jsonl"], "needs FORUMCRAWL_REDIS_URL"),
    ],
)
def test_usage_errors_are_one_line(tmp_path, args, message):
    proc = forumcrawl_cmd(args, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_unreachable_redis_from_the_environment(tmp_path):
    env = {"FORUMCRAWL_REDIS_URL": f"redis://127.0.0.1:{closed_port()}/0"}
    for args in (["push", "forum", "http://127.0.0.1:9/"],
                 ["crawl", "forum", "http://127.0.0.1:9/", "-O", "x.jsonl"]):
        proc = forumcrawl_cmd(args, cwd=tmp_path, env=env, timeout=120)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert f"Redis at {env['FORUMCRAWL_REDIS_URL']} unavailable" in proc.stderr


def test_unreachable_site_is_a_failed_crawl(tmp_path):
    proc = forumcrawl_cmd(
        ["crawl", "forum", f"http://127.0.0.1:{closed_port()}/", "-O", "x.jsonl", "-L", "CRITICAL",
         "-s", "RETRY_TIMES=0"],
        cwd=tmp_path, timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == "forumcrawl crawl: no page could be fetched (the log says why)"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give the site(s) to crawl: -a start=URL"),
        (["-a", "start=http://127.0.0.1:9/", "-s", 'FORUMCRAWL_EXTRACT_CASCADE=["cx","nope"]'],
         "unknown cascade stage(s) ['nope']"),
    ],
)
def test_scrapy_crawl_usage_errors_end_in_one_line(tmp_path, args, message):
    proc = subprocess.run(
        [SCRAPY, "crawl", "forum", *args, "-O", str(tmp_path / "x.jsonl")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    last = proc.stderr.splitlines()[-1]
    assert last.startswith("scrapy crawl: error: ") and message in last, proc.stderr


def test_each_command_reads_its_options_when_only_its_own_are_built(capsys):
    # main() builds only the options of the command it runs: each reads them as when all are built.
    from forumcrawl.cli import build_parser
    from forumcrawl.commands import COMMANDS

    for command in COMMANDS:
        shown = []
        for parser in (build_parser(), build_parser(command)):
            with pytest.raises(SystemExit):
                parser.parse_args([command, "--help"])
            shown.append(capsys.readouterr().out)
        assert shown[0] == shown[1] and "--help" in shown[0], command
    with pytest.raises(SystemExit):  # another command's options are not there
        build_parser("eval").parse_args(["extract", "--jobs", "2", "page.html"])
    assert "unrecognized arguments" in capsys.readouterr().err
