"""Threads in progress kept in Redis, so that any worker of a cluster completes a thread whose
pages other workers fetched (``FORUMCRAWL_ITEM=thread`` in cluster mode).

One HASH per thread (``<prefix>:<spider>:thread:<site> <thread_id>``: page number → the page as JSON,
and ``last``, the highest page its pages name) and one SET of the threads in progress
(``<prefix>:<spider>:threads``). Adding a page and taking a complete thread is one Lua script,
so exactly one worker sees the thread complete and emits it. The rule is
:func:`forumcrawl.threads.missing_pages`' (pages ``first..last`` all in, ``first`` 1 but on a
recrawl, whose pages start at the thread's last known one), counted in the script: counting
from 1 held every recrawled thread in Redis until the end of the crawl.
The same script keeps, per thread emitted whole, its last page (HASH ``<prefix>:<spider>:emitted``)
and refuses that page or an earlier one arriving again, whichever worker fetched it and however
close together: checked in the worker, two workers (or two items of one worker awaiting Redis at
once) each saw the thread unemitted, and a one-page thread came out twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import redis

from forumcrawl.redis.keys import ClusterKeys
from forumcrawl.threads import PageAgain, PageRecord

__all__ = ["RedisThreadBook"]

# KEYS: the thread's HASH, the SET of threads in progress, the emitted HASH. ARGV: thread, page,
# the last page the page names, the page as JSON, the first page a recrawl's page starts the
# thread's new pages from ('' for none). Returns the pages once complete, false while held, -1
# for a page of a thread emitted whole already.
_ADD = """
if tonumber(ARGV[2]) <= tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0') then return -1 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
local last = math.max(tonumber(redis.call('HGET', KEYS[1], 'last') or '0'), tonumber(ARGV[2]), tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'last', last)
local first = tonumber(redis.call('HGET', KEYS[1], 'first') or '1')
if ARGV[5] ~= '' and (redis.call('HEXISTS', KEYS[1], 'first') == 0 or tonumber(ARGV[5]) < first) then
  first = tonumber(ARGV[5])
  redis.call('HSET', KEYS[1], 'first', first)
end
local complete = true
if first == 1 then
  complete = redis.call('HLEN', KEYS[1]) - 1 - redis.call('HEXISTS', KEYS[1], 'first') >= last
else
  for n = first, last do
    if redis.call('HEXISTS', KEYS[1], tostring(n)) == 0 then complete = false break end
  end
end
if complete then
  local pages = redis.call('HGETALL', KEYS[1])
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[1])
  redis.call('HSET', KEYS[3], ARGV[1], last)
  return pages
end
redis.call('SADD', KEYS[2], ARGV[1])
return false
"""

_TAKE = """
local pages = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return pages
"""


def _pages(flat: list[bytes]) -> dict[int, PageRecord]:
    pairs = zip(flat[::2], flat[1::2])
    return {int(k): json.loads(v) for k, v in pairs if k not in (b"last", b"first")}


class RedisThreadBook:
    """:class:`forumcrawl.threads.ThreadBook` shared by a cluster's workers (blocking calls:
    run them in a thread)."""

    def __init__(self, client: redis.Redis, keys: ClusterKeys) -> None:
        self.client = client
        self.keys = keys
        self.open_key = keys.threads
        self._add = client.register_script(_ADD)
        self._take = client.register_script(_TAKE)

    def _key(self, thread: str) -> str:
        return self.keys.thread(thread)

    def add(self, thread: str, page: int, record: PageRecord) -> dict[int, PageRecord] | None:
        """Keep ``record`` as page ``page`` of its thread; the thread's pages once complete.
        Raises :class:`~forumcrawl.threads.PageAgain` for a page of a thread emitted already."""
        last = int(record.get("last_page") or page)
        first = record.get("from_page") if record.get("new_since") else None
        data = json.dumps(record, ensure_ascii=False)
        flat = self._add(keys=[self._key(thread), self.open_key, self.keys.emitted],
                         args=[thread, page, last, data, int(first) if first else ""])
        if flat == -1:
            raise PageAgain(thread, page)
        return _pages(flat) if flat else None

    def drain(self) -> Iterator[tuple[str, dict[int, PageRecord]]]:
        """Every thread still in progress in the cluster, each taken by one worker only."""
        for raw in self.client.smembers(self.open_key):
            thread = raw.decode("utf-8")
            flat: list[Any] = self._take(keys=[self._key(thread), self.open_key], args=[thread])
            if flat:
                yield thread, _pages(flat)
