"""``forumcrawl links FILE_OR_URL``: every link of a page with the probabilities that it leads to a
thread page and to a list page (a board).

Someone checking why the crawl followed (or skipped) a page first needs to see what the link
classifier saw: each link's probabilities and the features behind them (seed 002 §1). A live page is
fetched as the crawl would fetch it (:mod:`forumcrawl.fetch`).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import zlib
from pathlib import Path
from typing import Any

NAME = "links"
HELP = ("print every link of a page (.html, .html.gz or an http(s) URL) with its thread-page and "
        "list-page probabilities and features")

#: Widths of the table's anchor-text and URL columns: with the two probabilities and the gaps
#: between columns a row fits 100 columns. The features are in --format tsv/jsonl.
TEXT_WIDTH = 24
URL_WIDTH = 60
#: The table's header: the probabilities of a thread page and of a list page.
HEADER = f"{'thread':6}  {'list':4}  {'anchor text':{TEXT_WIDTH}}  URL"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl links``."""
    from forumcrawl.fetch import add_timeout_option
    from forumcrawl.output import add_format_option

    parser.add_argument(
        "source",
        metavar="FILE_OR_URL",
        help="a saved page (.html/.html.gz) or an http(s) URL (fetched obeying robots.txt)",
    )
    parser.add_argument(
        "--base-url", metavar="URL", help="URL the saved page was fetched from (resolves links)"
    )
    parser.add_argument("--model", metavar="links.json", help="a model other than the shipped one")
    parser.add_argument(
        "--sort", action="store_true",
        help="thread links first, then list links, most probable first, instead of page order"
    )
    add_format_option(parser, "long text and URLs cut to fit 100 columns, no features",
                      "one link a line, with its features")
    add_timeout_option(parser)


def _load(args: argparse.Namespace) -> tuple[bytes, str, str | None]:
    from forumcrawl.cli import CommandError

    if args.source.startswith(("http://", "https://")):
        from forumcrawl.fetch import Fetcher, FetchError
        from forumcrawl.runner import project_settings

        try:
            page = Fetcher.from_settings(project_settings(), timeout=args.timeout).fetch(args.source)
        except FetchError as exc:
            raise CommandError(str(exc)) from None
        if page.content_type and "html" not in page.content_type:
            raise CommandError(f"{args.source}: not an HTML page ({page.content_type})")
        return page.body, args.base_url or page.url, page.content_type
    path = Path(args.source)
    if not path.is_file():
        raise CommandError(f"{path}: no such file")
    try:
        body = path.read_bytes()
        body = gzip.decompress(body) if path.name.endswith(".gz") else body
    except (OSError, EOFError, zlib.error) as exc:
        raise CommandError(f"{path}: cannot read: {exc}") from exc
    return body, args.base_url or path.resolve().as_uri(), None


def run(args: argparse.Namespace) -> int:
    """Score the page's links and print one line per link."""
    from forumcrawl.cli import CommandError
    from forumcrawl.document import Document, DocumentError
    from forumcrawl.extractors.links import (
        link_records,
        load_link_model,
        thread_and_list_probabilities,
    )
    from forumcrawl.output import fit, write_rows

    fmt = args.format
    if args.timeout <= 0:
        raise CommandError("--timeout must be positive")
    body, url, content_type = _load(args)
    try:
        document = Document.from_bytes(body, url, content_type)
        model = load_link_model(args.model)
    except (DocumentError, OSError, ValueError, KeyError) as exc:
        raise CommandError(f"{args.source}: {exc}") from exc
    records = link_records(document)
    # The summary goes where the table goes; with tsv/jsonl, standard output holds only rows.
    notes = sys.stdout if fmt == "table" else sys.stderr
    if not records:
        notes.write(f"{args.source}: no links\n")
        return 0
    probabilities, lists = thread_and_list_probabilities(model, records)
    features = model.named_steps["features"]
    names = list(features.get_feature_names_out())
    values = features.transform(records)
    order = range(len(records))
    if args.sort:
        order = sorted(order, key=lambda i: (-probabilities[i], -lists[i]))
    notes.write(
        f"{args.source}: {len(records)} links, {int((probabilities >= 0.5).sum())} to thread pages, "
        f"{int((lists >= 0.5).sum())} to list pages\n"
    )
    if fmt == "table":
        print(HEADER)
        for i in order:
            text, href = fit(records[i].text, TEXT_WIDTH), fit(records[i].href, URL_WIDTH)
            print(f"{probabilities[i]:6.2f}  {lists[i]:4.2f}  {text}  {href}".rstrip())
        return 0
    rows: list[dict[str, Any]] = []
    for i in order:
        row: dict[str, Any] = {
            "probability": round(float(probabilities[i]), 4),
            "list_probability": round(float(lists[i]), 4),
            "text": records[i].text,
            "url": records[i].href,
        }
        features_of = {name: float(value) for name, value in zip(names, values[i])}
        if fmt == "jsonl":
            row["features"] = features_of
        else:
            row.update(features_of)
        rows.append(row)
    write_rows(rows, fmt, sys.stdout)
    return 0
