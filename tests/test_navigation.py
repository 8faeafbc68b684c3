"""Canonical URLs, thread identity and the crawl's navigation budget (no crawl here; the mock
forum crawls are in test_crawl_navigation.py)."""

from __future__ import annotations

import pytest
from sklearn.exceptions import NotFittedError

from forumcrawl.extractors.navigation import (
    ListingOrders,
    ThreadIdentity,
    ThreadKey,
    canonical_url,
    continues_listing,
    first_page_alias,
    is_noise_param,
    listing_order,
    page_flip_number,
    pattern_key,
    returns_to,
)
from forumcrawl.extractors.usc import split_url
from forumcrawl.navigation import PatternBudget, SiteNavigator


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # A login page linking to itself with its own URL as return-to folds to one URL.
        ("http://f.test/accounts/login/?next=/accounts/login/%3Fnext%3D/topic/1/",
         "http://f.test/accounts/login/"),
        # Any name: a value that is a path or URL is a return-to.
        ("http://f.test/signin?whereto=%2Ftopic%2F3%2F&x=1", "http://f.test/signin?x=1"),
        ("http://f.test/login?goback=https%3A%2F%2Ff.test%2Ft%2F1", "http://f.test/login"),
        # Sort and filter views fold to the listing; the other parameters keep their order.
        ("http://f.test/forumdisplay.php?f=2&sort=lastpost&order=desc", "http://f.test/forumdisplay.php?f=2"),
        ("http://f.test/forums/a.2/?prefix_id=3&page=2", "http://f.test/forums/a.2/?page=2"),
        # Session ids by value shape or name, in the query and in the path.
        ("http://f.test/showthread.php?s=0123456789abcdef0123456789abcdef&t=5", "http://f.test/showthread.php?t=5"),
        ("http://f.test/a;jsessionid=ABC123/b?x=1", "http://f.test/a/b?x=1"),
        # Fragments go; a numeric "from" may be an offset and stays.
        ("http://f.test/t/1#post-9", "http://f.test/t/1"),
        ("http://f.test/list?from=20", "http://f.test/list?from=20"),
        ("http://f.test/forum.php?mod=viewthread&tid=1&extra=page%3D1", "http://f.test/forum.php?mod=viewthread&tid=1&extra=page%3D1"),
    ],
)
def test_canonical_url_folds_noise_and_keeps_the_rest(url: str, expected: str) -> None:
    assert canonical_url(url) == expected


def test_noise_params() -> None:
    assert is_noise_param("next=%2Fa")
    assert is_noise_param("from=portal")
    assert not is_noise_param("from=20")
    assert not is_noise_param("t=5")
    assert not is_noise_param("mode=viewprofile")


@pytest.mark.parametrize(
    ("location", "asked", "wall"),
    [
        # askbot: the close action sends a visitor to log in, naming the action as the way back.
        ("/accounts/login/?next=/questions/close/7", "http://f.test/questions/close/7/", True),
        # Any parameter name, an absolute URL escaped once, the query of the URL asked kept.
        ("https://f.test/signin?whereto=https%3A%2F%2Ff.test%2Fq%3Fa%3D7", "https://f.test/q?a=7", True),
        # A login page that does not say where to come back cannot be told from a moved page.
        ("/login/", "http://f.test/questions/close/7/", False),
        # A permalink's redirect to the thread page that shows the post.
        ("/t/slug/7/?page=2#post-30", "http://f.test/t/7/?p=30", False),
        # The way back names another page, or another site's.
        ("/login?next=/questions/close/8", "http://f.test/questions/close/7", False),
        ("https://sso.test/login?next=http://g.test/questions/close/7", "http://f.test/questions/close/7", False),
    ],
)
def test_a_redirect_naming_the_url_asked_as_the_way_back_is_a_login_wall(
    location: str, asked: str, wall: bool
) -> None:
    assert returns_to(location, asked) is wall


def test_page_flip_numbers() -> None:
    assert page_flip_number(" 3 ") == 3
    assert page_flip_number("[12]") == 12
    assert page_flip_number("Next") is None
    assert page_flip_number("2024-10-01") is None


def _fit(urls: list[str], flips: list[tuple[str, int]]) -> ThreadIdentity:
    identity = ThreadIdentity().fit(urls, flips)
    again = ThreadIdentity.from_dict(identity.to_dict())
    assert all(again.key(u) == identity.key(u) for u in urls)
    return identity


def test_xenforo_pages_and_permalinks() -> None:
    urls = ["http://x/threads/hello-world.12/", "http://x/threads/hello-world.12/page-2",
            "http://x/threads/foo.13/", "http://x/threads/foo.13/post-99",
            "http://x/threads/foo.13/post-101", "http://x/threads/bar-2.14/page-3"]
    identity = _fit(urls, [("http://x/threads/hello-world.12/page-2", 2),
                           ("http://x/threads/bar-2.14/page-2", 2),
                           ("http://x/threads/bar-2.14/page-3", 3)])
    assert identity.key(urls[0]) == ThreadKey("12", 1)
    assert identity.key(urls[1]) == ThreadKey("12", 2)
    assert identity.key(urls[3]) == ThreadKey("13", None)  # a post permalink: page unknown
    assert identity.key("http://x/threads/bar-2.14/page-3#post-5") == ThreadKey("14", 3)
    assert identity.first_page(urls[1]) == "http://x/threads/hello-world.12/"
    assert identity.first_page(urls[3]) is None
    # Another page of the thread by name (the last one): a variant, not page 1.
    assert identity.key("http://x/threads/foo.13/latest") == ThreadKey("13", None)


def test_offsets_and_post_ids_of_phpbb() -> None:
    urls = ["http://p/viewtopic.php?t=5", "http://p/viewtopic.php?t=5&start=10",
            "http://p/viewtopic.php?p=77", "http://p/viewtopic.php?t=6"]
    identity = _fit(urls, [("http://p/viewtopic.php?t=5&start=10", 2),
                           ("http://p/viewtopic.php?t=5&start=20", 3)])
    assert identity.key("http://p/viewtopic.php?t=5&start=20") == ThreadKey("5", 3)
    assert identity.key("http://p/viewtopic.php?t=5&sid=0123456789abcdef0123456789abcdef") == ThreadKey("5", 1)
    assert identity.key(urls[2]) == ThreadKey(None, None)
    # A parameter page flips never carry makes a variant (it may serve another thread), and so
    # does another script showing the thread (a print view).
    assert identity.key("http://p/viewtopic.php?t=5&view=next") == ThreadKey("5", None)
    assert identity.key("http://p/printview.php?t=5") == ThreadKey("5", None)
    assert identity.first_page("http://p/viewtopic.php?t=5&start=20") == "http://p/viewtopic.php?t=5"


