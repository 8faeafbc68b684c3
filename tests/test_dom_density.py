"""DOM density (seed 000): pruning and fusion, node properties, the NB value filter, WARC input
and the Dask engine."""

from __future__ import annotations

import io
import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_selection import mutual_info_classif

from forumcrawl.document import Document
from forumcrawl.extractors.dom_density import (
    BlockFeaturizer,
    DomDensityExtractor,
    node_blocks,
    simplify_tree,
)
from forumcrawl.extractors.value_model import (
    ValueModel,
    information_gain,
    load_value_model,
    make_value_classifier,
)
from forumcrawl.offline import ExtractOptions, extract_bytes, extract_paths
from forumcrawl.training.value import read_examples, train

NOW = datetime(2024, 5, 1, tzinfo=timezone.utc)

PRUNE_PAGE = """<html><head><title>T</title><style>p{}</style></head><body>
<script>var x = 1;</script>
<div id="main">
  <p>First <b>bold</b> and <a href="/x">a link</a> tail.</p>
  <p>Enough visible text to stay above the hidden-content fallback.</p>
  <p style="display: none">hidden text</p>
  <form action="/login"><input name="u"> Login here</form>
  <!-- a comment -->
  <div></div>
  <my-widget>custom <i>content</i></my-widget>
  <o:p>office junk</o:p>
  <div><p>Inner block</p>outer text</div>
</div>
</body></html>"""


def _doc(html: str) -> Document:
    return Document.from_text(html, "http://example.com/t")


def test_pruning_removes_head_script_style_hidden_form_comment_empty_and_namespaced() -> None:
    tree = simplify_tree(_doc(PRUNE_PAGE))
    text = "\n".join(n.text for n in tree.nodes)
    for gone in ("var x", "hidden text", "Login here", "a comment", "office junk", "T\n"):
        assert gone not in text
    assert "custom content" in text  # a custom element is fused away, its content kept
    assert all(n.subtree_chars for n in tree.nodes)  # rule 6: no empty block left


def test_fusion_merges_inline_into_block_and_keeps_blocks_apart() -> None:
    tree = simplify_tree(_doc(PRUNE_PAGE))
    by_text = {n.text: n for n in tree.nodes}
    first = by_text["First bold and a link tail."]
    assert (first.tag, first.links, first.link_chars) == ("p", 1, len("alink"))
    inner = by_text["Inner block"]
    outer = tree.nodes[inner.parent]
    assert outer.tag == "div" and outer.text == "outer text"  # blocks are never merged
    assert [n.text for n in tree.nodes if n.parent == inner.parent] == ["Inner block"]


def test_fusion_rate_is_share_of_elements_removed() -> None:
    doc = _doc(PRUNE_PAGE)
    tree = simplify_tree(doc)
    elements = len(doc.tree.xpath("//*"))
    assert tree.dom_nodes == elements
    assert tree.fusion_rate == pytest.approx(1 - tree.st_nodes / elements)
    assert tree.st_nodes == 6  # body, div#main, p, p, div, p
    assert simplify_tree(None).fusion_rate == 0.0


def test_form_wrapping_the_whole_page_is_kept() -> None:
    page = "<html><body><form id='aspnetForm'><div><p>" + "Real article text. " * 20 + "</p></div></form></body></html>"
    assert "Real article text." in DomDensityExtractor().extract(_doc(page)).text


def test_form_is_weighed_against_the_visible_text() -> None:
    """A thread wrapped in a moderation form holds most of what a reader sees, even when the
    page's scripts hold more characters: it is kept; a small login form beside it is not."""
    script = "<script>" + "var tracker = 1;" * 800 + "</script>"
    thread = "<form id='moderation'><div><p>" + "A reply in the thread. " * 20 + "</p></div></form>"
    login = "<form><p>Log in to reply to this topic now</p></form>"
    page = f"<html><body>{script}{thread}<p>Footer words of the forum here.</p>{login}</body></html>"
    text = DomDensityExtractor().extract(_doc(page)).text
    assert "A reply in the thread." in text
    assert "Log in to reply" not in "\n".join(n.text for n in simplify_tree(_doc(page)).nodes)


def test_hidden_posts_are_read_when_nothing_else_is_visible() -> None:
    page = "<html><body><noscript><div><p>" + "A post served without script. " * 5 + "</p></div></noscript></body></html>"
    assert "served without script" in DomDensityExtractor().extract(_doc(page)).text


