"""The universe of generated forums (issue #46): one forum per seed, the same forum for the same
seed, a truth that matches what is served, every dimension value drawn and visible, and real
crawls of generated forums at the shipped defaults scored against the truth."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import lxml.html
import pytest

from forumcrawl.document import Document
from forumcrawl.evaluation import match_posts
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.navigation import canonical_url
from forumcrawl.extractors.topic import copy_outside_layout, learn_topic_rule, page_evidence
from forumcrawl.mockforum.site import Response
from forumcrawl.mockforum.truth import SiteTruth
from forumcrawl.mockforum.universe import (
    DIMENSIONS,
    HELD_APART,
    TUNING,
    Faults,
    UniverseSite,
    draw,
    serve_seed,
)
from forumcrawl.mockforum.universe.dimensions import SLUG_SCHEMES
from forumcrawl.mockforum.universe.probe import WALK_BASE, field_scores, learned, rule_fault
from tests.conftest import run_crawl

#: One xdist group: the crawl of the working seed is a module fixture: made once, on one process.
pytestmark = pytest.mark.xdist_group("universe")

BASE = "http://127.0.0.1:9/"
#: Tuning seeds whose pages are checked link by link (a spread of schemes, markups, pagers).
CHECKED_SEEDS = list(range(0, 12))


def _links(body: bytes, url: str, encoding: str | None) -> list[str]:
    """Absolute ``<a>`` and ``<link>`` targets of a page, fragments dropped."""
    tree = lxml.html.fromstring(body.decode(encoding) if encoding else body)
    return [urljoin(url, el.get("href")).split("#")[0]
            for el in tree.iter("a", "link") if el.get("href")]


def _get(site: UniverseSite, url: str) -> Response:
    return site.render(url[len(BASE) - 1 :])


def test_same_seed_same_forum_and_seeds_differ() -> None:
    now = datetime(2026, 12, 7, 6, 0)
    one, two = UniverseSite(104, now=now), UniverseSite(104, now=now)
    truth = one.truth(BASE)
    assert truth.to_dict() == two.truth(BASE).to_dict()
    for url in truth.topic_urls[:5] + truth.non_topic_urls[:5]:
        assert _get(one, url).body == _get(two, url).body
    assert len({tuple(draw(seed).as_dict().values()) for seed in range(200)}) == 200


@pytest.mark.parametrize("seed", CHECKED_SEEDS)
def test_truth_matches_what_is_served(seed: int) -> None:
    site = UniverseSite(seed, faults=False)
    family = site._family
    truth = site.truth(BASE)
    assert truth.topic_urls and truth.threads
    for url in truth.topic_urls + truth.non_topic_urls:
        response = _get(site, url)
        assert response.status == 200, url
        encoding = truth.actual_encodings.get(url, site.dims.encoding)
        for link in _links(response.body, url, encoding):
            target = link[len(BASE) - 1 :]
            if not link.startswith(BASE) or target.startswith(("/static/", "/avatars/")):
                continue
            known = family.lookup(target) or family.dynamic(target) or family.is_disallowed(target)
            assert known, f"{url} links {link}, which the truth does not hold"
    for alias, target in truth.url_aliases.items():
        response = _get(site, alias)
        assert response.status in (200, 302), alias
        if response.status == 302:
            assert truth.canonical(urljoin(alias, response.headers["Location"])) in (target, BASE + "login")
    for url, kind in truth.broken.items():
        assert (_get(site, url).status == 200) == (kind not in ("not-found", "server-error"))


@pytest.mark.parametrize("seed", CHECKED_SEEDS)
def test_every_thread_page_is_linked_from_its_thread(seed: int) -> None:
    """Page counts match the pagers: the pages of a thread link exactly the truth's pages of it
    (through any of their forms), rel=next included."""
    site = UniverseSite(seed, faults=False)
    truth = site.truth(BASE)
    for thread in truth.threads:
        reached = {thread.url}
        for url in thread.pages:
            encoding = truth.actual_encodings.get(url, site.dims.encoding)
            reached |= {truth.canonical(link) for link in _links(_get(site, url).body, url, encoding)}
        assert reached & set(truth.topic_urls) >= set(thread.pages), thread.url
        assert not {u for u in reached & set(truth.topic_urls) if u not in thread.pages
                    and truth.thread_for(u).url == thread.url}


def test_every_dimension_value_is_drawn() -> None:
    """Over the tuning seeds and over the held-apart seeds alike, every value of every dimension
    occurs (a value only some languages or schemes allow: at least once)."""
    for seeds in (TUNING, HELD_APART):
        counts = Counter((name, value) for seed in seeds for name, value in draw(seed).as_dict().items())
        missing = [(name, value) for name, values in DIMENSIONS.items() for value in values
                   if counts[(name, value)] == 0]
        assert not missing, missing
    for seed in range(200):
        dims = draw(seed)
        assert (dims.slug == "none") == (dims.thread_url not in SLUG_SCHEMES)
        assert dims.encoding in (("utf-8", "windows-1252") if dims.lang == "en" else ("utf-8", "gbk", "big5"))


#: What page 1 of a forum's longest thread shows for each value of a few dimensions.
_MARKS = {
    "post_markup": {"table": 'class="tborder post"', "div": 'class="post bg', "list": '<ol id="posts"',
                    "classless": 'component="post" class=""', "article": "<article class=\"message",
                    "microformat": 'class="h-entry"'},
    "time_at": {"title": 'title="', "datetime": "<time ", "epoch": "data-timestamp=", "meta":
                'itemprop="datePublished"'},
    "pager": {"numbered": 'class="pagination"', "next_only": 'class="next"', "chevrons": "aria-label=\"Next\"",
              "noscript": "<noscript>", "rel_next": '<link rel="next"'},
    "author_at": {"title": "avatar\" title=", "data": "data-author=", "itemprop": 'itemprop="author"'},
    "canonical_tag": {"yes": 'rel="canonical"'},
    "code": {"button": "copy-code", "dashes": "-----"},
}


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_the_dimensions_show_on_the_pages(seed: int) -> None:
    site = UniverseSite(seed, faults=False)
    family = site._family
    longest = max(site.plan.threads.values(), key=lambda t: (len(t.posts), t.tid))
    hrefs = [family.thread_href(longest, n) for n in range(1, family.page_count(longest) + 1)]
    page = "".join(site.render(href).body.decode(family.encoding if not longest.wrong_charset
                                                 else family.wrong_encoding) for href in hrefs)
    with_code = any(family.markup.code_of(post) for post in longest.posts)
    for name, marks in _MARKS.items():
        value = site.dims.as_dict()[name]
        if value in marks and (name != "code" or with_code):
            assert marks[value] in page, (name, value)
    assert f"charset={site.dims.encoding}" in page
    assert site.render(hrefs[0]).headers["Content-Type"].endswith(f"charset={site.dims.encoding}")


def test_a_faulty_server_answers_a_burst_of_503_with_retry_after() -> None:
    faults = Faults("burst_503", seed=7)
    fine = Response(200, {}, b"ok")
    answers = [faults.apply(f"/page/{n}", fine) for n in range(1, 60)]
    bursts = [n for n, r in enumerate(answers, start=1) if r.status == 503]
    assert bursts == list(range(faults.start, faults.start + faults.length))
    assert all(answers[n - 1].headers["Retry-After"] == "1" for n in bursts)
    flaky = Faults("flaky_500", seed=7)
    first = [flaky.apply(f"/t/{n}", fine).status for n in range(40)]
    again = [flaky.apply(f"/t/{n}", fine).status for n in range(40)]
    assert 500 in first and set(again) == {200}


@dataclass
class Crawled:
    """A crawl of a generated forum at the shipped defaults, read against its truth."""

    site: UniverseSite
    truth: SiteTruth
    exported: dict[str, dict[str, Any]]
    stats: dict[str, Any]

    def fetches_per_thread_page(self) -> float:
        """Requests (robots.txt and the retries the server forced left out) per exported thread
        page, as ``benchmarks/universe.py`` reports it beside the total."""
        stats = self.stats
        requests = stats["downloader/request_count"] - stats.get("robotstxt/request_count", 0)
        hits = set(self.exported) & set(self.truth.topic_urls)
        return (requests - stats.get("retry/count", 0)) / max(len(hits), 1)

    def topic_scores(self) -> tuple[float, float]:
        """Precision and recall of the exported pages against the truth's thread pages."""
        hits = set(self.exported) & set(self.truth.topic_urls)
        return len(hits) / max(len(self.exported), 1), len(hits) / len(self.truth.topic_urls)

    def post_scores(self) -> dict[str, float]:
        """Over the exported thread pages: share of gold posts found (token F1 >= 0.8, as the
        evaluation finds them), of those with the right author, and of pages with the right
        title."""
        found = right = total = titles = pages = 0
        for url, item in self.exported.items():
            if url not in self.truth.topic_urls:
                continue
            gold = self.truth.posts_for(url)
            posts = item.get("posts") or []
            matches = match_posts([str(p.get("text") or "") for p in posts], [g.text for g in gold])
            found += sum(m is not None for m in matches)
            right += sum(m is not None and posts[m].get("author") == g.author for g, m in zip(gold, matches))
            total += len(gold)
            pages += 1
            titles += item.get("title") == self.truth.thread_for(url).title
        return {"found": found / max(total, 1), "authors": right / max(total, 1),
                "titles": titles / max(pages, 1)}


