"""Single-page extraction without site rules: page kinds, the arbiter between stages, the news
spider's kind filter (a real crawl of a real local HTTP server)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors.arbiter import (
    FEATURES,
    Arbiter,
    candidate_features,
    comment_blocks,
    dated_list_beyond,
    marks_body,
    opening_held,
    overlay_lines,
    page_chars,
    page_evidence,
    page_tokens,
    text_tokens,
    thread_agreement,
    thread_lines,
    token_agreement,
    with_body_regions,
    within_body,
    without_aux,
    without_parts,
)
from forumcrawl.extractors.cx import LineBlockExtractor, document_lines, visible_text
from forumcrawl.extractors.dom_density import DomDensityExtractor, aux_name, related_heading
from forumcrawl.extractors.kinds import SIGNALS, KindClassifier, load_kinds, page_signals
from forumcrawl.extractors.ksf import apply_rule, comments_on_first, extract_single, single_posts, single_rule
from forumcrawl.extractors.ksf_apply import comment_section
from forumcrawl.offline import ExtractOptions, extract_bytes
from forumcrawl.pages import Cascade, bare_sections

from .conftest import extract_page, run_crawl, serving

SENTENCES = [
    "The river rose three metres overnight and flooded the lower town before dawn on Sunday.",
    "Residents were woken by sirens as the water reached the market square and the old bridge.",
    "Firefighters carried elderly people from their homes while volunteers filled sandbags.",
    "The mayor said the damage would take months to repair and asked the region for funds.",
    "Forecasters expect more rain this week, and the river authority opened two overflow basins.",
]
MENU = ["Home", "World", "Sport", "Shop"]
BODY = " ".join(SENTENCES)


def article(links: str = "") -> str:
    paragraphs = "\n".join(f"<p>{s} {s}</p>" for s in SENTENCES)
    menu = " ".join(f'<a href="/{w.lower()}">{w}</a>' for w in MENU)
    return f"""<html><head><title>River floods town - Daily News</title>
<script type="application/ld+json">{{"@type": "NewsArticle", "articleBody": "{BODY} {BODY}"}}</script>
<meta property="og:type" content="article"></head><body><div>{menu} {links}</div>
<article><h1>River floods town</h1><p>By Ann Reporter, 3 March 2024</p>{paragraphs}</article>
<aside><h3>Most read</h3><ul><li><a href="/a">Storm hits coast again</a></li>
<li><a href="/b">Election results are in</a></li></ul></aside>
<footer>Copyright 2024 Daily News. All rights reserved.</footer></body></html>"""


PRODUCT = """<html><head><title>Steel kettle 1.7 l - Shop</title>
<script type="application/ld+json">{"@type": "Product", "name": "Steel kettle",
 "offers": {"@type": "Offer", "price": "39.99"}}</script></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/cart">Cart</a></nav>
<h1>Steel kettle 1.7 l</h1><div class="price">$39.99</div><p>In stock. Free shipping over $50.</p>
<form><select name="qty"><option>1</option></select><input type="number" name="quantity">
<button>Add to cart</button><button>Add to wishlist</button></form>
<ul><li>Capacity 1.7 l</li><li>Power 2200 W</li><li>Brushed steel</li><li>SKU 48213</li></ul>
<h2>Reviews</h2><p>4.5 out of 5 stars, 212 ratings</p><p>$29.99 Toaster</p><p>$19.99 Mug set</p>
<p>$49.99 Blender</p><footer>Copyright 2024 Shop</footer></body></html>"""


def test_evidence_reads_the_pages_own_markers():
    evidence = page_evidence(Document.from_text(article()))
    assert evidence.json_ld.startswith(SENTENCES[0])
    assert evidence.articles == 1 and SENTENCES[2] in evidence.article
    assert evidence.headline == "River floods town"
    assert any(line.startswith("Home World Sport Shop") for line in evidence.link_lines)


def test_text_tokens_take_each_cjk_character_alone():
    # Words of other scripts split at CJK characters; CJK marks that are not letters (the
    # katakana middle dot, Yijing hexagrams) and underscores are no words.
    bag = text_tokens("Tokyo東京・タワーabc_Def 2024年 한국 ䷀")
    assert bag == Counter(["tokyo", "東", "京", "タ", "ワ", "ー", "abc", "def", "2024", "年", "한", "국"])
    assert text_tokens("Straße, ÉTÉ") == Counter(["straße", "été"])


def test_page_tokens_are_the_text_tokens_with_lines_kept_for_the_page():
    doc = Document.from_text(article())
    text = "ΟΔΟΣ\nRiver floods town\n东京 Tokyo"
    assert page_tokens(doc, text) == text_tokens(text)
    # A second text of the page reuses its known lines and still gets its own bag.
    other = "River floods town\nΟΔΟΣ.Α again"
    assert page_tokens(doc, other) == text_tokens(other)


def test_a_text_that_is_the_marked_body_spares_the_costlier_stage():
    evidence = page_evidence(Document.from_text(article()))
    assert marks_body(text_tokens(f"{BODY} {BODY}"), evidence)
    # Half the body is not the marked body, and a page that marks none never spares a stage.
    assert not marks_body(text_tokens(" ".join(SENTENCES[:2])), evidence)
    unmarked = page_evidence(Document.from_text(f"<html><body><p>{BODY}</p></body></html>"))
    assert not marks_body(text_tokens(BODY), unmarked)


def test_kind_signals_count_links_to_members():
    links = "".join(f'<a href="/members/{name}.{i}/">{name}</a>' for i, name in enumerate(["ann", "bob", "cy"]))
    plain, linked = page_signals(Document.from_text(article())), page_signals(Document.from_text(article(links)))
    where = SIGNALS.index("profile_links")
    assert plain[where] == 0.0 and linked[where] > 0.0


#: Each list of words the kind signals count, as a pattern of its own (the signals count all in
#: one pass).
_WORD_LISTS = {
    "shop_words": r"\b(?:add to (?:cart|bag|basket)|buy now|in stock|out of stock|free shipping|sku|"
    r"quantity|reviews?|ratings?|wishlist)\b",
    "service_words": r"\b(?:contact us|get (?:a|your) (?:quote|started)|book (?:a|an|now)|schedule|"
    r"pricing|our services|free consultation|request|call us|appointment|plans?)\b",
    "doc_words": r"\b(?:documentation|api|reference|parameters?|returns?|example|install(?:ation)?|"
    r"configuration|tutorial|guide|version|deprecated)\b",
    "replies_per_line": r"\b(?:repl(?:y|ies|ied)|quote|posts?:|joined|member|registered|thread|"
    r"answer(?:s|ed)?|votes?|permalink|report)\b|回复|楼|帖|发表于|注册|积分",
}


def test_kind_signals_count_each_word_list_as_a_pass_of_its_own():
    lines = [
        "Get a quote for our services, or get your quote by phone: call us",
        "Reply to this thread: 3 replies, posts:12, Posts: 4, quoted, a quote, requests",
        "Add to cart, in stock, out of stock, reviews and ratings; wishlist wishlists",
        "API reference: parameters, returns, install the documentation example",
        "回复 2楼 发表于 注册 积分 帖子 book a table, book now, pricing plans",
        "member joined, registered, answered, votes, permalink, report threads",
    ]
    body = "".join(f"<p>{line}</p>" for line in lines)
    signals = dict(zip(SIGNALS, page_signals(Document.from_text(f"<html><body>{body}</body></html>"))))
    text = "\n".join(lines).lower()
    counts = {name: len(re.findall(pattern, text)) for name, pattern in _WORD_LISTS.items()}
    assert all(counts.values())
    for name in ("shop_words", "service_words"):
        assert signals[name] == pytest.approx(math.log1p(counts[name]))
    words = len(text.split())
    assert signals["doc_words"] == pytest.approx(math.log1p(counts["doc_words"]) - math.log1p(words) / 4)
    assert signals["replies_per_line"] == pytest.approx(counts["replies_per_line"] / len(lines))


def test_the_marked_body_scores_above_the_menu():
    doc = Document.from_text(article())
    evidence = page_evidence(doc)
    body, menu = "\n".join(SENTENCES), " ".join(MENU)
    bags = {"body": text_tokens(body), "menu": text_tokens(menu)}
    body_x = candidate_features(body, bags["body"], evidence, [bags["menu"]])
    menu_x = candidate_features(menu, bags["menu"], evidence, [bags["body"]])
    arbiter = Cascade().arbiter
    assert arbiter is not None
    assert arbiter.score(body_x, "dom") > arbiter.score(menu_x, "dom")
    assert arbiter.score(body_x, "cx") > arbiter.score(menu_x, "cx")


def test_thread_agreement_is_the_smaller_share_of_the_best_match():
    thread = text_tokens(" ".join(SENTENCES[:2]))
    whole = text_tokens(BODY)
    comments = text_tokens("Great piece, thanks. I disagree with the mayor entirely.")
    # the thread is all in the body, but holds only part of it
    assert thread_agreement(thread, [whole]) == pytest.approx(thread.total() / whole.total())
    assert thread_agreement(thread, [comments, whole]) == thread_agreement(thread, [whole])
    assert thread_agreement(comments, [whole]) < 0.2
    assert thread_agreement(thread, []) == 0.0


#: Readers' comments under a story: as many words as the story, most of the page's prose.
COMMENTS = [
    ("Maria", "I live by the bridge and the water was in our garden by four in the morning. "
     "We moved the car up the hill just in time."),
    ("Tom", "Thanks to the volunteers, they were out there all night with the sandbags and the pumps. "
     "My neighbour brought them soup at midnight."),
    ("Lena", "The town was warned about the basins years ago and nobody listened to the engineers. "
     "Now the cellars on the square are full of mud."),
    ("Piet", "Does anyone know whether the school on the hill is open as a shelter for families? "
     "We have two small children and a dog."),
    ("Ines", "Our street is still without power and the shops on the square have closed for the week. "
     "The bakery lost all its flour."),
    ("Omar", "The insurance adviser told us to photograph every wall before the cleaning starts. "
     "Good advice for anyone waiting for an assessor."),
    ("Karen", "We drove past the old mill this morning and the meadow looks like a lake. "
     "The ducks seem to enjoy it at least."),
    ("Luis", "Please check on elderly neighbours who live alone near the river. "
     "Many of them have no phone and missed the sirens."),
    ("Anja", "The bus company has stopped the line to the lower town until the road is dry. "
     "Commuters should use the train instead."),
    ("Felix", "I volunteered at the sports hall last night and we served hot meals to sixty people. "
     "More blankets are still needed there."),
]


def _comment_list(entries: list[tuple[str, str]], numbered: bool = False) -> str:
    """Comments in a list; ``numbered``: each anchored by number, as blog engines write them."""
    items = "\n".join(
        f'<li class="comment"{f" id=comment-{i + 1}" if numbered else ""}>'
        f'<div class="comment-meta"><span class="author">{who}</span> '
        f"<time>March {i + 4}, 2024 at 10:{i}5 am</time></div>"
        f'<div class="comment-body"><p>{text}</p></div><a href="/reply/{i}">Reply</a></li>'
        for i, (who, text) in enumerate(entries)
    )
    return f'<ol class="commentlist">{items}</ol>'


def blog_post() -> str:
    """A story with no marked body, its readers' comments below it."""
    paragraphs = "\n".join(f"<p>{s} {s}</p>" for s in SENTENCES)
    return f"""<html><head><title>River floods town - A local blog</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div>
<div class="post"><h1>River floods town</h1><p class="byline">Posted on March 3, 2024 by Ann</p>
<div class="entry">{paragraphs}</div></div>
<div id="comments"><h3>10 responses</h3>{_comment_list(COMMENTS)}</div>
<footer>Powered by a blog engine.</footer></body></html>"""