def test_properties_text_share_link_density_and_position() -> None:
    page = """<html><body>
    <div class="nav"><a href="/">Home</a> <a href="/a">About</a></div>
    <div style="width: 50%"><p>0123456789 0123456789 <a href="/l">link</a></p></div>
    <footer><p>Copyright 2024</p></footer></body></html>"""
    tree = simplify_tree(_doc(page))
    blocks = node_blocks(tree)
    assert sum(b.text_share for b in blocks) == pytest.approx(1.0)
    nav, para, foot = blocks
    assert math.isinf(nav.link_density)  # links and no plain text
    assert para.link_density == pytest.approx(1 / 20)  # formula 3: 1 link, 20 plain chars
    assert para.width == pytest.approx(0.5)  # declared by inline style
    assert nav.top == 0.0 and nav.bottom == pytest.approx((para.chars + foot.chars) / tree.text_chars)
    assert foot.bottom == 0.0  # <footer> is a layout hint: pinned to the bottom edge
    assert 0 < para.height < 1


def test_malformed_widths_are_read_as_undeclared() -> None:
    page = """<html><body><div style="width:.px"><p>One paragraph of plain text here.</p></div>
    <div width="."><p>Another paragraph of plain text.</p></div><div width="1.2.3"><p>A third one.</p></div>
    <div style="width: .5px"><p>A fourth one, half a pixel wide.</p></div></body></html>"""
    widths = [b.width for b in node_blocks(simplify_tree(_doc(page)))]
    assert widths == [1.0, 1.0, 1.0, pytest.approx(0.0005)]


def test_extractor_keeps_the_article_and_drops_menus_and_footer() -> None:
    paragraphs = "".join(f"<p>Paragraph {i} of the story, long enough to matter here.</p>" for i in range(8))
    links = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
    page = f"""<html><body><header><ul>{links}</ul></header>
    <div class="content"><article>{paragraphs}</article>
    <aside><p>Related: <a href="/r">another story</a></p></aside></div>
    <footer><p>© 2024 Example Media. All rights reserved.</p></footer></body></html>"""
    result = DomDensityExtractor().extract(_doc(page))
    assert result.text.count("Paragraph") == 8
    assert "Section" not in result.text and "rights reserved" not in result.text
    assert "another story" not in result.text
    assert 0 < result.fusion_rate < 1 and result.st_nodes < result.dom_nodes
    assert DomDensityExtractor().extract(_doc("<html><body></body></html>")).text == ""


def test_heading_inside_an_anchor_counts_as_a_link() -> None:
    page = """<html><body><div>
    <a href="/other-story"><h4>Teaser headline of another story</h4></a>
    <p>Plain paragraph of the page, with no link in it at all.</p></div></body></html>"""
    heading, para = node_blocks(simplify_tree(_doc(page)))
    assert heading.text.startswith("Teaser") and math.isinf(heading.link_density)
    assert para.link_density == 0.0


def test_article_lead_high_on_a_long_page_stays_with_its_article() -> None:
    lead = "<p>Lead paragraph that opens the story before anything else is said.</p>"
    body = "".join(f"<p>Body paragraph {i} carries the story a little further on.</p>" for i in range(6))
    teasers = "".join(f'<li><a href="/t{i}">Teaser {i} for another story elsewhere</a></li>' for i in range(60))
    page = f"""<html><body><div class="story">{lead}{body}</div>
    <div class="more"><ul>{teasers}</ul></div></body></html>"""
    tree = simplify_tree(_doc(page))
    first = node_blocks(tree)[0]
    assert first.top == 0.0 and first.height < 0.05  # on the top edge for algorithm 3 …
    result = DomDensityExtractor().extract(_doc(page))
    assert result.text.startswith("Lead paragraph")  # … but inside the main region: kept
    assert result.text.count("Body paragraph") == 6 and "Teaser" not in result.text
    paper = DomDensityExtractor(region=False).extract(_doc(page))
    assert "Lead paragraph" not in paper.text