def test_page_inside_a_segment_of_pseudo_static_urls() -> None:
    urls = ["http://s/thread-624-1-1.html", "http://s/thread-624-2-1.html", "http://s/thread-625-1-2.html"]
    identity = _fit(urls, [("http://s/thread-624-2-1.html", 2), ("http://s/thread-624-3-1.html", 3)])
    assert identity.key(urls[1]) == ThreadKey("624", 2)
    assert identity.key(urls[2]) == ThreadKey("625", 1)
    assert identity.first_page(urls[1]) == "http://s/thread-624-1-1.html"


def test_numbers_in_a_slug_are_words_of_the_title() -> None:
    urls = ["http://m/forum/debian-3/topic/what-about-sid-295/", "http://m/forum/debian-3/topic/apt-pinning-31/",
            "http://m/forum/debian-3/topic/what-about-sid-295/?page=2", "http://m/forum/kernel-4/topic/wifi-12/"]
    identity = _fit(urls, [("http://m/forum/debian-3/topic/what-about-sid-295/?page=2", 2),
                           ("http://m/forum/kernel-4/topic/wifi-12/?page=2", 2)])
    assert identity.key("http://m/forum/debian-3/topic/dpkg-2-260/") == ThreadKey("260", 1)
    assert identity.key("http://m/forum/debian-3/topic/utf-8-with-iconv-194/?page=2") == ThreadKey("194", 2)
    assert identity.key("http://m/forum/debian-3/topic/dpkg-2-260/?post=7") == ThreadKey("260", None)
    # A slug segment apart from the id's (askbot's /question/<id>/<slug>/).
    askbot = _fit(["http://a/question/5/grub/", "http://a/question/6/wifi-drops/", "http://a/question/5/grub/?page=2"],
                  [("http://a/question/5/grub/?page=2", 2), ("http://a/question/6/wifi-drops/?page=2", 2)])
    assert askbot.key("http://a/question/1092/aptitude-2/") == ThreadKey("1092", 1)
    assert askbot.key("http://a/question/1092/aptitude-2/?page=2") == ThreadKey("1092", 2)
    assert askbot.key("http://a/question/1092/aptitude-2/?answer=1093") == ThreadKey("1092", None)
    assert askbot.key("http://a/question/1092/aptitude/7/") == ThreadKey("1092", None)


def test_a_thread_number_leading_its_slug_is_the_thread_whatever_numbers_the_title_has() -> None:
    """``/topic/<id>-<slug>/`` with pages ``/page/N/`` (Flarum, machina): page 1 leaves the
    ``page`` segment out as the site's own links show, and the title's numbers (``in-2024``,
    ``arnolds-laws-1-``) follow the thread's."""
    urls = ["http://f/topic/576-my-1-build-log/", "http://f/topic/577-worth-it-in-2024/",
            "http://f/topic/578-plain/", "http://f/topic/576-my-1-build-log/page/2/"]
    identity = _fit(urls, [("http://f/topic/576-my-1-build-log/page/2/", 2),
                           ("http://f/topic/578-plain/page/2/", 2), ("http://f/topic/578-plain/page/3/", 3)])
    assert identity.key(urls[1]) == ThreadKey("577", 1)
    assert identity.key("http://f/topic/590-top-10-tips-for-2025/page/3/") == ThreadKey("590", 3)
    assert identity.first_page("http://f/topic/576-my-1-build-log/page/2/") == urls[0]
    assert identity.first_page(urls[1]) == urls[1]


def test_a_leading_thread_number_shows_on_the_thread_urls_when_the_flips_end_with_a_number() -> None:
    """The sample's page flips may all be of threads whose titles end with a number (seed 104:
    ``652-is-a-monitor-still-worth-it-in-2024/page/2/``): the thread URLs the sample holds show
    the number leading the title, and the titles without a number are canonical pages too
    (taken as the thread, the year made every other thread page a variant: 3 of 55 exported)."""
    urls = ["http://f/topic/652-worth-it-in-2024/", "http://f/topic/603-getting-started/",
            "http://f/topic/605-fixed-my-floor/", "http://f/topic/610-best-nas/"]
    identity = _fit(urls, [("http://f/topic/652-worth-it-in-2024/page/2/", 2),
                           ("http://f/topic/652-worth-it-in-2024/page/3/", 3),
                           ("http://f/topic/700-rebooting-after-2023/page/2/", 2)])
    assert identity.key(urls[0]) == ThreadKey("652", 1)
    assert identity.key(urls[1]) == ThreadKey("603", 1)
    assert identity.key("http://f/topic/605-fixed-my-floor/page/2/") == ThreadKey("605", 2)
    assert identity.first_page("http://f/topic/605-fixed-my-floor/page/2/") == urls[2]


def test_a_bare_query_is_more_of_the_path() -> None:
    """vBulletin 4's ``showthread.php?<id>-<slug>/pageN``: the query holds the thread and its
    page, as path segments would; the slugless form the list rows link is a variant."""
    urls = ["http://v/showthread.php?867-anyone-4-else", "http://v/showthread.php?869-budget-supply",
            "http://v/showthread.php?870-is-a-nas-worth-it-in-2024/page2"]
    identity = _fit(urls, [("http://v/showthread.php?867-anyone-4-else/page2", 2),
                           ("http://v/showthread.php?870-is-a-nas-worth-it-in-2024/page2", 2),
                           ("http://v/showthread.php?870-is-a-nas-worth-it-in-2024/page3", 3)])
    assert identity.key(urls[1]) == ThreadKey("869", 1)
    assert identity.key(urls[2]) == ThreadKey("870", 2)
    assert identity.first_page(urls[2]) == "http://v/showthread.php?870-is-a-nas-worth-it-in-2024"
    assert identity.key("http://v/showthread.php?t=870&page=2").page is None
    assert split_url(urls[2]).path[1].blocks[0] == "870"


