"""WARC input for offline extraction (seed 000 §3.1's massive mode reads crawl archives).

Web archives hold thousands of pages per file; reading them record by record keeps memory flat.
:func:`iter_warc_pages` yields the HTML responses of one archive (``.warc`` or ``.warc.gz``,
read by warcio, which also undoes chunked and gzip transfer encodings). For parallel runs,
:func:`warc_offsets` lists where each HTML record starts and :func:`read_warc_record` reads the
record at one offset, so workers seek to their own records instead of sharing a stream.

Needs ``warcio`` (imported on first use, so the rest of forumcrawl works without it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "WARC_SUFFIXES",
    "is_warc",
    "iter_warc_pages",
    "read_warc_record",
    "warc_offsets",
]

#: File endings read as web archives (case-insensitive).
WARC_SUFFIXES = (".warc", ".warc.gz")
_HTML_TYPES = ("text/html", "application/xhtml+xml")

WarcPage = tuple[str, str, bytes, "str | None"]


def is_warc(path: str | Path) -> bool:
    """Whether ``path`` names a web archive, by its ending."""
    return str(path).lower().endswith(WARC_SUFFIXES)


def _archive_iterator(handle: Any) -> Any:
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError("reading WARC files needs warcio: pip install warcio") from exc
    return ArchiveIterator(handle)


def _is_html(record: Any) -> bool:
    """A successful HTML response (or resource) record."""
    if record.rec_type not in ("response", "resource"):
        return False
    headers = record.http_headers if record.rec_type == "response" else record.rec_headers
    if headers is None:
        return False
    if record.rec_type == "response" and not (headers.get_statuscode() or "").startswith("2"):
        return False
    content_type = headers.get_header("Content-Type")
    return not content_type or content_type.split(";")[0].strip().lower().startswith(_HTML_TYPES)


def _html_page(record: Any) -> WarcPage | None:
    """``(page_id, url, body, content_type)`` of an HTML response record, else None."""
    if not _is_html(record):
        return None
    headers = record.http_headers if record.rec_type == "response" else record.rec_headers
    record_id = record.rec_headers.get_header("WARC-Record-ID") or ""
    page_id = record_id.strip("<>").removeprefix("urn:uuid:")
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    return page_id, url, record.content_stream().read(), headers.get_header("Content-Type")


def iter_warc_pages(path: str | Path) -> Iterator[WarcPage]:
    """``(page_id, url, body_bytes, content_type)`` of every HTML response in a WARC file.

    ``page_id`` is the record's ``WARC-Record-ID`` without ``<urn:uuid:…>``; ``body_bytes`` are
    the HTTP payload with transfer and content encodings undone; ``content_type`` is the HTTP
    header (``None`` when absent). Non-HTML records, requests, metadata and non-2xx responses
    are skipped.
    """
    with Path(path).open("rb") as handle:
        for record in _archive_iterator(handle):
            page = _html_page(record)
            if page is not None:
                yield page


def warc_offsets(path: str | Path) -> Iterator[int]:
    """Byte offsets of the HTML responses of a WARC file, for :func:`read_warc_record`."""
    with Path(path).open("rb") as handle:
        records = _archive_iterator(handle)
        for record in records:
            if _is_html(record):
                yield records.get_record_offset()


def read_warc_record(path: str | Path, offset: int) -> WarcPage:
    """The HTML page of the record at ``offset`` (from :func:`warc_offsets`)."""
    with Path(path).open("rb") as handle:
        handle.seek(offset)
        page = _html_page(next(iter(_archive_iterator(handle))))
    if page is None:
        raise ValueError(f"no HTML response at offset {offset} of {path}")
    return page