def test_user_panel_crumbs_do_not_push_the_region_off_the_thread() -> None:
    row = "<dt>Posts:</dt><dd>{0}</dd><dt>Joined:</dt><dd>Jan 2020</dd><dt>Karma:</dt><dd>+{0}</dd>"
    panel = "".join(row.format(i) for i in range(3))
    text = "the router drops the line every evening and nothing helps. " * 4
    posts = "".join(
        f'<div class="message"><dl class="userinfo">{panel}</dl><p>Post body {i}: {text}</p></div>'
        for i in range(4)
    )
    teasers = "".join(f'<li><a href="/t{i}">Teaser {i} for another thread</a></li>' for i in range(100))
    page = f'<html><body><div class="thread">{posts}</div><ul>{teasers}</ul></body></html>'
    result = DomDensityExtractor().extract(_doc(page))
    assert result.removed["rho1"] > 40  # the panels' lines are crumbs below Δ1 …
    assert result.text.count("Post body") == 4  # … but the region is the whole thread
    assert "Teaser" not in result.text


def test_short_paragraphs_among_the_article_paragraphs_are_kept_on_a_long_page() -> None:
    line = "Body paragraph {} carries the story a little further on, in plain words."
    story = "".join(f"<p>{line.format(i)}</p><p>Then it rained.</p>" for i in range(8))
    panel = "<dl><dt>Words:</dt><dd>640</dd><dt>Read:</dt><dd>3 min</dd></dl>"
    teasers = "".join(f'<li><a href="/t{i}">Teaser {i} for another story</a></li>' for i in range(150))
    page = f"<html><body><ul>{teasers}</ul><div>{panel}{story}</div><ul>{teasers}</ul></body></html>"
    result = DomDensityExtractor().extract(_doc(page))
    assert result.text.count("Body paragraph") == 8
    assert result.text.count("Then it rained.") == 8  # under Δ1, beside kept paragraphs
    assert "Words" not in result.text and result.removed["rho1"] == 4  # no kept <dt> or <dd>


def test_author_box_caption_and_comments_inside_the_article_are_dropped_unless_they_are_most_text() -> None:
    body = "".join(f"<p>Body paragraph {i} carries the story a little further on, plain text.</p>" for i in range(8))
    comments = "".join(f'<li class="comment"><p>Reader {i} says it was worth reading.</p></li>' for i in range(3))
    article = f"""<html><body><div class="post">
    <figure><img src="/a.jpg"><figcaption>A harbour at dawn, seen from the pier.</figcaption></figure>
    {body}
    <div class="author-bio"><p>Jane Doe writes about harbours, boats and the people on them.</p></div>
    <div class="about-authors"><p>John Roe edits the harbour desk.</p></div>
    <section id="comments"><ol>{comments}</ol></section></div></body></html>"""
    result = DomDensityExtractor().extract(_doc(article))
    assert result.text.count("Body paragraph") == 8
    assert "harbour at dawn" not in result.text and "Jane Doe" not in result.text and "Reader" not in result.text
    assert "John Roe" not in result.text  # "authors" names the box as "author" does
    assert result.removed["aux"] == 6
    replies = "".join(f'<div class="post-comments"><p>Reply {i}: same problem with my router.</p></div>' for i in range(6))
    thread = f"""<html><body><div class="thread"><p>My router drops the line every evening, any idea?</p>
    {replies}</div></body></html>"""
    assert DomDensityExtractor().extract(_doc(thread)).text.count("Reply") == 6  # the replies are the thread


def test_each_auxiliary_name_is_weighed_on_its_own() -> None:
    line = "<p>Body paragraph {} carries the story a little further on.</p>"
    body = "".join(line.format(i) for i in range(6))
    caption = "<figure><figcaption>Slide {}: " + "a caption on the slide. " * 3 + "</figcaption></figure>"
    slides = "".join(caption.format(i) for i in range(4))
    video = "<p>" + "Hi, this is what the video says. " * 12 + "</p>"
    for name in ("about-transcript", "comments"):
        page = f"<html><body><div>{slides}{body}<div class='{name}'>{video}</div></div></body></html>"
        result = DomDensityExtractor().extract(_doc(page))
        assert result.text.count("Body paragraph") == 6
        assert "Slide" not in result.text and "video says" not in result.text  # together > half
        assert result.removed["aux"] == 5