def test_discourse_post_numbers_are_variants() -> None:
    urls = ["http://d/t/hello/12", "http://d/t/hello/12?page=2", "http://d/t/hello/12/5",
            "http://d/t/x/13/7", "http://d/t/x/13", "http://d/t/x/13/8", "http://d/t/x/13/9"]
    identity = _fit(urls, [("http://d/t/hello/12?page=2", 2), ("http://d/t/x/13?page=2", 2)])
    assert identity.key("http://d/t/hello/12?page=1") == ThreadKey("12", 1)
    assert identity.key("http://d/t/hello/12/5") == ThreadKey("12", None)
    assert identity.key("http://d/t/hello-again/12?page=2") == ThreadKey("12", 2)  # slug variant


def test_threads_without_a_number_are_named_by_their_path() -> None:
    urls = ["http://b/c/help/installing-grub/", "http://b/c/help/installing-grub/?page=2",
            "http://b/c/help/wifi-drops/", "http://b/c/help/wifi-drops/?first-unread=1"]
    identity = _fit(urls, [("http://b/c/help/installing-grub/?page=2", 2),
                           ("http://b/c/help/wifi-drops/?page=2", 2)])
    assert identity.key(urls[0]) == ThreadKey("/c/help/installing-grub", 1)
    assert identity.key(urls[1]) == ThreadKey("/c/help/installing-grub", 2)
    assert identity.key("http://b/c/help/installing-grub") == ThreadKey("/c/help/installing-grub", 1)
    assert identity.key(urls[3]) == ThreadKey("/c/help/wifi-drops", None)
    assert identity.first_page(urls[1]) == urls[0]


def test_identity_needs_fitting_and_a_number() -> None:
    with pytest.raises(NotFittedError):
        ThreadIdentity().key("http://x/t/1")
    with pytest.raises(ValueError, match="no thread URL"):
        ThreadIdentity().fit([])
    with pytest.raises(ValueError, match="newer"):
        ThreadIdentity.from_dict({"version": 99, "id_position": ["q", "t"]})


def test_pattern_keys_group_by_template_not_by_name() -> None:
    assert pattern_key("http://d/u/alice") == pattern_key("http://d/u/bob")
    assert pattern_key("http://d/u/alice/activity?page=2") == pattern_key("http://d/u/bob/activity?page=3")
    assert pattern_key("http://d/u/alice/activity") != pattern_key("http://d/u/alice")
    # A one-word name after an id is a slug like any other (askbot's profiles and badges).
    assert pattern_key("http://a/users/11/wangfang/") == pattern_key("http://a/users/23/vim_or_emacs/")
    assert pattern_key("http://a/badges/2/editor/") == pattern_key("http://a/badges/1/rapid-responder/")
    assert pattern_key("http://d/space-uid-1.html") != pattern_key("http://d/forum-2-1.html")
    # Discuz's archive copies carry the thread in a parameter's name, vBulletin 4 in a bare query.
    assert pattern_key("http://d/archiver/?tid-37.html&page=2") == pattern_key("http://d/archiver/?tid-41.html&page=3")
    assert pattern_key("http://d/archiver/?tid-37.html") == pattern_key("http://d/archiver/?tid-41.html")
    assert pattern_key("http://v/showthread.php?867-anyone-else/page2") == pattern_key("http://v/showthread.php?9-a-b/page3")
    assert pattern_key("http://d/home.php?mod=space&uid=1") != pattern_key("http://d/forum.php?mod=forumdisplay&fid=1")


def _navigator(probe: int = 3, window: int = 20) -> SiteNavigator:
    identity = ThreadIdentity().fit(
        ["http://f/topic/1/", "http://f/topic/1/?page=2", "http://f/topic/2/"],
        [("http://f/topic/1/?page=2", 2), ("http://f/topic/3/?page=2", 2)],
    )
    return SiteNavigator(lambda u: "/topic/" in u, identity, probe=probe, window=window)


def test_each_thread_page_is_followed_once_whatever_its_url() -> None:
    nav = _navigator()
    assert nav.decide("http://f/topic/1/").role == "thread"
    assert not nav.decide("http://f/topic/1/?page=1").follow
    assert nav.decide("http://f/topic/1/?page=2").follow
    # A permalink of a thread already reached is skipped; of a new thread, followed once.
    assert not nav.decide("http://f/topic/1/5/").follow
    assert nav.decide("http://f/topic/9/5/").follow
    assert not nav.decide("http://f/topic/9/6/").follow
    # Downloads: the second URL form of a fetched page is refused; exports once, never variants.
    assert nav.admits("http://f/topic/1/").follow
    assert not nav.admits("http://f/topic/1/?page=1").follow
    assert nav.admits("http://f/topic/1/").follow  # delivered again (a lease expired): not lost
    first, other = "http://f/topic/1/", "http://f/topic/1/?page=1"
    assert nav.claim_export(first, nav.key(first))
    assert not nav.claim_export(other, nav.key(other))
    assert nav.claim_export(first, nav.key(first))
    assert not nav.claim_export("http://f/topic/9/5/", nav.key("http://f/topic/9/5/"))


def test_a_pattern_that_leads_to_no_new_thread_closes_after_its_probe() -> None:
    nav = _navigator(probe=3)
    for name in ("a", "b"):
        assert nav.decide(f"http://f/user/{name}/").follow
        assert nav.fetched(f"http://f/user/{name}/", 0) is None
    assert nav.fetched("http://f/user/c/", 0) == "/user/*"
    decision = nav.decide("http://f/user/d/")
    assert (decision.follow, decision.role) == (False, "other")
    assert not nav.admits("http://f/user/e/").follow
    # A board pattern that keeps leading to new threads stays open.
    for n in range(10):
        assert nav.fetched(f"http://f/board/{n}/", 5) is None
    assert nav.decide("http://f/board/11/").follow
    assert nav.yield_rate("http://f/board/11/") == 1.0  # the site's best pattern
    assert nav.yield_rate("http://f/user/a/") == 0.0


