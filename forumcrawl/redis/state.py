"""The recrawl state of a cluster's sites in Redis (``FORUMCRAWL_INCREMENTAL`` in cluster mode).

A cluster's crawl is the work between two ``forumcrawl push --reset``: its id is
``<prefix>:<spider>:crawl``, set by the first worker that opens and deleted by the reset. Each
site has one HASH ``<prefix>:<spider>:state:<site>`` (:meth:`ClusterKeys.state`):

- ``crawl``: the crawl the fields below belong to;
- ``base``: the state that crawl started from (JSON, as an embedded crawl's state file);
- ``next``: the state it leaves, and ``count``, how many workers' shares it holds.

The first worker of a new crawl to read a site's state makes the last crawl's ``next`` the new
``base`` (one Lua script, so every worker of the crawl starts from the same state). A worker that
closes appends what it saw (:meth:`SiteState.observations`) to the LIST
``…:state:<site>:shares`` and gets every share so far in the same script; the base with all of
them absorbed is written as ``next`` unless a share-fuller one is there already, so the last
worker to close leaves the whole crawl's state whatever the order. During a recrawl, a new post
goes out once: its identity is added to the SET ``…:state:<site>:posts``, and only the worker
that added it exports it (a post that two pages show, on two workers).

``forumcrawl push --reset`` keeps these keys (the next crawl is a recrawl); ``--forget`` deletes
them too. Blocking calls: the pipeline runs :meth:`claim` in a thread.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import datetime, timezone

import redis

from forumcrawl.redis.keys import ClusterKeys
from forumcrawl.state import SiteState

__all__ = ["RedisStates"]

_OPEN = """
if redis.call('HGET', KEYS[1], 'crawl') ~= ARGV[1] then
  local done = redis.call('HGET', KEYS[1], 'next')
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
  if done then redis.call('HSET', KEYS[1], 'base', done) end
  redis.call('HSET', KEYS[1], 'crawl', ARGV[1])
end
return redis.call('HGET', KEYS[1], 'base')
"""

_SHARE = """
if redis.call('HGET', KEYS[1], 'crawl') ~= ARGV[1] then return false end
redis.call('RPUSH', KEYS[2], ARGV[2])
return {redis.call('HGET', KEYS[1], 'base') or '', redis.call('LRANGE', KEYS[2], 0, -1)}
"""

_WRITE = """
if redis.call('HGET', KEYS[1], 'crawl') ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'count') or '0') > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[3], 'count', ARGV[2])
return 1
"""


class RedisStates:
    """The states of a cluster's sites: :func:`forumcrawl.state.load`/``save`` for a cluster,
    and the cluster-wide once-only claim of new posts."""

    def __init__(self, client: redis.Redis, keys: ClusterKeys) -> None:
        self.client = client
        self.keys = keys
        self._open = client.register_script(_OPEN)
        self._share = client.register_script(_SHARE)
        self._write = client.register_script(_WRITE)
        self._crawl: str | None = None

    def _keys(self, site: str) -> list[str]:
        state = self.keys.state(site)
        return [state, f"{state}:shares", f"{state}:posts"]

    @property
    def crawl(self) -> str:
        """This crawl's id (the first worker's open time and a random part)."""
        if self._crawl is None:
            mine = f"{datetime.now(timezone.utc).isoformat(timespec='seconds')} {uuid.uuid4().hex[:8]}"
            self.client.set(self.keys.crawl, mine, nx=True)
            self._crawl = (self.client.get(self.keys.crawl) or mine.encode()).decode()
        return self._crawl

    def load(self, site: str) -> SiteState:
        """The state ``site``'s crawl started from (a fresh one on a first crawl)."""
        raw = self._open(keys=self._keys(site), args=[self.crawl])
        return SiteState.from_dict(json.loads(raw)) if raw else SiteState(site)

    def save(self, state: SiteState, crawled_at: str) -> str:
        """Add this worker's share of ``state``'s site and write the crawl's state so far."""
        keys = self._keys(state.site)
        share = json.dumps(state.observations())
        answer = self._share(keys=keys, args=[self.crawl, share])
        if not answer:
            return f"nowhere: a newer crawl of {state.site} started ({keys[0]})"
        raw, shares = answer
        merged = SiteState.from_dict(json.loads(raw)) if raw else SiteState(state.site)
        for seen in shares:
            merged.absorb(json.loads(seen))
        self._write(keys=keys, args=[self.crawl, len(shares), json.dumps(merged.to_dict(crawled_at))])
        return f"Redis {keys[0]}"

    def claim(self, site: str, thread: str, identities: Sequence[str]) -> list[bool]:
        """For each new post of ``thread``, whether this worker is the first of the crawl to export it."""
        pipe = self.client.pipeline(transaction=False)
        for identity in identities:
            pipe.sadd(self._keys(site)[2], f"{thread} {identity}")
        return [bool(added) for added in pipe.execute()]
