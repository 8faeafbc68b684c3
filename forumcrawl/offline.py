"""Offline extraction: saved pages in, one JSON object per page out, on all cores.

Each page is independent (the map step of seed 000's MapReduce design), so pages are spread over a
process pool and written back in input order as they finish. Memory stays flat: files are read by
the worker that extracts them, jobs go to the pool in batches with only a few batches per worker
in flight, and results are streamed (``benchmarks/bench_memory.py`` measures it). Only the list of
file names of each folder is held in memory.
"""

from __future__ import annotations

import gc
import gzip
import logging
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import chain, islice
from pathlib import Path
from typing import Any

from forumcrawl.defaults import FORUMCRAWL_EXTRACT_CASCADE
from forumcrawl.document import DEFAULT_MAX_BYTES, Document, DocumentError
from forumcrawl.extractors.kinds import NON_CONTENT_KINDS
from forumcrawl.items import plain
from forumcrawl.pages import LIST_KINDS, STAGES, Cascade, article_item, thread_item
from forumcrawl.warc import WARC_SUFFIXES, is_warc, read_warc_record, warc_offsets

__all__ = [
    "BATCH_SIZE",
    "IN_FLIGHT_PER_WORKER",
    "PAGE_SUFFIXES",
    "ExtractOptions",
    "Job",
    "extract_batch",
    "extract_bytes",
    "extract_job",
    "extract_paths",
    "iter_jobs",
    "job_batches",
    "stream_batches",
]

logger = logging.getLogger(__name__)

#: Pages per task sent to a worker process or a Dask worker: large enough that sending a task
#: (about 1 ms on Dask) is small beside extraction (5-20 ms a page), small enough to balance two
#: workers on a few hundred pages.
BATCH_SIZE = 16
#: Batches in flight per worker: keeps every worker busy while results stream back in order.
IN_FLIGHT_PER_WORKER = 4
#: File endings read as pages (case-insensitive).
PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz")


@dataclass(frozen=True)
class ExtractOptions:
    """How to extract: the cascade (or one stage), the item kind, and limits."""

    #: Stage names, tried in order.
    cascade: tuple[str, ...] = tuple(FORUMCRAWL_EXTRACT_CASCADE)
    #: ``thread``, ``article``, or ``auto`` (thread when several posts were found).
    kind: str = "auto"
    min_chars: int = 20
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Naive Bayes value filter on every page's posts or blocks (see
    #: :class:`~forumcrawl.pages.ValueFilter`), whether it removes worthless later ones, and its
    #: model (None: the shipped one).
    value_filter: bool = False
    value_drop: bool = False
    value_model: str | None = None