def test_a_pattern_has_no_more_downloads_under_way_than_dry_fetches_left() -> None:
    nav = _navigator(probe=3)
    under_way = [nav.admits(f"http://f/user/{n}/") for n in range(5)]
    assert [d.role for d in under_way] == ["index", "index", "index", "wait", "wait"]
    assert nav.admits("http://f/user/0/").follow  # the same download asked again keeps its place
    nav.forget("http://f/user/2/")  # dropped before its download: its place is free again
    assert nav.admits("http://f/user/3/").follow
    for n in (0, 1):
        nav.fetched(f"http://f/user/{n}/", 0)
    assert nav.admits("http://f/user/4/").role == "wait"  # 2 dry + 1 under way = the probe
    assert nav.fetched("http://f/user/3/", 0) == "/user/#"
    assert (nav.admits("http://f/user/4/").follow, nav.admits("http://f/user/4/").role) == (
        False, "other")
    # A redirect's target does not take a place: the URL first asked holds it.
    assert all(nav.admits(f"http://f/login/{n}/", hold=False).follow for n in range(5))
    # A pattern that keeps yielding frees its places as its outcomes come in.
    for n in range(6):
        assert nav.admits(f"http://f/board/{n}/").follow
        nav.fetched(f"http://f/board/{n}/", 3)


def test_a_listing_that_led_to_new_threads_goes_on_past_its_closed_pattern() -> None:
    nav = _navigator(probe=3)
    listing = "http://f/questions/scope:all/sort:{}/page:{}/"
    for sort in ("age-desc", "votes-desc", "answers-desc"):
        nav.fetched(listing.format(sort, 1), 0)
    assert nav.patterns["/questions/*/*/*"].closed
    flip = listing.format("activity-asc", 2)
    assert not nav.decide(flip).follow
    # Only numbered flips of a listing to a listing, page 1 left out (it starts a sequence).
    assert nav.chains(listing.format("activity-asc", 1), flip, 2)
    assert not nav.chains(listing.format("activity-asc", 2), listing.format("activity-asc", 1), 1)
    assert not nav.chains("http://f/topic/1/", flip, 2)
    assert not nav.chains(listing.format("activity-asc", 1), "http://f/topic/1/?page=2", 2)
    assert not nav.chains(listing.format("activity-asc", 1), flip, None)
    assert not nav.admits(flip).follow
    nav.chain(flip)
    assert nav.admits(flip).role == "chained"
    # A link to it (a held-back link the rules release, another page's) follows the chain too.
    assert (nav.decide(flip).follow, nav.decide(flip).role) == (True, "chained")
    # Marked on the request (another worker of a cluster chained it), or not at all.
    assert nav.admits(listing.format("activity-asc", 3), chained=True).follow
    assert nav.admits(listing.format("age-asc", 2)).role == "other"


@pytest.mark.parametrize(
    ("source", "target", "continues"),
    [
        ("http://f/forum-5-1.html", "http://f/forum-5-2.html", True),
        ("http://f/viewforum.php?f=5", "http://f/viewforum.php?f=5&start=20", True),
        ("http://f/forums/hardware.5/page-9", "http://f/forums/hardware.5/page-10", True),
        ("http://f/forums/hardware.5/page-12", "http://f/forums/hardware.5/page-2", True),
        ("http://f/forumdisplay.php?5-hardware", "http://f/forumdisplay.php?5-hardware/page2", True),
        ("http://f/c/general", "http://f/c/general?page=2", True),
        # The mini-pagers of a listing's rows name each thread's pages: another path, another id.
        ("http://f/forum-5-1.html", "http://f/showthread.php?t=942&page=2", False),
        ("http://f/forum.php?mod=forumdisplay&fid=2", "http://f/forum.php?mod=viewthread&tid=2&page=2", False),
        ("http://f/forums/5/", "http://f/forums/5/topics/942?page=2", False),
        ("http://f/c/general", "http://f/t/some-slug?page=2", False),
    ],
)
def test_a_listing_continues_under_its_url_with_another_page_number(
    source: str, target: str, continues: bool
) -> None:
    assert continues_listing(source, target) is continues


def test_the_mini_pagers_of_a_listing_are_no_flips_of_it() -> None:
    """A board whose rows link each thread's pages under a slugless alias outside the topic rule
    (``showthread.php?t=942&page=2``): its numbered links are no sequence of the board, and are
    left to their pattern's budget (chained past it, every thread page was fetched twice)."""
    nav = SiteNavigator(lambda u: "-" in u.partition("?")[2], None, probe=3)
    board = "http://f/forum-5-1.html"
    assert nav.chains(board, "http://f/forum-5-2.html", 2)
    assert not nav.chains(board, "http://f/showthread.php?t=942&page=2", 2)


LISTING = "http://f/questions/scope:all/sort:{}/page:{}/"


def test_an_order_in_a_path_segment_names_a_listing_family_and_its_order() -> None:
    assert listing_order(LISTING.format("votes-desc", 3)) == ("/questions/scope:all/sort:*/page:#/", "votes-desc")
    assert listing_order("http://f/t/sort-of-question/12") is None  # a slug, not name:value
    assert listing_order("http://f/questions/scope:all/page:2/") is None  # a filter orders nothing
    assert listing_order("http://f/list/order=hot/?tag=1")[0] == "/list/order:*/?tag"


def test_one_order_per_listing_family_the_plain_listing_default_else_the_least() -> None:
    sample = [LISTING.format(sort, 1) for sort in ("votes-desc", "age-asc", "activity-desc")]
    sample += ["http://f/questions/", "http://f/tags/scope:all/sort:name/page:2/"]
    alone = ListingOrders().fit(sample)
    assert alone.orders_ == {"/questions/scope:all/sort:*/page:#/": "activity-desc"}
    assert alone.verdict(LISTING.format("activity-desc", 7)) is None  # followed, budgets decide
    assert alone.verdict(LISTING.format("age-asc", 2)) is False
    assert alone.verdict("http://f/tags/scope:all/sort:name/page:3/") is None  # one order seen
    # The plain listing's pager goes on in the site's default: that order is followed, and
    # walked (the family lists everything; its other orders no longer reach what it misses).
    plain = ListingOrders().fit(sample, continued=[LISTING.format("votes-desc", 2)])
    assert plain.verdict(LISTING.format("votes-desc", 9)) is True
    assert plain.verdict(LISTING.format("activity-desc", 2)) is False
    # The choice does not depend on the sample's order, and survives the site model's JSON.
    assert ListingOrders().fit(sample[::-1]).orders_ == alone.orders_
    assert ListingOrders.from_dict(plain.to_dict()).verdict(LISTING.format("votes-desc", 9)) is True
    with pytest.raises(NotFittedError):
        ListingOrders().verdict(LISTING.format("votes-desc", 9))


