"""Post fields read from markup (attributes, epoch times) and thread titles without the site name."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import datetime, timezone

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors.fields import title, title_affixes, title_core
from forumcrawl.extractors.ksf import KeywordScoringExtractor, KsfRule, apply_rule

_WORDS = (
    "kernel panic after the graphics driver upgrade on my laptop",
    "roll back the driver package and pin the older kernel version",
    "the fan curve in the firmware settings fixed the noise for me",
    "check the power supply rails with a multimeter before replacing parts",
    "my board needed a bios update before the new memory would train",
    "thermal paste was dry after five years so I replaced it",
)
_USERS = ("ann", "bob", "carol", "dave", "erin", "frank")


def _text(thread: int, post: int) -> str:
    """A post's words: every post of the sample different (template lines are not posts)."""
    rng = random.Random(thread * 100 + post)
    words = " ".join(_WORDS).split()
    return " ".join(rng.sample(words, 14)).capitalize() + "."


def _page(thread: int, *, epoch: bool = False) -> Document:
    """A script-era thread page: author only in ``data-author`` and an avatar's ``alt``, time only
    in an empty element's attribute (ISO ``title`` or epoch ``data-time``), floors as ``#N``."""
    posts = []
    for i in range(4):
        user = _USERS[(thread + i) % len(_USERS)]
        moment = datetime(2024, 3, thread, 8 + i, 5 * i, tzinfo=timezone.utc)
        stamp = (f'<span class="ts" data-time="{int(moment.timestamp())}"></span>' if epoch
                 else f'<span class="timeago" title="{moment.isoformat()}"></span>')
        posts.append(
            f'<article class="post" data-author="{user}"><a class="avatar" href="/u/{user}/">'
            f'<img alt="{user}" src="/a.png"></a><header><a class="n" href="#p{i}">#{i + 1}</a>'
            f' {stamp}</header><div class="content">{_text(thread, i)}</div></article>'
        )
    html = (f"<html><head><title>T{thread} | Bench Club</title></head><body><h1>T{thread}</h1>"
            f"{''.join(posts)}</body></html>")
    return Document.from_text(html, f"http://f.example/t/{thread}")


@pytest.mark.parametrize("epoch", [False, True])
def test_author_and_time_only_in_attributes(epoch: bool) -> None:
    docs = [_page(t, epoch=epoch) for t in range(1, 6)]
    rule = KeywordScoringExtractor().fit(docs).rule_
    assert rule.author_attr in {"alt", "data-author"}
    assert rule.time_attr == ("data-time" if epoch else "title")
    posts = apply_rule(rule, _page(9, epoch=epoch))
    assert [p.author for p in posts] == [_USERS[(9 + i) % 6] for i in range(4)]
    assert [p.published for p in posts] == [
        datetime(2024, 3, 9, 8 + i, 5 * i, tzinfo=timezone.utc).isoformat() for i in range(4)
    ]
    assert [p.floor for p in posts] == [1, 2, 3, 4]
    assert rule.title_affixes == [" | Bench Club"]


def test_rule_json_keeps_where_fields_are_read() -> None:
    rule = KeywordScoringExtractor().fit([_page(t) for t in range(1, 6)]).rule_
    again = KsfRule.from_dict(rule.to_dict())
    assert again == rule and again.rule_id == rule.rule_id
    assert rule.to_dict()["version"] == 3


def test_version_2_rules_keep_their_id() -> None:
    """A rule without ``repeats_first`` (version 2) has the id version 2 computed."""
    data = {"body": "div.content", "container": "article.post", "author": "a.avatar",
            "author_attr": "alt", "title_affixes": [" - Bench"], "version": 2}
    rule = KsfRule.from_dict(data)
    fields = ["div.content", "article.post", "a.avatar", None, None, [], ["alt", None, None],
              [" - Bench"], False]
    assert rule.rule_id == hashlib.sha1(json.dumps(fields).encode()).hexdigest()[:12]
    assert KsfRule.from_dict({**data, "repeats_first": True}).rule_id != rule.rule_id


def test_version_1_rules_read_text_and_keep_their_id() -> None:
    old = {"body": "div.content", "container": "article.post", "author": "a.avatar",
           "time": "span.timeago", "floor": "a.n", "exclude": [], "version": 1, "rule_id": "x"}
    rule = KsfRule.from_dict(old)
    assert (rule.author_attr, rule.time_attr, rule.title_affixes) == (None, None, [])
    # The id of a version 1 rule is what version 1 computed (a hash of its selectors).
    selectors = ["div.content", "article.post", "a.avatar", "span.timeago", "a.n", []]
    assert rule.rule_id == hashlib.sha1(json.dumps(selectors).encode()).hexdigest()[:12]
    posts = apply_rule(rule, _page(2))
    assert [p.author for p in posts] == [None] * 4  # the avatar link has no text
    assert posts[0].published is not None  # the time element's title is still read


def test_title_without_the_learned_site_name() -> None:
    titles = ["Is it worth it? – which one - Bench Forums", "My NAS - Bench Forums - Page 2",
              "Fan noise - Bench Forums", "Bench - Bench Forums"]
    affixes = title_affixes(titles)
    assert affixes == [" - Bench Forums"]
    assert title_core("My NAS - Bench Forums - Page 2", affixes) == "My NAS"
    page = Document.from_text(
        "<html><head><title>My NAS - Bench Forums - Page 2</title></head>"
        "<body><h1>Bench Forums</h1><h2>My NAS</h2></body></html>"
    )
    assert title(page.tree, affixes) == "My NAS"
    dash = Document.from_text("<title>Is it worth it? – which one - Bench Forums</title>")
    assert title(dash.tree, affixes) == "Is it worth it? – which one"
    # "Thread - Board": the heading the rest starts with is the title.
    board = Document.from_text("<title>Fan noise - Cooling - Bench Forums</title><h1>Fan noise</h1>")
    assert title(board.tree, affixes) == "Fan noise"


def test_one_threads_pages_are_not_a_site_name() -> None:
    assert title_affixes(["Help | Page 2 | Site", "Help | Page 3 | Site", "Help | Site", "Other | Site",
                          "More | Site", "Again | Site"]) == [" | Site"]


def test_month_first_dates_are_learned_per_site() -> None:
    """vBulletin writes 11-05-2026 for November 5: read day first, half its dates would be wrong."""
    import urllib.request

    from forumcrawl.mockforum import serve

    with serve("vbulletin") as srv:
        now = datetime.fromisoformat(srv.truth.now).replace(tzinfo=None)
        pages = []
        for thread in srv.truth.threads[:12]:
            for url, truth in thread.pages.items():
                if url not in srv.truth.broken:
                    with urllib.request.urlopen(url, timeout=10) as response:
                        pages.append((Document.from_bytes(response.read(), url), truth))
    rule = KeywordScoringExtractor().fit([doc for doc, _ in pages]).rule_
    assert rule.month_first
    for doc, truth in pages:
        posts = apply_rule(rule, doc, now=now)
        assert [p.author for p in posts] == [t.author for t in truth], doc.url
        assert [p.published[:16] for p in posts] == [t.published[:16] for t in truth], doc.url