def test_lists_under_a_related_or_references_heading_are_dropped_whatever_their_share() -> None:
    story = "".join(f"<p>Body paragraph {i} carries the story a little further on.</p>" for i in range(8))
    teaser = "<li><div><a href='/t{0}'>Story {0}</a></div><p>" + "Summary of another story, told at length here. " * 3
    teasers = "".join((teaser + "</p></li>").format(i) for i in range(12))
    few = "".join((teaser + "</p></li>").format(i) for i in range(2))
    for heading, after in (
        ("<div class='x'>相关新闻</div>", f"<div><ul>{teasers}</ul></div>"),  # the list after the heading
        ("<h2>References [edit]</h2>", f"<ol>{teasers}</ol>"),
        (f"<div>More on this story<ul>{few}</ul></div>", ""),  # the list inside the heading's block
    ):
        page = f"<html><body><div>{story}{heading}{after}</div></body></html>"
        result = DomDensityExtractor().extract(_doc(page))
        assert result.text.count("Body paragraph") == 8
        assert "Summary" not in result.text  # the first two: more than half of the kept text
    plain = f"<html><body><div>{story}<h2>The references we found</h2><ol>{teasers}</ol></div></body></html>"
    assert "Summary" in DomDensityExtractor().extract(_doc(plain)).text  # a heading, not that heading


def test_datelines_are_dropped_and_sentences_with_a_date_are_kept() -> None:
    story = "".join(f"<p>Body paragraph {i} carries the story a little further on.</p>" for i in range(6))
    page = f"""<html><body><div><p>Posted Fri, May 10, 2024 at 2:52 pm PT</p><p>发稿时间：2024-05-20 13:15</p>
    {story}<p>The council meets again on May 21, 2024 to vote on the new bridge.</p></div></body></html>"""
    result = DomDensityExtractor().extract(_doc(page))
    assert result.text.count("Body paragraph") == 6 and "council meets again" in result.text
    assert "Posted" not in result.text and "发稿时间" not in result.text
    assert result.removed["dateline"] == 2


def test_notices_are_dropped_and_sentences_that_mention_them_are_kept() -> None:
    story = "".join(f"<p>Body paragraph {i} carries the story a little further on.</p>" for i in range(8))
    notices = [
        "责任编辑：张毅",
        "（编辑：文静 责编：胡永秋）",
        "Source: Reuters",
        "© 2024 Example News. All rights reserved.",
        "39健康网专稿，未经书面授权请勿转载。",
        "Advertisement",
        "5 min read",
        "Continue reading »",
        "链接已复制",
        "首页 | 上一页 1 下一页 | 尾页",
        "Get the best stories delivered to your inbox. Sign up for our free newsletter.",
    ]
    kept = [
        "The court ruled that the copyright on the song had expired long before the band recorded"
        " it, so the label owes the estate nothing for the years since the first pressing.",
        "1 2 3",
        "Readers who subscribe get the paper delivered before seven.",
    ]
    lines = "".join(f"<p>{line}</p>" for line in notices + kept)
    page = f"<html><body><div class='story'>{story}{lines}</div></body></html>"
    result = DomDensityExtractor().extract(_doc(page))
    assert result.text.count("Body paragraph") == 8
    assert all(line in result.text for line in kept)
    assert not any(line in result.text for line in notices)
    assert result.removed["notice"] == len(notices)


def test_region_is_widened_until_it_holds_enough_of_the_kept_text() -> None:
    widget = "".join(f'<li><a href="/shop{i}">Shop {i} near the station</a></li>' for i in range(6))
    entries = "".join(
        f"<h2>Day {i}: lunch</h2><p>Lunch at a noodle shop, plain and good, day {i}.</p><ul>{widget}</ul>"
        for i in range(10)
    )
    page = f"<html><body><div class='entry'>{entries}</div></body></html>"
    result = DomDensityExtractor().extract(_doc(page))
    assert result.text.count("Lunch at a noodle shop") == 10  # not only the one best paragraph
    assert "Shop 1" not in result.text


def test_block_featurizer_is_a_transformer() -> None:
    blocks = node_blocks(simplify_tree(_doc(PRUNE_PAGE)))
    featurizer = BlockFeaturizer()
    X = featurizer.fit(blocks).transform(blocks)
    assert X.shape == (len(blocks), len(featurizer.get_feature_names_out()))
    assert np.isfinite(X).all()
    assert BlockFeaturizer().fit_transform([]).shape == (0, 8)
    with pytest.raises(ValueError):
        BlockFeaturizer(max_link_density=0).fit(blocks)


