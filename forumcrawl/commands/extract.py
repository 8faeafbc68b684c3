"""``forumcrawl extract``: extract saved pages (files or folders of .html / .html.gz) to JSON Lines."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

NAME = "extract"
HELP = "extract saved pages (.html, .html.gz, .warc[.gz], folders of them) to JSON Lines, on all cores"

logger = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl extract``."""
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="page or WARC files, or folders (searched recursively)"
    )
    parser.add_argument("-o", "--output", metavar="OUT.jsonl", help="output file (default: standard output)")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="worker processes (default: all cores)")
    parser.add_argument(
        "--method",
        metavar="NAME",
        help="run only this cascade stage (e.g. cx, ksf) instead of the whole cascade",
    )
    parser.add_argument(
        "--cascade",
        metavar="A,B",
        help="comma-separated stages in order (default: the FORUMCRAWL_EXTRACT_CASCADE default)",
    )
    parser.add_argument(
        "--value-filter",
        action="store_true",
        help="judge posts (or text blocks) with the Naive Bayes value model: a worthless first post"
        " drops the page, later worthless posts are flagged (worthless: true)",
    )
    parser.add_argument(
        "--drop-worthless",
        action="store_true",
        help="with --value-filter, remove worthless later posts and blocks instead of flagging"
        " them",
    )
    parser.add_argument(
        "--value-model",
        metavar="MODEL.json",
        help="with --value-filter, a model from 'forumcrawl train value' (default: the shipped one)",
    )
    parser.add_argument(
        "--engine",
        choices=("process", "dask"),
        default="process",
        help="process: a pool on this machine (default); dask: a Dask cluster",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="with --engine dask: a running scheduler (tcp://host:8786); default: a local cluster of -j workers",
    )
    parser.add_argument(
        "--kind",
        choices=("auto", "thread", "article"),
        default="auto",
        help="item kind to write (auto: thread when several posts are found)",
    )


def run(args: argparse.Namespace) -> int:
    """Extract every page and write one JSON object per line; errors per page are counted."""
    from forumcrawl.cli import CommandError
    from forumcrawl.defaults import FORUMCRAWL_EXTRACT_CASCADE, FORUMCRAWL_EXTRACT_MIN_CHARS
    from forumcrawl.offline import ExtractOptions, extract_paths

    if args.method and args.cascade:
        raise CommandError("give either --method or --cascade, not both")
    if (args.drop_worthless or args.value_model) and not args.value_filter:
        raise CommandError("--drop-worthless and --value-model go with --value-filter")
    if args.value_model:
        from forumcrawl.extractors.value_model import load_value_model

        try:  # here, so a bad model fails once instead of in every worker
            load_value_model(args.value_model)
        except (OSError, ValueError, KeyError) as exc:
            raise CommandError(f"cannot read the value model {args.value_model}: {exc}") from exc
    if args.method:
        cascade = (args.method,)
    elif args.cascade:
        cascade = tuple(s.strip() for s in args.cascade.split(",") if s.strip())
    else:
        cascade = tuple(FORUMCRAWL_EXTRACT_CASCADE)
    options = ExtractOptions(
        cascade=cascade,
        kind=args.kind,
        min_chars=FORUMCRAWL_EXTRACT_MIN_CHARS,
        value_filter=args.value_filter,
        value_drop=args.drop_worthless,
        value_model=args.value_model,
    )
    if args.jobs < 0:
        raise CommandError("--jobs must be 0 (all cores) or more")
    if args.scheduler and args.engine != "dask":
        raise CommandError("--scheduler goes with --engine dask")
    if args.engine == "dask":
        from forumcrawl.engines import run_dask

        records = run_dask(args.paths, options, scheduler=args.scheduler, n_workers=args.jobs or 2)
    else:
        records = extract_paths(args.paths, options=options, jobs=args.jobs or None)
    started = time.perf_counter()
    counts = {"pages": 0, "empty": 0, "worthless": 0, "errors": 0}
    out = Path(args.output).open("w", encoding="utf-8") if args.output else sys.stdout
    try:
        for record in records:
            counts["pages"] += 1
            if record.get("error"):
                counts["errors"] += 1
                logger.warning("%s: %s", record["id"], record["error"])
            elif record.get("worthless"):
                counts["worthless"] += 1
            elif not record.get("text"):
                counts["empty"] += 1
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        if out is not sys.stdout:
            out.close()
    logger.info(
        "extracted %(pages)d pages (%(empty)d without content, %(errors)d unreadable),"
        " %(worthless)d dropped as worthless, in %(seconds).1fs",
        {**counts, "seconds": time.perf_counter() - started},
    )
    return 0
