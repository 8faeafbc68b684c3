"""``forumcrawl blocks``: show the CX line-block curve of one saved page, and plot it.

A person tuning or debugging CX needs to see what the method sees: the curve of block lengths
over the line numbers and the region it chose (the paper's figures 3-9).
"""

from __future__ import annotations

import argparse
import gzip
import zlib
from pathlib import Path

NAME = "blocks"
HELP = "print the CX line-block curve of a page (.html or .html.gz) and optionally plot it"

#: How many lines of the extracted text the summary shows.
PREVIEW_LINES = 5
PREVIEW_WIDTH = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl blocks``."""
    from forumcrawl.extractors.cx import DEFAULT_K

    parser.add_argument("file", metavar="FILE", help="a saved page, .html or .html.gz")
    parser.add_argument(
        "--k", type=int, default=DEFAULT_K, help=f"block thickness in lines (default {DEFAULT_K})"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        metavar="N",
        help="sharp-rise threshold in characters (default: adaptive, at most the paper's 86)",
    )
    parser.add_argument("--plot", metavar="OUT.png", help="draw the curve and the chosen region")


def _read(path: Path) -> bytes:
    from forumcrawl.cli import CommandError

    if not path.is_file():
        raise CommandError(f"{path}: no such file")
    try:
        body = path.read_bytes()
        return gzip.decompress(body) if path.name.endswith(".gz") else body
    except (OSError, EOFError, zlib.error) as exc:
        raise CommandError(f"{path}: cannot read: {exc}") from exc


def _clip(text: str) -> str:
    return text if len(text) <= PREVIEW_WIDTH else text[: PREVIEW_WIDTH - 1] + "…"


def run(args: argparse.Namespace) -> int:
    """Run CX on the page, print the curve's summary and write the plot when asked."""
    from forumcrawl.cli import CommandError
    from forumcrawl.document import Document, DocumentError
    from forumcrawl.extractors.cx import LineBlockExtractor, plot_blocks

    if args.k < 1:
        raise CommandError("--k must be at least 1")
    path = Path(args.file)
    try:
        document = Document.from_bytes(_read(path), url=path.resolve().as_uri())
    except DocumentError as exc:
        raise CommandError(f"{path}: {exc}") from exc
    result = LineBlockExtractor(k=args.k, threshold=args.threshold).extract(document)

    blocks = result.blocks
    print(f"{path}: {len(result.lines)} lines, {len(blocks)} blocks of {result.k} lines")
    if not result.text:
        print("no text found")
    else:
        top = max(range(len(blocks)), key=blocks.__getitem__)
        chars = sum(len("".join(line.split())) for line in result.text.splitlines())
        print(f"highest block: {blocks[top]} characters at line {top}")
        print(f"threshold: {result.threshold:g}")
        print(f"main region: lines {result.start}-{result.end - 1}")
        others = [f"{start}-{end - 1}" for start, end in result.regions if start != result.start]
        print(f"other regions kept: {', '.join(others) if others else 'none'}")
        text_lines = result.text.splitlines()
        print(f"text: {len(text_lines)} lines, {chars} characters without whitespace")
        for line in text_lines[:PREVIEW_LINES]:
            print(f"  {_clip(line)}")
        if len(text_lines) > PREVIEW_LINES:
            print("  …")
    if args.plot:
        try:
            written = plot_blocks(result, args.plot, title=f"{path.name}: line-block distribution")
        except (RuntimeError, OSError) as exc:
            raise CommandError(f"cannot write the plot: {exc}") from exc
        print(f"plot written to {written}")
    return 0
