"""Offline extraction: folders of saved pages in, one JSON record per page out."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from forumcrawl.offline import (
    BATCH_SIZE,
    IN_FLIGHT_PER_WORKER,
    ExtractOptions,
    extract_bytes,
    extract_paths,
    iter_jobs,
)

ARTICLE = (
    "<html><head><title>江南小镇的雨季 - 旅行频道</title>"
    '<meta name="author" content="王小明"><meta property="article:published_time" content="2024-05-01T08:00:00+08:00">'
    "</head><body><div class=nav><a href=/>首页</a><a href=/travel>旅行</a><a href=/food>美食</a></div>"
    "<h1>江南小镇的雨季</h1><div class=article>"
    + "".join(f"<p>第{i}段：雨水顺着青石板路流进河里，老街上的茶馆坐满了避雨的客人，大家聊着今年的收成和远方的亲人。</p>" for i in range(8))
    + "</div><ul class=related>"
    + "".join(f"<li><a href=/t/{i}>相关阅读：另一个小镇的故事 {i}</a></li>" for i in range(6))
    + "</ul><div class=footer>版权所有 联系我们 广告服务</div></body></html>"
)


def write_pages(folder: Path) -> None:
    folder.mkdir()
    (folder / "a1.html").write_text(ARTICLE, encoding="utf-8")
    (folder / "gbk.html.gz").write_bytes(gzip.compress(ARTICLE.replace("<head>", "<head><meta charset=gbk>").encode("gbk")))
    (folder / "empty.html").write_bytes(b"")
    (folder / "binary.html").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(300))
    (folder / "bad.html.gz").write_bytes(b"not gzip at all")
    (folder / "notes.txt").write_text("not a page")


def test_folder_is_read_recursively_and_every_page_gets_a_record(tmp_path):
    pages = tmp_path / "pages"
    write_pages(pages)
    records = {r["id"]: r for r in extract_paths([pages], jobs=1)}
    assert set(records) == {"a1", "gbk", "empty", "binary", "bad"}
    for page_id in ("a1", "gbk"):
        record = records[page_id]
        assert record["title"] == "江南小镇的雨季"
        assert record["author"] == "王小明"
        assert record["published"].startswith("2024-05-01")
        assert "老街上的茶馆" in record["text"]
        assert "版权所有" not in record["text"]
        assert record["language"] == "zh"
    assert records["empty"]["text"] == "" and records["empty"]["method"] is None
    assert "binary" in records["binary"]["error"]
    assert "unreadable file" in records["bad"]["error"]


def test_process_pool_gives_the_same_records_as_one_process(tmp_path):
    pages = tmp_path / "pages"
    write_pages(pages)
    for i in range(6):
        (pages / f"copy{i}.html").write_text(ARTICLE.replace("第0段", f"第{i}号段"), encoding="utf-8")
    serial = list(extract_paths([pages], jobs=1))
    parallel = list(extract_paths([pages], jobs=2))
    assert parallel == serial


def test_process_pool_streams_more_pages_than_it_keeps_in_flight(tmp_path):
    pages = tmp_path / "many"
    pages.mkdir()
    count = 2 * IN_FLIGHT_PER_WORKER * BATCH_SIZE + 37  # past the first window, a short last batch
    for i in range(count):
        (pages / f"p{i:04d}.html").write_text(ARTICLE.replace("第0段", f"第{i}号段"), encoding="utf-8")
    options = ExtractOptions(cascade=("cx",))
    parallel = list(extract_paths([pages], options=options, jobs=2))
    assert [r["id"] for r in parallel] == [f"p{i:04d}" for i in range(count)]
    assert all(f"第{i}号段" in r["text"] for i, r in enumerate(parallel))
    assert parallel == list(extract_paths([pages], options=options, jobs=1))


def test_a_missing_path_fails_before_any_page_is_extracted(tmp_path):
    pages = tmp_path / "pages"
    write_pages(pages)
    records = extract_paths([pages, tmp_path / "typo"], jobs=2)
    with pytest.raises(FileNotFoundError, match="typo"):
        next(records)


def test_one_stage_alone_and_bad_options():
    record = extract_bytes(ARTICLE.encode(), page_id="x", options=ExtractOptions(cascade=("cx",)))
    assert record["method"] == "cx"
    with pytest.raises(ValueError, match="unknown method"):
        list(extract_paths([], options=ExtractOptions(cascade=("nope",))))
    with pytest.raises(FileNotFoundError, match="no such file"):
        list(iter_jobs(["/nonexistent/pages"], ExtractOptions(), None))


def test_extract_command_writes_jsonl_and_reports_errors(tmp_path):
    pages = tmp_path / "pages"
    write_pages(pages)
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "extract", str(pages), "-o", str(out), "-j", "2"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(records) == 5
    assert "extracted 5 pages (1 without content, 2 unreadable)" in proc.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "extract", str(tmp_path / "missing")],
        capture_output=True, text=True, timeout=120,
    )
    assert missing.returncode == 2
    assert "no such file or folder" in missing.stderr