def test_a_walked_listing_goes_on_past_its_closed_pattern_its_other_orders_are_skipped() -> None:
    orders = ListingOrders().fit(
        [LISTING.format(sort, 1) for sort in ("age-desc", "votes-desc")], continued=[LISTING.format("age-desc", 2)]
    )
    nav = SiteNavigator(lambda url: "/topic/" in url, None, orders=orders, probe=3)
    # A family the sample did not show sorted (a tag's) is left to its pattern's budget.
    for n in range(3):
        nav.fetched(f"http://f/questions/scope:all/sort:age-desc/tags:t{n}/page:1/", 0)
    assert not nav.decide("http://f/questions/scope:all/sort:age-desc/tags:t9/page:2/").follow
    for sort in ("age-desc", "votes-desc", "age-desc"):
        nav.fetched(LISTING.format(sort, 1), 0)
    assert nav.patterns["/questions/*/*/*"].closed
    assert (nav.decide(LISTING.format("age-desc", 5)).follow, nav.decide(LISTING.format("age-desc", 5)).role) == (
        True, "chained")
    assert nav.admits(LISTING.format("age-desc", 6)).role == "chained"
    assert nav.decide(LISTING.format("votes-desc", 5)).role == "order"


def test_dry_runs_close_by_the_pattern_record() -> None:
    budget = PatternBudget(fetches=12, hits=5, last_yield=10)
    assert budget.dry_limit(3, 20) == 5  # (1 - 0.5)^5 < 5 %
    assert PatternBudget(fetches=10, hits=1, last_yield=10).dry_limit(3, 20) == 20  # the cap
    assert PatternBudget(fetches=4, hits=4, last_yield=4).dry_limit(3, 20) == 3
    nav = _navigator(probe=3, window=20)
    nav.fetched("http://f/board/1/", 4)
    nav.fetched("http://f/board/2/", 4)
    closed = [nav.fetched(f"http://f/board/{n}/", 0) for n in range(3, 8)]
    assert closed[:2] == [None, None] and "/board/#" in closed


def test_pages_listing_no_thread_page_leave_a_yielding_pattern_open() -> None:
    # Machina: categories share the boards' URL shape and link only their boards' last posts.
    nav = _navigator(probe=3, window=20)
    assert nav.decide("http://f/topic/7/").thread_page
    assert nav.decide("http://f/topic/7/").thread_page, "a duplicate names a thread page too"
    assert not nav.decide("http://f/topic/8/?p=31").thread_page, "a post in a thread"
    assert not nav.decide("http://f/board/2/").thread_page
    assert nav.is_thread_page("http://f/topic/7/") and not nav.is_thread_page("http://f/board/2/")
    nav.fetched("http://f/board/1/", 4)
    nav.fetched("http://f/board/2/", 4)
    for n in (3, 4):
        assert nav.fetched(f"http://f/board/{n}/", 0, listed=False) is None
    assert nav.budgets()["/board/#"].fetches == 2, "left out of the record"
    # A board whose threads were all met is a dry fetch; blank pages count while they are as
    # many as the pattern's other fetches, so that they at most double its cost.
    assert nav.fetched("http://f/board/5/", 0) is None
    closed = [nav.fetched(f"http://f/board/{n}/", 0, listed=False) for n in (6, 7, 8, 9)]
    assert closed == [None, None, None, "/board/#"]
    assert nav.budgets()["/board/#"].blank == 4
    # A pattern that has led nowhere counts every page (a member without posts is a profile).
    assert [nav.fetched(f"http://f/user/{n}/", 0, listed=False) for n in (1, 2, 3)] == [None, None, "/user/#"]


def _page(body: str, head: str = "") -> object:
    import lxml.html

    return lxml.html.fromstring(f"<html><head>{head}</head><body>{body}</body></html>")


@pytest.mark.parametrize(
    ("body", "head", "expected"),
    [
        # The pager's neighbours: one before "next", one after "previous".
        ('<a href="/topic/1/">1</a> <b>2</b> <a href="/topic/1/?page=3">Next</a>', "", 2),
        ('<a href="/topic/1/?page=2" rel="prev">‹</a> <b>3</b>', "", 3),
        # Arrows that are icons say so in aria-label; a disabled "next" names no page (askbot:
        # an answer's permalink on the last page, with every page number linked in the pager).
        ('<a href="/topic/1/?page=2" aria-label="previous"></a> <a href="/topic/1/">1</a>'
         ' <a href="/topic/1/?page=2">2</a> <a href="/topic/1/?page=3">3</a>'
         ' <a href="/topic/1/?page=None" aria-label="next page"></a>', "", 3),
        # Four arrows, « ‹ › »: the page both neighbours agree on, else the one rel=canonical
        # names among the candidates (page 1 and the last page show two arrows).
        ('<a href="/topic/1/">«</a> <a href="/topic/1/?page=2">‹</a> <a href="/topic/1/?page=4">›</a>'
         ' <a href="/topic/1/?page=4">»</a>', "", 3),
        ('<a href="/topic/1/?page=2">›</a> <a href="/topic/1/?page=4">»</a>', '<link rel="canonical" href="/topic/1/">', 1),
        ('<a href="/topic/1/">«</a> <a href="/topic/1/?page=3">‹</a>', '<link rel="canonical" href="/topic/1/?page=4">', 4),
        ('<a href="/topic/1/">«</a> <a href="/topic/1/?page=3">‹</a>', '<link rel="canonical" href="/topic/1/">', None),
        # The last page of a pager of "‹ Prev" and "Next ›": the arrow before the word.
        ('<a href="/topic/1/?page=2">‹ Prev</a> <a href="/topic/1/">Thread title</a>', "", 3),
        # Numbered links only: the one number they leave out, or the one after the last.
        ('<a href="/topic/1/?page=2">2</a> <a href="/topic/1/?page=3">3</a>', "", 1),
        ('<a href="/topic/1/">1</a> <a href="/topic/1/?page=2">2</a>', "", 3),
        # No pager: a one-page thread only when rel=canonical names its first page.
        ('<a href="/topic/1/">Thread title</a>', '<link rel="canonical" href="/topic/1/">', 1),
        ('<a href="/topic/1/">Thread title</a>', "", None),  # a print view of a whole thread
        # An elided pager without neighbours does not tell; nor a page linking to no thread page.
        ('<a href="/topic/1/">1</a> <a href="/topic/1/?page=9">9</a>', "", None),
        ('<a href="/user/3/">someone</a>', '<link rel="canonical" href="/topic/1/">', None),
    ],
)
def test_a_permalink_page_says_which_page_it_is(body: str, head: str, expected: int | None) -> None:
    identity = _navigator().identity
    assert identity is not None
    found = identity.page_of(_page(body, head), "http://f/topic/1/5/")
    if expected is None:
        assert found is None
    else:
        assert found == (ThreadKey("1", expected), "http://f/topic/1/")


