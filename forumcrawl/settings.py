"""Scrapy project settings for forumcrawl: polite defaults, UTF-8 feeds, our components.

Every ``FORUMCRAWL_*`` default lives in :mod:`forumcrawl.defaults` and is imported here so that
``scrapy settings --get`` and ``-s`` overrides see them. An environment variable of the same name
overrides a default (``-s`` still wins); the add-on types its text (:mod:`forumcrawl.config`).
"""

import os

from forumcrawl.config import environment_settings
from forumcrawl.defaults import *  # noqa: F403  (the settings module is a namespace by design)

globals().update(environment_settings(os.environ))

BOT_NAME = "forumcrawl"
SPIDER_MODULES = ["forumcrawl.spiders"]
NEWSPIDER_MODULE = "forumcrawl.spiders"
#: ``scrapy crawl`` checks spider arguments and settings before the crawl (one-line errors).
COMMANDS_MODULE = "forumcrawl.scrapy_commands"

USER_AGENT = "forumcrawl/0.1 (a polite research crawler; obeys robots.txt)"
ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0
RETRY_TIMES = 2
#: Scrapy's codes without 500: a gateway, a timeout or a rate limit passes with time, while a
#: 500 is the site's application failing on that URL (a broken plugin page), and asked again at
#: once it fails again: two more requests to a site for nothing.
RETRY_HTTP_CODES = [502, 503, 504, 522, 524, 408, 429]
DOWNLOAD_TIMEOUT = 60
DOWNLOAD_MAXSIZE = FORUMCRAWL_MAX_PAGE_BYTES  # noqa: F405
DOWNLOAD_WARNSIZE = 4 * 1024 * 1024

#: Installs Redis mode when FORUMCRAWL_REDIS_URL is set (forumcrawl/addon.py).
ADDONS = {"forumcrawl.addon.ForumcrawlAddon": 0}

SPIDER_MIDDLEWARES = {"forumcrawl.middlewares.LinkScoringMiddleware": 600}
EXTENSIONS = {"forumcrawl.statsfile.StatsFile": 900}
DOWNLOADER_MIDDLEWARES = {
    "forumcrawl.middlewares.NavigationMiddleware": 50,
    "forumcrawl.middlewares.LoginWallMiddleware": 620,
}

ITEM_PIPELINES = {
    "forumcrawl.pipelines.validate.ValidatePipeline": 300,
    "forumcrawl.pipelines.dedup.DedupPipeline": 400,
    "forumcrawl.pipelines.incremental.IncrementalPipeline": 450,
    "forumcrawl.pipelines.threads.ThreadPipeline": 500,
}
FEED_EXPORT_ENCODING = "utf-8"
FEED_EXPORTERS = {"csv": "forumcrawl.exporters.ForumCsvItemExporter"}

LOG_LEVEL = "INFO"