def forum_thread() -> str:
    """The same words as a thread: the story is the first post, in the replies' markup."""
    return f"""<html><head><title>River floods town - Town forum</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div><h1>River floods town</h1>
{_comment_list([("Ann", BODY), *COMMENTS])}<footer>Powered by a forum engine.</footer></body></html>"""


def test_opening_held_is_the_share_of_a_texts_first_lines_among_the_threads():
    story = "\n".join(SENTENCES * 4)  # 20 lines: the opening is the first 5
    assert opening_held(thread_lines("\n".join(SENTENCES)), story) == 1.0
    assert opening_held(thread_lines("\n".join(SENTENCES[1:])), story) == pytest.approx(0.8, abs=0.02)
    comments = "\n".join(text for _, text in COMMENTS)
    assert opening_held(thread_lines(comments), story) == 0.0
    assert opening_held(thread_lines(f"  {SENTENCES[0]}\n"), f"{SENTENCES[0]}   \n") == 1.0
    assert opening_held(thread_lines(comments), "") == 0.0


def test_comments_below_a_story_are_not_taken_for_a_thread():
    cascade = Cascade()
    cascade.forum_gate = 0.0  # both pages reach KSF
    outcome = cascade.run(Document.from_text(blog_post()))
    assert outcome.extraction is not None and outcome.extraction.method in {"dom", "cx"}
    assert all(s in outcome.extraction.text for s in SENTENCES)
    # KSF splits the comments into posts, and they share enough words with the story to pass
    # the agreement asked of a thread; they hold none of its opening.
    comments = extract_single(Document.from_text(blog_post()), min_posts=2)
    assert len(comments) == len(COMMENTS) and SENTENCES[0] not in comments[0].text
    words = text_tokens("\n".join(post.text for post in comments))
    assert cascade.arbiter is not None
    assert thread_agreement(words, [text_tokens(outcome.extraction.text)]) >= cascade.arbiter.thread_min
    # The same words as a thread, the story its first post: KSF's posts open the page's text.
    thread = cascade.run(Document.from_text(forum_thread())).extraction
    assert thread is not None and thread.method == "ksf" and len(thread.posts) == len(COMMENTS) + 1


COMMENT_FORM = """<div id="respond"><h3>Leave a Reply</h3>
<form action="/wp-comments-post.php" id="commentform"><p>Name</p><input name="author">
<textarea name="comment"></textarea><input type="submit" value="Post Comment"></form></div>"""


def commented_blog_post(declared: str = "", numbered: bool = True) -> str:
    """A short story whose readers' comments, each named a comment (and anchored by number),
    hold most of the page's prose, with a comment form below them; ``declared``: a JSON-LD
    type the page declares."""
    ld = f'<script type="application/ld+json">{{"@type": "{declared}"}}</script>' if declared else ""
    story = "\n".join(f"<p>{s}</p>" for s in SENTENCES[:3])
    return f"""<html><head><title>River floods town - A local blog</title>{ld}</head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div>
<div id="content"><div class="post"><h1>River floods town</h1><div class="entry">{story}</div></div>
<div id="comments"><h3>20 responses</h3>{_comment_list(COMMENTS + COMMENTS[::-1], numbered)}</div>
{COMMENT_FORM}</div><footer>Powered by a blog engine.</footer></body></html>"""


def test_an_articles_comments_below_it_are_left_out_of_its_text():
    """Every post named a comment and a comment form: the posts are the article's comments,
    and the article, outside them, is the text; a page that declares itself a thread keeps
    its posts."""
    doc = Document.from_text(commented_blog_post())
    rule = single_rule(doc, min_posts=2)
    assert rule is not None
    posts = apply_rule(rule, doc)
    parts = comment_section(doc.tree, rule, posts, document_lines(doc))
    # Each comment, the form and the list that holds every comment.
    assert len(parts) == len(posts) + 2 and parts[-2].get("id") == "commentform"
    assert parts[-1].get("class") == "commentlist"
    cascade = Cascade()
    cascade.forum_gate = 0.0  # the page reaches KSF
    found = cascade.run(Document.from_text(commented_blog_post())).extraction
    assert found is not None and found.method in {"dom", "cx"} and not found.posts
    assert all(s in found.text for s in SENTENCES[:3])
    assert not any(text in found.text for _, text in COMMENTS)
    assert "Leave a Reply" not in found.text
    thread = cascade.run(Document.from_text(commented_blog_post("DiscussionForumPosting"))).extraction
    assert thread is not None and thread.method == "ksf" and len(thread.posts) >= len(COMMENTS)
    # Without a comment form, or with a post not named a comment, the posts are no comments.
    bare = Document.from_text(commented_blog_post().replace(COMMENT_FORM, ""))
    assert comment_section(bare.tree, rule, apply_rule(rule, bare), document_lines(bare)) == []
    assert comment_section(doc.tree, rule, posts[:1], document_lines(doc)) == []
    unnumbered = Document.from_text(commented_blog_post(numbered=False))  # a forum's replies
    assert comment_section(unnumbered.tree, rule, apply_rule(rule, unnumbered), document_lines(unnumbered)) == []
    # No form, but the story is the page's one <article> and the comments lie outside it
    # (Slashdot writes its comment form by script): the comments and their list go.
    story = commented_blog_post().replace(COMMENT_FORM, "").replace('<div class="post">', '<article class="post">')
    story = story.replace('</div></div>\n<div id="comments">', '</div></article>\n<div id="comments">')
    slashdot = Document.from_text(story)
    parts = comment_section(slashdot.tree, rule, apply_rule(rule, slashdot), document_lines(slashdot))
    assert len(parts) == len(posts) + 1 and parts[-1].get("class") == "commentlist"
    found = cascade.run(Document.from_text(story)).extraction
    assert found is not None and not found.posts and SENTENCES[0] in found.text
    assert not any(text in found.text for _, text in COMMENTS)


