"""What would stop a crawl at its start, found before it starts and told in one line.

Inside Scrapy, a spider argument or setting that cannot work fails while the crawler builds the
spider, in an asyncio task: the user gets a traceback and, for an unreachable Redis, a minute of
retries. ``forumcrawl crawl`` and the project's ``scrapy crawl`` run :func:`check_crawl` first and
print its :class:`CrawlSetupError` as one line with a non-zero status.
"""

from __future__ import annotations

from collections.abc import Mapping

from scrapy.settings import BaseSettings
from scrapy.spiderloader import get_spider_loader

from forumcrawl.config import type_settings
from forumcrawl.feeds import FeedError, check_feeds
from forumcrawl.pages import Cascade
from forumcrawl.pipelines.threads import ITEM_KINDS

__all__ = ["CrawlSetupError", "check_crawl"]


class CrawlSetupError(Exception):
    """A spider argument or setting the crawl cannot start with; the message is one line."""


def check_crawl(spider: str, settings: BaseSettings, spider_args: Mapping[str, str]) -> None:
    """Raise :class:`CrawlSetupError` unless ``spider`` can start with these settings and arguments.

    Types the FORUMCRAWL_* values of ``settings`` in place (as the add-on would).
    """
    from forumcrawl.redis.keys import REDIS_ERRORS, client_from_settings, redis_url_from_settings
    from forumcrawl.spiders.redis import RedisSiteSpider

    try:
        spidercls = get_spider_loader(settings).load(spider)
    except KeyError:
        raise CrawlSetupError(f"no spider {spider!r}") from None
    try:
        type_settings(settings)
        Cascade(settings.getlist("FORUMCRAWL_EXTRACT_CASCADE"))
        item = settings.get("FORUMCRAWL_ITEM", "page")
        if item not in ITEM_KINDS:
            raise ValueError(f"FORUMCRAWL_ITEM: expected one of {', '.join(ITEM_KINDS)}, got {item!r}")
        # The spider's own constructor is the one check of its arguments (start, topic_example).
        spidercls(**spider_args)
    except ValueError as exc:
        raise CrawlSetupError(str(exc)) from None
    url = redis_url_from_settings(settings)
    if issubclass(spidercls, RedisSiteSpider) and not url:
        raise CrawlSetupError(f"the {spider} spider needs FORUMCRAWL_REDIS_URL (or REDIS_URL)=redis://…")
    if url:
        try:
            client_from_settings(settings).ping()
        except (*REDIS_ERRORS, ValueError) as exc:
            raise CrawlSetupError(f"Redis at {url} unavailable: {exc}") from None
    # last: it creates (and locks) the feed files, which a crawl refused above must not leave
    try:
        check_feeds(settings)
    except FeedError as exc:
        raise CrawlSetupError(str(exc)) from None
