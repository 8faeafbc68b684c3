"""``forumcrawl links FILE_OR_URL``: every link of a page with its information-link probability.

Someone checking why the crawl followed (or skipped) a page first needs to see what the link
classifier saw: each link's probability and the features behind it (seed 002 §1).
"""

from __future__ import annotations

import argparse
import gzip
import zlib
from pathlib import Path
from urllib.parse import urlsplit

NAME = "links"
HELP = "print every link of a page (.html, .html.gz or a local URL) with its probability and features"

#: Width of the anchor-text and URL columns.
TEXT_WIDTH = 24
URL_WIDTH = 70
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl links``."""
    parser.add_argument(
        "source",
        metavar="FILE_OR_URL",
        help="a saved page (.html/.html.gz) or an http URL on 127.0.0.1/localhost",
    )
    parser.add_argument(
        "--base-url", metavar="URL", help="URL the saved page was fetched from (resolves links)"
    )
    parser.add_argument("--model", metavar="links.json", help="a model other than the shipped one")
    parser.add_argument(
        "--sort", action="store_true", help="most probable first instead of page order"
    )


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _load(args: argparse.Namespace) -> tuple[bytes, str, str | None]:
    from forumcrawl.cli import CommandError

    if args.source.startswith(("http://", "https://")):
        from forumcrawl.training.links import fetch_local

        if urlsplit(args.source).hostname not in _LOCAL_HOSTS:
            raise CommandError("only URLs on 127.0.0.1/localhost are fetched; save the page first")
        got = fetch_local(args.source)
        if got is None:
            raise CommandError(f"{args.source}: no HTML page there")
        return got[0], args.base_url or args.source, got[1]
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
    from forumcrawl.extractors.links import link_records, load_link_model

    body, url, content_type = _load(args)
    try:
        document = Document.from_bytes(body, url, content_type)
        model = load_link_model(args.model)
    except (DocumentError, OSError, ValueError, KeyError) as exc:
        raise CommandError(f"{args.source}: {exc}") from exc
    records = link_records(document)
    if not records:
        print(f"{args.source}: no links")
        return 0
    probabilities = model.predict_proba(records)[:, 1]
    features = model.named_steps["features"]
    names = list(features.get_feature_names_out())
    rows = features.transform(records)
    order = range(len(records))
    if args.sort:
        order = sorted(order, key=lambda i: -probabilities[i])
    print(f"{args.source}: {len(records)} links, {int((probabilities >= 0.5).sum())} information links")
    for i in order:
        values = " ".join(f"{name}={value:.3g}" for name, value in zip(names, rows[i]))
        text, href = _clip(records[i].text, TEXT_WIDTH), _clip(records[i].href, URL_WIDTH)
        print(f"{probabilities[i]:.2f}  {text:{TEXT_WIDTH}}  {href:{URL_WIDTH}}  {values}")
    return 0