def crawl_seed(tmp_path: Path, seed: int) -> Crawled:
    """Crawl forum ``seed`` from its front page at the shipped defaults (faults included)."""
    now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    with serve_seed(seed, now=now) as server:
        result = run_crawl(tmp_path, [server.url])
        truth = server.truth
    exported = {truth.canonical(item["url"]): item for item in result.items}
    return Crawled(server.site, truth, exported, result.stats)


#: A tuning forum the learning handles today: query thread URLs with permalinks, board lists
#: counted from 0, mobile copies, a noscript pager, XenForo-like articles, Chinese, reply links
#: that redirect to a login page.
WORKING_SEED = 48


@pytest.fixture(scope="module")
def working(tmp_path_factory: pytest.TempPathFactory) -> Crawled:
    return crawl_seed(tmp_path_factory.mktemp("universe-48"), WORKING_SEED)


def test_a_crawl_of_a_generated_forum_matches_its_truth(working: Crawled) -> None:
    assert working.topic_scores() == (1.0, 1.0)
    scores = working.post_scores()
    assert scores["found"] >= 0.98 and scores["authors"] >= 0.98, scores


def test_a_title_shown_only_in_the_page_title_and_breadcrumb(working: Crawled) -> None:
    """``<title>`` says "Thread - Board - Site" and only the breadcrumb's last item says the
    thread's title alone: the board's name is not kept with it."""
    assert working.site.dims.title_at == "crumb"
    assert working.post_scores()["titles"] >= 0.98


