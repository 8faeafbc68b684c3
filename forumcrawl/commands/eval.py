"""``forumcrawl eval GOLD_DIR PRED_JSONL``: score predictions against a gold folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NAME = "eval"
HELP = "score extraction output (JSON Lines) against a gold folder's gold.jsonl"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``forumcrawl eval``."""
    parser.add_argument("gold_dir", metavar="GOLD_DIR", type=Path, help="folder with gold.jsonl")
    parser.add_argument(
        "predictions",
        metavar="PRED_JSONL",
        type=Path,
        help="predictions, one JSON object per page with the gold 'id' (as `forumcrawl extract` "
        "writes them)",
    )
    parser.add_argument(
        "--json", metavar="OUT", type=Path, help="also write the summary as JSON to OUT"
    )
    parser.add_argument(
        "--per-page", metavar="OUT.jsonl", type=Path, help="write every page's scores to OUT.jsonl"
    )
    parser.add_argument(
        "--with-quotes",
        action="store_true",
        help="the gold posts keep the quotes they hold (Harvest): score each post's text with "
        "its quotes",
    )


def run(args: argparse.Namespace) -> int:
    """Score, print the table, write the requested files; 0 on success."""
    # Imported here: the CLI imports every command module to build its parser.
    from forumcrawl.cli import CommandError
    from forumcrawl.evaluation import evaluate, format_report

    if not args.gold_dir.is_dir():
        raise CommandError(f"{args.gold_dir}: no such directory")
    if not args.predictions.is_file():
        raise CommandError(f"{args.predictions}: no such file")
    try:
        report = evaluate(args.gold_dir, args.predictions, with_quotes=args.with_quotes)
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    try:
        if args.json:
            args.json.write_text(
                json.dumps(report.to_dict(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
            )
        if args.per_page:
            with args.per_page.open("w", encoding="utf-8") as out:
                for page in report.pages:
                    out.write(json.dumps(page.to_dict(), ensure_ascii=False) + "\n")
    except OSError as exc:
        raise CommandError(f"cannot write {exc.filename}: {exc.strerror}") from exc
    sys.stdout.write(format_report(report) + "\n")
    return 0
