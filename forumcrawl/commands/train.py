"""``forumcrawl train NAME``: rebuild one of the shipped models (link classifier, value filter)."""

from __future__ import annotations

import argparse
import importlib

from forumcrawl.training import TRAINERS

NAME = "train"
HELP = "rebuild a shipped model from labelled data: " + ", ".join(sorted(TRAINERS))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One sub-command per trainer whose module is installed."""
    trainers = parser.add_subparsers(dest="trainer", metavar="NAME", required=True)
    for name, module_name in sorted(TRAINERS.items()):
        try:
            module = importlib.import_module(f"forumcrawl.training.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"forumcrawl.training.{module_name}":
                raise
            continue
        sub = trainers.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(train=module.run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen trainer."""
    return int(args.train(args))
