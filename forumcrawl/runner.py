"""Run a crawl from Python (the demo, benchmarks and tests) with the project's settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

__all__ = ["crawl", "project_settings", "run_spider"]


def project_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    """forumcrawl's Scrapy settings, wherever the current directory is, plus ``overrides``."""
    settings = Settings()
    settings.setmodule("forumcrawl.settings", priority="project")
    if overrides:
        settings.update(dict(overrides), priority="cmdline")
    return settings


def crawl(
    spider: str,
    start: Sequence[str],
    feed: str | Path,
    *,
    settings: Mapping[str, Any] | None = None,
    **spider_args: str,
) -> dict[str, Any]:
    """Crawl ``start`` with the named spider, write a JSON Lines ``feed``, return the crawl stats.

    Blocks until the crawl ends; starts a Twisted reactor, so call it once per process.
    """
    overrides = {"FEEDS": {str(feed): {"format": "jsonlines", "overwrite": True}}, **(settings or {})}
    return run_spider(spider, project_settings(overrides), {"start": ",".join(start), **spider_args})


def run_spider(spider: str, settings: Settings, spider_args: Mapping[str, str]) -> dict[str, Any]:
    """Run the named spider to its end with ``settings``; return the crawl stats.

    Logging goes through Scrapy's one root handler (LOG_* settings). Starts a Twisted reactor, so
    call it once per process.
    """
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(spider)
    process.crawl(crawler, **spider_args)
    process.start()
    assert crawler.stats is not None
    return dict(crawler.stats.get_stats())
