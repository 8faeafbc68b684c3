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
#: A fetch that failed is tried again three times, after 0.5, 1 and 2 s (or what the server's
#: Retry-After asks): forumcrawl.retry.BackoffRetryMiddleware. 500 is retried too: forums answer
#: 500 under load as often as 503, and a page given up is a thread page lost; the pages that fail
#: for good are listed at the end of the crawl (forumcrawl.failures).
RETRY_TIMES = 3
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
DOWNLOAD_TIMEOUT = 60
DOWNLOAD_MAXSIZE = FORUMCRAWL_MAX_PAGE_BYTES  # noqa: F405
DOWNLOAD_WARNSIZE = 4 * 1024 * 1024

#: Installs Redis mode when FORUMCRAWL_REDIS_URL is set (forumcrawl/addon.py).
ADDONS = {"forumcrawl.addon.ForumcrawlAddon": 0}

SPIDER_MIDDLEWARES = {"forumcrawl.middlewares.LinkScoringMiddleware": 600}
DOWNLOADER_MIDDLEWARES = {
    "forumcrawl.local.LocalRequestMiddleware": 10,
    "forumcrawl.failures.FailedPagesMiddleware": 20,
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "forumcrawl.retry.BackoffRetryMiddleware": 550,
    "forumcrawl.retry.RetriedRedirectMiddleware": 610,
    "forumcrawl.middlewares.NavigationMiddleware": 50,
    "forumcrawl.middlewares.LoginWallMiddleware": 620,
}

#: Scrapy's core stats without the local requests (wake-ups, learning triggers) that are not pages;
#: Scrapy's feed exporter that ends the crawl when its feed cannot be written; the stats file of
#: FORUMCRAWL_STATS_FILE.
EXTENSIONS = {
    "scrapy.extensions.corestats.CoreStats": None,
    "forumcrawl.local.CoreStats": 0,
    "scrapy.extensions.feedexport.FeedExporter": None,
    "forumcrawl.feeds.FeedExporter": 0,
    "forumcrawl.statsfile.StatsFile": 900,
}

ITEM_PIPELINES = {
    "forumcrawl.pipelines.validate.ValidatePipeline": 300,
    "forumcrawl.pipelines.dedup.DedupPipeline": 400,
    "forumcrawl.pipelines.incremental.IncrementalPipeline": 450,
    "forumcrawl.pipelines.threads.ThreadPipeline": 500,
    "forumcrawl.pipelines.limit.ItemLimitPipeline": 900,
}
FEED_EXPORT_ENCODING = "utf-8"
FEED_EXPORTERS = {
    "csv": "forumcrawl.exporters.ForumCsvItemExporter",
    "xml": "forumcrawl.exporters.ForumXmlItemExporter",
}

LOG_LEVEL = "INFO"