def page_id(path: Path) -> str:
    """File name without its page suffix (``ab12.html.gz`` → ``ab12``)."""
    name = path.name
    for suffix in sorted(PAGE_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


#: One page to extract: ``(path, options, now)`` for a page file, ``(path, offset, options,
#: now)`` for the record at ``offset`` of a WARC file. Jobs are small, so they travel to workers.
Job = tuple[Any, ...]


def iter_jobs(paths: Iterable[str | Path], options: ExtractOptions, now: datetime) -> Iterator[Job]:
    """One job per page under ``paths`` (files, WARC files, folders walked recursively, sorted),
    made as they are consumed.

    Raises FileNotFoundError at once, before any job, for a path that does not exist, so a typo
    is neither a silent empty run nor a failure after hours of work.
    """
    checked = [Path(raw) for raw in paths]
    missing = [str(p) for p in checked if not p.exists()]
    if missing:
        raise FileNotFoundError(f"no such file or folder: {', '.join(missing)}")
    return _jobs(checked, options, now)


def _jobs(paths: list[Path], options: ExtractOptions, now: datetime) -> Iterator[Job]:
    for path in paths:
        if path.is_dir():
            suffixes = PAGE_SUFFIXES + WARC_SUFFIXES
            found = [p for p in sorted(path.rglob("*")) if p.is_file() and p.name.lower().endswith(suffixes)]
        else:
            found = [path]
        for file in found:
            if is_warc(file):
                yield from ((file, offset, options, now) for offset in warc_offsets(file))
            else:
                yield (file, options, now)


#: One cascade per options in each process (a Cascade caches parsed rules).
_CASCADES: dict[ExtractOptions, Cascade] = {}


def _cascade(options: ExtractOptions) -> Cascade:
    cached = _CASCADES.get(options)
    if cached is None:
        cached = _CASCADES[options] = Cascade(
            options.cascade,
            min_chars=options.min_chars,
            value_filter=options.value_filter,
            value_drop=options.value_drop,
            value_model=options.value_model,
        )
        _freeze_heap()
    return cached


#: Net allocations of tracked objects between two collections of the youngest generation
#: (Python's default: 700). A page's extraction holds a few thousand objects (two steps of
#: the lines' walk per element, simple-tree nodes, bags of words) until the page is done, and
#: reference counting frees them then: a collection every 700 found nearly nothing to free and
#: ran once or more a page, 1.4-1.6 % of extracting aeb-articles-en and dragnet.
YOUNG_COLLECTION_THRESHOLD = 20_000


def _freeze_heap() -> None:
    """Take what is alive once the cascade is built (modules, models, regexes: some 110,000
    objects that live as long as the process) out of the cyclic collector's sight: its full
    collections walked them all again, 0.2-0.5 ms a page on aeb-articles-en and dragnet.
    Garbage is collected first, so that nothing that could be freed is frozen. Young
    collections are then made rarer (:data:`YOUNG_COLLECTION_THRESHOLD`); the older
    generations keep their thresholds."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, older, oldest)


def extract_bytes(
    body: bytes,
    *,
    page_id: str,
    url: str = "",
    content_type: str | None = None,
    options: ExtractOptions = ExtractOptions(),  # noqa: B008  (frozen, so safe as a default)
    now: datetime | None = None,
) -> dict[str, Any]:
    """Extract one page's bytes into a JSON-ready record with ``id`` = ``page_id``.

    A page that cannot be read gives a record with ``error``; one with no content gives empty
    ``text`` and ``method`` None, and so does one the value filter drops, with ``worthless``
    True. Nothing raises for bad input.
    """
    now = now or datetime.now(timezone.utc)
    try:
        doc = Document.from_bytes(body, url, content_type, max_bytes=options.max_bytes)
    except DocumentError as exc:
        return {"id": page_id, "url": url or None, "error": str(exc), "text": ""}
    outcome = _cascade(options).run(doc, now=now)
    record: dict[str, Any] = {"id": page_id}
    if outcome.extraction is None:
        record.update(url=url or None, kind=None, text="", method=None, misses=outcome.misses)
        if outcome.value is not None and outcome.value.page_worthless:
            record["worthless"] = True
        return record
    extraction = outcome.extraction
    found = len(extraction.posts)
    if outcome.value is not None and outcome.value.unit == "post":
        found += outcome.value.dropped  # a thread page stays a thread when its replies are dropped
    as_thread = options.kind == "thread" or (options.kind == "auto" and found > 1)
    item = thread_item(doc, extraction, now=now) if as_thread else article_item(doc, extraction, now=now)
    record["kind"] = "thread" if as_thread else "article"
    if options.kind == "auto" and extraction.page_kind in NON_CONTENT_KINDS:
        record["kind"] = extraction.page_kind
    record.update(plain(item))
    if extraction.items and record["kind"] in LIST_KINDS:
        record["items"] = [{"url": entry.url, "text": entry.text} for entry in extraction.items]
    record["id"] = page_id
    record["url"] = url or None
    if outcome.errors:
        record["errors"] = outcome.errors
    return record


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.lower().endswith(".gz") else data


def extract_job(job: Job) -> dict[str, Any]:
    """The record of one job from :func:`iter_jobs` (the map step; never raises for bad input)."""
    if len(job) == 4:
        path, offset, options, now = job
        try:
            record_id, url, body, content_type = read_warc_record(path, offset)
        except (OSError, ValueError) as exc:
            return {"id": f"{Path(path).name}@{offset}", "error": f"unreadable WARC record: {exc}", "text": ""}
        return extract_bytes(body, page_id=record_id, url=url, content_type=content_type, options=options, now=now)
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
    """Records for every page under ``paths`` (page files, WARC files, folders), in input order,
    using ``jobs`` processes (default: all cores; 1 runs in this process)."""
    unknown = [s for s in options.cascade if s not in STAGES]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; known: {sorted(STAGES)}")
    if options.kind not in {"auto", "thread", "article"}:
        raise ValueError(f"unknown kind {options.kind!r}: use auto, thread or article")
    now = now or datetime.now(timezone.utc)
    work = iter_jobs(paths, options, now)
    jobs = jobs or os.cpu_count() or 1
    window = jobs * IN_FLIGHT_PER_WORKER
    head = list(islice(work, window * BATCH_SIZE))
    if jobs <= 1 or len(head) < 2:
        yield from map(extract_job, chain(head, work))
        return
    # Imported here: the process pool (multiprocessing) is a twentieth of a one-process run's
    # start-up, which never uses it.
    from concurrent.futures import ProcessPoolExecutor

    # A short run gets smaller batches, so that every worker has some.
    size = BATCH_SIZE if len(head) == window * BATCH_SIZE else max(1, len(head) // window)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from stream_batches(
            lambda batch: pool.submit(extract_batch, batch), job_batches(chain(head, work), size), window
        )


def job_batches(jobs: Iterator[Job], size: int) -> Iterator[list[Job]]:
    """``jobs`` in lists of ``size`` (the last one shorter), taken as they are consumed."""
    while batch := list(islice(jobs, size)):
        yield batch


def stream_batches(
    submit: Callable[[list[Job]], Any], batches: Iterable[list[Job]], window: int
) -> Iterator[dict[str, Any]]:
    """The records of ``batches`` in order, each batch handed to ``submit`` (which returns a
    future: a process pool's or Dask's) with at most ``window`` batches in flight."""
    in_flight: deque[Any] = deque()
    for batch in batches:
        in_flight.append(submit(batch))
        if len(in_flight) >= window:
            yield from in_flight.popleft().result()
    while in_flight:
        yield from in_flight.popleft().result()


def extract_batch(batch: list[Job]) -> list[dict[str, Any]]:
    """The records of a batch of jobs: one task for a worker."""
    return [extract_job(job) for job in batch]
