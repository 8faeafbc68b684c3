"""A universe of generated forums: seed -> one forum, varying independently along many dimensions.

Each seed draws a value of every dimension in :data:`DIMENSIONS` (URL schemes of threads, boards
and members, permalinks and post-number URLs, short and explicit-page aliases, lite copies,
pagers, listings, post markup, where author, time and title live, quotes, signatures, edit marks,
code blocks, ads, login walls, encodings, faulty servers, broken pages), a size, and content
(:mod:`forumcrawl.mockforum.plan`); the forum is served with its exact truth
(:class:`~forumcrawl.mockforum.truth.SiteTruth`), which ``forumcrawl.evaluation`` and
``benchmarks/universe.py`` score crawls against::

    with serve_seed(104) as server:
        server.site.dims          # the forum's dimensions
        server.truth              # its SiteTruth
        ...crawl server.url...

``python -m forumcrawl.mockforum --universe 104`` serves one to look at. Seeds 0-99 are for tuning,
100-199 are held apart for reporting.
"""

from __future__ import annotations

from forumcrawl.mockforum.universe.dimensions import (
    DIMENSIONS,
    Dimensions,
    Sizes,
    draw,
    parse_seeds,
    resolve,
    sizes_for,
)
from forumcrawl.mockforum.universe.site import Faults, UniverseSite, serve_seed

__all__ = ["DIMENSIONS", "HELD_APART", "TUNING", "Dimensions", "Faults", "Sizes", "UniverseSite",
           "draw", "parse_seeds", "resolve", "serve_seed", "sizes_for"]

#: Seeds constants and rules may be chosen on.
TUNING = range(0, 100)
#: Seeds only reported on.
HELD_APART = range(100, 200)