def _comment_blocks(page: str) -> list:
    """:func:`comment_blocks` of the whole visible text of ``page``."""
    doc = Document.from_text(page)
    return comment_blocks(visible_text(doc), document_lines(doc))


def test_a_comment_section_ksf_did_not_read_leaves_the_articles_text():
    """On a page read as an article, with a comment form, the blocks named comments go from the
    chosen text, though KSF did not run; a thread (its text opens in them), a page read as a
    thread and a commentary (an opinion piece's name) keep theirs."""
    declared = '</title><meta property="og:type" content="article">'
    declared += '<script type="application/ld+json">{"@type": "BlogPosting"}</script>'
    forum_like = blog_post().replace("</div>\n<footer>", f"</div>{COMMENT_FORM}\n<footer>")
    page = forum_like.replace("</title>", declared)
    cascade = Cascade()
    cascade.forum_gate = 1.1  # KSF never runs
    proba = cascade.kind_proba(Document.from_text(page))
    assert proba["article"] > proba["forum"]
    found = cascade.run(Document.from_text(page)).extraction
    assert found is not None and all(s in found.text for s in SENTENCES)
    assert not any(text in found.text for _, text in COMMENTS) and "Leave a Reply" not in found.text
    # Read likelier a thread than an article, and above the KSF gate (a cascade without KSF:
    # a page under the gate is read as no thread, see the next test).
    unread = Cascade(("dom", "cx"))
    proba = unread.kind_proba(Document.from_text(forum_like))
    assert proba["article"] < proba["forum"] and proba["forum"] >= unread.forum_gate
    found = unread.run(Document.from_text(forum_like)).extraction
    assert found is not None and all(text in found.text for _, text in COMMENTS)
    assert [b.get("id") for b in _comment_blocks(page)] == ["comments", "commentform"]
    assert _comment_blocks(blog_post()) == []  # no form: no comment section
    opinion = page.replace('<div class="post">', '<div class="post article-type-commentary">')
    assert [b.get("id") for b in _comment_blocks(opinion)] == ["comments", "commentform"]
    # Comments closed (no form): numbered comments that close the text go; unnumbered ones
    # (a Q&A page's comments under its question) stay.
    closed = blog_post().replace("</title>", declared)
    numbered = closed.replace(_comment_list(COMMENTS), _comment_list(COMMENTS, numbered=True))
    found = cascade.run(Document.from_text(numbered)).extraction
    assert found is not None and all(s in found.text for s in SENTENCES)
    assert not any(text in found.text for _, text in COMMENTS)
    found = cascade.run(Document.from_text(closed)).extraction
    assert found is not None and all(text in found.text for _, text in COMMENTS)
    thread = forum_thread().replace("<footer>", f"{COMMENT_FORM}<footer>").replace("</title>", declared)
    found = cascade.run(Document.from_text(thread)).extraction
    assert found is not None and all(text in found.text for _, text in COMMENTS)


def test_comments_of_a_page_under_the_ksf_gate_go_though_it_reads_likelier_a_thread():
    """A page the kind model keeps from KSF (forum under the gate) is no thread: its numbered
    comment section leaves the text even when the model finds it likelier a forum than an
    article."""
    forum_like = blog_post().replace("</div>\n<footer>", f"</div>{COMMENT_FORM}\n<footer>")
    cascade = Cascade()
    proba = cascade.kind_proba(Document.from_text(forum_like))
    assert proba["article"] < proba["forum"]
    cascade.forum_gate = proba["forum"] + 0.01  # KSF does not run on this page
    found = cascade.run(Document.from_text(forum_like)).extraction
    assert found is not None and all(s in found.text for s in SENTENCES)
    assert not any(text in found.text for _, text in COMMENTS)


def test_numbered_comments_of_a_page_that_says_it_is_an_article_go_though_it_reads_likelier_a_thread():
    """A page whose Open Graph type is ``article``, with numbered comments closing its text
    and no comment form (a sports blog network loads its form by script after a log-in
    prompt), is an article with its readers' comments, though its many comments make the kind
    model find it likelier a thread; a prompt after the comments does not keep them. Without
    the declaration the comments stay (a forum whose replies are named comments)."""
    prompt = "<h2>Something to say? Choose one of these options to log in.</h2>"
    numbered = _comment_list(COMMENTS, numbered=True)
    forum_like = blog_post().replace(_comment_list(COMMENTS), numbered).replace("</div>\n<footer>", f"</div>{prompt}\n<footer>")
    cascade = Cascade(("dom", "cx"))
    proba = cascade.kind_proba(Document.from_text(forum_like))
    assert proba["article"] < proba["forum"] and proba["forum"] >= cascade.forum_gate
    found = cascade.run(Document.from_text(forum_like)).extraction
    assert found is not None and all(text in found.text for _, text in COMMENTS)
    declared = forum_like.replace("</title>", '</title><meta property="og:type" content="article">')
    found = cascade.run(Document.from_text(declared)).extraction
    assert found is not None and all(s in found.text for s in SENTENCES)
    assert not any(text in found.text for _, text in COMMENTS)


def test_a_line_the_page_does_not_have_between_closing_comments_goes_with_them():
    """A stage may join a comment's footer lines ("Posted by:", the name, the time) into lines
    the page does not have: between two of the closing comments they are the comments', and
    do not keep them in the text. Before the comments such a line stays."""
    page = blog_post().replace(_comment_list(COMMENTS), _comment_list(COMMENTS, numbered=True))
    doc = Document.from_text(page)
    lines = document_lines(doc)
    text = visible_text(doc)
    joined = "Posted by: Maria | March 4, 2024"
    first, second = COMMENTS[0][1], COMMENTS[1][1]
    text = text.replace(second, f"{joined}\n{second}").replace(SENTENCES[0], f"Joined lead line\n{SENTENCES[0]}", 1)
    blocks = comment_blocks(text, lines, formless=True)
    kept = without_parts(text, lines, blocks, opening=False, closing=True)
    assert first not in kept and second not in kept and joined not in kept
    assert "Joined lead line" in kept and SENTENCES[0] in kept


def footer_comments_post() -> str:
    """A story whose numbered comments lie in the ``<footer>`` of its ``<article>`` (a
    WordPress theme's entry footer), no comment form (comments closed)."""
    paragraphs = "\n".join(f"<p>{s}</p>" for s in SENTENCES[:2])
    return f"""<html><head><title>River floods town - A local blog</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div>
<article class="post"><h1>River floods town</h1><div class="entry">{paragraphs}</div>
<footer class="entry-footer"><div id="comments" class="comments-area"><h2>10 responses</h2>
{_comment_list(COMMENTS, numbered=True)}</div></footer></article>
<footer>Powered by a blog engine.</footer></body></html>"""


def test_comments_in_an_articles_footer_leave_its_text():
    """Lines the page mutes (a ``<footer>``'s) are placed on the page too: the numbered
    comments ``dom`` reads in an article's footer are found as comment blocks and go."""
    doc = Document.from_text(footer_comments_post())
    lines = document_lines(doc)
    comment = COMMENTS[0][1]
    assert comment not in lines.texts and comment in lines.muted.values()
    blocks = comment_blocks(comment, lines, formless=True)
    assert [b.get("id") for b in blocks] == ["comments"]
    cascade = Cascade()
    cascade.forum_gate = 1.1  # KSF never runs: the comment blocks' rule alone
    found = cascade.run(Document.from_text(footer_comments_post())).extraction
    assert found is not None and all(s in found.text for s in SENTENCES[:2])
    assert not any(text in found.text for _, text in COMMENTS)


def comments_beside_story() -> str:
    """A two-line story in its own column, and beside it a long list of readers' numbered
    comments with a comment form: the region finders lock onto the comments."""
    story = "\n".join(f"<p>{s}</p>" for s in SENTENCES[:2])
    many = COMMENTS + COMMENTS[::-1]
    links = "".join(f'<li><a href="/{i}">More stories from the flooded town, part {i}</a></li>' for i in range(30))
    return f"""<html><head><title>River floods town - A local blog</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div>
<div id="main"><div class="post"><h1>River floods town</h1><div class="entry">{story}</div>
<ul class="links">{links}</ul></div></div>
<div id="discussion"><div id="comments"><h3>20 responses</h3>{_comment_list(many, numbered=True)}</div>
{COMMENT_FORM}</div><footer>Powered by a blog engine.</footer></body></html>"""


