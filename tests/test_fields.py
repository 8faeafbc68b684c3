"""Page-level fields: title, breadcrumb, page number, links."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors import fields
from forumcrawl.extractors.cx import page_lines
from forumcrawl.extractors.metadata import article_metadata


def tree(html: str):
    return Document.from_text(html, "http://bbs.test/forum/").tree


def test_title_prefers_an_h1_the_title_contains():
    t = tree("<title>How to fix GRUB - Linux Forum</title><h1>Ad banner</h1><h1>How to fix GRUB</h1>")
    assert fields.title(t) == "How to fix GRUB"


def test_title_falls_back_to_the_longest_title_part():
    assert fields.title(tree("<title>求助：显卡驱动装不上怎么办 - 电脑 - 某某论坛</title>")) == "求助：显卡驱动装不上怎么办"
    assert fields.title(None) is None


def test_title_with_a_board_suffix_is_cut_at_the_breadcrumbs_last_item():
    """"Thread - Board - Site" with only the site learned as an affix: the breadcrumb's last
    item (a link, or the text after the last link) says where the thread title ends."""
    linked = tree('<title>Fan noise - Hardware - Bench</title><div class="breadcrumbs"><a href="/">Bench</a>'
                  ' › <a href="/f/2">Hardware</a> › <a href="/t/7">Fan noise</a></div><p>Fan noise</p>')
    assert fields.title(linked, [" - Bench"]) == "Fan noise"
    plain = tree('<title>Fan noise - Hardware - Bench</title><ol class="breadcrumb"><li><a href="/">Bench</a></li>'
                 '<li><a href="/f/2">Hardware</a></li><li><span>Fan noise</span></li></ol>tail words')
    assert fields.title(plain, [" - Bench"]) == "Fan noise"
    assert fields.title(tree("<title>Fan noise - Hardware - Bench</title>"), [" - Bench"]) == "Fan noise - Hardware"
    # An affix learned from a few titles that share an ending cuts no title short of its crumb.
    shared = tree('<title>Lens vs flash – which one? - Bench</title><div class="breadcrumbs"><a href="/">Bench</a>'
                  ' › <a href="/t/8">Lens vs flash – which one?</a></div>')
    assert fields.title(shared, [" – which one? - Bench", " - Bench"]) == "Lens vs flash – which one?"
    assert fields.title(shared) == "Lens vs flash – which one?"  # before any affix is learned


def test_board_from_breadcrumb_without_home_and_title():
    html = (
        '<div id="pt"><a href="/">首页</a> › <a href="/f2">Linux 讨论区</a> › <a href="/f2/s">内核</a>'
        ' › <a href="/t/1">我的帖子</a></div>'
    )
    assert fields.board(tree(html), "我的帖子") == "Linux 讨论区 > 内核"
    assert fields.board(tree("<p>no crumbs</p>")) is None


def test_breadcrumb_pass_finds_what_the_searches_find():
    """One pass over the tree finds, per search of ``_CRUMB_XPATHS``, the same elements."""
    t = tree(
        '<nav itemtype="https://schema.org/BreadcrumbList"><a href="/a">A</a></nav>'
        '<div class="top BreadCrumb-bar"><ol id="pt" aria-label="breadcrumb"><li class="crumbs">'
        '<a href="/b">B</a></li></ol></div><p id="BREADCRUMB-x" class="crumb-trail">c</p>'
        '<span class="crumb">no</span><i itemtype="http://schema.org/BreadcrumbList">i</i>'
    )
    assert fields._crumbs(t) == [t.xpath(query) for query in fields._CRUMB_XPATHS]
    assert [len(found) for found in fields._crumbs(t)] == [2, 3, 3]


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("http://x/forum.php?mod=viewthread&tid=12&extra=page%3D1&page=3", 3),
        ("http://x/viewtopic.php?t=5", 1),
        ("http://x/thread-123-4-1.html", 4),
        ("http://x/t/slug/123/page/2", 2),
        ("http://x/list?pn=7", 7),
        ("http://x/list?page=0", 1),
    ],
)
def test_page_number_from_url(url, page):
    assert fields.page_number(url) == page


@pytest.mark.parametrize(
    "html",
    [
        '<title>Fix GRUB - Forum</title><meta property="og:title" content="Fix GRUB">'
        '<h2>Fix GRUB</h2><h1>Forum</h1><p><a rel="author">Ann</a><time datetime="2024-01-02">x</time></p>',
        '<title>Bench <b>news</b></title><meta property="og:title" content="Bench | news">'
        '<h3>Other</h3><span itemprop="author">Bo</span>',
        '<title></title><h1>Only a heading</h1><span itemprop="datePublished" content="2023-05-06">'
        '</span></body></html><div><a rel="author">late</a></div>',
        "<p>no title, no metadata</p>",
    ],
)
def test_fields_from_the_lines_walk_equal_the_tree_scans(html):
    """Title and an article's metadata read from what the CX lines' walk gathered are those the
    scans of the tree find, with and without a site's title affixes and markup after
    ``</html>``."""
    t = tree(html)
    lines = page_lines(t)
    for affixes in (None, [" - Forum"]):
        assert fields.title(t, affixes, lines) == fields.title(t, affixes)
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert article_metadata(t, lines, now=now) == article_metadata(t, now=now)


def test_page_links_are_absolute_unique_and_skip_non_http():
    html = (
        '<base href="/forum/sub/"><a href="t1.html#p3">a</a><a href="t1.html">b</a>'
        '<a href="javascript:void(0)">c</a><a href="mailto:x@y">d</a><a href="https://o.test/x">e</a>'
        '<a href="http://[bad">f</a>'
    )
    assert fields.page_links(tree(html), "http://bbs.test/forum/") == [
        "http://bbs.test/forum/sub/t1.html",
        "https://o.test/x",
    ]
