"""Sub-commands of the ``forumcrawl`` program, one module each.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``; the
list below fixes their order in ``forumcrawl --help``.
"""

COMMANDS = ("demo", "extract", "eval", "blocks", "urls", "train", "links", "push")