def test_the_mini_pagers_of_board_rows_are_not_fetched_as_the_boards_pages(tmp_path: Path) -> None:
    """Seed 14's board rows link each thread's later pages under a slugless alias outside the
    topic rule (``/forum.php?mod=viewthread&tid=<id>&page=N`` beside ``thread-<id>-N-1.html``).
    Taken for the board's own page flips, every such link was fetched past the alias pattern's
    budget: 53 thread pages fetched twice, 1.92 requests per thread page."""
    assert draw(14).thread_alias == "mini_pager"
    crawled = crawl_seed(tmp_path, 14)
    assert crawled.topic_scores() == (1.0, 1.0)
    assert crawled.fetches_per_thread_page() <= 1.45, crawled.fetches_per_thread_page()


def test_a_members_post_list_is_walked_only_while_its_pages_lead_to_new_threads(tmp_path: Path) -> None:
    """Seed 36's member post lists (``home.php?mod=space&uid=N&do=thread&view=me&page=K``) have
    numbered pagers linking every page. A sampled list page that led to new thread pages chained
    all of its flips past the pattern's close: 15 list pages, 1.76 requests per thread page.
    Chained one page at a time, the list stops at its first page that leads nowhere new."""
    assert draw(36).member_posts == "post_list" and draw(36).pager == "numbered"
    crawled = crawl_seed(tmp_path, 36)
    assert crawled.topic_scores() == (1.0, 1.0)
    assert crawled.fetches_per_thread_page() <= 1.65, crawled.fetches_per_thread_page()