def test_an_adopted_permalink_page_is_not_fetched_again_under_its_canonical_url() -> None:
    nav = _navigator()
    assert nav.decide("http://f/topic/1/5/").role == "variant"
    page = _page('<a href="/topic/1/">1</a> <b>2</b> <a href="/topic/1/?page=3">next</a>')
    assert nav.adopt("http://f/topic/1/5/", page) == (ThreadKey("1", 2), "http://f/topic/1/")
    assert not nav.decide("http://f/topic/1/?page=2").follow
    assert not nav.admits("http://f/topic/1/?page=2").follow
    assert nav.claim_export("http://f/topic/1/5/", ThreadKey("1", 2))
    # A second permalink of the same page is neither adopted nor fetched.
    assert nav.adopt("http://f/topic/1/6/", page) is None
    assert not nav.admits("http://f/topic/1/7/").follow


def test_a_permalink_numbered_by_its_post_is_its_canonical_threads_page_and_no_lead() -> None:
    """XenForo's ``/posts/<post id>/`` serves a thread page: its number names no thread, so the
    page is known by its ``rel=canonical`` thread's pager, and a profile listing such links
    leads to no new thread by them."""
    nav = _navigator()
    assert nav.decide("http://f/topic/7/5/", source="http://f/user/1/").new, "nothing says otherwise yet"
    page = _page('<a href="/topic/1/">1</a> <b>2</b> <a href="/topic/1/?page=3">next</a>',
                 '<link rel="canonical" href="/topic/1/?page=2">')
    assert nav.identity is not None
    assert nav.identity.page_of(page, "http://f/topic/8/6/") == (ThreadKey("1", 2), "http://f/topic/1/")
    assert nav.adopt("http://f/topic/8/6/", page) == (ThreadKey("1", 2), "http://f/topic/1/")
    assert not nav.admits("http://f/topic/1/?page=2").follow, "fetched under the permalink"
    later = nav.decide("http://f/topic/9/6/", source="http://f/user/2/")
    assert (later.follow, later.role, later.new) == (True, "variant", False)
    # Nor are the post's action links under the same path head (another URL pattern).
    action = nav.decide("http://f/topic/9/6/report?reason=1", source="http://f/topic/8/6/")
    assert (action.role, action.new) == ("variant", False)
    assert nav.cover_order([["http://f/topic/9/7/", "http://f/topic/10/7/"]]) == [(0, 0)]
    # A permalink whose own thread's pages the page links is read by them, whatever its canonical.
    own = _page('<a href="/topic/8/">1</a> <b>2</b> <a href="/topic/8/?page=3">next</a>',
                '<link rel="canonical" href="/topic/1/">')
    assert nav.identity.page_of(own, "http://f/topic/8/6/") == (ThreadKey("8", 2), "http://f/topic/8/")


def test_a_thread_page_under_another_pattern_shows_its_thread_and_covers_none_of_it() -> None:
    """XenForo's ``/goto/post?id=`` (a quote's link) serves a thread page: its pager leads to
    its own thread's pages, which are no lead of its pattern."""
    nav = _navigator()
    page = _page('<a href="/topic/1/">1</a> <b>2</b> <a href="/topic/1/?page=3">next</a> <a href="/topic/4/">quoted</a>',
                 '<link rel="canonical" href="/topic/1/?page=2">')
    assert nav.shown_thread("http://f/goto/post?id=9", page) == "1"
    assert nav.shown_thread("http://f/topic/1/?page=2", page) is None, "a thread page itself"
    board = _page('<a href="/topic/1/">1</a> <a href="/topic/1/?page=2">2</a>', '<link rel="canonical" href="/board/1/">')
    assert nav.shown_thread("http://f/board/1/", board) is None
    links = ["http://f/topic/1/", "http://f/topic/1/?page=3", "http://f/topic/4/"]
    assert nav.cover_order([links], ["1"]) == [(0, 1)], "only the quoted thread"


def test_the_sample_is_replayed_in_the_order_of_a_cover_of_its_thread_pages() -> None:
    nav = _navigator()
    profile = ["http://f/topic/1/", "http://f/topic/2/"]  # fetched first, lists threads the board lists
    board = [f"http://f/topic/{n}/" for n in range(1, 6)]
    other = ["http://f/topic/9/", "http://f/login/"]
    order = nav.cover_order([profile, board, other, profile])
    assert order == [(1, 5), (2, 1), (0, 0), (3, 0)], "the board covers first; the profiles add nothing"


def test_pages_another_worker_sampled_count_as_fetched_there() -> None:
    """In a cluster the links that waited for the rules are released as soon as they exist,
    before the worker that sampled a thread page tells it: the sample says so first."""
    nav = _navigator()
    nav.sampled_elsewhere("http://f/topic/1/?page=2", _page("<p>a thread page</p>"))
    pager = _page('<a href="/topic/3/">1</a> <b>2</b> <a href="/topic/3/?page=3">next</a>')
    nav.sampled_elsewhere("http://f/topic/3/5/", pager)  # a permalink, page 2 by its pager
    nav.sampled_elsewhere("http://f/board/1/", _page("<p>a board</p>"))
    for url in ("http://f/topic/1/?page=2", "http://f/topic/1/?page=02", "http://f/topic/3/?page=2"):
        released = nav.release(url)
        assert (released.follow, released.role) == (False, "duplicate"), url
    assert nav.release("http://f/topic/1/").follow, "another page of the thread"
    assert not nav.admits("http://f/topic/3/9/").follow, "a variant of a thread reached"
    assert not nav.decide("http://f/topic/1/?page=2", source="http://f/user/2/").new, "no lead"