def test_a_stage_that_read_an_articles_comments_reads_the_page_again_without_them():
    """When the comments KSF found hold most of what ``dom`` or ``cx`` read, the stage read
    them, not the story: it reads the page again without them and finds the story."""
    doc = Document.from_text(comments_beside_story())
    dom = DomDensityExtractor().extract(doc).text
    assert COMMENTS[0][1] in dom and SENTENCES[0] not in dom
    cascade = Cascade()
    cascade.forum_gate = 0.0  # the page reaches KSF, which finds the comments
    found = cascade.run(Document.from_text(comments_beside_story())).extraction
    # dom's own reading again (cx's text, without the comments, holds the story too).
    assert found is not None and not found.posts and found.method == "dom"
    assert all(s in found.text for s in SENTENCES[:2])
    assert not any(text in found.text for _, text in COMMENTS)


def test_a_stage_locked_onto_comments_takes_its_own_reading_again_over_what_the_cut_leaves():
    """What is left of a reading that locked onto the comments, once they are cut, is the
    region the comments made it take (a trackback box's lines beside the story); the stage's
    reading of the page without them is the story alone, though shorter."""
    weblogs = "".join(f'<li><a href="/w{i}">A weblog about rivers and towns, number {i}</a></li>' for i in range(5))
    page = f"""<html><head><title>River floods town - A local blog</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div>
<div id="alpha"><div class="entry"><h1>River floods town</h1>{"".join(f"<p>{s}</p>" for s in SENTENCES)}</div>
<div class="trackbacks"><h3>TrackBack</h3><p>TrackBack URL for this entry: http://example.com/trackback/123456789</p>
<p>Listed below are links to weblogs that reference River floods town:</p><ul>{weblogs}</ul></div>
<div id="comments"><h3>Comments</h3>{_comment_list(COMMENTS * 2, numbered=True)}</div>{COMMENT_FORM}</div>
<footer>Powered by a blog engine.</footer></body></html>"""
    cascade = Cascade()
    cascade.forum_gate = 0.0  # the page reaches KSF, which finds the comments
    # An arbiter that would take dom's text on any page: what dom read is what is tested.
    cascade.arbiter = Arbiter(
        weights={name: [0.0] * len(FEATURES) for name in ("cx", "dom")},
        intercepts={"cx": 0.0, "dom": 1.0},
        thread_min=cascade.arbiter.thread_min,
    )
    found = cascade.run(Document.from_text(page)).extraction
    assert found is not None and found.method == "dom" and all(s in found.text for s in SENTENCES)
    assert "Listed below" not in found.text and not any(text in found.text for _, text in COMMENTS)


def test_a_page_without_some_elements_is_a_copy():
    """:meth:`Document.without` drops the elements from a copy (tails kept, the elements
    found before any goes) and leaves the page as it was."""
    doc = Document.from_text("<html><body><ol><li>a</li><li>b</li><li>c</li></ol><p>x<b>y</b>z</p></body></html>")
    items = doc.tree.findall(".//li")
    bold = doc.tree.find(".//b")
    copy = doc.without([items[0], items[1], bold])
    assert [li.text for li in copy.tree.findall(".//li")] == ["c"]
    assert copy.tree.find(".//p").text_content() == "xz"
    assert [li.text for li in doc.tree.findall(".//li")] == ["a", "b", "c"]
    assert copy.url == doc.url and copy.html == doc.html


CONSENT = """<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" role="region"><p>We use cookies
and similar technologies to give you the best experience, to measure our audience and to show you
relevant advertising from our many partners.</p><button>Accept All</button></div>
<div id="onetrust-pc-sdk"><h2>Privacy Preference Center</h2><p>When you visit any website, it may store or
retrieve information on your browser, mostly in the form of cookies, for the purposes below.</p>
<h3>Strictly Necessary Cookies</h3><p>These cookies are necessary for the website to function and cannot
be switched off in our systems. They are usually only set in response to actions made by you.</p>
<h3>Performance Cookies</h3><p>These cookies allow us to count visits and traffic sources so we can
measure and improve the performance of our site and learn which pages are the most popular.</p></div></div>"""


def test_consent_banners_and_dialogs_are_no_part_of_the_text():
    """A consent manager's banner and preference centre, and a report dialog, leave the
    candidates' text; a page wrapper or a story whose class merely mentions cookies stays."""
    report = ('<div class="modal" role="dialog"><h3>Report this article</h3><p>Tell us what is wrong with '
              "this story: spam, abuse, a factual error or something else entirely.</p></div>")
    page = article().replace("<footer>", f"{report}{CONSENT}<footer>").replace("<body>", '<body class="has-no-ticker">')
    page = page.replace("<article>", '<article class="post tag-cookies">')
    doc = Document.from_text(page)
    dropped = overlay_lines(visible_text(doc), document_lines(doc))
    assert "Report this article" in dropped and "Privacy Preference Center" in dropped
    assert not any(s in line for s in SENTENCES for line in dropped)
    found = Cascade().run(Document.from_text(page)).extraction
    assert found is not None and all(s in found.text for s in SENTENCES)
    assert "Privacy Preference Center" not in found.text and "Report this article" not in found.text
    assert "We use cookies" not in found.text


def test_a_media_players_menus_are_no_part_of_the_text():
    """A video player the page labels as one (``aria-label``) inside the story: its caption
    settings' font menu and its error screen leave the text; the story stays."""
    fonts = "".join(f"<li>{name}</li>" for name in ["Georgia", "Palatino Linotype", "Times New Roman", "Arial"])
    player = (f'<div class="vp" aria-label="Daily News Video Player"><div class="error">Video Not Available</div>'
              f'<div class="settings"><p>Captions will look like this</p><ul>{fonts}</ul></div></div>')
    page = article().replace("<p>By Ann", f"{player}<p>By Ann")
    doc = Document.from_text(page)
    dropped = overlay_lines(visible_text(doc), document_lines(doc))
    assert {"Palatino Linotype", "Video Not Available", "Captions will look like this"} <= dropped
    assert not any(s in line for s in SENTENCES for line in dropped)
    labelled = Document.from_text(page.replace("Daily News Video Player", "Story tools"))
    assert not overlay_lines(visible_text(labelled), document_lines(labelled))


def test_a_page_with_less_text_than_the_floor_gives_all_it_has():
    """No stage finds the 20 characters asked of a region on a page that has fewer: all the
    page says is its text. A longer page where no stage finds enough still gives nothing."""
    cascade = Cascade()
    found = cascade.run(Document.from_text("<html><body><a href='javascript:'><p>abc</p>def</a></body></html>"))
    assert found.extraction is not None and found.extraction.text == "abc\ndef"
    assert found.extraction.method == "page"
    assert cascade.run(Document.from_text("<html><body> </body></html>")).extraction is None


def blog_with_shared_markup(engine: str = "blog") -> str:
    """A story whose body and each reader's comment sit in the same ``div.entry-text`` (one
    template for every text the blog engine prints); ``engine="forum"``: the same markup as a
    forum that names its replies comments (Vanilla, Lemmy), the opening post one of them in size."""
    story = "\n".join(f"<p>{s} {s}</p>" for s in SENTENCES) if engine == "blog" else f"<p>{SENTENCES[0]}</p>"
    comments = "".join(
        f'<li class="comment" id="comment-{i}"><span class="author">{who}</span> '
        f'<div class="entry-text"><p>{text}</p></div></li>'
        for i, (who, text) in enumerate(COMMENTS[:4])
    )
    return f"""<html><head><title>River floods town</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/about">About</a></div>
<div class="post"><h1>River floods town</h1><div class="entry-text">{story}</div></div>
<div id="comments"><ol class="commentlist">{comments}</ol></div>
<footer>Powered by an engine.</footer></body></html>"""