def test_a_pattern_whose_one_sampled_page_says_enough_is_fetched_once(tmp_path: Path) -> None:
    """Seed 1's member profiles (``/members/<name>.<id>/``) show no post-like block and link no
    thread page, and its mobile copies (``/m/thread/<id>``, ``?page=N``) are threads printed
    outside the site's layout: the sample takes one page of each such pattern, and the
    navigation does not probe them after the rules (three of each were fetched when every
    pattern was sampled alike: 1.91 requests per thread page). Its thread pages, and member
    post lists that look like threads, are sampled as before; nothing is lost."""
    dims = draw(1)
    assert dims.member_url == "slug_dot_id" and dims.lite_copy == "mobile"
    now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    with serve_seed(1, now=now) as server:
        result = run_crawl(tmp_path, [server.url])
        truth = server.truth
        requested = server.requested_urls()
    exported = {truth.canonical(item["url"]) for item in result.items}
    assert exported == set(truth.topic_urls)
    profiles = [u for u in requested if "/members/" in u]
    mobile = [u for u in requested if "/m/thread/" in u]
    assert len(set(profiles)) == 1 and len(set(mobile)) == 2, (profiles, mobile)
    assert result.stats.get("forumcrawl/nav/closed_patterns", 0) >= 3


def test_a_thread_copy_is_told_by_the_layout_it_is_printed_without() -> None:
    """A mobile copy shows a thread page's posts without the menus and crumbs that the forum's
    thread, board and profile pages share: a copy; the thread page itself is not one, nor is
    the copy when no page printed within the layout looks like a thread."""
    site = UniverseSite(1, faults=False)

    def fetch(path: str) -> Document:
        response = site.render(path)
        return Document.from_bytes(response.body, BASE + path[1:], response.headers.get("Content-Type"))

    def first_link(doc: Document, needle: str) -> str:
        return next(u for u in page_links(doc.tree, doc.url) if needle in u)[len(BASE) - 1:]

    index = fetch("/")
    board = fetch(first_link(index, "/forums/"))
    thread = fetch(first_link(board, "viewtopic.php?t="))
    pages = {doc.url: doc for doc in (index, board, thread, fetch("/login"), fetch("/faq"),
                                      fetch(first_link(thread, "/members/")),
                                      fetch(first_link(thread, "/m/thread/")))}
    copy = next(url for url in pages if "/m/thread/" in url)
    evidence = {url: page_evidence(doc) for url, doc in pages.items()}
    assert copy_outside_layout(pages, evidence, copy)
    assert not copy_outside_layout(pages, evidence, thread.url)
    alone = {url: doc for url, doc in pages.items() if url != thread.url}
    assert not copy_outside_layout(alone, {url: evidence[url] for url in alone}, copy)


