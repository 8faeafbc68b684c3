"""The URL resolver (seed 003 §3.1.3): rules from topic URLs, as data, applied without clustering."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from forumcrawl.extractors.url_rules import UrlResolver, UrlRule

DISCUZ = "http://bbs.example"


def discuz_threads(n: int = 12) -> list[str]:
    return [f"{DISCUZ}/forum.php?mod=viewthread&tid={100 + i}" for i in range(n)]


def discuz_others() -> list[str]:
    return [
        f"{DISCUZ}/forum.php?mod=forumdisplay&fid=2",
        f"{DISCUZ}/forum.php?mod=forumdisplay&fid=2&page=2",
        f"{DISCUZ}/home.php?mod=space&uid=7",
        f"{DISCUZ}/forum.php",
        f"{DISCUZ}/member.php?mod=logging&action=login",
    ]


def machina_urls() -> tuple[list[str], list[str]]:
    # Board slugs without ids: nothing in them says they are names, only their siblings do.
    boards = ["help-support-求助", "using-debian", "kernel-hardware-内核", "off-topic"]
    threads = [
        f"http://m.example/forum/{b}/topic/{t}-{i}/"
        for i, (b, t) in enumerate(
            (b, t) for b in boards for t in ("web-forum", "mailing-lists-x", "为什么", "a-b-c-d")
        )
    ]
    boards_pages = [f"http://m.example/forum/{b}/" for b in boards]
    boards_pages += [f"http://m.example/forum/{b}/?page=2" for b in boards]
    return threads, boards_pages


def test_discuz_rule_and_pattern() -> None:
    urls = discuz_threads() + discuz_others()
    resolver = UrlResolver().fit(urls, [1] * 12 + [0] * 5)
    assert str(resolver) == "/forum.php?mod=viewthread&tid=<digits>"
    assert resolver.predict(urls).tolist() == [True] * 12 + [False] * 5
    assert resolver.match(f"{DISCUZ}/forum.php?mod=viewthread&tid=987654")


def test_paper_example_resolver() -> None:
    """The topic cluster {u1..u4} of the query.php example: ids and grades are variables."""
    urls = [
        "http://example.com/query.php?id=001&grade=100",
        "http://example.com/query.php?id=001&grade=99",
        "http://example.com/query.php?id=002&grade=100",
        "http://example.com/query.php?id=002&grade=99",
        "http://example.com/query.php?id=003",
    ]
    resolver = UrlResolver().fit(urls, [1, 1, 1, 1, 0])
    assert str(resolver) == "/query.php?id=<digits>&grade=<digits>"
    assert resolver.predict(urls).tolist() == [True, True, True, True, False]
    assert resolver.match("http://example.com/query.php?id=777&grade=1")


@pytest.mark.parametrize(
    ("topic", "page2"),
    [
        ("http://f.example/forum.php?mod=viewthread&tid=5", "http://f.example/forum.php?mod=viewthread&tid=5&page=2"),
        ("http://f.example/viewtopic.php?t=5", "http://f.example/viewtopic.php?t=5&start=20"),
        ("http://f.example/threads/a-b.5/", "http://f.example/threads/a-b.5/page-2"),
        ("http://f.example/t/a-b/5", "http://f.example/t/a-b/5/2"),
        ("http://f.example/thread-5-1-1.html", "http://f.example/thread-5-2-1.html"),
    ],
)
def test_paginated_thread_pages_are_topic_pages(topic: str, page2: str) -> None:
    base = topic.rsplit("5", 1)
    topics = [f"{base[0]}{i}{base[1]}" for i in range(5, 11)]
    pages = [page2.replace("5", str(i), 1) for i in range(5, 11)]
    others = ["http://f.example/", "http://f.example/members/x/"]
    urls = topics + pages + others
    # Only the first pages are labelled topic; the rest is unknown (not fetched yet).
    labels = [1] * len(topics) + [-1] * len(pages) + [0] * len(others)
    resolver = UrlResolver().fit(urls, labels)
    assert resolver.predict(topics + pages).all(), str(resolver)
    assert not resolver.predict(others).any()
    assert resolver.match(page2.replace("5", "99", 1))


def test_one_word_beside_page_numbers_is_no_type_of_the_parameter() -> None:
    # askbot links ``?page=None`` beside ``?page=<n>``: the word is a rendering of a missing
    # number, not a page, and must not make the page parameter take any word.
    topics = [f"http://f.example/question/{i}/title-{i}/" for i in range(1, 41)]
    numbered = [f"{u}?page={2 + i % 3}" for i, u in enumerate(topics[:20])]
    broken = [f"{u}?page=None" for u in topics[20:26]]
    resolver = UrlResolver().fit(topics + numbered + broken, [1] * (len(topics) + 26))
    assert "page=<digits>" in str(resolver), str(resolver)
    assert resolver.predict(topics + numbered).all()
    assert not resolver.predict(broken).any()


def test_siblings_merge_threads_of_other_boards() -> None:
    threads, board_pages = machina_urls()
    urls = threads + board_pages
    labels = [1] * 4 + [-1] * (len(threads) - 4) + [0] * len(board_pages)
    resolver = UrlResolver().fit(urls, labels)
    assert resolver.widened_ == ["path 2"]
    assert str(resolver).startswith("/forum/<slug>/topic/")
    assert resolver.predict(threads).all()
    assert not resolver.predict(board_pages).any()
    assert resolver.match("http://m.example/forum/new-board/topic/brand-new-thread-1234/")


def test_siblings_need_a_later_word_and_respect_negatives() -> None:
    # One-segment URLs: nothing after the varying word says the variants are the same kind.
    threads = [f"http://s.example/thread-{i}-1-1.html" for i in range(10)]
    others = [f"http://s.example/{w}-{i}-1.html" for w in ("forum", "space", "group") for i in range(3)]
    resolver = UrlResolver().fit(threads + others, [1] * 10 + [-1] * 9)
    assert str(resolver) == "/thread-<digits>-<digits>-<digits>.html"
    assert not resolver.predict(others).any()
    # With a later word, a variant that is known not to be a topic URL vetoes the widening.
    threads, board_pages = machina_urls()
    fake = "http://m.example/forum/bad-board/topic/x-9/"
    labels = [1] * 4 + [-1] * (len(threads) - 4) + [0]
    resolver = UrlResolver().fit(threads + [fake], labels)
    assert resolver.widened_ == []
    assert not resolver.match(fake)


def test_strays_in_the_topic_cluster_are_dropped() -> None:
    threads, board_pages = machina_urls()
    # The clustering put one board page among the threads, and it was fetched: a negative.
    urls = threads + board_pages[:1] + board_pages[1:]
    labels = [1] * len(threads) + [1] + [0] * (len(board_pages) - 1)
    resolver = UrlResolver().fit(urls, labels)
    assert resolver.predict(threads).all()
    assert not resolver.predict(board_pages).any()


def test_a_page_judged_no_thread_does_not_narrow_away_confirmed_thread_pages() -> None:
    # Misago's shape: each thread links its last post, its new posts, its pages and every
    # post's permalink, so plain thread URLs are under a quarter of the topic URLs; one thread
    # of a single short post was judged no thread page (a negative of the plain shape).
    base = "http://f.example/t"
    words = ["apt", "kernel", "mirror", "grub", "wifi", "driver", "locale", "iconv", "shell"]
    slugs = [f"{words[i % 9]}-{words[(i * 4 + 1) % 9]}-{words[(i * 2 + 5) % 9]}" for i in range(12)]
    plain = [f"{base}/{slug}/{i}/" for i, slug in enumerate(slugs)]
    deeper = [
        f"{base}/{slug}/{i}/{tail}/"
        for i, slug in enumerate(slugs)
        for tail in ("last", "new", "2", f"post/{100 + i}", f"post/{200 + i}")
    ]
    negative = f"{base}/serenity-through-viciousness/136/"
    urls = plain + deeper + [negative]
    labels = [1] * (len(plain) + len(deeper)) + [0]
    narrowed = UrlResolver().fit(urls, labels)
    assert not narrowed.predict(plain).any()
    resolver = UrlResolver().fit(urls, labels, confirmed=plain[:5])
    assert resolver.predict(plain).all()
    assert resolver.predict([f"{url}2/" for url in plain]).all()
    # Outnumbered by the pages judged no threads, one confirmed page keeps nothing.
    more = [f"{base}/other-short-thread/137/", f"{base}/yet-another-one/138/"]
    outvoted = UrlResolver().fit(urls + more, labels + [0, 0], confirmed=plain[:2])
    assert not outvoted.predict(plain).any()


def test_support_prunes_rare_shapes() -> None:
    threads = [f"http://f.example/t/topic-{i}/" for i in range(60)]
    stray = "http://f.example/t/"
    resolver = UrlResolver().fit(threads + [stray], [1] * 61)
    assert not resolver.match(stray)
    assert resolver.n_topic_ == 60


def test_title_words_are_not_literals() -> None:
    urls = ["http://x.example/threads/ram-upgrade.19401/", "http://x.example/threads/ram-empfehlung.19402/"]
    resolver = UrlResolver().fit(urls, [1, 1])
    assert resolver.match("http://x.example/threads/gpu-frage.19999/")
    assert not resolver.match("http://x.example/members/ram.19/")


def test_a_slug_keeps_the_punctuation_of_its_title() -> None:
    """Percent-encoded punctuation a slug keeps (``%3F``, ``%3A``, ``%2C``) is part of its
    words, not another shape of URL; a query value stays a word or a number."""
    urls = [f"http://x.example/threads/{slug}.{400 + i}/" for i, slug in enumerate(
        ["ram-upgrade", "which-ssd-do-you-use", "gpu-stuck-at-boot", "best-cpu-cooler-for-itx"])]
    resolver = UrlResolver().fit(urls, [1] * len(urls))
    assert resolver.match("http://x.example/threads/help%3A-monitor-keeps-rebooting.482/")
    assert resolver.match("http://x.example/threads/which-ssd-do-you-use%2C-and-why%3F.440/")
    assert resolver.match("http://x.example/threads/%5Bguide%5D-getting-started.437/")
    board = UrlResolver().fit([f"http://x.example/list.php?sort=new&f={i}" for i in range(6)], [1] * 6)
    assert not board.match("http://x.example/list.php?sort=a%20b&f=3")


def test_session_ids_are_ignored() -> None:
    urls = [f"http://p.example/viewtopic.php?f=2&t={i}&sid={'0123456789abcdef' * 2}" for i in range(5)]
    resolver = UrlResolver().fit(urls, [1] * 5)
    assert str(resolver) == "/viewtopic.php?f=<digits>&t=<digits>"
    assert resolver.match("http://p.example/viewtopic.php?f=2&t=9&sid=" + "f" * 32)
    assert resolver.match("http://p.example/viewtopic.php?f=2&t=9")


def test_rule_is_json_data_that_people_can_edit() -> None:
    urls = discuz_threads() + discuz_others()
    resolver = UrlResolver().fit(urls, [1] * 12 + [0] * 5)
    data = json.loads(json.dumps(resolver.to_dict(), ensure_ascii=False))
    assert data["pattern"] == str(resolver)
    assert data["site"] == "bbs.example"
    loaded = UrlResolver.from_dict(data)
    assert (loaded.predict(urls) == resolver.predict(urls)).all()
    assert str(loaded) == str(resolver)
    # A person allows the print view too: edit the literal values of the mod= block.
    mod = data["query"][0]["blocks"][1]
    assert mod == {"values": ["viewthread"]}
    mod["values"].append("printthread")
    edited = UrlResolver.from_dict(data)
    assert edited.match(f"{DISCUZ}/forum.php?mod=printthread&tid=3")
    assert str(edited) == "/forum.php?mod=(printthread|viewthread)&tid=<digits>"


def test_bad_rule_data() -> None:
    with pytest.raises(ValueError, match="newer"):
        UrlRule.from_dict({"version": 99})
    with pytest.raises(ValueError, match="exactly one"):
        UrlResolver.from_dict({"path": [{"blocks": [{}]}]})
    with pytest.raises(ValueError, match="unknown block types"):
        UrlResolver.from_dict({"path": [{"blocks": [{"types": ["words"]}]}]})


def test_other_sites_and_non_urls_are_not_topic_urls() -> None:
    resolver = UrlResolver().fit(discuz_threads(), [1] * 12)
    assert not resolver.match("http://other.example/forum.php?mod=viewthread&tid=1")
    assert resolver.predict(["javascript:void(0)", "mailto:a@b.c", "not a url"]).tolist() == [False] * 3


def test_estimator_contract() -> None:
    urls = discuz_threads() + discuz_others()
    labels = [1] * 12 + [0] * 5
    resolver = UrlResolver(max_literals=2)
    with pytest.raises(NotFittedError):
        resolver.predict(urls)
    assert str(resolver) == "UrlResolver(unfitted)"
    assert clone(resolver).get_params() == resolver.get_params()
    assert resolver.fit(urls, labels) is resolver
    first = resolver.to_dict()
    assert resolver.fit(urls, labels).to_dict() == first
    assert clone(resolver).fit(urls, np.array(labels, dtype=bool)).to_dict() == first


@pytest.mark.parametrize(
    ("urls", "labels", "message"),
    [
        (["http://a.example/x"], [0], "no topic URL"),
        (["http://a.example/x", "http://a.example/y"], [1], "labels"),
        (["http://a.example/x"], [2], "labels must be"),
        (["http://a.example/x", "http://a.example/x"], [1, 0], "conflicting"),
        (["http://a.example/x", "http://b.example/y"], [1, 0], "another site"),
        (["http://a.example/x", "not a url"], [1, 0], "URL"),
    ],
)
def test_bad_input(urls: list[str], labels: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        UrlResolver().fit(urls, labels)


def test_bad_params() -> None:
    with pytest.raises(ValueError, match="max_literals"):
        UrlResolver(max_literals=0).fit(discuz_threads(), [1] * 12)
    with pytest.raises(ValueError, match="min_support"):
        UrlResolver(min_support=1.5).fit(discuz_threads(), [1] * 12)


def test_classifies_in_microseconds() -> None:
    resolver = UrlResolver().fit(discuz_threads() + discuz_others(), [1] * 12 + [0] * 5)
    stream = [f"{DISCUZ}/forum.php?mod=viewthread&tid={i}" for i in range(20000)]
    started = time.perf_counter()
    predicted = resolver.predict(stream)
    per_url = (time.perf_counter() - started) / len(stream)
    assert predicted.all()
    assert per_url < 200e-6  # typically ~10 µs; generous for slow CI machines


@pytest.mark.parametrize(
    ("thread", "page2"),
    [
        ("http://a.example/question/5/grub/", "http://a.example/question/5/grub/?page=2"),
        ("http://v.example/showthread.php?t=5", "http://v.example/showthread.php?t=5&page=2"),
        ("http://x.example/threads/a-b.5/", "http://x.example/threads/a-b.5/page-2"),
    ],
)
def test_a_rule_learned_from_one_page_threads_takes_in_their_later_pages(thread: str, page2: str) -> None:
    threads = [thread.replace("5", str(i), 1) for i in range(5, 11)]
    host = thread.split("/")[2]
    others = [f"http://{host}/questions/?page=2", f"http://{host}/users/5/jo/"]
    resolver = UrlResolver().fit(threads + others, [1] * len(threads) + [0] * len(others))
    assert not resolver.match(page2), str(resolver)
    before = str(resolver)
    # Links that are no later page of a thread URL change nothing.
    assert resolver.add_pages([*others, thread.replace("5", "5x", 1), "http://elsewhere.example/t?page=2"]) == []
    assert str(resolver) == before
    assert resolver.add_pages([page2, page2]) == [page2]
    assert resolver.match(page2) and resolver.match(page2.replace("5", "77", 1).replace("2", "9"))
    assert resolver.predict(threads).all() and not resolver.predict(others).any()
    again = UrlResolver.from_dict(json.loads(json.dumps(resolver.to_dict())))
    assert again.match(page2) and str(again) == str(resolver)