def test_information_gain_equals_mutual_information_in_bits() -> None:
    rng = np.random.default_rng(0)
    X = (rng.random((200, 6)) < 0.3).astype(int)
    y = (X[:, 0] | (rng.random(200) < 0.1)).astype(int)
    ig = information_gain(X, y)
    mi = mutual_info_classif(X, y, discrete_features=True) / np.log(2)
    assert ig == pytest.approx(mi, abs=1e-9)
    assert ig.argmax() == 0


TOY = [
    ("顶", 0), ("沙发", 0), ("+1", 0), ("顶一下", 0), ("bump", 0), ("mark 路过", 0),
    ("我的显卡用了三年了，最近开始花屏，换了驱动也没用。", 1),
    ("建议先备份数据再重装系统，不然出了问题哭都来不及。", 1),
    ("The firmware update fixed the fan noise on my laptop after a week.", 1),
    ("Reinstalled the driver from scratch and the crash is gone now.", 1),
]


def test_value_classifier_fits_and_exports_the_same_model() -> None:
    texts, labels = zip(*TOY)
    pipeline = make_value_classifier(k=20).fit(texts, labels)
    model = ValueModel.from_pipeline(pipeline)
    assert model.predict_proba(list(texts)) == pytest.approx(pipeline.predict_proba(texts))
    again = ValueModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.predict(list(texts)).tolist() == model.predict(list(texts)).tolist()
    with pytest.raises(ValueError):
        ValueModel.from_dict({"format": 99})


def test_shipped_value_model_loads_and_scores() -> None:
    model = load_value_model()
    assert model.card["held_apart_scores"]["worthless"]["support"] > 0
    assert model.card["trained"] and model.card["source"]
    verdict = model.predict(["顶", "+1", "我的显卡用了快三年了，最近开始出问题，有没有懂行的朋友帮忙分析一下原因？"])
    assert verdict.tolist() == [False, False, True]


def test_value_trainer_reads_user_examples_and_reports_scores(tmp_path: Path) -> None:
    data = tmp_path / "labels.jsonl"
    rows = [{"text": t, "label": y, "group": f"g{i % 5}"} for i, (t, y) in enumerate(TOY * 3)]
    data.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    examples = list(read_examples(data))
    model = train(examples, k=50, share=0.4, source="test")
    assert set(model.card["held_apart_scores"]) == {"worthless", "valuable"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "x"}\n', encoding="utf-8")
    with pytest.raises(ValueError):
        list(read_examples(bad))


def _page(i: int) -> str:
    body = " ".join(f"Sentence {j} of page {i} says something useful about forums." for j in range(6))
    return f"<html><head><title>Page {i}</title></head><body><nav><a href='/'>Home</a></nav><div><p>{body}</p></div></body></html>"


def _write_warc(path: Path) -> None:
    warcio = pytest.importorskip("warcio", reason="warcio is not installed (pip install warcio)")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for i, (ctype, body) in enumerate(
            [("text/html; charset=utf-8", _page(0).encode()), ("image/png", b"\x89PNG..."), ("text/html", _page(1).encode())]
        ):
            headers = StatusAndHeaders("200 OK", [("Content-Type", ctype)], protocol="HTTP/1.1")
            record = writer.create_warc_record(
                f"http://example.com/{i}", "response", payload=io.BytesIO(body), http_headers=headers
            )
            writer.write_record(record)
        writer.write_record(writer.create_warc_record("http://example.com/0", "request", payload=io.BytesIO(b"GET / HTTP/1.1\r\n\r\n")))
    assert warcio


def test_warc_pages_and_records(tmp_path: Path) -> None:
    from forumcrawl.offline import extract_job
    from forumcrawl.warc import iter_warc_pages, warc_offsets

    path = tmp_path / "crawl.warc.gz"
    _write_warc(path)
    pages = list(iter_warc_pages(path))
    assert [(url, ctype) for _, url, _, ctype in pages] == [
        ("http://example.com/0", "text/html; charset=utf-8"),
        ("http://example.com/2", "text/html"),
    ]
    assert pages[0][2] == _page(0).encode() and len(pages[0][0]) == 36
    options = ExtractOptions(cascade=("cx",))
    records = [extract_job((path, offset, options, NOW)) for offset in warc_offsets(path)]
    expected = [extract_bytes(body, page_id=pid, url=url, options=options, now=NOW) for pid, url, body, _ in pages]
    assert records == expected
    assert "Sentence 3 of page 1" in records[1]["text"]