def test_an_article_whose_comments_share_its_markup_is_no_thread():
    doc = Document.from_text(blog_with_shared_markup())
    rule = single_rule(doc, min_posts=2)
    assert rule is not None
    posts = apply_rule(rule, doc)
    assert len(posts) == 5 and SENTENCES[0] in posts[0].text  # the story and four comments
    assert comments_on_first(doc.tree, rule, posts)
    cascade = Cascade()
    cascade.forum_gate = 0.0  # the page reaches KSF
    outcome = cascade.run(doc)
    assert outcome.extraction is not None and outcome.extraction.method in {"dom", "cx"}
    assert all(s in outcome.extraction.text for s in SENTENCES)
    assert COMMENTS[0][1] not in outcome.extraction.text
    # The same markup with an opening post no longer than a reply: a forum that names its
    # replies comments stays a thread, and so does a page that names every post a comment.
    forum = Document.from_text(blog_with_shared_markup("forum"))
    rule = single_rule(forum, min_posts=2)
    assert rule is not None and not comments_on_first(forum.tree, rule, apply_rule(rule, forum))
    every = Document.from_text(blog_with_shared_markup().replace('class="post"', 'class="comment-first"'))
    rule = single_rule(every, min_posts=2)
    assert rule is not None and not comments_on_first(every.tree, rule, apply_rule(rule, every))


TEASERS = [
    "The ferry resumes service after the winter break.",
    "A new school opens on the hill for two hundred pupils.",
    "The market square gets new lights and benches.",
]


def test_a_list_of_dated_items_beyond_the_other_text_is_told():
    story = "\n".join(SENTENCES)
    dated = "\n".join(f"{t}\nNovember {12 - i}, 2012" for i, t in enumerate(TEASERS))
    assert dated_list_beyond(f"{story}\n{dated}", story)
    assert dated_list_beyond(f"{story}\n相关新闻\n强图打榜 2024-05-23 09:41:17\n强图打榜 2024-05-22 23:33:39", story)
    # A blog's sidebar dates its items by day and month alone.
    yearless = "\n".join(f"November {12 - i}\n{t}" for i, t in enumerate(TEASERS))
    assert dated_list_beyond(f"{story}\n{yearless}", story)
    # One dateline is an article's own; a date inside a sentence does not make the line a date;
    # dated lines the other text holds too add nothing.
    assert not dated_list_beyond(f"March 3, 2024\n{story}\n{TEASERS[0]}", story)
    sentences = "\n".join(f"{t} It opened on November {12 - i}, 2012 after a long wait." for i, t in enumerate(TEASERS))
    assert not dated_list_beyond(f"{story}\n{sentences}", story)
    assert not dated_list_beyond(f"{story}\n{dated}", f"{story}\n{dated}")


def test_cx_running_past_the_article_into_dated_teasers_gives_way_to_dom():
    story = "".join(f"<p>{s} {s}</p>" for s in SENTENCES)
    teasers = "".join(f"<p>{t}</p><p>November {12 - i}, 2012</p>" for i, t in enumerate(TEASERS))
    page = f"""<html><head><title>River floods town</title></head><body>
<div class="menu"><a href="/">Home</a></div><h1>River floods town</h1><div class="story">{story}</div>
<div class="related">{teasers}</div><footer>Copyright</footer></body></html>"""
    cascade = Cascade()
    assert TEASERS[0] in cascade.cx_text(Document.from_text(page))  # cx reads on into the teasers
    # An arbiter that would take cx's text on any page: its dated list beyond dom's text is
    # what makes the cascade keep dom's.
    cascade.arbiter = Arbiter(
        weights={name: [0.0] * len(FEATURES) for name in ("cx", "dom")}, intercepts={"cx": 1.0, "dom": 0.0}
    )
    found = cascade.run(Document.from_text(page)).extraction
    assert found is not None and found.method == "dom"
    assert SENTENCES[-1] in found.text and TEASERS[0] not in found.text
    plain = cascade.run(Document.from_text(page.replace("November", "Read").replace(", 2012", " stories"))).extraction
    assert plain is not None and plain.method == "cx"


def test_dom_running_past_the_article_into_dated_teasers_gives_way_to_cx():
    story = "".join(f"<p>{s} {s}</p>" for s in SENTENCES)
    teasers = "".join(
        f"<div><p>{t}</p>updated 1:0{i} PM EDT, Thu September 20, 2012</div>" for i, t in enumerate(TEASERS)
    )
    page = f"""<html><head><title>River floods town</title></head><body>
<div class="menu"><a href="/">Home</a></div><h1>River floods town</h1>
<div class="story">{story}<aside>{teasers}</aside></div><footer>Copyright</footer></body></html>"""
    cascade = Cascade()
    assert TEASERS[0] not in cascade.cx_text(Document.from_text(page))  # cx mutes the <aside>
    # An arbiter that would take dom's text on any page: its dated list beyond cx's text is
    # what makes the cascade keep cx's.
    cascade.arbiter = Arbiter(
        weights={name: [0.0] * len(FEATURES) for name in ("cx", "dom")}, intercepts={"cx": 0.0, "dom": 1.0}
    )
    found = cascade.run(Document.from_text(page)).extraction
    assert found is not None and found.method == "cx"
    assert SENTENCES[-1] in found.text and TEASERS[0] not in found.text
    plain = cascade.run(Document.from_text(page.replace("updated 1:0", "Read "))).extraction
    assert plain is not None and plain.method == "dom" and TEASERS[0] in plain.text


def test_comment_lines_out_of_the_pages_order_are_still_placed_in_the_comments():
    comments = "".join(f"<div class='c'><p>Reader {i} says the story is right about the river.</p></div>" for i in range(3))
    page = f"<html><body><div class='story'><p>{SENTENCES[0]}</p></div><div id='comments'>{comments}</div></body></html>"
    doc = Document.from_text(page)
    section = doc.tree.xpath("//div[@id='comments']")
    # A stage that read the comments in another order than the page's (its blocks fused or
    # sorted otherwise): each line is still the page's line inside the comments, and goes.
    text = "\n".join([SENTENCES[0], *(f"Reader {i} says the story is right about the river." for i in (2, 0, 1))])
    assert without_parts(text, document_lines(doc), section) == SENTENCES[0]
    assert without_parts(f"{text}\nA line the page does not have", document_lines(doc), section).endswith("have")


def test_page_sections_that_ksf_takes_for_unsigned_posts_with_empty_ones_are_no_thread():
    story = "".join(f"<p>{s}</p>" for s in SENTENCES)
    boxes = [
        f"<h1>River floods town</h1>{story}",
        f"<h3>Most popular</h3><p>{TEASERS[0]}</p><p>{TEASERS[1]}</p>",
        "<img src='/ad.png'>",
        "<h3>Search for:</h3>",
        f"<h3>Related</h3><p>{TEASERS[2]}</p>",
        "<img src='/ad2.png'>",
        "<img src='/ad3.png'>",
    ]
    page = "<html><head><title>River floods town</title></head><body><div id='wrap'>"
    page += "".join(f"<div class='box'>{box}</div>" for box in boxes) + "</div></body></html>"
    posts = single_posts(Document.from_text(page), min_posts=2).posts
    assert len(posts) == 7 and not any(p.author or p.published for p in posts)  # the boxes
    assert bare_sections(posts)
    cascade = Cascade()
    cascade.forum_gate = 0.0  # the page reaches KSF
    found = cascade.run(Document.from_text(page)).extraction
    assert found is not None and not found.posts and SENTENCES[-1] in found.text
    # Signed, they are a thread's posts.
    assert not bare_sections([dataclasses.replace(posts[0], author="Maria"), *posts[1:]])


def gallery_page() -> str:
    """A short story, a list of links, then a gallery whose captions outweigh the story: ``dom``
    takes the gallery alone, ``cx`` the story and the gallery."""
    story = "".join(f"<p>{s}</p>" for s in SENTENCES)
    related = "".join(f'<li><a href="/{i}">Related link number {i}</a></li>' for i in range(12))
    photos = "".join(
        f'<div class="photo"><img src="/p{i}.jpg"><div class="note">Photo {i}: hover over the picture '
        "to read its notes or to add a comment of your own</div></div>"
        for i in range(10)
    )
    return f"""<html><head><title>River floods town</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/w">World</a></div>
<div class="post"><h1>River floods town</h1>{story}</div><ul>{related}</ul>
<div class="gallery">{photos}</div><footer>Copyright</footer></body></html>"""


