"""Offline extraction: saved pages in, one JSON object per page out, on all cores.

Each page is independent (the map step of seed 000's MapReduce design), so pages are spread over a
process pool and written back in input order as they finish. Memory stays flat: files are read by
the worker that extracts them and results are streamed.
"""

from __future__ import annotations

import gzip
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from forumcrawl.document import DEFAULT_MAX_BYTES, Document, DocumentError
from forumcrawl.items import plain
from forumcrawl.pages import STAGES, Cascade, article_item, thread_item

__all__ = ["PAGE_SUFFIXES", "ExtractOptions", "extract_bytes", "extract_paths", "iter_page_files"]

logger = logging.getLogger(__name__)

#: File endings read as pages (case-insensitive).
PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz")


@dataclass(frozen=True)
class ExtractOptions:
    """How to extract: the cascade (or one stage), the item kind, and limits."""

    #: Stage names, tried in order.
    cascade: tuple[str, ...] = ("ksf", "template", "cx")
    #: ``thread``, ``article``, or ``auto`` (thread when several posts were found).
    kind: str = "auto"
    min_chars: int = 20
    max_bytes: int = DEFAULT_MAX_BYTES


def page_id(path: Path) -> str:
    """File name without its page suffix (``ab12.html.gz`` → ``ab12``)."""
    name = path.name
    for suffix in sorted(PAGE_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def iter_page_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Every page file named or found (recursively, sorted) under the given paths.

    Raises FileNotFoundError for a path that does not exist, so a typo is not a silent empty run.
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = (p for p in sorted(path.rglob("*")) if p.is_file() and p.name.lower().endswith(PAGE_SUFFIXES))
            yield from found
        elif path.is_file():
            yield path
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")


#: One cascade per options in each process (a Cascade caches parsed rules).
_CASCADES: dict[ExtractOptions, Cascade] = {}


def _cascade(options: ExtractOptions) -> Cascade:
    cached = _CASCADES.get(options)
    if cached is None:
        cached = _CASCADES[options] = Cascade(options.cascade, min_chars=options.min_chars)
    return cached


def extract_bytes(
    body: bytes,
    *,
    page_id: str,
    url: str = "",
    options: ExtractOptions = ExtractOptions(),  # noqa: B008  (frozen, so safe as a default)
    now: datetime | None = None,
) -> dict[str, Any]:
    """Extract one page's bytes into a JSON-ready record with ``id`` = ``page_id``.

    A page that cannot be read gives a record with ``error``; one with no content gives empty
    ``text`` and ``method`` None. Nothing raises for bad input.
    """
    now = now or datetime.now(timezone.utc)
    try:
        doc = Document.from_bytes(body, url, max_bytes=options.max_bytes)
    except DocumentError as exc:
        return {"id": page_id, "url": url or None, "error": str(exc), "text": ""}
    outcome = _cascade(options).run(doc, now=now)
    record: dict[str, Any] = {"id": page_id}
    if outcome.extraction is None:
        record.update(url=url or None, kind=None, text="", method=None, misses=outcome.misses)
        return record
    extraction = outcome.extraction
    as_thread = options.kind == "thread" or (options.kind == "auto" and len(extraction.posts) > 1)
    item = thread_item(doc, extraction, now=now) if as_thread else article_item(doc, extraction, now=now)
    record["kind"] = "thread" if as_thread else "article"
    record.update(plain(item))
    record["id"] = page_id
    record["url"] = url or None
    if outcome.errors:
        record["errors"] = outcome.errors
    return record


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.lower().endswith(".gz") else data


def _extract_file(job: tuple[Path, ExtractOptions, datetime]) -> dict[str, Any]:
    path, options, now = job
    pid = page_id(path)
    try:
        body = _read(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        return {"id": pid, "error": f"unreadable file {path}: {exc}", "text": ""}
    return extract_bytes(body, page_id=pid, options=options, now=now)


def extract_paths(
    paths: Sequence[str | Path],
    *,
    options: ExtractOptions = ExtractOptions(),  # noqa: B008
    jobs: int | None = None,
    now: datetime | None = None,
) -> Iterator[dict[str, Any]]:
    """Records for every page under ``paths``, in file order, using ``jobs`` processes
    (default: all cores; 1 runs in this process)."""
    unknown = [s for s in options.cascade if s not in STAGES]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; known: {sorted(STAGES)}")
    if options.kind not in {"auto", "thread", "article"}:
        raise ValueError(f"unknown kind {options.kind!r}: use auto, thread or article")
    now = now or datetime.now(timezone.utc)
    files = list(iter_page_files(paths))
    work = ((path, options, now) for path in files)
    jobs = jobs or os.cpu_count() or 1
    if jobs <= 1 or len(files) < 2:
        yield from map(_extract_file, work)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_extract_file, work, chunksize=max(1, min(16, len(files) // (jobs * 4))))