#: What embedded crawls had fetched when they learned the topic rule, per seed: the front page,
#: boards, static pages, members with their post lists and a few thread pages.
CRAWL_SAMPLES = {
    # The URL distance put ``thread-594-2-1.html`` in one cluster with ``faq``, ``login`` and the
    # boards, 3 thread pages of 13 judged: no cluster held a quarter of thread pages, and
    # learning stopped with ``max() arg is an empty sequence`` (no topic rule: every page
    # exported, topic F 0.60, 9.2 fetches per thread page).
    197: ["/", "/forumdisplay.php?f=2", "/register", "/faq", "/login", "/thread-594-2-1.html",
          "/memberlist", "/thread-594-3-1.html", "/thread-594-1-1.html",
          "/members/lazy-admin.21261/", "/members/wanderer.24994/", "/members/quietstorm.7431/",
          "/forumdisplay.php?f=2&page=2", "/forumdisplay.php?f=4", "/forumdisplay.php?f=5",
          "/search/member?user_id=24994", "/search/member?user_id=21261", "/search/member?user_id=7431",
          "/forumdisplay.php?f=5&page=2", "/forumdisplay.php?f=4&page=2",
          "/search/member?user_id=24994&page=2", "/search/member?user_id=21261&page=2",
          "/search/member?user_id=7431&page=2"],
    # The confirmed thread pages were two threads titled alike ("X vs mechanical keyboard –
    # which one?"): the types of their title's words made the rule, which took in no other
    # thread (topic recall 0.08).
    131: ["/", "/forums/hardware.2/", "/register", "/faq", "/login", "/memberlist",
          "/showthread.php?681-graphics-card-vs-mechanical-keyboard-%E2%80%93-which-one%3F/page3",
          "/showthread.php?754-selling%3A-barely-used-ssd",
          "/showthread.php?706-power-supply-vs-mechanical-keyboard-%E2%80%93-which-one%3F",
          "/showthread.php?681-graphics-card-vs-mechanical-keyboard-%E2%80%93-which-one%3F/page4",
          "/showthread.php?681-graphics-card-vs-mechanical-keyboard-%E2%80%93-which-one%3F/page2",
          "/showthread.php?681-graphics-card-vs-mechanical-keyboard-%E2%80%93-which-one%3F",
          "/members/sourdough-sam.14010/", "/search/member?user_id=14010", "/members/pixelpusher.909/",
          "/forums/hardware.2/page-2", "/search/member?user_id=14010&page=4",
          "/search/member?user_id=14010&page=3", "/search/member?user_id=14010&page=2",
          "/members/sarahb.19415/", "/forums/linux-open-source.3/", "/forums/photography.5/",
          "/misc.php?do=whoposted&t=681", "/search/member?user_id=909", "/misc.php?do=whoposted&t=706",
          "/misc.php?do=whoposted&t=754", "/search/member?user_id=19415", "/forums/photography.5/page-2",
          "/forums/linux-open-source.3/page-2"],
    # The thread pages ``/threads/<slug>.<id>/`` shared a cluster with the boards, the mobile
    # copies and the slugless mini-pagers (3 thread pages of 20 judged, the copies judged no
    # threads): the post-number URLs ``…/post-<n>`` with one thread page's later page, 1 of
    # 2, were all that was taken (nothing exported).
    180: ["/", "/forums/%E7%94%B5%E8%84%91%E7%A1%AC%E4%BB%B6.2/", "/register", "/login", "/faq",
          "/threads/%E5%87%BA%E4%B8%AA%E9%97%B2%E7%BD%AE%E7%AC%94%E8%AE%B0%E6%9C%AC%EF%BC%8C%E4%B9%9D%E6%88%90%E6%96%B0.715/",
          "/memberlist", "/threads/674/page-2", "/threads/674/page-1",
          "/threads/%E3%80%90%E8%AE%A8%E8%AE%BA%E3%80%91%E4%B8%BB%E6%9D%BF%E5%92%8C%E7%AC%94%E8%AE%B0%E6%9C%AC%E5%93%AA%E4%B8%AA%E5%A5%BD%EF%BC%9F.702/",
          "/threads/674/page-3",
          "/threads/%E5%85%B3%E4%BA%8E%E5%86%85%E5%AD%98%E6%9D%A1%E7%9A%84%E5%87%A0%E7%82%B9%E7%BB%8F%E9%AA%8C%E6%80%BB%E7%BB%93.674/",
          "/threads/%E5%87%BA%E4%B8%AA%E9%97%B2%E7%BD%AE%E7%AC%94%E8%AE%B0%E6%9C%AC%EF%BC%8C%E4%B9%9D%E6%88%90%E6%96%B0.715/post-8",
          "/space-uid-220.html",
          "/threads/%E3%80%90%E8%AE%A8%E8%AE%BA%E3%80%91%E4%B8%BB%E6%9D%BF%E5%92%8C%E7%AC%94%E8%AE%B0%E6%9C%AC%E5%93%AA%E4%B8%AA%E5%A5%BD%EF%BC%9F.702/post-11",
          "/threads/%E5%85%B3%E4%BA%8E%E5%86%85%E5%AD%98%E6%9D%A1%E7%9A%84%E5%87%A0%E7%82%B9%E7%BB%8F%E9%AA%8C%E6%80%BB%E7%BB%93.674/post-17",
          "/space-uid-27636.html", "/forums/%E7%94%B5%E8%84%91%E7%A1%AC%E4%BB%B6.2/page-2", "/m/thread/715",
          "/m/thread/674", "/m/thread/674?page=2", "/m/thread/674?page=3", "/space-uid-1239.html",
          "/forums/%E6%89%8B%E6%9C%BA%E6%95%B0%E7%A0%81.4/", "/forums/linux-%E4%B8%8E%E5%BC%80%E6%BA%90.3/",
          "/m/thread/702", "/m/thread/702?page=2", "/forums/%E6%89%8B%E6%9C%BA%E6%95%B0%E7%A0%81.4/page-2",
          "/forums/linux-%E4%B8%8E%E5%BC%80%E6%BA%90.3/page-2"],
    # ``viewtopic.php?t=<id>[&start=N]`` shared a cluster with the boards, the latest list, the
    # "who posted" pop-ups and the member post lists (6 thread pages of 25 judged, the post
    # lists judged lists): the post permalinks ``viewtopic.php?p=<id>``, 3 pages that all show
    # a thread, were the rule, and every thread page was fetched again under its permalinks.
    183: ["/", "/c/%E6%89%8B%E6%9C%BA%E6%95%B0%E7%A0%81/5", "/c/linux-%E4%B8%8E%E5%BC%80%E6%BA%90/4", "/latest",
          "/register", "/memberlist", "/viewtopic.php?t=852", "/faq", "/viewtopic.php?p=3818",
          "/viewtopic.php?t=875", "/viewtopic.php?p=3865", "/viewtopic.php?p=3913",
          "/viewtopic.php?t=852&start=5", "/viewtopic.php?t=877&start=5", "/viewtopic.php?t=877&start=10",
          "/member.php?u=4429", "/latest?page=2", "/member.php?u=18715", "/member.php?u=7947",
          "/misc.php?do=whoposted&t=852", "/misc.php?do=whoposted&t=877", "/misc.php?do=whoposted&t=875",
          "/search.php?do=finduser&u=4429", "/search.php?do=finduser&u=18715", "/search.php?do=finduser&u=7947",
          "/search.php?do=finduser&u=4429&page=2", "/search.php?do=finduser&u=7947&page=2",
          "/c/%E7%94%B5%E8%84%91%E7%A1%AC%E4%BB%B6/2", "/search.php?do=finduser&u=18715&page=2", "/login",
          "/viewtopic.php?t=877", "/latest?page=3"],
}


