"""scrapy-redis's priority queue where a popped request is leased, not lost.

Same key (``SCHEDULER_QUEUE_KEY``), same ZSET scored by ``-priority``, same ``push``/``pop``/``len``
interface as :class:`scrapy_redis.queue.PriorityQueue`, whose pop deletes the request, so a worker
that dies loses what it popped. Here ``pop`` moves a request to the leases ZSET scored by a
deadline (Redis server time, so workers' clocks do not matter); ``ack`` removes it once its results
are durable; any lease whose deadline passes goes back to the queue (at-least-once). Deduplication
is part of the push script (the dupefilter's SET, optionally expiring ``dedup_ttl`` seconds after
the last new URL), so testing and queueing a request is atomic and costs no extra round trip.
:meth:`LeasedQueue.exchange` writes follow-ups, acknowledges and leases a batch in one round trip.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis
from scrapy_redis.queue import PriorityQueue

from forumcrawl.redis import serializer as json_serializer
from forumcrawl.redis.pages import SAMPLE_TTL

if TYPE_CHECKING:
    from scrapy import Request, Spider

__all__ = ["Exchange", "LeasedQueue", "Push"]

#: Seconds since its last exchange a worker still counts as sharing the queue. A working worker
#: exchanges several times a second and an idle one every poll; a dead one stops counting soon,
#: and counting it meanwhile only makes the others' leases smaller.
WORKER_ALIVE_SECONDS = 5.0

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

# KEYS: waiting list, seen, waiting index. ARGV: member, fingerprint ('' = no dedup), ttl seconds.
_WAIT = """
if ARGV[2] ~= '' then
  if redis.call('SADD', KEYS[2], ARGV[2]) == 0 then return 0 end
  if tonumber(ARGV[3]) > 0 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], KEYS[1])
return 1
"""

# KEYS: queue, seen, sampled HASH, waiting list, waiting index. ARGV: member, score,
# fingerprint ('' = no dedup), ttl seconds, pattern, cap, sampled ttl seconds. A link fetched to
# sample a site is queued while its pattern has fewer than ``cap`` links queued by any worker,
# else it waits for the site's rules with the links each worker held back itself.
_SAMPLE = """
if ARGV[3] ~= '' then
  if redis.call('SADD', KEYS[2], ARGV[3]) == 0 then return 0 end
  if tonumber(ARGV[4]) > 0 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
end
local n = redis.call('HINCRBY', KEYS[3], ARGV[5], 1)
redis.call('EXPIRE', KEYS[3], ARGV[7])
if n > tonumber(ARGV[6]) then
  redis.call('RPUSH', KEYS[4], ARGV[1])
  redis.call('SADD', KEYS[5], KEYS[4])
else
  redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
