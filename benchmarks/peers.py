"""Run a peer (trafilatura or readability-lxml) over a folder of saved pages and write its output
in our predictions format.

Its figures then come from the same scorer as ours (``forumcrawl eval``)::

    python benchmarks/peers.py ../shared/data/aeb-articles-en -o trafilatura.jsonl
    python benchmarks/peers.py ../shared/data/aeb-articles-en --peer readability -o readability.jsonl
    forumcrawl eval ../shared/data/aeb-articles-en trafilatura.jsonl

trafilatura gets what ``forumcrawl extract`` gets: the page bytes (it decodes them itself) and no
URL. Its settings are the defaults; JSON output with metadata only adds title, author and date.
``text`` is the body followed by the comments, which is what its default text output returns.
readability-lxml gets the same bytes; ``text`` is the text of its ``summary()`` HTML, one line per
block, and ``title`` its ``short_title()`` (it reads no author or date).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import lxml.etree
import lxml.html
import trafilatura

PAGE_SUFFIX = ".html.gz"
_XML_DECLARATION_RE = re.compile(r"^\s*<\?xml[^>]*\?>")


def page_files(folder: Path) -> list[Path]:
    """The pages of a data folder (``folder/pages/*.html.gz``, or ``folder/*.html.gz``)."""
    pages = folder / "pages" if (folder / "pages").is_dir() else folder
    files = sorted(pages.glob(f"*{PAGE_SUFFIX}"))
    if not files:
        raise FileNotFoundError(f"no *{PAGE_SUFFIX} pages in {pages}")
    return files


def read_page(path: Path) -> bytes:
    """The page's bytes as published (gunzipped, not decoded)."""
    return gzip.decompress(path.read_bytes())


def parse_page(body: bytes) -> lxml.html.HtmlElement | None:
    """A bare parse, the floor any DOM-based extractor pays: decode as UTF-8 (errors
    replaced), ``lxml.html.document_fromstring`` (None when lxml finds no document)."""
    # lxml refuses str input that declares an encoding.
    text = _XML_DECLARATION_RE.sub("", body.decode("utf-8", errors="replace"), count=1)
    try:
        return lxml.html.document_fromstring(text)
    except lxml.etree.ParserError:
        return None


def trafilatura_record(body: bytes, page_id: str) -> dict[str, Any]:
    """One prediction: trafilatura's defaults plus metadata, mapped onto our fields."""
    raw = trafilatura.extract(body, output_format="json", with_metadata=True)
    if raw is None:
        return {"id": page_id, "text": "", "title": None, "author": None, "published": None}
    data = json.loads(raw)
    text = "\n".join(part for part in (data.get("text"), data.get("comments")) if part)
    return {
        "id": page_id,
        "text": text,
        "title": data.get("title"),
        "author": data.get("author"),
        "published": data.get("date"),
    }


_BLOCK_TAGS = ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "tr", "br", "table", "ul", "ol", "dd", "dt")


def readability_record(body: bytes, page_id: str) -> dict[str, Any]:
    """One prediction of readability-lxml: its ``summary()``'s text, a line per block."""
    # Imported here: the other scripts that read pages through this module (speed.py,
    # instructions.py) count their imports as the floor.
    from readability import Document as ReadabilityDocument

    document = ReadabilityDocument(body)
    root = lxml.html.fromstring(document.summary(html_partial=True))
    for element in root.iter(*_BLOCK_TAGS):
        element.tail = "\n" + element.tail if element.tail else "\n"
    lines = (" ".join(line.split()) for line in root.text_content().splitlines())
    return {
        "id": page_id,
        "text": "\n".join(line for line in lines if line),
        "title": document.short_title() or None,
        "author": None,
        "published": None,
    }


PEERS = {"trafilatura": trafilatura_record, "readability": readability_record}


def _record_for_file(peer: str, path: Path) -> dict[str, Any]:
    page_id = path.name[: -len(PAGE_SUFFIX)]
    try:
        return PEERS[peer](read_page(path), page_id)
    except Exception as exc:  # noqa: BLE001  (a crash on one page is a result, not a stop)
        return {"id": page_id, "text": "", "error": f"{type(exc).__name__}: {exc}"}


def peer_predictions(
    folder: Path, jobs: int = 1, peer: str = "trafilatura"
) -> Iterator[dict[str, Any]]:
    """A peer's predictions for every page of ``folder``, in file order, on ``jobs`` processes."""
    files = page_files(folder)
    record = partial(_record_for_file, peer)
    if jobs <= 1:
        yield from map(record, files)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(record, files, chunksize=8)


def write_jsonl(records: Iterable[dict[str, Any]], out: Path) -> int:
    """Write ``records`` to ``out``, one JSON object a line; returns how many."""
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count


def gold_folders(data: Path, names: str | None = None) -> list[Path]:
    """The folders of ``data`` that have a ``gold.jsonl`` (only ``names``, comma-separated)."""
    folders = sorted(p.parent for p in data.glob("*/gold.jsonl"))
    if names:
        wanted = set(names.split(","))
        folders = [f for f in folders if f.name in wanted]
    return folders


def write_predictions(folder: Path, out: Path, jobs: int = 1, peer: str = "trafilatura") -> int:
    """Write a peer's predictions for ``folder`` to ``out``; returns the page count."""
    return write_jsonl(peer_predictions(folder, jobs, peer), out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="data folder (with pages/) or folder of pages")
    parser.add_argument("-o", "--output", type=Path, required=True, help="predictions .jsonl")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--peer", choices=sorted(PEERS), default="trafilatura", help="%(default)s")
    args = parser.parse_args(argv)
    try:
        count = write_predictions(args.folder, args.output, args.jobs, args.peer)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    print(f"{args.peer}: {count} pages -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