@pytest.mark.parametrize("seed", sorted(CRAWL_SAMPLES))
def test_the_topic_rule_from_a_crawl_sample_is_right(seed: int) -> None:
    """The topic rule learned from what a crawl of a held-apart forum had fetched (its pages and
    the URLs they link, as the crawl's sample holds them) takes every thread page and nothing
    else (failures of the crawl, no threshold chosen on them)."""
    site = UniverseSite(seed, faults=False)
    pages: dict[str, Document] = {}
    urls: list[str] = []
    for path in CRAWL_SAMPLES[seed]:
        url = BASE + path[1:]
        response = site.render(path)
        pages[url] = Document.from_bytes(response.body, url, response.headers.get("Content-Type"))
        urls += [url, *(canonical_url(link) for link in page_links(pages[url].tree, url) if link.startswith(BASE))]
    found = learn_topic_rule(list(dict.fromkeys(urls)), pages)
    truth = site.truth(BASE)
    assert all(found.resolver.match(url) for url in truth.topic_urls)
    assert not any(found.resolver.match(url) for url in truth.non_topic_urls)


def test_member_post_lists_are_not_taken_for_threads(tmp_path: Path) -> None:
    """Member post lists printed like thread pages (``/search/member?user_id=N``), each post
    under its thread's linked title: however many of them the crawl's sample holds, they are
    lists, not threads."""
    crawled = crawl_seed(tmp_path, 26)
    assert crawled.site.dims.member_posts == "post_list"
    precision, recall = crawled.topic_scores()
    assert precision >= 0.99 and recall >= 0.99, (precision, recall)