end
return 1
"""

# KEYS: leases, waiting index, waiting lists… ARGV: lease seconds. Leases every waiting request
# to the caller.
_TAKE_WAITING = _NOW + """
local out = {}
for i = 3, #KEYS do
  for _, m in ipairs(redis.call('LRANGE', KEYS[i], 0, -1)) do
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), m)
    out[#out + 1] = m
  end
  redis.call('DEL', KEYS[i])
  redis.call('SREM', KEYS[2], KEYS[i])
end
return out
"""

# KEYS: queue, leases, seeds, waiting index, workers, parked. ARGV: lease seconds, how many to
# lease, this worker's name ('' for a client that is no worker), seconds a worker counts as alive.
# Returns {requeued, queued, leased, seeds, waiting, workers, parked, member…}: the leased members
# and the cluster's state (parked: leases of pages parked for their site's rules; a member whose
# lease expired or was acknowledged leaves the parked SET here). A worker leases ahead of need to hide Redis latency, but never more than
# its share of the queue among the live workers: taking all of a short queue (the first pages
# of a site, the end of a crawl) would leave the other workers idle.
_TAKE = _NOW + _REQUEUE + """
local out = {#expired, 0, 0, 0, 0, 0, 0}
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[5], now, ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[4]))
end
out[6] = redis.call('ZCARD', KEYS[5])
local n = math.min(tonumber(ARGV[2]), math.ceil(redis.call('ZCARD', KEYS[1]) / math.max(1, out[6])))
if n > 0 then
  local top = redis.call('ZPOPMIN', KEYS[1], n)
  for i = 1, #top, 2 do
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), top[i])
    out[#out + 1] = top[i]
  end
end
out[2] = redis.call('ZCARD', KEYS[1])
out[3] = redis.call('ZCARD', KEYS[2])
local kind = redis.call('TYPE', KEYS[3])['ok']
if kind == 'list' then out[4] = redis.call('LLEN', KEYS[3])
elseif kind == 'set' then out[4] = redis.call('SCARD', KEYS[3])
elseif kind == 'zset' then out[4] = redis.call('ZCARD', KEYS[3]) end
for _, list in ipairs(redis.call('SMEMBERS', KEYS[4])) do out[5] = out[5] + redis.call('LLEN', list) end
for _, m in ipairs(redis.call('SMEMBERS', KEYS[6])) do
  if redis.call('ZSCORE', KEYS[2], m) then out[7] = out[7] + 1 else redis.call('SREM', KEYS[6], m) end
end
return out
"""

# KEYS: queue, leases. ARGV: members to give back (leases of ours, not crawled).
_GIVE_BACK = _NOW + """
local n = 0
for i = 1, #ARGV do
  if redis.call('ZREM', KEYS[2], ARGV[i]) == 1 then
    local ok, req = pcall(cjson.decode, ARGV[i])
    local score = 0
    if ok and type(req) == 'table' and tonumber(req['priority']) then score = -tonumber(req['priority']) end
    redis.call('ZADD', KEYS[1], score, ARGV[i])
    n = n + 1
  end
end
return n
"""

# KEYS: leases. ARGV: lease seconds, members… (only leases still ours are extended).
_RENEW = _NOW + """
local n = 0
for i = 2, #ARGV do n = n + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[i]) end
return n
"""


@dataclass(frozen=True)
class Push:
    """One request to enqueue: its JSON, queue score and dedup fingerprint (None: never filtered);
    ``waiting``: the list it waits in instead of the queue (see :meth:`LeasedQueue.take_waiting`)."""

    member: str
    score: float
    fingerprint: bytes | None
    waiting: str = ""
    #: A link fetched to sample a site: the site's HASH of links queued per pattern, the link's
    #: pattern and the cap; over the cap, it waits in ``waiting`` (see :data:`_SAMPLE`).
    sampled: str = ""
    pattern: str = ""
    cap: int = 0


@dataclass(frozen=True)
class Exchange:
    """What one :meth:`LeasedQueue.exchange` did and saw: new requests, leases, the cluster's state."""

    new: int
    members: list[str]
    requeued: int
    queued: int
    leased: int
    seeds: int
    #: Requests waiting for their site's rules (see :meth:`LeasedQueue.take_waiting`).
    waiting: int = 0
    #: Workers that exchanged with the frontier in the last :data:`WORKER_ALIVE_SECONDS`.
    workers: int = 0
    #: Positions, among the entries pushed, of those the seen set refused as duplicates.
    refused: tuple[int, ...] = ()
    #: Leases of pages parked until their site's rules exist (pages held for learning).
    parked: int = 0

    @property
    def idle(self) -> bool:
        """No request queued, leased, waiting as a seed or for its site's rules anywhere in the
        cluster."""
        return not (self.queued or self.leased or self.seeds or self.waiting)

    @property
    def stalled(self) -> bool:
        """Nothing queued, waiting as a seed or in flight anywhere in the cluster: every lease is a
        page parked for its site's rules. No link can appear until a site is learned, so a sample
        that has not filled by now never will."""
        return not (self.queued or self.seeds) and self.leased <= self.parked


class LeasedQueue(PriorityQueue):
    """The shared frontier of one spider: scrapy-redis's queue key plus leases and the seen SET.

    Built like any scrapy-redis queue (``server, spider, key, serializer``); the serializer is JSON
    (:mod:`forumcrawl.redis.serializer`) unless one is given.
    """

    def __init__(
        self,
        server: redis.Redis,
        spider: Spider,
        key: str,
        serializer: Any = None,
        *,
        leases_key: str,
        dupefilter_key: str,
        seeds_key: str = "",
        waiting_key: str = "",
        workers_key: str = "",
        parked_key: str = "",
        worker: str = "",
        dedup_ttl: int = 0,
    ) -> None:
        super().__init__(server, spider, key, serializer or json_serializer)
        self.leases_key = leases_key
        self.dupefilter_key = dupefilter_key
        self.seeds_key = seeds_key or f"{self.key}:start_urls"
        #: SET of the waiting lists' keys (what :meth:`status` counts as waiting).
        self.waiting_key = waiting_key or f"{self.key}:waiting"
        self.workers_key = workers_key or f"{self.key}:workers"
        self.parked_key = parked_key or f"{self.key}:parked"
        #: This worker's name in the workers ZSET; empty for a client that takes no share.
        self.worker = worker
        self.dedup_ttl = dedup_ttl
        self._push = server.register_script(_PUSH)
        self._take = server.register_script(_TAKE)
        self._give_back = server.register_script(_GIVE_BACK)
        self._renew = server.register_script(_RENEW)
        self._wait = server.register_script(_WAIT)
        self._take_waiting = server.register_script(_TAKE_WAITING)
        self._sample = server.register_script(_SAMPLE)

    def encode(self, request: Request) -> str:
        """The request as stored (the lease's identity)."""
        return str(self._encode_request(request))

    def decode(self, member: str) -> Request:
        """The request stored as ``member``."""
        return self._decode_request(member)

    def push(self, request: Request) -> None:
        """scrapy-redis's interface: queue one request, unfiltered."""
        self.exchange([Push(self.encode(request), -request.priority, None)])

    def pop(self, timeout: float = 0, lease_seconds: float = 120.0) -> Request | None:
        """scrapy-redis's interface: lease the highest-priority request (``timeout`` is ignored, as there)."""
        members = self.exchange(want=1, lease_seconds=lease_seconds).members
        return self.decode(members[0]) if members else None

    def clear(self) -> None:
        """Forget queued and leased requests."""
        self.server.delete(self.key, self.leases_key, self.parked_key)

    def exchange(
        self,
        entries: Sequence[Push] = (),
        acks: Iterable[str] = (),
        want: int = 0,
        lease_seconds: float = 120.0,
        parks: Iterable[str] = (),
    ) -> Exchange:
        """Enqueue ``entries``, acknowledge ``acks``, mark the leases ``parks`` as parked (pages held
        for their site's rules), lease up to ``want`` requests: one round trip.

        Pushes come first so that a request's follow-ups are durable before the request is done or
        parked. Expired leases are requeued on the way.
        """
        acks, parks = list(acks), list(parks)
        pipe = self.server.pipeline(transaction=False)
        keys = [self.key, self.leases_key, self.dupefilter_key]
        for entry in entries:
            fp = entry.fingerprint if entry.fingerprint is not None else b""
            if entry.sampled:
                self._sample(
                    keys=[self.key, self.dupefilter_key, entry.sampled, entry.waiting, self.waiting_key],
                    args=[entry.member, entry.score, fp, self.dedup_ttl, entry.pattern, entry.cap,
                          SAMPLE_TTL],
                    client=pipe,
                )
            elif entry.waiting:
                self._wait(
                    keys=[entry.waiting, self.dupefilter_key, self.waiting_key],
                    args=[entry.member, fp, self.dedup_ttl],
                    client=pipe,
                )
            else:
                self._push(keys=keys, args=[entry.member, entry.score, fp, self.dedup_ttl], client=pipe)
        if parks:
            pipe.sadd(self.parked_key, *parks)
        if acks:
            pipe.zrem(self.leases_key, *acks)
        self._take(
            keys=[self.key, self.leases_key, self.seeds_key, self.waiting_key, self.workers_key, self.parked_key],
            args=[lease_seconds, want, self.worker, WORKER_ALIVE_SECONDS],
            client=pipe,
        )
        results = pipe.execute()
        requeued, queued, leased, seeds, waiting, workers, parked, *members = results[-1]
        pushed = [int(r) for r in results[: len(entries)]]
        return Exchange(
            new=sum(pushed),
            members=[m.decode("utf-8") for m in members],
            requeued=int(requeued),
            queued=int(queued),
            leased=int(leased),
            seeds=int(seeds),
            waiting=int(waiting),
            workers=int(workers),
            refused=tuple(i for i, added in enumerate(pushed) if not added),
            parked=int(parked),
        )

    def peek_seeds(self, count: int, *, as_set: bool = False) -> list[bytes]:
        """Up to ``count`` waiting seeds, left in place until :meth:`move_seeds` queues them."""
        if as_set:
            return list(self.server.srandmember(self.seeds_key, count))
        return list(self.server.lrange(self.seeds_key, 0, count - 1))

    def move_seeds(
        self, entries: Sequence[Push], taken: Sequence[bytes], *, as_set: bool, sites_key: str, sites: Iterable[str]
    ) -> int:
        """Allow the seeds' sites, queue their requests, then delete the seeds: one round trip.

        A worker that dies between peeking and moving leaves the seeds in place for another, where
        scrapy-redis's LRANGE+LTRIM (or SPOP) loses them; two workers moving the same seed queue
        it once (deduplicated). Returns how many requests were new.
        """
        sites = sorted(set(sites))
        pipe = self.server.pipeline(transaction=False)
        if sites:
            pipe.sadd(sites_key, *sites)
        keys = [self.key, self.leases_key, self.dupefilter_key]
        for entry in entries:
            fp = entry.fingerprint if entry.fingerprint is not None else b""
            self._push(keys=keys, args=[entry.member, entry.score, fp, self.dedup_ttl], client=pipe)
        for data in taken:
            if as_set:
                pipe.srem(self.seeds_key, data)
            else:
                pipe.lrem(self.seeds_key, 1, data)
        results = pipe.execute()
        first = 1 if sites else 0
        return sum(int(r) for r in results[first : first + len(entries)])

    def take_waiting(self, waiting: Sequence[str], lease_seconds: float) -> list[str]:
        """Lease every request waiting in the lists ``waiting`` (sites whose rules now exist) to
        this worker, in one round trip: it decides them under the rules and queues those worth
        fetching with :meth:`exchange`, acknowledging all. Taken by one worker only; if it dies
        first, the leases expire and the requests are queued as they were."""
        if not waiting:
            return []
        members = self._take_waiting(keys=[self.leases_key, self.waiting_key, *waiting], args=[lease_seconds])
        return [m.decode("utf-8") for m in members]

    def waiting_lists(self) -> list[str]:
        """The keys of the lists where requests wait for their site's rules."""
        return sorted(k.decode("utf-8") for k in self.server.smembers(self.waiting_key))

    def ack(self, members: Iterable[str]) -> None:
        """Forget finished leases."""
        self.exchange((), members)

    def give_back(self, members: Sequence[str]) -> int:
        """Return leases this worker will not crawl to the queue now (rather than at expiry)."""
        if not members:
            return 0
        return int(self._give_back(keys=[self.key, self.leases_key], args=list(members)))

    def renew(self, members: Sequence[str], lease_seconds: float) -> int:
        """Push back the deadlines of leases this worker still holds; returns how many were extended."""
        if not members:
            return 0
        return int(self._renew(keys=[self.leases_key], args=[lease_seconds, *members]))

    def status(self) -> Exchange:
        """The cluster's state, after requeuing expired leases."""
        return self.exchange()
