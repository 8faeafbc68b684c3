"""Sub-commands of the ``forumcrawl`` program, one module each.

Each module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``, and
``SCRAPY_LOGS = True`` when it runs a crawl (Scrapy then owns the log handler); the list below
fixes their order in ``forumcrawl --help``.
"""

COMMANDS = ("demo", "crawl", "report", "rules", "extract", "eval", "blocks", "urls", "train", "links", "push", "cluster")


class CommandError(Exception):
    """A user-facing error: printed as ``forumcrawl NAME: error: …`` with exit status 2."""
