"""One budget per URL pattern for the whole cluster (see :mod:`forumcrawl.navigation`).

Each worker's :class:`~forumcrawl.navigation.SiteNavigator` budgets a pattern by what its own
fetches of it led to. With two workers a pattern on probation was probed by each, its dry
fetches split between them so that neither saw the dry run that closes it, and a redirect
(an action link to the login page) was parsed by whichever worker took it from the queue,
its dry outcome counted there only: askbot in a 2-worker cluster fetched 23 profiles and 26
login pages (11 and 6 embedded).

Here a pattern's record (fetches, fetches that led to new thread pages, thread pages led to,
the fetch of the last such, closed) is one HASH per site, and its downloads under way one ZSET
per pattern (URL scored by when its place lapses: a worker that dies holding places does not
hold them for ever). A download is admitted by one atomic script, on the cluster's record, as
:meth:`SiteNavigator.admits <forumcrawl.navigation.SiteNavigator.admits>` admits on its own;
its outcome, reported by whichever worker parses the page, frees its place (a redirect frees it
once its target is queued) and may close the pattern. The worker that learns a site seeds the
record with what the replayed sample led to.

What counts as a lead is the cluster's too: one HASH per site holds each thread page some
fetch led to, and the pattern credited with it. A worker that starts with rules another worker
learned knows none of the thread pages queued so far, so by its own memory every thread a
member profile links would be new. (Measured alone this changed no crawl figure visibly: the
pseudo-static forum's burst of profiles was links fetched before their worker had the rules,
see NavigationMiddleware; it makes the count right by construction.)
One round trip per download of a page other than a thread page, in a thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import redis

from forumcrawl.navigation import DRY_CHANCE, PROBE, STALE, WINDOW, PatternBudget
from forumcrawl.redis.keys import ClusterKeys

__all__ = ["ClusterBudgets"]

_NOW = """
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
"""

# The record of pattern ARGV[1] in HASH KEYS[1] and its dry limit (PatternBudget.dry_limit;
# ARGV[2..4]: probe, window, chance).
_RECORD = """
local p = ARGV[1]
local b = redis.call('HMGET', KEYS[1], p .. '|f', p .. '|h', p .. '|y', p .. '|l', p .. '|c')
local f, h, y = tonumber(b[1] or 0), tonumber(b[2] or 0), tonumber(b[3] or 0)
local l, c = tonumber(b[4] or 0), tonumber(b[5] or 0)
local probe, window, chance = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local function limit()
  if h == 0 or h >= l then return probe end
  return math.max(probe, math.min(window, math.ceil(math.log(chance) / math.log(1 - h / l))))
end
"""

# KEYS: budget HASH, under-way ZSET. ARGV: pattern, probe, window, chance, URL, stale seconds.
# Returns {verdict (1 follow, 2 wait, 0 closed), f, h, y, l, c}.
_RESERVE = _NOW + _RECORD + """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local verdict = 1
if c == 1 then
  verdict = 0
elseif not redis.call('ZSCORE', KEYS[2], ARGV[5]) and f - l + redis.call('ZCARD', KEYS[2]) >= limit() then
  verdict = 2
end
if verdict == 1 then redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[5]) end
return {verdict, f, h, y, l, c}
"""

# KEYS: budget HASH, under-way ZSET, leads HASH. ARGV: pattern, probe, window, chance, URL,
# whether the page listed thread pages (1/0), then the ids of the thread pages the fetch led to
# that its worker had not met. Each counts unless a fetch of this pattern, or of one that has led
# to new thread pages, led to it before; it is the pattern's from now on. A page that listed no
# thread page and led to none is left out of a pattern that has led somewhere while such pages
# are fewer than its other fetches (field b; SiteNavigator.fetched). Returns {closed now (1/0),
# f, h, y, l, c, how many of the leads counted}.
_OUTCOME = _RECORD + """
redis.call('ZREM', KEYS[2], ARGV[5])
local new = 0
for i = 7, #ARGV do
  local by = redis.call('HGET', KEYS[3], ARGV[i])
  if not by or by ~= p and by ~= '' and tonumber(redis.call('HGET', KEYS[1], by .. '|h') or 0) == 0 then
    new = new + 1
    redis.call('HSET', KEYS[3], ARGV[i], p)
  end
end
if new == 0 and ARGV[6] == '0' and h > 0 then
  local b = tonumber(redis.call('HGET', KEYS[1], p .. '|b') or 0)
  if b < f then
    redis.call('HSET', KEYS[1], p .. '|b', b + 1)
    return {0, f, h, y, l, c, 0}
  end
end
f = f + 1
if new > 0 then
  h = h + 1
  y = y + new
  l = f
end
local closing = 0
if c == 0 and f - l >= limit() then
  c = 1
  closing = 1