def test_thread_pages_among_listings_are_not_left_for_their_permalinks(tmp_path: Path) -> None:
    """Seed 183's thread URLs (``viewtopic.php?t=<id>&start=N``) share a URL cluster with the
    boards, the latest list, "who posted" pop-ups and member post lists, and are less than a
    quarter of its pages: the post permalinks (``viewtopic.php?p=<id>``) were the topic rule
    alone, and every thread page was fetched again under its posts' permalinks (5.5 requests
    per thread page, 1.7 with the thread URLs in the rule)."""
    assert draw(183).post_link == "permalink" and draw(183).member_posts == "post_list"
    crawled = crawl_seed(tmp_path, 183)
    assert crawled.topic_scores() == (1.0, 1.0)
    assert crawled.fetches_per_thread_page() <= 2.2, crawled.fetches_per_thread_page()


# -- failure classes of today's learning, as the next fixes should see them -----------------------
# Each names the dimension value that makes the learning fail (benchmarks/universe.py --ablate and
# --ablate-fields: flipping that value alone fixes it on the held-apart seeds) on a tuning seed;
# strict, so a fix shows up as an unexpected pass.

@pytest.mark.parametrize("seed", [
    0,  # thread_url=showthread: vBulletin 4 showthread.php?<id>-<slug>/pageN, a bare query
    19,  # thread_url=id_dash_slug: /topic/<id>-<slug>/ with /page/N/, numbers in the slug
    20,  # showthread with list rows' slugless mini pagers showthread.php?t=<id>&page=N
    25,  # slug=punct: /threads/which-ssd-do-you-use%2C-and-why%3F.440/
    28,  # lite_copy=mobile: /m/thread/<id>?page=N copies with pagers of their own
    2,
])
def test_the_topic_rule_from_a_walk_is_right(seed: int) -> None:
    site = UniverseSite(seed, faults=False)
    assert rule_fault(learned(site, 1), site.truth(WALK_BASE)) is None


def _fields(seed: int) -> dict[str, float]:
    now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    return field_scores(UniverseSite(seed, now=now, faults=False), now)


def test_posts_in_classless_containers() -> None:
    """``<li component="post" class="" data-username data-timestamp>`` holding ``itemprop``
    author and body: containers and fields are named by their attributes."""
    assert draw(11).post_markup == "classless"
    scores = _fields(11)
    assert scores["posts_f1"] >= 0.98, scores
    assert scores["post_author"] >= 0.98 and scores["post_date"] >= 0.98, scores


def test_an_ad_in_post_markup_is_no_post() -> None:
    assert draw(14).ads == "postlike"
    assert _fields(14)["posts_f1"] >= 0.98


def test_code_blocks_stay_in_their_posts() -> None:
    """Code blocks with a 'Copy code' button and ``-----`` lines, which posts repeat: the code
    stays in its post, whole, without the button's label."""
    assert draw(6).code == "dashes"
    assert _fields(6)["posts_f1"] >= 0.98