def test_cx_is_taken_when_dom_holds_too_little_of_its_words():
    doc = Document.from_text(gallery_page())
    cascade = Cascade()
    cx_text = cascade.cx_text(doc)
    assert SENTENCES[0] in cx_text and "Photo 9:" in cx_text
    # An arbiter that would take dom's text on any page; dom's holds part of cx's words.
    cascade.arbiter = Arbiter(
        weights={name: [0.0] * len(FEATURES) for name in ("cx", "dom")}, intercepts={"cx": 0.0, "dom": 1.0}
    )
    found = cascade.run(Document.from_text(gallery_page())).extraction
    assert found is not None and found.method == "dom" and SENTENCES[0] not in found.text
    held = token_agreement(page_tokens(doc, cx_text), page_tokens(doc, found.text))[0]
    assert 0 < held < 1
    cascade.arbiter.apart_share = held + 0.01
    found = cascade.run(Document.from_text(gallery_page())).extraction
    assert found is not None and found.method == "cx" and SENTENCES[0] in found.text
    cascade.arbiter.apart_share = held - 0.01
    found = cascade.run(Document.from_text(gallery_page())).extraction
    assert found is not None and found.method == "dom"
    assert not cascade.arbiter.apart(Counter(), Counter({"river": 1}))  # no cx words: nothing apart
    assert Arbiter.from_dict(cascade.arbiter.to_dict()).apart_share == cascade.arbiter.apart_share


def test_a_threads_text_shows_its_quotes_in_place_and_its_posts_keep_their_own_words():
    answers = [
        "That is exactly what happened on our street, the water came in through the cellar door.",
        "And the sirens only started after the bridge was closed, which was far too late for us.",
    ]
    quoting = "".join(
        f'<blockquote class="quote"><cite>Ann wrote:</cite> {said}</blockquote><p>{answer}</p>'
        for said, answer in zip(SENTENCES, answers)
    )
    entries = [("Ann", BODY), *COMMENTS[:4], ("Rob", quoting), *COMMENTS[4:]]
    page = f"""<html><head><title>River floods town - Town forum</title></head><body>
<h1>River floods town</h1>{_comment_list(entries)}<footer>Powered by a forum engine.</footer></body></html>"""
    record = extract_bytes(page.encode(), page_id="q")
    assert record["method"] == "ksf" and len(record["posts"]) == len(entries)
    rob = record["posts"][5]
    assert rob["text"] == "\n".join(answers)
    assert rob["quotes"] == [f"Ann wrote: {said}" for said in SENTENCES[:2]]
    assert rob["quote_at"] == [0, len(answers[0]) + 1]  # before each answer's line
    # The page's text is what a reader sees: each quote before the answer to it, the story in
    # the first post; the post itself keeps its own words.
    assert record["text"].count(SENTENCES[0]) == 2
    shown = [f"Ann wrote: {SENTENCES[0]}", answers[0], f"Ann wrote: {SENTENCES[1]}", answers[1]]
    assert "\n".join(shown) in record["text"]
    assert all(text in record["text"] for _, text in COMMENTS)


HEADLINES = ["Storm hits coast", "Election results", "New bridge opens", "Budget talks stall", "Team wins cup"]


def news_index() -> str:
    """A list page: its content is linked headlines, nothing else."""
    items = "\n".join(f'<li><a href="/news/{i}">{h} in the region</a></li>' for i, h in enumerate(HEADLINES * 4))
    return f"""<html><head><title>Latest news - Daily News</title>
<script type="application/ld+json">{{"@type": ["CollectionPage", "ItemList"]}}</script></head>
<body><nav><a href="/">Home</a> <a href="/world">World</a></nav><h1>Latest news</h1>
<ul class="headlines">{items}</ul><p><a href="?page=2">Next page</a></p>
<footer>Copyright Daily News</footer></body></html>"""


def test_a_list_page_gives_its_whole_text():
    # dom and cx leave link lists out as navigation: on a page that is one, they find nothing.
    assert Cascade(("dom", "cx"), arbiter=False).run(Document.from_text(news_index())).extraction is None
    cascade = Cascade()
    # A kind model that tells this list page from an article (the shipped one is fit on
    # wcxb-dev's pages, and is less sure of so small a page).
    signals = [page_signals(Document.from_text(news_index())), page_signals(Document.from_text(article()))]
    cascade.kinds = KindClassifier().fit(signals * 3, ["listing", "article"] * 3)
    found = cascade.run(Document.from_text(news_index())).extraction
    assert found is not None and found.method == "page" and found.page_kind == "listing"
    assert all(f"{h} in the region" in found.text for h in HEADLINES)
    assert "Home" not in found.text and "Copyright" not in found.text  # <nav>, <footer>
    story = cascade.run(Document.from_text(article())).extraction
    assert story is not None and story.method in {"dom", "cx"} and story.page_kind == "article"
    # The stage alone, by name.
    record = extract_bytes(news_index().encode(), page_id="l", options=ExtractOptions(cascade=("page",)))
    assert record["method"] == "page" and "Budget talks stall in the region" in record["text"]


def stories_table() -> str:
    """A news index: a lead paragraph above a table of dated, linked stories."""
    rows = "".join(
        f'<tr><td><a href="/n/{i}">{h}</a></td><td>{h} in the region: our reporters on what happened '
        f"and what comes next.</td><td>March {i + 1}, 2024</td></tr>"
        for i, h in enumerate(HEADLINES * 3)
    )
    return f"""<html><head><title>Latest news - Daily News</title></head><body>
<nav><a href="/">Home</a></nav><h1>Latest news</h1><div class="lead"><p>{" ".join(SENTENCES[:3])}</p></div>
<table class="stories">{rows}</table><footer>Copyright</footer></body></html>"""


def _kinds(listing: float) -> KindClassifier:
    """A kind model that gives every page the same odds: ``listing`` against article and forum."""
    n = len(SIGNALS)
    rest = (1.0 - listing) / 2
    return KindClassifier(
        classes=["article", "forum", "listing"], mean=[0.0] * n, scale=[1.0] * n, coef=[[0.0] * n] * 3,
        intercept=[math.log(rest), math.log(rest), math.log(listing)],
    )


def test_a_small_region_of_a_page_likelier_a_list_gives_way_to_the_whole_page():
    cascade = Cascade()
    cascade.kinds = _kinds(0.55)  # a list more likely than content, content above the floor
    assert cascade.page_kind(Document.from_text(stories_table())) == "article"
    cascade.list_share = 0.0
    doc = Document.from_text(stories_table())
    region = cascade.run(doc).extraction
    assert region is not None and region.method in {"dom", "cx"}
    share = page_chars(doc, region.text) / page_evidence(doc).text_chars
    # The region holds less than the model's list share of the page's prose: one item of a list.
    cascade.list_share = share + 0.01
    whole = cascade.run(Document.from_text(stories_table())).extraction
    assert whole is not None and whole.method == "page" and whole.page_kind == "article"
    assert all(h in whole.text for h in HEADLINES) and "Home" not in whole.text
    cascade.list_share = share - 0.01
    assert cascade.run(Document.from_text(stories_table())).extraction.method == region.method
    # So does a page that says it is an article, by Open Graph type or properties.
    cascade.list_share = share + 0.01
    for meta in ('property="og:type" content="article"', 'property="article:published_time" content="2024-03-03"'):
        story = Document.from_text(stories_table().replace("</head>", f"<meta {meta}></head>"))
        assert page_evidence(story).og_article
        assert cascade.run(story).extraction.method == region.method
    website = stories_table().replace("</head>", '<meta property="og:type" content="website"></head>')
    assert not page_evidence(Document.from_text(website)).og_article
    # A page likelier content than a list keeps the arbiter's text whatever the share.
    cascade.kinds, cascade.list_share = _kinds(0.45), share + 0.01
    assert cascade.run(Document.from_text(stories_table())).extraction.method == region.method


def test_extract_reports_kind_and_keeps_the_article_body():
    record = extract_bytes(article().encode(), page_id="a")
    assert record["kind"] == "article"
    assert record["method"] in {"dom", "cx"}
    assert all(s in record["text"] for s in SENTENCES)
    assert "Election results" not in record["text"]
    product = extract_bytes(PRODUCT.encode(), page_id="p")
    assert product["kind"] == "product"
    assert extract_bytes(PRODUCT.encode(), page_id="p", options=_forced("article"))["kind"] == "article"


#: Extraction in a new interpreter, every stage run: which heavy libraries it loaded.
_LOADED = """
import json, sys
from forumcrawl.document import Document
from forumcrawl.offline import extract_bytes
from forumcrawl.pages import Cascade
cascade = Cascade()
cascade.forum_gate = 0.0  # KSF runs on every page
methods = []
for path in sys.argv[1:]:
    html = open(path, encoding="utf-8").read()
    methods.append(extract_bytes(html.encode(), page_id=path)["method"])
    cascade.run(Document.from_text(html))
    for stage in ("dom", "ksf", "cx"):
        Cascade(stages=(stage,)).run(Document.from_text(html))
print(json.dumps({"methods": methods, "loaded": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def test_extracting_pages_loads_neither_numpy_nor_scikit_learn(tmp_path):
    # Importing scikit-learn imports SciPy's statistics: 1.5 s of a process's start-up, for
    # pages whose models are JSON weights (see forumcrawl.extractors.base); numpy alone is a
    # fifth of the extractor's import, and only learning from many pages uses it.
    thread = f"""<html><head><title>River floods town - Town forum</title></head><body>
