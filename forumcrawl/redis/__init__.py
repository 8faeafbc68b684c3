"""Distributed crawling on one Redis: a leased frontier, shared rules, durable acknowledgement.

Everything here is switched on by ``FORUMCRAWL_REDIS_URL`` through :mod:`forumcrawl.addon`; without
it forumcrawl stays embedded and never imports redis at crawl time.
"""

from forumcrawl.redis.keys import ClusterKeys, connect
from forumcrawl.redis.queue import LeasedQueue
from forumcrawl.redis.rules import RedisRuleStore

__all__ = ["ClusterKeys", "LeasedQueue", "RedisRuleStore", "connect"]