end
redis.call('HSET', KEYS[1], p .. '|f', f, p .. '|h', h, p .. '|y', y, p .. '|l', l, p .. '|c', c)
return {closing, f, h, y, l, c, new}
"""

# KEYS: leads HASH. ARGV: lead id, pattern, lead id, pattern … Sets those not set yet.
_CLAIM = """
for i = 1, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 0
"""

# KEYS: budget HASH. ARGV: pattern, f, h, y, l, c, b. Sets the record unless the pattern has one.
_SEED = """
local p = ARGV[1]
if redis.call('HEXISTS', KEYS[1], p .. '|f') == 1 then return 0 end
redis.call('HSET', KEYS[1], p .. '|f', ARGV[2], p .. '|h', ARGV[3], p .. '|y', ARGV[4],
           p .. '|l', ARGV[5], p .. '|c', ARGV[6], p .. '|b', ARGV[7])
return 1
"""

#: What :meth:`ClusterBudgets.reserve` answers, by the script's verdict.
_VERDICTS = {0: "closed", 1: "follow", 2: "wait"}


def _budget(values: list[int]) -> PatternBudget:
    fetches, hits, yielded, last_yield, closed = (int(v) for v in values)
    return PatternBudget(fetches=fetches, yielded=yielded, hits=hits, last_yield=last_yield, closed=bool(closed))


class ClusterBudgets:
    """The cluster's pattern budgets of one spider (blocking calls: run them in a thread)."""

    def __init__(
        self,
        client: redis.Redis,
        keys: ClusterKeys,
        *,
        probe: int = PROBE,
        window: int = WINDOW,
        stale: float = STALE,
    ) -> None:
        self.client = client
        self.keys = keys
        self.limits = [probe, window, DRY_CHANCE]
        self.stale = stale
        self._reserve = client.register_script(_RESERVE)
        self._outcome = client.register_script(_OUTCOME)
        self._seed = client.register_script(_SEED)
        self._claim = client.register_script(_CLAIM)

    def _keys(self, site: str, pattern: str) -> list[str]:
        return [self.keys.budget(site), self.keys.underway(site, pattern)]

    def reserve(self, site: str, pattern: str, url: str) -> tuple[str, PatternBudget]:
        """Whether ``url`` of ``pattern`` may be downloaded now (``follow``: its place is taken
        until its outcome, or for ``stale`` seconds), must ``wait`` for the outcomes under way,
        or not at all (``closed``); and the pattern's record."""
        reply = self._reserve(keys=self._keys(site, pattern), args=[pattern, *self.limits, url, self.stale])
        return _VERDICTS[int(reply[0])], _budget(reply[1:])

    def outcome(
        self, site: str, pattern: str, url: str, leads: Sequence[str], listed: bool = True
    ) -> tuple[bool, PatternBudget, int]:
        """Record that ``url`` of ``pattern`` led to the thread pages ``leads`` (ids, see
        :func:`~forumcrawl.navigation.lead_id`) that its worker had not met, from a page that
        ``listed`` thread pages or not, freeing its place; whether this closed the pattern, its
        record, and how many of ``leads`` were new to the cluster. A lead another fetch in the
        cluster led to before is no lead, unless that fetch's pattern has led to none so far (a
        board listing threads a member's profile queued first keeps its worth, as on one
        worker)."""
        keys = [*self._keys(site, pattern), self.keys.leads(site)]
        reply = self._outcome(keys=keys, args=[pattern, *self.limits, url, int(listed), *leads])
        return bool(int(reply[0])), _budget(reply[1:6]), int(reply[6])

    def release(self, site: str, pattern: str, url: str) -> None:
        """Free the place of a download dropped before it was made."""
        self.client.zrem(self.keys.underway(site, pattern), url)

    def seed(self, site: str, budgets: Mapping[str, PatternBudget], leads: Mapping[str, str] | None = None) -> int:
        """Start the records of ``site``'s patterns that have none from ``budgets`` (what the
        sample led to, replayed), and the record of leads from ``leads`` (each thread page the
        sample led to, with the pattern that led to it); how many pattern records were started.
        One round trip."""
        pipe = self.client.pipeline(transaction=False)
        leads = leads or {}
        if leads:
            pairs = [value for lead in leads.items() for value in lead]
            self._claim(keys=[self.keys.leads(site)], args=pairs, client=pipe)
        for name, b in budgets.items():
            self._seed(
                keys=[self.keys.budget(site)],
                args=[name, b.fetches, b.hits, b.yielded, b.last_yield, int(b.closed), b.blank],
                client=pipe,
            )
        replies = pipe.execute() if budgets or leads else []
        return sum(int(r) for r in replies[1 if leads else 0 :])