def test_dask_local_cluster_equals_multiprocess_run(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'dask[distributed]')")
    from forumcrawl.engines import run_dask

    folder = tmp_path / "pages"
    folder.mkdir()
    for i in range(12):
        (folder / f"p{i:02d}.html").write_text(_page(i), encoding="utf-8")
    options = ExtractOptions(cascade=("ksf", "cx"))
    local = list(extract_paths([folder], options=options, jobs=2, now=NOW))
    on_dask = list(run_dask([folder], options, n_workers=2, now=NOW, batch_size=3))
    assert on_dask == local
    assert [r["id"] for r in on_dask] == [f"p{i:02d}" for i in range(12)]


def test_dask_reads_warc_files(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'dask[distributed]')")
    from forumcrawl.engines import run_dask
    from forumcrawl.offline import extract_job, iter_jobs

    path = tmp_path / "crawl.warc.gz"
    _write_warc(path)
    options = ExtractOptions(cascade=("cx",))
    serial = [extract_job(job) for job in iter_jobs([tmp_path], options, NOW)]
    assert len(serial) == 2
    assert list(run_dask([tmp_path], options, n_workers=1, now=NOW)) == serial


def test_one_paragraph_of_an_article_does_not_become_the_region_alone() -> None:
    lead = "The long paragraph holds most of the story and tells it in many plain words. " * 7
    other = "A shorter paragraph follows with more of the story, plain and kept, and then one more plain clause."
    links = " ".join(f'<a href="/tag{i}">tagged topic number {i}</a>' for i in range(10))
    entry = f"<div class='entry'><p>{lead}</p><p>{other}</p><div>{links}</div><p>{other}</p></div>"
    menu = "".join(f'<li><a href="/m{i}">Menu entry number {i} of the site</a></li>' for i in range(30))
    aside = "<div><p>" + "A sidebar note about the site and its people, kept as plain text. " * 6 + "</p></div>"
    page = f"<html><body><div><ul>{menu}</ul>{entry}<ul>{menu}</ul>{aside}</div></body></html>"
    result = DomDensityExtractor().extract(_doc(page))
    assert "The long paragraph" in result.text
    assert result.text.count("A shorter paragraph") == 2  # its kept siblings come with it
    assert "sidebar note" not in result.text and "tagged topic" not in result.text


def test_a_data_tables_short_cells_stay_and_a_post_tables_panel_does_not() -> None:
    line = "Body paragraph {} carries the story a little further on, in plain words of its own."
    story = [f"<p>{line.format(i)}</p>" for i in range(150)]  # a long page: Δ1 takes the cells
    rows = "".join(f"<tr><td>Release {i}</td><td>{i}.5%</td><td>Dana Reyes</td></tr>" for i in range(4))
    table = f"<table><tr><th>Version</th><th>Share</th><th>Maintainer</th></tr>{rows}</table>"
    article = f"<html><body><div>{''.join(story[:75])}{table}{''.join(story[75:])}</div></body></html>"
    result = DomDensityExtractor().extract(_doc(article))
    assert "Maintainer" in result.text and "Release 3" in result.text and "3.5%" in result.text
    post = "<td>" + "The reply says what it has to say about the question in plain words. " * 3 + "</td>"
    panel = "<td><div>Posts: 15</div><div>Joined: Mar</div></td>"
    thread = "".join(f"<tr>{panel}{post}</tr>" for _ in range(60))
    result = DomDensityExtractor().extract(_doc(f"<html><body><table>{thread}</table></body></html>"))
    assert result.text.count("The reply says") == 180
    assert result.text.count("Posts: 15") <= 3  # only rows on the page's edges, as before


def test_an_element_named_an_entry_is_the_article_whatever_its_other_names_say() -> None:
    body = "".join(f"<p>Body paragraph {i} carries the story a little further on, plain text.</p>" for i in range(4))
    feedback = "".join(f"<p>Reader {i} writes at length that the story was worth reading, and why.</p>" for i in range(8))
    for names, kept in (("entry entry-author-jane_doe entry-type-post", True), ("entry-author-box", False)):
        page = f"""<html><body><div class="alpha"><div class="{names}">{body}</div>
        <div class="feedback">{feedback}</div></div></body></html>"""
        result = DomDensityExtractor().extract(_doc(page))
        assert ("Body paragraph 3" in result.text) is kept  # a blog entry's metadata, an author's box
        assert "Reader 7" in result.text
