"""``scrapy crawl`` in the forumcrawl project: Scrapy's command, with forumcrawl's checks first.

Scrapy builds the spider inside an asyncio task, so a missing ``-a start`` or an unknown cascade
stage ended in "Task exception was never retrieved" and a traceback. The checks of
:func:`forumcrawl.preflight.check_crawl` run before the crawl instead, and a failed one is a
single line with exit status 2, as in ``forumcrawl crawl``.
"""

from __future__ import annotations

import argparse
import sys

from scrapy.commands.crawl import Command as ScrapyCrawlCommand

from forumcrawl.preflight import CrawlSetupError, check_crawl

__all__ = ["Command"]

#: Exit status of a usage error, as argparse and ``forumcrawl`` give it.
USAGE_ERROR = 2


class Command(ScrapyCrawlCommand):
    """Scrapy's ``crawl``, refusing at once what the crawl could not start with."""

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) == 1:
            assert self.settings is not None
            try:
                check_crawl(args[0], self.settings, opts.spargs)
            except CrawlSetupError as exc:
                sys.stderr.write(f"scrapy crawl: error: {exc}\n")
                self.exitcode = USAGE_ERROR
                return
        super().run(args, opts)
