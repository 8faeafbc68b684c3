"""Trainers behind ``forumcrawl train NAME``: each rebuilds a shipped model from labelled data.

Each module defines ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
"""

#: Trainer name → module under ``forumcrawl.training``.
TRAINERS = {"links": "links", "value": "value"}