def test_a_numeric_time_in_an_attribute_is_read_as_its_text_shows() -> None:
    """Seed 15 writes ``title="11-04-2026, 05:26 AM"`` over "Nov 4, 2026" or "3 days ago":
    the texts cannot tell the order of the numbers, the day they show can."""
    dims = draw(15)
    assert (dims.time_at, dims.time_format) == ("title", "vbulletin")
    assert _fields(15)["post_date"] >= 0.98


def test_fields_of_a_plain_forum_are_right() -> None:
    """Seed 2 (query URLs with start= offsets, <ol><li> posts, Big5, the title in <title> and
    the breadcrumb only): extraction alone meets every field bar."""
    scores = _fields(2)
    assert all(value >= 0.98 for value in scores.values()), scores


def test_an_extraction_rule_is_learned_on_thread_pages_not_their_lite_copies() -> None:
    """Seed 188 serves ``/m/thread/<id>`` copies in lite markup beside ``/t/<slug>/<id>``, and
    the thread identity numbers both as the same pages. A sample holding more copies than full
    pages learned the copies' ``div.lite-post`` and the crawl exported a fifth of its pages with
    no post until the rule was relearned after 21 misses."""
    from forumcrawl.document import Document
    from forumcrawl.extractors.navigation import ThreadIdentity, page_flips
    from forumcrawl.learning import NullRuleStore, SiteLearner
    from forumcrawl.sitemodel import SiteModel

    site = UniverseSite(188, faults=False)
    assert site.dims.lite_copy == "mobile"
    truth = site.truth(BASE)
    threads = [t for t in truth.threads if len(t.pages) > 1 and not any(u in truth.broken for u in t.pages)]

    def fetched(url: str) -> Document:
        response = _get(site, url)
        return Document.from_bytes(response.body, url, response.headers["Content-Type"])

    full = [fetched(t.url) for t in threads[:3]]
    copies = [fetched(f"{BASE}m/thread/{t.url.rsplit('/', 1)[1]}") for t in threads[:8]]
    docs = full + copies
    identity = ThreadIdentity().fit([d.url for d in docs], [f for d in docs for f in page_flips(d.tree, d.url)])
    assert identity.key(copies[0].url) == identity.key(full[0].url)
    model = SiteModel(site=full[0].site).with_rule("nav", identity.to_dict())
    rule = SiteLearner(NullRuleStore())._learn_extraction(model, docs).rules["ksf"]
    assert rule["container"] == "div.h-entry", rule["container"]



def test_a_post_time_is_read_where_it_stands_alone_not_from_the_line_around_it() -> None:
    """Seed 173's post header is ``<ul><li><span class="postdate" title=…>date</span></li>…``;
    on edited posts an edit-history ``<li title="edit time">`` comes first. Learned on posts
    never edited, the first ``<li>`` and the span inside it read alike: the ``<li>`` read the
    edit time on edited posts (7 of 68 dates wrong); the span holds the post's time on all."""
    from forumcrawl.document import Document
    from forumcrawl.extractors.ksf import KeywordScoringExtractor, apply_rule

    now = datetime(2026, 12, 7, 6, 0)
    site = UniverseSite(173, now=now, faults=False)
    assert (site.dims.edit, site.dims.time_at) == ("history_link", "title")
    truth = site.truth(BASE)
    docs = []
    for url in truth.topic_urls:
        if url not in truth.broken:
            response = _get(site, url)
            docs.append(Document.from_bytes(response.body, url, response.headers["Content-Type"]))
    edited = [doc for doc in docs if "/history/" in doc.html]
    rule = KeywordScoringExtractor(n_pages=5, random_state=0).fit(
        [doc for doc in docs if "/history/" not in doc.html][:5]).rule_
    pairs = [(gold, post) for doc in edited
             for gold, post in zip(truth.posts_for(doc.url), apply_rule(rule, doc, now=now))]
    assert len(pairs) >= 40
    wrong = [(g.published, p.published) for g, p in pairs if g.published[:10] not in str(p.published)]
    assert not wrong, wrong[:3]
