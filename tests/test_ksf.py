"""KSF on a small hand-written Discuz-like forum, plus the estimator contract."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import subprocess
import sys
from datetime import datetime
from html import escape

import lxml.html
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from forumcrawl.document import Document
from forumcrawl.extractors.ksf import (
    KeywordScoringExtractor,
    KsfRule,
    apply_rule,
    extract_single,
    ksf_weights,
    scoring,
)
from forumcrawl.extractors import posts
from forumcrawl.extractors.posts import element_text, own_text, parse_floor
from tests.regex_first import first_items

NOW = datetime(2024, 3, 8, 9, 0)
FLOOR_LABELS = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}
SIGNATURES = {
    "张三": "人生苦短，我用Python。签名档里的固定文字",
    "alice": "Sent from my mechanical keyboard, every keystroke counts",
}

# (title, [(author, time as written, ISO expected, text, quoted floor or None, edited)])
THREADS = [
    ("笔记本风扇噪音很大怎么办", [
        ("张三", "发表于 2024-3-5 14:02", "2024-03-05T14:02:00",
         "我的笔记本最近风扇噪音特别大，尤其是打开浏览器看视频的时候，温度也升到八十多度。", None, False),
        ("李四", "发表于 2024-3-5 15:10", "2024-03-05T15:10:00",
         "可以先清理一下散热片上的灰尘，再换一次硅脂，一般能降十度左右。", None, True),
        ("王五", "3 天前", "2024-03-05T09:00:00",
         "同意楼上，另外检查一下后台有没有挖矿程序占用显卡。", 2, False),
    ]),
    ("How do I resize an ext4 partition safely", [
        ("alice", "2024-02-11 08:30", "2024-02-11T08:30:00",
         "I want to shrink my ext4 home partition to make room for a second distribution. "
         "Is resize2fs enough or do I need gparted from a live stick?", None, False),
        ("bob", "2024-02-11 09:45", "2024-02-11T09:45:00",
         "Unmount it first, run e2fsck, then resize2fs to the new size, and only then shrink "
         "the partition with parted. Always keep a backup.", None, False),
        ("carol", "昨天 12:30", "2024-03-07T12:30:00",
         "Gparted does exactly those steps for you and shows a progress bar.", 1, True),
        ("dave", "2 小时前", "2024-03-08T07:00:00",
         "Remember that XFS cannot shrink at all, only ext filesystems can.", None, False),
    ]),
    ("自制酸奶失败了求助", [
        ("赵六", "发表于 2024-1-20 10:00", "2024-01-20T10:00:00",
         "用牛奶加菌粉在电饭煲里保温八小时，结果还是稀的，也有点发苦，是哪里出问题了？", None, False),
        ("张三", "前天 08:15", "2024-03-06T08:15:00",
         "温度太高会把乳酸菌烫死，保持在四十度左右，酸奶机比电饭煲稳定得多。", None, False),
        ("孙七", "半小时前", "2024-03-08T08:30:00",
         "发苦可能是发酵时间太长了，试试六个小时就放进冰箱冷藏。", 1, False),
    ]),
    ("Best sourdough hydration for beginners", [
        ("erin", "2024-01-02 18:00", "2024-01-02T18:00:00",
         "My sourdough loaves keep spreading flat in the oven. I use eighty percent hydration "
         "and bake in a dutch oven at two hundred and forty degrees.", None, False),
        ("frank", "2024-01-02 19:30", "2024-01-02T19:30:00",
         "Drop to sixty eight percent until your shaping improves; wet dough is unforgiving.", 1, False),
        ("alice", "5 天前", "2024-03-03T09:00:00",
         "Cold retard the shaped loaf overnight in the fridge, scoring gets much easier too.", None, False),
    ]),
    ("旧电脑装什么系统比较流畅", [
        ("周八", "发表于 2024-2-1 20:00", "2024-02-01T20:00:00",
         "家里有台十年前的台式机，两个内存条一共四个G，想装个系统给老人上网看新闻。", None, False),
        ("吴九", "发表于 2024-2-1 21:12", "2024-02-01T21:12:00",
         "推荐轻量的发行版，桌面用XFCE，开机只占三百兆内存，浏览器换成火狐。", None, False),
        ("张三", "刚刚", "2024-03-08T09:00:00",
         "再加一条固态硬盘，比换系统提升明显，几十块钱就够了。", 2, True),
    ]),
    ("Mechanical keyboard switches for typing all day", [
        ("gina", "2024-02-20 07:05", "2024-02-20T07:05:00",
         "Linear, tactile or clicky? I write documentation eight hours a day and my wrists hurt.", None, False),
        ("alice", "2024-02-20 07:40", "2024-02-20T07:40:00",
         "Tactile brown switches with o-rings are quiet enough for an office and easy on fingers.", None, False),
        ("henry", "2024-02-21 10:00", "2024-02-21T10:00:00",
         "A wrist rest and a lower desk height will help more than any switch choice.", 1, False),
    ]),
]


def render(thread_id: int, *, layout: str = "discuz", posts: list | None = None, pager: str = "") -> str:
    """One thread page of the fake forum (``layout="other"``: a different template; ``posts``:
    these posts instead of the thread's, ``pager``: markup after the posts)."""
    title, posts = THREADS[thread_id][0], posts or THREADS[thread_id][1]
    out = [
        "<html><head><title>", escape(title), " - 测试论坛</title></head><body>",
        '<div id="hd"><a href="/">首页</a> <a href="/forum">论坛</a> <a href="/login">登录</a></div>',
        '<div class="nav">测试论坛 &gt; 综合讨论区 &gt; ', escape(title), "</div>",
        '<div class="ad">广告：高速镜像，限时优惠，点击领取代金券</div>',
        "<h1>", escape(title), "</h1>", '<div id="postlist">',
    ]
    for i, (author, when, _iso, text, quoted, edited) in enumerate(posts, start=1):
        pid = 1000 + thread_id * 10 + i
        body = ""
        if quoted:
            q_author, _, _, q_text, _, _ = posts[quoted - 1]
            body += (f'<div class="quote"><blockquote>{escape(q_author)} 发表于 … {escape(q_text[:30])}'
                     "</blockquote></div>")
        if edited:
            body += f'<i class="pstatus"> 本帖最后由 {escape(author)} 于 2024-3-6 10:00 编辑 </i><br />'
        body += escape(text)
        floor = FLOOR_LABELS.get(i, f"{i}#")
        if layout == "discuz":
            sig = SIGNATURES.get(author)
            out += [
                f'<div id="post_{pid}" class="plhin{" first" if i == 1 else ""}"><table><tr>',
                f'<td class="pls"><div class="authi"><a href="home.php?mod=space&uid={pid % 97}" ',
                f'class="xw1">{escape(author)}</a></div><p>积分 {pid % 500}</p><p>只看该作者</p></td>',
                f'<td class="plc"><div class="pi"><strong><a href="#pid{pid}">{floor}</a></strong>',
                f'<em id="authorposton{pid}">{escape(when)}</em></div>',
                f'<div class="t_fsz"><table><tr><td class="t_f" id="postmessage_{pid}">{body}</td>',
                "</tr></table></div>",
                f'<div class="sign">{escape(sig)}</div>' if sig else "",
                '<div class="po">回复 引用 举报</div></td></tr></table></div>',
            ]
        else:
            out += [f'<article><header>{escape(author)} - {escape(when)}</header><section>{body}</section></article>']
    out += ["</div>", pager, '<div id="ft">Powered by Discuz! (C) 2001-2024 Comsenz Inc.</div></body></html>']
    return "".join(out)


def document(thread_id: int, *, layout: str = "discuz", encoding: str = "gbk") -> Document:
    html = render(thread_id, layout=layout)
    body = html.replace("<head>", f'<head><meta charset="{encoding}">').encode(encoding)
    return Document.from_bytes(body, f"http://bbs.example.com/thread-{thread_id}-1-1.html")


@pytest.fixture(scope="module")
def forum() -> list[Document]:
    return [document(i) for i in range(len(THREADS))]


@pytest.fixture(scope="module")
def fitted(forum: list[Document]) -> KeywordScoringExtractor:
    return KeywordScoringExtractor(n_pages=5, random_state=0).fit(forum)


# ---------------------------------------------------------------------------------------- algorithm


def test_ksf_weights_follow_formulas_9_to_11() -> None:
    from collections import Counter
    import math

    w = ksf_weights([Counter(a=2, t=1), Counter(b=1, t=1), Counter(c=1, t=1)])
    assert w[0]["a"] == pytest.approx(1.0 * math.log(3 / 2))
    assert w[0]["t"] == pytest.approx((1 / 3) * math.log(3 / 4))


def test_scoring_is_algorithm_4() -> None:
    assert scoring(["x", "y", "x", "z", "z"]) == ["x", "z"]
    assert scoring([]) == []


def test_parse_floor() -> None:
    assert [parse_floor(t) for t in ("楼主", "沙发", "板凳", "地板", "#12", "12#", "12楼", "Posts: 3")] == [
        1, 2, 3, 4, 12, 12, 12, None,
    ]


# ------------------------------------------------------------------------------------- the forum


def test_rule_finds_bodies_container_and_fields(fitted: KeywordScoringExtractor) -> None:
    rule = fitted.rule_
    assert rule.body == "td.t_f"
    assert rule.container == "div.plhin"
    assert rule.author in {"a.xw1", "div.authi"}
    assert rule.time is not None and rule.floor is not None
    assert rule.mode == "sample" and rule.n_pages == 5
    assert sum(rule.votes.values()) == 5
    assert all(fitted.keywords_)


@pytest.mark.parametrize("thread_id", range(len(THREADS)))
def test_posts_of_every_page(fitted: KeywordScoringExtractor, thread_id: int) -> None:
    posts = fitted.extract(document(thread_id), now=NOW)
    truth = THREADS[thread_id][1]
    assert len(posts) == len(truth)
    for i, (post, (author, when, iso, text, _quoted, _edited)) in enumerate(zip(posts, truth), start=1):
        assert post.floor == i
        assert post.author == author
        assert post.published == iso
        assert post.published_raw == when
        assert post.text == text  # no quote, no signature, no edit notice


def test_drift_gives_no_posts(fitted: KeywordScoringExtractor) -> None:
    assert fitted.extract(document(0, layout="other"), now=NOW) == []


def test_a_one_word_reply_is_a_post_by_the_learned_rule(fitted: KeywordScoringExtractor) -> None:
    """A page whose only post is shorter than the cascade's min_chars is still read by the
    site's rule (by its place in the post template); without a rule the bar applies."""
    from forumcrawl.pages import Cascade
    from forumcrawl.sitemodel import SiteModel

    html = render(0, posts=[("张三", "发表于 2024-3-5 14:02", "", "顶", None, False)])
    doc = Document.from_text(html, "http://bbs.example.com/thread-0-1-1.html")
    model = SiteModel(site="bbs.example.com").with_rule("ksf", fitted.rule_.to_dict())
    found = Cascade(["ksf", "cx"], min_chars=20).run(doc, model, now=NOW).extraction
    assert found is not None and found.method == "ksf"
    assert [(p.author, p.text) for p in found.posts] == [("张三", "顶")]
    assert Cascade(["ksf"], min_chars=20).run(doc, now=NOW).extraction is None


def _paged(thread_id: int) -> list[Document]:
    """A thread in two pages whose second repeats the opening post above its replies (as
    Askbot repeats its question), linking back to page 1."""
    posts = THREADS[thread_id][1]
    url = f"http://bbs.example.com/thread-{thread_id}-{{}}-1.html"
    back = f'<div class="pg"><a href="thread-{thread_id}-1-1.html">1</a> <strong>2</strong></div>'
    return [
        Document.from_text(render(thread_id, posts=posts[:2]), url.format(1)),
        Document.from_text(render(thread_id, posts=[posts[0], *posts[2:]], pager=back), url.format(2)),
    ]


def test_a_post_repeated_on_later_pages_is_read_on_its_own_page(fitted: KeywordScoringExtractor) -> None:
    from dataclasses import replace

    from forumcrawl.extractors.ksf import with_site_pages

    def repeats_first(rule: KsfRule, docs: list[Document]) -> bool:
        return with_site_pages(rule, docs).repeats_first
    from forumcrawl.extractors.ksf_apply import later_page

    paged = [doc for thread_id in (0, 1, 2) for doc in _paged(thread_id)]
    assert [later_page(doc.tree, doc.url) for doc in paged] == [False, True] * 3
    assert repeats_first(fitted.rule_, paged)
    assert not repeats_first(fitted.rule_, [document(i) for i in range(len(THREADS))])
    assert not repeats_first(fitted.rule_, paged[:2])  # one later page is no evidence
    rule = replace(fitted.rule_, repeats_first=True)
    assert KsfRule.from_dict(rule.to_dict()).repeats_first
    first, second = _paged(1)
    texts = [t[3] for t in THREADS[1][1]]
    assert [p.text for p in apply_rule(rule, first, now=NOW)] == texts[:2]
    assert [p.text for p in apply_rule(rule, second, now=NOW)] == texts[2:]
    assert [p.text for p in apply_rule(fitted.rule_, second, now=NOW)] == [texts[0], *texts[2:]]


def test_a_crawl_reads_a_repeated_post_once_without_the_rule_knowing(fitted: KeywordScoringExtractor) -> None:
    """A rule learned from first pages only does not know that later pages repeat a post;
    the cascade tells from the pages it read (page 1, then page 2)."""
    from forumcrawl.pages import Cascade
    from forumcrawl.sitemodel import SiteModel

    from forumcrawl.extractors.navigation import ThreadIdentity

    assert not fitted.rule_.repeats_first
    url = "http://bbs.example.com/thread-{}-{}-1.html"
    identity = ThreadIdentity().fit([url.format(t, 1) for t in range(6)],
                                    [(url.format(t, 2), 2) for t in range(3)])
    assert identity.key(url.format(1, 2)).page == 2
    model = SiteModel(site="bbs.example.com").with_rule("ksf", fitted.rule_.to_dict())
    model = model.with_rule("nav", identity.to_dict())
    first, second = _paged(1)
    texts = [t[3] for t in THREADS[1][1]]

    def read(cascade: Cascade, doc: Document) -> list[str]:
        found = cascade.run(doc, model, now=NOW).extraction
        assert found is not None
        return [p.text for p in found.posts]

    cascade = Cascade(["ksf"])
    assert read(cascade, first) == texts[:2]
    assert read(cascade, second) == texts[2:]
    assert read(cascade, first) == texts[:2]  # a first page keeps its opening post
    assert read(Cascade(["ksf"]), second) == [texts[0], *texts[2:]]  # nothing read before it


def test_a_post_like_an_earlier_pages_last_is_a_repeat_only_when_shown_alike() -> None:
    """The same author's same words atop the next page are a repeat (Misago) when shown at the
    same time and floor; at another time or floor they are a post of their own, and no page
    repeats a later page's post (page 4 read before page 3)."""
    from forumcrawl.extractors.ksf_apply import RepeatedPosts
    from forumcrawl.items import Post

    def post(floor: int, author: str, when: str, text: str) -> Post:
        return Post(floor=floor, author=author, published_raw=when, text=text)

    url = "http://f.example/t/7?page={}".format
    thread = "f.example 7"
    repeated = RepeatedPosts()
    page1 = [post(1, "op", "t1", "Q?"), post(2, "ann", "t2", "mark")]
    assert repeated.filter(url(1), thread, False, page1, 1) == page1
    again = [post(2, "ann", "t2", "mark"), post(3, "bo", "t3", "ok")]
    assert [p.text for p in repeated.filter(url(2), thread, True, again, 2)] == ["ok"]
    later = [post(5, "ann", "t5", "mark"), post(6, "cy", "t6", "ok")]
    assert repeated.filter(url(3), thread, True, later, 3) == later, "another time: another post"
    other_floor = [post(7, "ann", "t2", "mark"), post(8, "cy", "t8", "ok")]
    assert repeated.filter(url(4), thread, True, other_floor, 4) == other_floor, "another floor"

    out_of_order = RepeatedPosts()
    page4 = [post(1, "ann", "1 day ago", "+1"), post(2, "bo", "1 day ago", "ok")]
    page3 = [post(1, "ann", "1 day ago", "+1"), post(2, "cy", "1 day ago", "no")]
    assert out_of_order.filter(url(4), thread, True, page4, 4) == page4
    assert out_of_order.filter(url(3), thread, True, page3, 3) == page3


def test_apply_rule_is_pure_and_matches_extract(fitted: KeywordScoringExtractor) -> None:
    doc = document(1)
    assert apply_rule(fitted.rule_, doc, now=NOW) == fitted.extract(doc, now=NOW)


def test_single_page_mode() -> None:
    posts = extract_single(document(1), now=NOW)
    assert [p.author for p in posts] == ["alice", "bob", "carol", "dave"]
    assert posts[2].text == THREADS[1][1][2][3]


def test_single_page_mode_stops_at_the_body_when_the_page_has_too_few_posts() -> None:
    """``min_posts``: a page whose learned body is one element cannot give a thread; one that
    can still gives the same posts."""
    thread = document(1)
    assert extract_single(thread, now=NOW, min_posts=2) == extract_single(thread, now=NOW)
    article = Document.from_text(
        "<html><body><div class='nav'>Home News</div><div class='story'><p>"
        + "</p><p>".join(escape(post[3]) for post in THREADS[1][1])
        + "</p></div></body></html>",
        "http://news.example/a/1",
    )
    assert len(extract_single(article, now=NOW)) == 1
    assert extract_single(article, now=NOW, min_posts=2) == []
    with pytest.raises(ValueError, match="fewer than 2"):
        KeywordScoringExtractor(min_bodies=2).fit([article])


def test_single_page_mode_segments_chinese_words_only_on_a_chinese_page(tmp_path) -> None:
    """In a fresh interpreter: an English thread on a forum whose menus are Chinese reads its
    posts without loading jieba (a second for its dictionary, for words that are not the
    page's); a Chinese thread loads it and reads its posts too."""
    script = (
        "import sys\n"
        "from datetime import datetime\n"
        "from forumcrawl.document import Document\n"
        "from forumcrawl.extractors.ksf import extract_single\n"
        "html = open(sys.argv[1], encoding='utf-8').read()\n"
        "page = Document.from_text(html, 'http://bbs.example.com/t/1')\n"
        "posts = extract_single(page, now=datetime(2024, 3, 8, 9))\n"
        "print('|'.join(p.author or '' for p in posts), 'jieba' in sys.modules)\n"
    )
    for thread_id, loads in ((1, "False"), (0, "True")):
        page = tmp_path / f"{thread_id}.html"
        page.write_text(render(thread_id), encoding="utf-8")
        command = [sys.executable, "-c", script, str(page)]
        out = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
        authors, loaded = out.stdout.split()
        assert authors.split("|") == [post[0] for post in THREADS[thread_id][1]]
        assert loaded == loads


def test_quotes_are_kept_apart_from_a_posts_own_words(fitted: KeywordScoringExtractor) -> None:
    posts = fitted.extract(document(1), now=NOW)
    quoted_author, _, _, quoted_text, _, _ = THREADS[1][1][0]
    assert posts[2].text == THREADS[1][1][2][3]
    assert posts[2].quotes == [f"{quoted_author} 发表于 … {quoted_text[:30]}".strip()]
    assert [p.quotes for i, p in enumerate(posts) if i != 2] == [[], [], []]


def test_single_page_mode_reads_a_noscript_that_holds_the_page() -> None:
    """Discourse serves crawlers its posts inside ``<noscript>``; a script notice there is
    not a page."""
    notice = "<noscript><div class='alert'><p>Please enable JavaScript to use this forum.</p></div></noscript>"
    inner = render(1).split("<body>", 1)[1].split("</body>", 1)[0]
    wrapped = render(1).replace("<body>" + inner, f"<body>{notice}<noscript>{inner}</noscript><div>Loading…</div>")
    posts = extract_single(Document.from_text(wrapped, "http://bbs.example.com/t/1"), now=NOW)
    assert [p.author for p in posts] == ["alice", "bob", "carol", "dave"]
    from forumcrawl.extractors.ksf import page_lines

    notice_only = Document.from_text(render(1).replace("<body>", f"<body>{notice}"))
    assert not any("JavaScript" in line.text for line in page_lines(notice_only.tree))


def test_a_quote_of_an_earlier_page_is_known_by_its_attribution() -> None:
    """vBulletin 3 quotes sit in an unclassed table cell; the quoted post is often on an
    earlier page, so nothing in the sample repeats it: its "Originally Posted by" tells."""
    def page(t: int) -> Document:
        posts = []
        for i, (author, _, _, own, _, _) in enumerate(THREADS[t][1][:3]):
            quote = (f'<div><table><tr><td class="alt2">Originally Posted by someone{i}<br/>'
                     f"an old message number {t}{i} from a page before this one</td></tr></table></div>")
            posts.append(f'<div class="post"><span class="name">{escape(author)}</span>'
                         f'<div class="msg">{quote if i else ""}{escape(own)}</div></div>')
        return Document.from_text(f"<html><body><h1>Thread {t}</h1>{''.join(posts)}</body></html>",
                                  f"http://f.example/t/{t}")

    rule = KeywordScoringExtractor().fit([page(t) for t in range(5)]).rule_
    assert "td.alt2" in rule.exclude
    posts = apply_rule(rule, page(5), now=NOW)
    assert [p.text for p in posts] == [t[3] for t in THREADS[5][1][:3]]
    assert [len(p.quotes) for p in posts] == [0, 1, 1]


def test_single_page_fit_uses_background() -> None:
    model = KeywordScoringExtractor().fit([document(3)])
    assert model.rule_.mode == "single"
    assert model.rule_.body == "td.t_f"


def test_fields_are_taken_where_the_page_template_puts_them() -> None:
    """A body quoting an earlier post's header (written before the real header) does not give
    its author or time to the quoting post, nor throw off the posts after it."""
    header = '<div class="user">{}</div><p><span class="when">{}</span></p>'
    posts_html = [
        ("alice", "2024-03-05 14:02", "first words"),
        ("bob", "2024-03-06 09:30", header.format("alice", "2024-03-05 14:02") + "I agree"),
        ("carol", "2024-03-07 18:45", "third words"),
    ]
    html = "<html><body>" + "".join(
        f'<div class="post"><div class="body">{text}</div><div class="side">'
        f"{header.format(author, when)}</div></div>"
        for author, when, text in posts_html
    ) + "</body></html>"
    rule = KsfRule(body="div.body", container="div.post", author="div.user", time="./div/p/span")
    posts = apply_rule(rule, Document.from_text(html), now=NOW)
    assert [(p.author, p.published) for p in posts] == [
        ("alice", "2024-03-05T14:02:00"),
        ("bob", "2024-03-06T09:30:00"),
        ("carol", "2024-03-07T18:45:00"),
    ]


def test_own_text_drops_quotes_signature_delimiter_and_edit_notice() -> None:
    html = (
        "<div><blockquote>old words</blockquote><p>Last edited by bob on Monday</p>"
        "<p>new words</p><p>--</p><p>my signature</p></div>"
    )
    el = Document.from_text(html).tree.find(".//div")
    assert own_text(el) == "new words"


def test_a_dash_line_in_code_is_no_signature_delimiter() -> None:
    """``-----`` inside ``<pre>`` or ``<code>`` is the code's (a diff, a table rule), not the
    start of a signature; the same line outside code still cuts the signature."""
    el = lxml.html.fromstring(
        "<div><p>The diff:</p><pre>--- a/x.py\n+++ b/x.py\n-----\nend</pre>"
        "<p>Output:</p><code>one<br>-----<br>two</code><p>and after</p><p>-----</p><p>my signature</p></div>"
    )
    assert own_text(el) == "The diff:\n--- a/x.py\n+++ b/x.py\n-----\nend\nOutput:\none\n-----\ntwo\nand after"
    other = lxml.html.fromstring("<div><p>x</p></div>")
    assert posts.own_texts([el, other]) == [own_text(el), "x"]
    assert "\ue001" not in element_text(el)


def test_a_copy_buttons_label_is_no_post_text() -> None:
    el = lxml.html.fromstring(
        "<div><p>Run this:</p><div class='code-block'><span class='copy-btn'>Copy code</span>"
        "<pre>make install</pre></div><div class='blockcode'><ol><li>print(1)</li></ol>"
        "<em onclick=\"copycode($('code0'));\">复制代码</em></div><p>Copy the file first.</p></div>"
    )
    assert own_text(el) == "Run this:\nmake install\nprint(1)\nCopy the file first."


def _classless_thread(n: int, ad: bool = False) -> str:
    """A NodeBB-like page: posts as ``<li component="post" class="">`` without a class to name
    them, author and body by ``itemprop``, the time in ``data-timestamp``; with ``ad``, a
    post-like ad (one sponsored link, no time) after the first post."""
    words = ["kernel panic after the upgrade of the graphics driver", "roll back the package and pin it",
             "the fan curve in the firmware settings fixed it", "swap the thermal paste first",
             "check the power supply rails under load", "update the firmware from the vendor site"]
    items = []
    for i in range(n):
        items.append(
            f'<li component="post" class="" data-pid="{100 + i}" data-timestamp="{1709880000000 + i * 3600000}" '
            f'itemprop="comment"><div class=""><span itemprop="author"><a href="/user/u{i % 3}">u{i % 3}</a></span>'
            f'</div><div class="" component="post/content" itemprop="text"><p>{words[i % len(words)]} '
            f'number {i} with more words about it</p></div></li>'
        )
        if ad and i == 0:
            items.append('<li component="post" class="" data-pid="0" itemprop="comment"><div class="">'
                         '<strong>Sponsored</strong></div><div class="" component="post/content" itemprop="text">'
                         '<p><a href="https://ads.example.net/c" rel="sponsored">Save 20% on every drive this '
                         'week at ShopMart</a></p></div></li>')
    return f'<html><body><div class="nav">Home</div><ul component="topic" class="posts">{"".join(items)}</ul></body></html>'


def test_posts_without_a_class_are_found_by_their_attributes() -> None:
    pages = [Document.from_text(_classless_thread(4 + k), f"http://nb.test/topic/{k}") for k in range(4)]
    rule = KeywordScoringExtractor().fit(pages).rule_
    assert (rule.body, rule.container) == ('div[component="post/content"][itemprop="text"]',
                                           'li[component="post"][itemprop="comment"]')
    found = apply_rule(rule, Document.from_text(_classless_thread(5, ad=True), "http://nb.test/topic/9"), now=NOW)
    assert [p.author for p in found] == ["u0", "u1", "u2", "u0", "u1"]
    assert [p.floor for p in found] == [1, 2, 3, 4, 5]
    assert found[0].published == "2024-03-08T06:40:00+00:00"


def test_a_numeric_date_in_an_attribute_falls_on_the_day_its_text_shows() -> None:
    """``title="11-04-2026, 05:26 AM"`` over "Nov 4, 2026", on a site whose rule says day
    first (its texts could not tell): read month first, the day the text shows."""
    pages = [Document.from_text(_classless_thread(4 + k), f"http://nb.test/topic/{k}") for k in range(3)]
    rule = dataclasses.replace(KeywordScoringExtractor().fit(pages).rule_, time="span.dt", month_first=False)
    html = _classless_thread(2).replace(
        '<span itemprop="author">', '<span class="dt" title="11-04-2026, 05:26 AM">Nov 4, 2026</span><span itemprop="author">'
    )
    for place in (None, "title"):  # the element's text, or its title attribute, is the rule's place
        found = apply_rule(dataclasses.replace(rule, time_attr=place), Document.from_text(html, "http://nb.test/topic/8"),
                           now=NOW)
        assert [p.published for p in found] == ["2026-11-04T05:26:00"] * 2, place


def test_a_code_blocks_caption_is_no_post_text() -> None:
    """The engine's caption over a code block ("Code:", phpBB's "Code: Select all") goes with
    the copy labels; a paragraph of the post that opens with "Code:" stays."""
    el = lxml.html.fromstring(
        "<div><p>Code: mine, as promised</p><div class='codebox'><p>Code: <a href='#'>Select all</a></p>"
        "<pre><code>make</code></pre></div><div class='codebox'><div class='code-header'><span>代码:</span>"
        "<button type='button'>复制代码</button></div><pre><code>ls\n-----\nok</code></pre></div></div>"
    )
    assert own_text(el) == "Code: mine, as promised\nmake\nls\n-----\nok"


def test_a_quotes_attribution_goes_with_the_quote() -> None:
    """NodeBB writes who is quoted in a paragraph before the ``<blockquote>``: it is part of
    the quote, not of the reply's own words."""
    el = lxml.html.fromstring(
        "<div><p>Hi all</p><p><a href='/user/bob'>@bob</a> said in <a href='/post/1'>How to X</a>:</p>"
        "<blockquote><p>try this</p></blockquote><p>That worked: thanks</p></div>"
    )
    quotes: list[list[str]] = []
    places: list[list[int]] = []
    assert posts.own_texts([el], quotes=quotes, quote_at=places) == ["Hi all\nThat worked: thanks"]
    assert quotes == [["@bob said in How to X:\ntry this"]] and places == [[len("Hi all\n")]]
    plain = lxml.html.fromstring("<div><p>Look at this:</p><blockquote><p>a quote</p></blockquote></div>")
    quotes = []
    assert posts.own_texts([plain], quotes=quotes) == ["Look at this:"] and quotes == [["a quote"]]


def test_own_texts_of_a_page_equal_each_own_text() -> None:
    """Bodies read in one pass give what each gives alone: quotes, notices, signatures,
    entities, blank and carriage-return lines, empty bodies, notices at a body's first line."""
    bodies = [
        "<p>plain words</p>",
        "<p>Last edited by bob</p><p>kept &amp; shown</p>",
        "<p>text</p><p>  --  </p><p>my signature</p>",
        "",
        "<blockquote>quoted</blockquote><p>answer</p>",
        "<p>本帖最后由 张三 于 2024-3-5 编辑</p><p>正文 &lt;b&gt;</p>",
        "<p>a\rLast edited by x</p><p>__________</p><p>sig</p>",
        "<p>-- not a delimiter line</p><p>____</p><pre>  indented\n\n  code</pre>",
        "<div class='quote'>q</div>x<br>y<span class='sig'>s</span>",
    ]
    html = "".join(f'<div class="b">{b}</div>' for b in bodies)
    elements = Document.from_text(f"<html><body>{html}</body></html>").tree.find_class("b")
    assert posts.own_texts(elements) == [own_text(el) for el in elements]
    assert posts.own_texts(elements)[:3] == ["plain words", "kept & shown", "text"]
    assert posts.own_texts([]) == []


@pytest.mark.parametrize(
    ("pattern", "starts"),
    [
        (posts._SIGNATURE_DELIMITER_RE, posts._DELIMITER_STARTS),
        (posts._EDIT_NOTICE_RE, posts._EDIT_NOTICE_STARTS),
    ],
)
def test_notice_line_starts_cover_the_patterns(pattern: re.Pattern[str], starts: frozenset) -> None:
    """strip_notices tries these patterns only on lines whose first non-blank character is in
    ``starts``: every character a match can begin with, in every case, must be in it."""
    parser = pytest.importorskip("re._parser")
    constants = pytest.importorskip("re._constants")
    items, nullable = first_items(parser.parse(pattern.pattern, pattern.flags).data, constants)
    blank = (constants.IN, [(constants.CATEGORY, constants.CATEGORY_SPACE)])
    firsts = [av for op, av in items if (op, av) != blank and op is constants.LITERAL]
    assert not nullable and len(firsts) == len([i for i in items if i != blank])
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    alternatives = "[" + re.escape("".join(map(chr, firsts))) + "]"
    assert set(re.findall(alternatives, every, pattern.flags & re.IGNORECASE)) <= starts


# ------------------------------------------------------------------------------ estimator contract


def test_get_params_and_clone() -> None:
    model = KeywordScoringExtractor(n_pages=3, top_k=10, random_state=7)
    params = model.get_params()
    assert params["n_pages"] == 3 and params["top_k"] == 10 and params["random_state"] == 7
    twin = clone(model)
    assert twin.get_params() == params
    assert not hasattr(twin, "rule_")


def test_fit_returns_self(forum: list[Document]) -> None:
    model = KeywordScoringExtractor()
    assert model.fit(forum) is model


def test_not_fitted() -> None:
    with pytest.raises(NotFittedError):
        KeywordScoringExtractor().extract(document(0))


def test_deterministic_for_fixed_random_state(forum: list[Document]) -> None:
    a = KeywordScoringExtractor(n_pages=3, random_state=42).fit(forum)
    b = KeywordScoringExtractor(n_pages=3, random_state=42).fit(list(forum))
    assert a.rule_.to_dict() == b.rule_.to_dict()
    # A generator is drawn from as given: the same seed picks the same pages.
    c = KeywordScoringExtractor(n_pages=3, random_state=np.random.RandomState(42)).fit(list(forum))
    assert c.sample_urls_ == a.sample_urls_ and len(forum) > 3
    assert a.keywords_ == b.keywords_
    assert a.sample_urls_ == b.sample_urls_


def test_second_fit_forgets_the_first(forum: list[Document]) -> None:
    model = KeywordScoringExtractor().fit([document(0, layout="other"), document(1, layout="other"),
                                           document(2, layout="other")])
    other_rule = model.rule_.body
    model.fit(forum)
    assert model.rule_.body == "td.t_f" != other_rule


@pytest.mark.parametrize(
    "params",
    [{"n_pages": 0}, {"top_k": -1}, {"template_share": 1.5}, {"min_coverage": "x"}, {"min_bodies": 0}],
)
def test_invalid_parameters_raise_in_fit(forum: list[Document], params: dict) -> None:
    model = KeywordScoringExtractor(**params)  # __init__ stores, never validates
    with pytest.raises(ValueError):
        model.fit(forum)


def test_fit_without_pages_raises() -> None:
    with pytest.raises(ValueError):
        KeywordScoringExtractor().fit([Document.from_text("")])


def test_rule_json_round_trip(fitted: KeywordScoringExtractor) -> None:
    data = json.loads(json.dumps(fitted.rule_.to_dict(), ensure_ascii=False))
    assert data["rule_id"] == fitted.rule_.rule_id
    rule = KsfRule.from_dict(data)
    assert rule == fitted.rule_ and rule.rule_id == fitted.rule_.rule_id
    doc = document(2)
    assert apply_rule(rule, doc, now=NOW) == fitted.extract(doc, now=NOW)
    assert "td.t_f" in str(rule)


def test_edited_rule_changes_id_and_is_validated(fitted: KeywordScoringExtractor) -> None:
    data = fitted.rule_.to_dict()
    data["body"] = "td.t_f, div.message"
    assert KsfRule.from_dict(data).rule_id != fitted.rule_.rule_id
    with pytest.raises(ValueError):
        KsfRule.from_dict({**data, "body": "td[[["})
    with pytest.raises(ValueError):
        KsfRule.from_dict({**data, "body": ""})


def test_random_samples_learn_the_same_rule(forum: list[Document]) -> None:
    rng = random.Random(0)
    bodies = {
        KeywordScoringExtractor(n_pages=3, random_state=rng.randrange(1000)).fit(forum).rule_.body
        for _ in range(5)
    }
    assert bodies == {"td.t_f"}


# ------------------------------------------------------------------------- the mock forum (HTTP)


@pytest.mark.parametrize("family", ["discuz", "phpbb", "static", "xenforo", "discourse", "modern"])
def test_mock_forum_family_over_http(family: str) -> None:
    import urllib.request

    mockforum = pytest.importorskip("forumcrawl.mockforum")
    with mockforum.serve(family) as srv:
        now = datetime.fromisoformat(srv.truth.now).replace(tzinfo=None)
        pages = {}
        for thread in srv.truth.threads:
            for url, truth in thread.pages.items():
                if url in srv.truth.actual_encodings or url in srv.truth.broken:
                    continue  # decoding those is Document's job, tested with it
                with urllib.request.urlopen(url, timeout=10) as response:
                    doc = Document.from_bytes(response.read(), url, response.headers.get("Content-Type"))
                pages[url] = (doc, truth)
    urls = sorted(pages)
    sample = random.Random(1).sample(urls, 5)
    model = KeywordScoringExtractor().fit([pages[u][0] for u in sample])
    for url in urls:
        doc, truth = pages[url]
        posts = model.extract(doc, now=now)
        assert [p.author for p in posts] == [t.author for t in truth], url
        assert [p.text for p in posts] == [t.text for t in truth], url
        assert [p.published[:16] for p in posts] == [t.published[:16] for t in truth], url


def test_kept_stops_reading_once_a_place_cannot_be_filled() -> None:
    """``_kept`` gives what ``keep`` accepts when enough is, and stops asking (None) as soon as
    the values left cannot make up ``needed``: the answer a full count gives, for less work."""
    from forumcrawl.extractors.ksf import _kept

    asked: list[int] = []

    def odd(value: int) -> bool:
        asked.append(value)
        return value % 2 == 1

    assert _kept(iter([1, 2, 3, 5]), odd, 3, 4) == [1, 3, 5]
    asked.clear()
    assert _kept(iter([2, 4, 1, 3, 5, 7]), odd, 5, 6) is None
    assert asked == [2, 4]  # after two misses, four values cannot make five
    assert _kept(iter([2, 4]), odd, 0, 2) == []


def test_element_text_leaves_out_classed_exclusions_by_tag_and_every_class() -> None:
    """``tag.class`` and ``*.a.b`` exclusions take an element only when its tag matches and it
    has every class named, whatever its other classes."""
    el = lxml.html.fromstring(
        "<div><p>kept</p><div class='x quote'>quoted</div><span class='quote'>span kept</span>"
        "<p class='sig small extra'>signature</p><p class='sig'>half kept</p></div>"
    )
    assert element_text(el, ["div.quote", "*.sig.small"]).split() == ["kept", "span", "kept", "half", "kept"]


def test_a_selector_searched_again_gives_each_tree_its_own_matches_and_a_list_of_its_own() -> None:
    from forumcrawl.extractors.ksf_apply import select

    first = lxml.html.document_fromstring("<div class='post'><p>a</p></div><div class='post'><p>b</p></div>")
    second = lxml.html.document_fromstring("<div class='post'><p>c</p></div>")
    found = select(first, "div.post")
    assert [e.text_content() for e in found] == ["a", "b"]
    found.clear()  # a caller's list is its own: the next search of the page still finds both
    assert [e.text_content() for e in select(first, "div.post")] == ["a", "b"]
    assert [e.text_content() for e in select(second, "div.post")] == ["c"]
    assert [e.text_content() for e in select(first, "div.post")] == ["a", "b"]
