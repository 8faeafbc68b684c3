"""Distributed crawling on one Redis: a leased frontier, shared rules, durable acknowledgement.

Everything here is switched on by ``FORUMCRAWL_REDIS_URL`` (or scrapy-redis's ``REDIS_URL``/
``REDIS_HOST``) through :mod:`forumcrawl.addon`, and builds on scrapy-redis's scheduler, queue,
dupefilter, pipeline and key conventions; without it forumcrawl stays embedded.
"""

from forumcrawl.redis.keys import ClusterKeys, connect
from forumcrawl.redis.queue import LeasedQueue
from forumcrawl.redis.rules import RedisRuleStore

__all__ = ["ClusterKeys", "LeasedQueue", "RedisRuleStore", "connect"]