<h1>River floods town</h1>{_comment_list([("Ann", BODY), *COMMENTS])}</body></html>"""
    paths = []
    for name, page in (("article", article()), ("thread", thread), ("blog", blog_post()), ("shop", PRODUCT)):
        paths.append(tmp_path / f"{name}.html")
        paths[-1].write_text(page, encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", _LOADED, *map(str, paths)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found["methods"][1] == "ksf"  # the stages did run
    assert not {"numpy", "sklearn", "scipy"} & set(found["loaded"])


def test_neither_costly_stage_runs_when_cx_is_the_marked_article_body():
    cascade = Cascade()
    cascade.forum_gate = 0.0  # every page may be a thread: KSF would run on each
    marked = Document.from_text(article())
    outcome = cascade.run(marked)
    assert outcome.extraction is not None and outcome.extraction.method == "cx"
    assert marked.derived("ksf.lines", lambda: None) is None  # KSF never read the page
    # A bare <article> is no article body by its name (a forum may wrap its thread in one):
    # KSF runs.
    bare = Document.from_text(article().replace('"articleBody"', '"description"'))
    cascade.run(bare)
    assert bare.derived("ksf.lines", lambda: None) is not None


#: What a marked article body may hold beyond the page's text (the rest of a paywalled story).
MORE = (
    "Insurers have sent assessors to the worst hit streets and expect claims to run into millions. "
    "Schools in the lower town will stay closed until the water board declares the supply safe. "
    "The regional council will meet on Thursday to decide on emergency grants for shop owners."
)


def paywalled(hidden: str, declared: str = f"{BODY} {BODY} {MORE}") -> str:
    """The article with ``hidden`` sent in a hidden block after its paragraphs, its JSON-LD
    body ``declared``."""
    block = "".join(f"<p>{s}.</p>" for s in hidden.split(". ") if s)
    return article().replace(f"{BODY} {BODY}", declared).replace(
        "</article>", f'<div class="paywall" hidden>{block}</div></article>'
    )


def test_the_hidden_rest_of_a_paywalled_story_completes_its_text():
    sentences = [s.rstrip(".") for s in MORE.split(". ")]
    record = extract_bytes(paywalled(MORE).encode(), page_id="p")
    assert record["method"] in {"dom", "cx"}
    text = record["text"]
    assert all(s in text for s in SENTENCES + sentences)
    assert text.index(SENTENCES[-1]) < text.index(sentences[0])  # in the page's order
    assert "Election results" not in text and "Copyright" not in text  # muted, not declared
    # Hidden text the page does not declare stays out, and so does all of it when the page's
    # body is not declared in JSON-LD.
    offer = "Subscribe today for one euro a month and read every story on our site. "
    assert "Subscribe today" not in extract_bytes(paywalled(offer + MORE).encode(), page_id="o")["text"]
    undeclared = paywalled(MORE).replace('"articleBody"', '"description"')
    assert sentences[0] not in extract_bytes(undeclared.encode(), page_id="u")["text"]


#: An article's last paragraph, after a box of links that cuts the article in two regions.
TAIL = (
    "The river authority will publish its report on the town's flood defences at the end of May, "
    "with the cost of each repair."
)


def split_story(declared: str = f"{BODY} {BODY} {TAIL}", aside: str = "") -> str:
    """The article with a box of related links before its last paragraph ``TAIL`` (and
    ``aside``, a paragraph after it), its JSON-LD body ``declared``."""
    links = "".join(f'<li><a href="/r{i}">Related story number {i}</a></li>' for i in range(5))
    more = f'<div><ul class="related">{links}</ul></div><p>{TAIL}</p>'
    if aside:
        more += f'<div><ul class="related">{links}</ul></div><p>{aside}</p>'
    return article().replace(f"{BODY} {BODY}", declared).replace("</article>", f"{more}</article>")


def test_the_last_paragraph_after_a_box_of_links_is_taken_back_when_the_page_names_it():
    """CX leaves a region under a fifth of the main one's mass out; the page's JSON-LD
    article body names it part of the article, and the cascade takes it back, in place."""
    doc = Document.from_text(split_story())
    result = LineBlockExtractor().extract(doc)
    assert TAIL not in result.text and result.small
    evidence = page_evidence(doc)
    whole = with_body_regions(result, text_tokens(result.text), evidence)
    assert whole is not None and whole.startswith(result.text) and whole.endswith(TAIL)
    cascade = Cascade()  # with an arbiter that takes cx's text on any page
    cascade.arbiter = Arbiter(
        weights={name: [0.0] * len(FEATURES) for name in ("cx", "dom")}, intercepts={"cx": 1.0, "dom": 0.0}
    )
    found = cascade.run(Document.from_text(split_story())).extraction
    assert found is not None and found.method == "cx" and found.text == whole
    # Not without a declared article body, nor a small region the body does not hold.
    bag = text_tokens(result.text)
    undescribed = split_story().replace('"articleBody"', '"description"')
    undeclared = Document.from_text(undescribed)
    assert with_body_regions(LineBlockExtractor().extract(undeclared), bag, page_evidence(undeclared)) is None
    found = cascade.run(Document.from_text(undescribed)).extraction
    assert found is not None and found.method == "cx" and TAIL not in found.text
    offer = (
        "Subscribe today for one euro a month and read every story of the Daily News on any "
        "device you own, wherever you are."
    )
    beside = Document.from_text(split_story(aside=offer))
    small = LineBlockExtractor().extract(beside)
    assert [small.text_of([region]) for region in small.small] == [TAIL, offer]
    taken = with_body_regions(small, bag, page_evidence(beside))
    assert taken is not None and taken.endswith(TAIL) and "Subscribe" not in taken


#: An author's box after the story, inside its ``<article>``.
BIO = (
    "Ann Reporter has covered the river valley and its towns for the Daily News since 2009, "
    "from its floods to its elections."
)


def with_box(name: str) -> str:
    """The article with the author's box ``BIO`` in a block of class ``name`` after its story."""
    return article().replace("</article>", f'<div class="{name}"><p>{BIO}</p></div></article>')


def test_an_author_box_in_the_article_leaves_cx_text_by_its_name():
    """CX reads lines, not names: the author's box after the story is one region with it. Its
    class name says it is around the article, and once the arbiter takes CX's text the cascade
    drops it. A name with the word inside ("entry-author-ann", a blog's entry named by its
    author) names no box, and a named block holding most of the text is the text."""
    doc = Document.from_text(with_box("author-bio"))
    text = LineBlockExtractor().extract(doc).text
    assert BIO in text and SENTENCES[-1] in text
    kept = without_aux(text, document_lines(doc))
    assert kept is not None and BIO not in kept and all(s in kept for s in SENTENCES)
    cascade = Cascade()  # with an arbiter that takes cx's text on any page
    cascade.arbiter = Arbiter(
        weights={name: [0.0] * len(FEATURES) for name in ("cx", "dom")}, intercepts={"cx": 1.0, "dom": 0.0}
    )
    found = cascade.run(Document.from_text(with_box("author-bio"))).extraction
    assert found is not None and found.method == "cx" and found.text == kept
    # Not a word inside a name, nor a named block that holds most of the text.
    entry = Document.from_text(with_box("entry-author-ann entry"))
    assert BIO in cascade.run(entry).extraction.text  # type: ignore[union-attr]
    posts = Document.from_text(
        article()
        .replace("3 March 2024</p>", '3 March 2024</p><div class="post-comments">')
        .replace("</article>", "</div></article>")
    )
    assert without_aux(LineBlockExtractor().extract(posts).text, document_lines(posts)) is None


