"""The ``forumcrawl`` command: offline extraction, evaluation, rule learning and the demo."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from forumcrawl import __version__
from forumcrawl.commands import COMMANDS, CommandError

__all__ = ["CommandError", "main"]


class _Parser(argparse.ArgumentParser):
    """Reads ``-:FORMAT`` as a value, as Scrapy's parser does (``crawl -O -:jsonl``: stdout)."""

    def _parse_optional(self, arg_string: str) -> Any:
        if arg_string.startswith("-:"):
            return None
        return super()._parse_optional(arg_string)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with one sub-parser per module of :mod:`forumcrawl.commands`; given
    the ``command`` about to run, only its sub-parser reads its arguments (some commands' options
    import what they run: ``train``'s, every trainer, 0.16 s of a process's start-up), the
    others are listed with their help."""
    parser = argparse.ArgumentParser(
        prog="forumcrawl",
        description="Crawl and extract forums and news sites; see also `scrapy crawl forum`.",
    )
    parser.add_argument("--version", action="version", version=f"forumcrawl {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )
    for name in COMMANDS:
        module = importlib.import_module(f"forumcrawl.commands.{name}")
        sub = subparsers.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        if command in (None, module.NAME):
            module.add_arguments(sub)
        sub.set_defaults(run=module.run, scrapy_logs=getattr(module, "SCRAPY_LOGS", False))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(next((word for word in words if not word.startswith("-")), None))
    args = parser.parse_args(argv)
    if not args.scrapy_logs:
        # A command that runs a crawl logs through Scrapy's one root handler (LOG_* settings);
        # a second handler here would print every line twice.
        logging.basicConfig(
            level=logging.DEBUG if args.verbose else logging.INFO,
            format="%(asctime)s [%(name)s] %(levelname)s: %(message)s",
        )
    try:
        return int(args.run(args))
    except CommandError as exc:
        parser.exit(2, f"forumcrawl {args.command}: error: {exc}\n")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader left (``forumcrawl links URL --format tsv | head``): stop quietly, and keep
        # Python from failing again on flushing stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