def test_a_page_the_cluster_refused_as_seen_is_no_lead_but_its_waiting_link_goes_out() -> None:
    """The shared frontier refuses a request whose URL waits in Redis for the rules as well as
    one another worker queued: only the one fetched there makes the waiting link a duplicate."""
    nav = _navigator()
    nav.refused_there("http://f/topic/1/")
    assert not nav.decide("http://f/topic/1/", source="http://f/board/1/").new, "no lead"
    assert nav.release("http://f/topic/1/").follow, "the copy that waited is the only one"
    nav.refused_there("http://f/topic/3/?page=2")
    held = nav.release("http://f/topic/3/?page=02")
    assert (held.follow, held.role) == (False, "duplicate"), "the frontier holds another URL of it"
    nav.note_elsewhere([("2", 1)])
    released = nav.release("http://f/topic/2/")
    assert (released.follow, released.role) == (False, "duplicate"), "fetched there"


def test_a_dry_fetch_of_a_listing_page_1_under_a_second_url_is_no_evidence() -> None:
    nav = _navigator(probe=2)
    assert nav.decide("http://f/board/6/").follow
    assert nav.decide("http://f/board/5/手机/").follow  # a link names it raw, the request encoded
    for page in ("http://f/board/6/?page=1", "http://f/board/5/%E6%89%8B%E6%9C%BA/?page=1", "http://f/board/7/?page=1"):
        assert nav.fetched(page, 0) is None
    assert nav.decide("http://f/board/8/?page=2").follow, "board 7 was never followed plainly: it counted"
    assert nav.fetched("http://f/board/8/?page=2", 0) == "/board/#?page", "closes on its second dry fetch"


def test_a_listing_page_numbered_1_is_its_plain_url() -> None:
    nav = _navigator()
    assert nav.decide("http://f/board/6/").follow
    skipped = nav.decide("http://f/board/6/?page=1", 1)
    assert (skipped.follow, skipped.role) == (False, "duplicate")
    # Pages counted from 0: the link numbered 2 is ?page=1, another page.
    assert nav.decide("http://f/board/6/?page=1", 2).follow


def test_a_listing_page_1_is_known_by_its_pattern_once_an_anchor_said_so() -> None:
    nav = _navigator()
    for board in (6, 7):
        assert nav.decide(f"http://f/board/{board}/").follow
    # A thread's "back to the board" link: nothing says yet that ?page=1 is page 1.
    assert nav.decide("http://f/board/6/?page=1", None).follow
    assert not nav.decide("http://f/board/6/?page=1", 1).follow  # the pager's "1" says so
    again = nav.decide("http://f/board/7/?page=1", None)
    assert (again.follow, again.role) == (False, "duplicate"), "the same pattern, another board"
    assert not nav.admits("http://f/board/6/?page=1").follow, "queued before, dropped at download"
    assert nav.decide("http://f/board/8/?page=1", None).follow, "a board never followed plainly"
    assert first_page_alias("http://f/board/6/?sort=new&page=1") == "http://f/board/6/?sort=new"
    assert first_page_alias("http://f/board/6/?f=1&page=1") is None  # which one counts pages?


def test_a_thread_page_queued_but_not_fetched_still_counts_as_a_lead() -> None:
    nav = _navigator()
    assert nav.decide("http://f/topic/1/", source="http://f/member/7/posts").new
    # A board links to it before it is fetched: still worth the board's fetch.
    again = nav.decide("http://f/topic/1/", source="http://f/board/2/")
    assert (again.follow, again.new) == (False, True)
    # but once per pattern: another board page leading to the same page adds nothing
    assert not nav.decide("http://f/topic/1/", source="http://f/board/3/").new
    nav.admits("http://f/topic/1/")
    assert not nav.decide("http://f/topic/1/", source="http://f/forum/9/").new  # fetched: no lead any more


def test_a_thread_page_a_proven_board_queued_is_no_lead_of_another_pattern() -> None:
    """A member's profile fetched while the threads a board queued wait earns nothing by them
    (it kept a profile pattern open for a dozen fetches in a 2-worker crawl)."""
    nav = _navigator()
    assert nav.decide("http://f/topic/1/", source="http://f/board/2/").new
    nav.fetched("http://f/board/2/", 1)  # the board led to a new thread page
    assert nav.decide("http://f/topic/2/", source="http://f/board/2/").new
    assert not nav.decide("http://f/topic/2/", source="http://f/member/7/posts").new
    # Queued by a pattern on probation: the next pattern linking it is credited (see above).
    assert nav.decide("http://f/topic/3/", source="http://f/member/7/posts").new
    assert nav.decide("http://f/topic/3/", source="http://f/board/3/").new


def test_permalinks_of_one_thread_are_one_lead() -> None:
    nav = _navigator()
    assert nav.decide("http://f/topic/1/?page=2", source="http://f/topic/1/").new
    leads = []
    for n in range(4):
        assert nav.decide(f"http://f/post/{n}/").follow
        leads.append(nav.decide("http://f/topic/1/?page=2", source=f"http://f/post/{n}/").new)
        nav.fetched(f"http://f/post/{n}/", int(leads[-1]))
    assert leads == [True, False, False, False]
    assert not nav.decide("http://f/post/11/").follow  # the permalinks' pattern closed


def test_a_page_handed_over_is_fetched_again_under_its_owner_url() -> None:
    nav = _navigator()
    ours, theirs = "http://f/topic/1/?page=2", "http://f/topic/1/?page=02"
    assert nav.key(theirs) == nav.key(ours) == ThreadKey("1", 2)
    assert nav.admits(ours).follow and nav.claim_export(ours, nav.key(ours))
    assert not nav.admits(theirs).follow
    # The cluster's content dedup kept another worker's URL of this page, which died unwritten:
    # that URL's request, delivered again, is crawled and exported here.
    nav.hand_over(ours, theirs)
    assert nav.admits(theirs).follow and not nav.admits(ours).follow
    assert nav.claim_export(theirs, nav.key(theirs))
    assert not nav.claim_export(ours, nav.key(ours))


