"""Sub-commands of the ``forumcrawl`` program, one module each.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``; the
list below fixes their order in ``forumcrawl --help``.
"""

COMMANDS = ("demo", "extract", "eval", "blocks", "urls", "train", "links", "push")


class CommandError(Exception):
    """A user-facing error: printed as ``forumcrawl NAME: error: …`` with exit status 2."""
