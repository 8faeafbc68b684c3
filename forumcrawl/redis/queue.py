"""A request frontier in Redis where a popped request is leased, not lost.

``pop`` moves a request from the queue ZSET to the leases ZSET scored by a deadline (Redis server
time, so workers' clocks do not matter); ``ack`` removes it once its results are durable; any lease
whose deadline passes goes back to the queue, so a killed worker's requests are crawled again
(at-least-once). Deduplication is part of ``push``: an 8-byte prefix of the crawler's request
fingerprint is added to a SET, optionally expiring ``dedup_ttl`` seconds after the last new URL so
a recurring crawl revisits the forum. All commands are scripts, one round trip each (or one per
pipeline of them), and every call is counted in :attr:`LeasedQueue.roundtrips`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import redis

from forumcrawl.redis.keys import ClusterKeys, connect

__all__ = ["LeasedQueue", "Push"]

_NOW = """
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
"""

# Expired leases back to the queue, keeping their priority (decoded from the request JSON).
_REQUEUE = """
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
for _, m in ipairs(expired) do
  local ok, req = pcall(cjson.decode, m)
  local score = 0
  if ok and type(req) == 'table' and tonumber(req['priority']) then score = -tonumber(req['priority']) end
  redis.call('ZREM', KEYS[2], m)
  redis.call('ZADD', KEYS[1], score, m)
end
"""

# KEYS: queue, leases, seen. ARGV: member, score, fingerprint ('' = no dedup), ttl seconds.
_PUSH = """
if ARGV[3] ~= '' then
  if redis.call('SADD', KEYS[3], ARGV[3]) == 0 then return 0 end
  if tonumber(ARGV[4]) > 0 then redis.call('EXPIRE', KEYS[3], ARGV[4]) end
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
return 1
"""

# KEYS: queue, leases. ARGV: lease seconds. Returns {member or false, requeued count}.
_POP = _NOW + _REQUEUE + """
local top = redis.call('ZPOPMIN', KEYS[1])
if #top == 0 then return {false, #expired} end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), top[1])
return {top[1], #expired}
"""

# KEYS: queue, leases. Returns {queued, leased, requeued}.
_STATUS = _NOW + _REQUEUE + """
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]), #expired}
"""

# KEYS: leases. ARGV: lease seconds, members… (only leases still ours are extended).
_RENEW = _NOW + """
local n = 0
for i = 2, #ARGV do n = n + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[i]) end
return n
"""


@dataclass(frozen=True)
class Push:
    """One request to enqueue: its JSON, queue score and dedup fingerprint (None: never filtered)."""

    member: str
    score: float
    fingerprint: bytes | None


class LeasedQueue:
    """The shared frontier of one spider: queue, leases and seen-set under :class:`ClusterKeys`."""

    def __init__(self, url_or_client: str | redis.Redis, keys: ClusterKeys, *, dedup_ttl: int = 0) -> None:
        self.client = connect(url_or_client)
        self.keys = keys
        self.dedup_ttl = dedup_ttl
        self.roundtrips = 0
        self._push = self.client.register_script(_PUSH)
        self._pop = self.client.register_script(_POP)
        self._status = self.client.register_script(_STATUS)
        self._renew = self.client.register_script(_RENEW)

    def push(self, entries: Sequence[Push], acks: Iterable[str] = ()) -> int:
        """Enqueue ``entries`` then acknowledge ``acks``, in one round trip; returns how many were new.

        Pushes come first so that a request's follow-ups are durable before the request is done.
        """
        acks = list(acks)
        if not entries and not acks:
            return 0
        pipe = self.client.pipeline(transaction=False)
        keys = [self.keys.queue, self.keys.leases, self.keys.seen]
        for entry in entries:
            fp = entry.fingerprint if entry.fingerprint is not None else b""
            self._push(keys=keys, args=[entry.member, entry.score, fp, self.dedup_ttl], client=pipe)
        if acks:
            pipe.zrem(self.keys.leases, *acks)
        self.roundtrips += 1
        results = pipe.execute()
        return sum(int(r) for r in results[: len(entries)])

    def pop(self, lease_seconds: float) -> tuple[str | None, int]:
        """Lease the highest-priority request; also requeues expired leases. ``(member, requeued)``."""
        self.roundtrips += 1
        member, requeued = self._pop(keys=[self.keys.queue, self.keys.leases], args=[lease_seconds])
        return (member.decode("utf-8") if member else None), int(requeued)

    def ack(self, members: Iterable[str]) -> None:
        """Forget finished leases."""
        self.push((), members)

    def renew(self, members: Sequence[str], lease_seconds: float) -> int:
        """Push back the deadlines of leases this worker still holds; returns how many were extended."""
        if not members:
            return 0
        self.roundtrips += 1
        return int(self._renew(keys=[self.keys.leases], args=[lease_seconds, *members]))

    def status(self) -> tuple[int, int, int]:
        """``(queued, leased, requeued)`` for the whole cluster, after requeuing expired leases."""
        self.roundtrips += 1
        queued, leased, requeued = self._status(keys=[self.keys.queue, self.keys.leases])
        return int(queued), int(leased), int(requeued)
