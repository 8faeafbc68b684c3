"""The forumcrawl add-on: FORUMCRAWL_* values typed, and FORUMCRAWL_REDIS_URL's cluster mode.

Every FORUMCRAWL_* value given as text (``-s``, environment) first takes its default's type
(:func:`forumcrawl.config.type_settings`: JSON or comma lists, one-line errors). Then one setting,
FORUMCRAWL_REDIS_URL, turns a crawl into a cluster worker. Without it nothing changes (embedded
crawl, no server). With it, at ``"addon"`` priority so ``-s`` still wins: the scheduler becomes
:class:`~forumcrawl.redis.scheduler.LeasedRedisScheduler` (its frontier also deduplicates, so
Scrapy's own dupefilter is off), the rule store becomes
:class:`~forumcrawl.redis.rules.RedisRuleStore`, the lease middleware is installed outermost, the
content dedup pipeline is shared through Redis and, with FORUMCRAWL_REDIS_ITEMS, items are also
appended to a Redis list.
"""

from __future__ import annotations

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings

from forumcrawl import defaults
from forumcrawl.config import type_settings

__all__ = ["ForumcrawlAddon"]

#: Outermost spider middleware: sees every callback's complete output.
LEASE_MIDDLEWARE_ORDER = 1


class ForumcrawlAddon:
    """Scrapy add-on (``ADDONS`` in forumcrawl/settings.py)."""

    def update_settings(self, settings: BaseSettings) -> None:
        type_settings(settings)
        if not settings.get("FORUMCRAWL_REDIS_URL"):
            return
        settings.set("SCHEDULER", "forumcrawl.redis.scheduler.LeasedRedisScheduler", "addon")
        settings.set("DUPEFILTER_CLASS", "scrapy.dupefilters.BaseDupeFilter", "addon")
        if settings["FORUMCRAWL_RULES_STORE"] == defaults.FORUMCRAWL_RULES_STORE:
            # the default comes from the settings module at "project" priority, above "addon"
            priority = max(settings.getpriority("FORUMCRAWL_RULES_STORE") or 0, SETTINGS_PRIORITIES["addon"])
            settings.set("FORUMCRAWL_RULES_STORE", "forumcrawl.redis.rules.RedisRuleStore", priority)
        settings.set_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "forumcrawl.redis.middleware.LeaseAckMiddleware", LEASE_MIDDLEWARE_ORDER
        )
        pipelines = settings.getdict("ITEM_PIPELINES")
        dedup_order = pipelines.get("forumcrawl.pipelines.dedup.DedupPipeline")
        if dedup_order is not None:
            settings.set_in_component_priority_dict("ITEM_PIPELINES", "forumcrawl.pipelines.dedup.DedupPipeline", None)
            settings.set_in_component_priority_dict(
                "ITEM_PIPELINES", "forumcrawl.redis.pipelines.RedisDedupPipeline", dedup_order
            )
        settings.set_in_component_priority_dict(
            "ITEM_PIPELINES", "forumcrawl.redis.pipelines.RedisItemsPipeline", 800
        )
