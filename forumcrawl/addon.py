"""The forumcrawl add-on: FORUMCRAWL_* values typed, and the cluster mode of a Redis URL.

Every FORUMCRAWL_* value given as text (``-s``, environment) first takes its default's type
(:func:`forumcrawl.config.type_settings`: JSON or comma lists, one-line errors). Then a Redis URL —
FORUMCRAWL_REDIS_URL, or scrapy-redis's REDIS_URL or REDIS_HOST/REDIS_PORT — turns a crawl into a
cluster worker. Without one nothing changes (embedded crawl, no server). With one, at ``"addon"``
priority so ``-s`` still wins: the scheduler becomes
:class:`~forumcrawl.redis.scheduler.LeasedRedisScheduler` with its
:class:`~forumcrawl.redis.dupefilter.LeasedDupeFilter`, the rule store becomes
:class:`~forumcrawl.redis.rules.RedisRuleStore`, stats are summed in Redis
(:class:`~forumcrawl.redis.stats.ClusterStatsCollector`), the lease and robots.txt spider
middlewares are installed outermost, the content dedup pipeline is shared through Redis and, with
FORUMCRAWL_REDIS_ITEMS, items are appended to ``<spider>:items``. scrapy-redis's own pipeline and
stats collector, when a project lists them, are replaced by these (same keys, same format).
"""

from __future__ import annotations

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings

from forumcrawl import defaults
from forumcrawl.config import type_settings
from forumcrawl.redis.keys import redis_url_from_settings

__all__ = ["ForumcrawlAddon"]

#: Outermost spider middleware: sees every callback's complete output.
LEASE_MIDDLEWARE_ORDER = 1
#: Just inside it: requests robots.txt forbids never reach Redis.
ROBOTS_MIDDLEWARE_ORDER = 2
#: Order of the Redis items pipeline unless scrapy-redis's had one.
ITEMS_PIPELINE_ORDER = 800

_SCRAPY_REDIS_PIPELINE = "scrapy_redis.pipelines.RedisPipeline"
_SCRAPY_REDIS_STATS = "scrapy_redis.stats.RedisStatsCollector"


def _set_at_least_addon(settings: BaseSettings, name: str, value: object) -> None:
    """Set ``name`` over a value from the settings module (``"project"`` priority, above addon)."""
    priority = max(settings.getpriority(name) or 0, SETTINGS_PRIORITIES["addon"])
    settings.set(name, value, priority)


class ForumcrawlAddon:
    """Scrapy add-on (``ADDONS`` in forumcrawl/settings.py)."""

    def update_settings(self, settings: BaseSettings) -> None:
        type_settings(settings)
        url = redis_url_from_settings(settings)
        if not url:
            return
        if not settings.get("FORUMCRAWL_REDIS_URL"):
            settings.set("FORUMCRAWL_REDIS_URL", url, "addon")
        settings.set("SCHEDULER", "forumcrawl.redis.scheduler.LeasedRedisScheduler", "addon")
        settings.set("DUPEFILTER_CLASS", "forumcrawl.redis.dupefilter.LeasedDupeFilter", "addon")
        if settings["FORUMCRAWL_RULES_STORE"] == defaults.FORUMCRAWL_RULES_STORE:
            _set_at_least_addon(settings, "FORUMCRAWL_RULES_STORE", "forumcrawl.redis.rules.RedisRuleStore")
        if settings["STATS_CLASS"] in {_SCRAPY_REDIS_STATS, "scrapy.statscollectors.MemoryStatsCollector"}:
            _set_at_least_addon(settings, "STATS_CLASS", "forumcrawl.redis.stats.ClusterStatsCollector")
        settings.set_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "forumcrawl.redis.middleware.LeaseAckMiddleware", LEASE_MIDDLEWARE_ORDER
        )
        settings.set_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", "forumcrawl.redis.middleware.RobotsFilterMiddleware", ROBOTS_MIDDLEWARE_ORDER
        )
        pipelines = settings.getdict("ITEM_PIPELINES")
        dedup_order = pipelines.get("forumcrawl.pipelines.dedup.DedupPipeline")
        if dedup_order is not None:
            settings.set_in_component_priority_dict("ITEM_PIPELINES", "forumcrawl.pipelines.dedup.DedupPipeline", None)
            settings.set_in_component_priority_dict(
                "ITEM_PIPELINES", "forumcrawl.redis.pipelines.RedisDedupPipeline", dedup_order
            )
        items_order = pipelines.get(_SCRAPY_REDIS_PIPELINE)
        if items_order is not None:
            settings.set_in_component_priority_dict("ITEM_PIPELINES", _SCRAPY_REDIS_PIPELINE, None)
            _set_at_least_addon(settings, "FORUMCRAWL_REDIS_ITEMS", True)
        settings.set_in_component_priority_dict(
            "ITEM_PIPELINES", "forumcrawl.redis.pipelines.RedisItemsPipeline", items_order or ITEMS_PIPELINE_ORDER
        )