@pytest.mark.parametrize(
    ("urls", "flips", "page_url", "first"),
    [
        # A query parameter (askbot's ?page=, vBulletin's &page=), page 1 without it.
        (["http://a/question/5/grub/", "http://a/question/6/wifi/"],
         [("http://a/question/5/grub/?page=2", 2), ("http://a/question/5/grub/?page=3", 3)],
         "http://a/question/5/grub/", "http://a/question/5/grub/"),
        # An offset, from a two-page thread's one link (phpBB's &start=10).
        (["http://p/viewtopic.php?t=5", "http://p/viewtopic.php?t=6"],
         [("http://p/viewtopic.php?t=5&start=10", 2)],
         "http://p/viewtopic.php?t=5", "http://p/viewtopic.php?t=5"),
        # Inside the segment, on every page (thread-5-1-1.html): the board's links to the pages.
        (["http://s/thread-5-1-1.html", "http://s/thread-6-1-2.html"],
         [("http://s/thread-5-2-1.html", 2), ("http://s/thread-5-3-1.html", 3)],
         "http://s/forum-2-1.html", "http://s/thread-5-1-1.html"),
    ],
)
def test_an_identity_without_pages_learns_them_from_a_long_thread_links(
    urls: list[str], flips: list[tuple[str, int]], page_url: str, first: str
) -> None:
    identity = _fit(urls, [])
    assert identity.page_position_ is None
    assert identity.key(flips[0][0]).page != 2
    assert identity.add_pages(flips, page_url)
    for url, n in flips:
        assert identity.key(url) == ThreadKey(identity.key(first).thread, n)
        assert identity.first_page(url) == first
    assert identity.key(first).page == 1
    assert not identity.add_pages(flips, page_url)  # it has a page position now
    again = ThreadIdentity.from_dict(identity.to_dict())
    assert all(again.key(u) == identity.key(u) for u, _ in flips)


def test_post_permalinks_labelled_with_their_floor_teach_no_page() -> None:
    identity = _fit(["http://v/showthread.php?t=5", "http://v/showthread.php?t=6"], [])
    permalinks = [(f"http://v/showthread.php?t=5&p={400 + 7 * n}", n) for n in range(2, 6)]
    assert not identity.add_pages(permalinks, "http://v/showthread.php?t=5")
    assert identity.page_position_ is None


def test_changed_rules_rekey_the_pages_and_regain_the_skipped_ones() -> None:
    """Under rules without pages every page of a thread is its page 1: the first link met
    (a "latest" link to the last page) takes it, and the real page 1 is skipped. Once the
    rules know the pages, the last page is page 4 and page 1 is queued again."""
    before = _fit(["http://s/thread-5-1-1.html", "http://s/thread-6-1-2.html"], [])
    navigator = SiteNavigator(lambda url: "thread-" in url, before)
    last, first = "http://s/thread-5-4-1.html", "http://s/thread-5-1-1.html"
    assert navigator.decide(last).follow
    assert navigator.admits(last).follow
    assert navigator.decide(first).role == "duplicate"
    after = ThreadIdentity.from_dict(before.to_dict())
    assert after.add_pages([("http://s/thread-5-2-1.html", 2), ("http://s/thread-5-3-1.html", 3)], "http://s/")
    assert navigator.rebind(navigator.is_topic, after) == [first]
    assert navigator.admits(first).follow
    assert navigator.claim_export(last, after.key(last)) and navigator.claim_export(first, after.key(first))
    assert navigator.decide(last).role == "duplicate"
    assert navigator.rebind(navigator.is_topic, after) == []


def test_without_pages_a_number_varying_within_one_thread_makes_a_variant() -> None:
    """A thread's page 1 has one URL: answers' permalinks, several per question in a sample of
    one-page questions, are no page 1 (they show whichever page the answer is on)."""
    urls = [*(f"http://a/question/{n}/x/" for n in range(5, 10)),
            *(f"http://a/question/{n // 2}/x/?answer={n}" for n in range(10, 15))]
    identity = _fit(urls, [])
    assert identity.key(urls[0]) == ThreadKey("5", 1)
    assert identity.key("http://a/question/5/x/?answer=10") == ThreadKey("5", None)
    assert identity.key("http://a/question/8/x/?answer=20") == ThreadKey("8", None)


def test_learned_pages_make_the_other_parameters_of_a_thread_url_variants() -> None:
    """askbot without page flips in its sample: ``?answer=<id>`` on most thread URLs passed for
    part of page 1's URL. Its page flips carry no ``answer``: an answer's permalink, which
    shows the page that answer is on, is a variant once the pages are known."""
    urls = [f"http://a/question/{i}/grub/?answer={i + 3}" for i in range(5, 9)] + ["http://a/question/5/grub/"]
    identity = _fit(urls, [])
    assert identity.key(urls[0]) == ThreadKey("5", 1)
    assert identity.add_pages([("http://a/question/5/grub/?page=2", 2)], "http://a/question/5/grub/")
    assert identity.key(urls[0]) == ThreadKey("5", None)
    assert identity.key("http://a/question/5/grub/?page=2") == ThreadKey("5", 2)
    assert identity.key("http://a/question/5/grub/") == ThreadKey("5", 1)


def test_a_retried_download_gives_its_place_back_until_it_comes_out_of_the_queue() -> None:
    """A retry is queued behind what is queued already; holding its pattern's place meanwhile, a
    few retried board pages kept every download slot full of board pages waiting for them."""
    import scrapy
    from scrapy import signals
    from scrapy.utils.test import get_crawler

    from forumcrawl.middlewares import NavigationMiddleware

    nav = _navigator(probe=3)
    for n in range(4):
        nav.fetched(f"http://f/board/{n}/", 5)

    class Learner:
        def model(self, site: str) -> str:
            return site

    class Spider(scrapy.Spider):
        name = "nav"
        learner = Learner()

        def navigator(self, model: str) -> SiteNavigator:
            return nav

    crawler = get_crawler(Spider)
    crawler.spider = Spider()
    _middleware = NavigationMiddleware.from_crawler(crawler)  # kept: signals hold receivers weakly
    boards = [f"http://f/board/{n}/" for n in range(10, 14)]
    assert [nav.admits(url).role for url in boards] == ["index", "index", "index", "wait"]
    retry = scrapy.Request(boards[0], meta={"forumcrawl_nav": "index", "retry_times": 1})
    crawler.signals.send_catch_log(signals.request_scheduled, request=retry, spider=crawler.spider)
    assert nav.admits(boards[3]).role == "index"
    # a first attempt being scheduled holds on to nothing it did not have
    first = scrapy.Request(boards[1], meta={"forumcrawl_nav": "index"})
    crawler.signals.send_catch_log(signals.request_scheduled, request=first, spider=crawler.spider)
    assert nav.admits(boards[0]).role == "wait"