def test_a_related_heading_and_the_list_it_announces_leave_cx_text_whatever_their_share():
    """A publisher's "Also on <site>:" over a promotional slideshow inside the article's body
    holds more text than the story: the heading says what follows, so the slideshow goes
    though it is most of CX's text (``dom`` drops the same block by the same heading). Over
    plain prose the heading announces nothing the lines can tell apart, and it stays."""
    captions = "".join(f"<li><h4>Picture {i}</h4><p>{BIO} {BIO}</p></li>" for i in range(8))
    promo = f'<p>Also on The Daily News:</p><div class="promo_holder"><ul>{captions}</ul></div>'
    doc = Document.from_text(article().replace("</article>", f"{promo}</article>"))
    text = LineBlockExtractor().extract(doc).text
    assert BIO in text and 2 * len(BIO) * 8 > len(BODY) * 2
    kept = without_aux(text, document_lines(doc))
    assert kept is not None and BIO not in kept and "Also on" not in kept
    assert all(s in kept for s in SENTENCES)
    prose = Document.from_text(article().replace("</article>", f"<p><strong>See also</strong></p><p>{BIO}</p></article>"))
    assert without_aux(LineBlockExtractor().extract(prose).text, document_lines(prose)) is None


def test_related_headings_name_what_follows_as_not_the_articles():
    """Headings of related lists a publisher names by its own name and a blog's widgets of
    recent comments or posts announce lists that are not the article; a sentence that opens
    with the same words is no heading."""
    headings = ["Also on HuffPost:", "Related on The Daily News", "Recent Comments", "RECENT POSTS", "Related stories"]
    assert all(map(related_heading, headings))
    lines = ["Also on the river, the ferry stopped.", "Recent comments by the mayor angered residents."]
    assert not any(map(related_heading, lines))


def test_an_auxiliary_name_opens_or_closes_a_class_name():
    names = ["author-bio", "post-comments", "entry-footer share", "entry-author-ann entry", "sharebar", "x"]
    found = [aux_name(Document.from_text(f'<div class="{n}"><p>{BIO}</p></div>').tree.find(".//div")) for n in names]
    assert found == ["author", "comments", "share", "", "", ""]


def test_a_text_within_a_longer_marked_body_lies_in_it():
    evidence = page_evidence(Document.from_text(article().replace(f"{BODY} {BODY}", f"{BODY} {BODY} {MORE}")))
    shown = text_tokens(f"{BODY} {BODY}")
    assert within_body(shown, evidence) and not marks_body(shown, evidence)
    # A text that is mostly outside the marked body (posts or comments beside it) does not.
    assert not within_body(text_tokens(f"{BODY} {MORE} {MORE} {MORE}"), page_evidence(Document.from_text(article())))


def test_ksf_does_not_run_when_cx_lies_in_the_marked_article_body():
    cascade = Cascade()
    cascade.forum_gate = 0.0  # every page may be a thread: KSF would run on each
    longer = Document.from_text(article().replace(f"{BODY} {BODY}", f"{BODY} {BODY} {MORE}"))
    outcome = cascade.run(longer)
    assert outcome.extraction is not None and outcome.extraction.method in {"dom", "cx"}
    assert longer.derived("ksf.lines", lambda: None) is None  # KSF never read the page
    # The marked body is a part of cx's text: what lies beside it may be a thread, KSF runs.
    shorter = Document.from_text(article().replace(f"{BODY} {BODY}", " ".join(SENTENCES[:2])))
    cascade.run(shorter)
    assert shorter.derived("ksf.lines", lambda: None) is not None


def _forced(kind: str) -> ExtractOptions:
    return ExtractOptions(kind=kind)


def test_without_the_arbiter_the_first_stage_with_text_wins():
    doc = Document.from_text(article())
    outcome = Cascade(("cx", "dom"), arbiter=False).run(doc)
    assert outcome.extraction is not None and outcome.extraction.method == "cx"
    assert outcome.extraction.page_kind is None


def test_models_round_trip_and_refuse_other_features():
    kinds = load_kinds()
    assert kinds is not None and 0.0 <= kinds.forum_gate < 1.0
    again = KindClassifier.from_dict(kinds.to_dict())
    signals = page_signals(Document.from_text(PRODUCT))
    assert len(signals) == len(SIGNALS)
    assert again.predict_proba(signals) == pytest.approx(kinds.predict_proba(signals))
    with pytest.raises(ValueError):
        KindClassifier.from_dict({**kinds.to_dict(), "signals": ["other"]})
    with pytest.raises(ValueError):
        Arbiter.from_dict({"features": ["other"], "weights": {}, "intercepts": {}})


def test_estimators_fit_what_they_are_given():
    X = [[0.0] * len(SIGNALS), [1.0] * len(SIGNALS)] * 3
    model = KindClassifier().fit(X, ["article", "product"] * 3)
    assert max(model.predict_proba(X[1]).items(), key=lambda kv: kv[1])[0] == "product"
    features = [[0.0] * 11, [1.0] * 11] * 3
    arbiter = Arbiter().fit(features, [0, 1] * 3, ["dom", "cx"] * 3)
    assert arbiter.score(features[1], "cx") > arbiter.score(features[0], "dom")


class _Site(BaseHTTPRequestHandler):
    pages: dict[str, str] = {}

    def do_GET(self) -> None:  # noqa: N802  (http.server's name)
        page = self.pages.get(self.path)
        self.send_response(200 if page else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        if page:
            self.wfile.write(page.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def news_site() -> Iterator[str]:
    _Site.pages = {"/": article('<a href="/shop/kettle">Kettle</a>'), "/shop/kettle": PRODUCT, "/robots.txt": ""}
    with serving(_Site) as url:
        yield f"{url}/"


def test_news_spider_does_not_export_a_product_page(tmp_path, news_site):
    result = run_crawl(
        tmp_path, [news_site], spider="news", settings={"FORUMCRAWL_LEARN_ENABLED": False}
    )
    urls = [item["url"] for item in result.items]
    assert urls == [news_site]
    assert result.stats.get("forumcrawl/skip/kind/product") == 1


def long_guide() -> str:
    """A long article whose sections hold short list items and short headings: each under the
    crumb floor (Δ1) of so long a page."""
    filler = " ".join(SENTENCES * 5)
    sections = "\n".join(
        f"<h2>{i}. Tool number {i}</h2><p>{filler}</p><h4>Top picks:</h4>"
        f"<ul><li>Bend wires</li><li>Reach corners</li><li>Grip parts</li></ul>"
        for i in range(1, 9)
    )
    return f"""<html><head><title>Tools every electrician needs</title></head><body>
<div class="menu"><a href="/">Home</a> <a href="/blog">Blog</a> <a href="/about">About</a></div>
<article><h1>Tools every electrician needs</h1>{sections}</article>
<footer>Copyright 2025 Tools Inc.</footer></body></html>"""


def test_an_articles_short_list_items_and_headings_stay():
    """``dom`` keeps a region's list items and ``<h2>``-``<h6>`` headings though they are under
    the crumb floor of a long page; a forum post's user panel (short blocks of other tags
    beside one long post) still goes (see test_dom_density)."""
    found = DomDensityExtractor().extract(Document.from_text(long_guide()))
    lines = found.text.split("\n")
    assert lines.count("Bend wires") == 8 and lines.count("Top picks:") == 8
    assert "1. Tool number 1" in lines and "Home" not in found.text


def test_the_cli_leaves_an_articles_footer_comments_out(tmp_path):
    """``forumcrawl extract`` exports the story of a page whose comments lie in its article's
    footer, without them."""
    record = extract_page(tmp_path, "story.html", footer_comments_post())
    assert record["kind"] == "article" and all(s in record["text"] for s in SENTENCES[:2])
    assert not any(text in record["text"] for _, text in COMMENTS)


def blogger_post() -> str:
    """:func:`commented_blog_post` as Blogger writes it: each comment's block anchored by
    ``c`` and a long number, the comment editor loaded in a frame instead of a form."""
    page = commented_blog_post(numbered=False).replace(COMMENT_FORM, '<iframe id="comment-editor" src=""></iframe>')
    counter = iter(range(10**17, 10**17 + 100))
    return re.sub('<div class="comment-body">', lambda _: f'<div class="comment-body" id="c{next(counter)}">', page)


def test_blogger_comments_are_an_articles_comments():
    """Comments anchored ``c<number>`` below a comment editor's frame are an article's
    comments: they leave the text."""
    doc = Document.from_text(blogger_post())
    rule = single_rule(doc, min_posts=2)
    assert rule is not None
    posts = apply_rule(rule, doc)
    parts = comment_section(doc.tree, rule, posts, document_lines(doc))
    assert parts and any(part.tag == "iframe" for part in parts)
    cascade = Cascade()
    cascade.forum_gate = 0.0  # the page reaches KSF
    found = cascade.run(Document.from_text(blogger_post())).extraction
    assert found is not None and not found.posts and all(s in found.text for s in SENTENCES[:3])
    assert not any(text in found.text for _, text in COMMENTS)
