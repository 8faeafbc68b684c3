"""CX, the line-block distribution extractor (seed 004), and the ``forumcrawl blocks`` command."""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from forumcrawl.cli import CommandError
from forumcrawl.commands import COMMANDS
from forumcrawl.commands import blocks as blocks_command
from forumcrawl.document import Document
from forumcrawl.extractors.cx import (
    DEFAULT_K,
    FACT_TAGS,
    PAPER_THRESHOLD,
    LineBlockExtractor,
    block_curve,
    cx_extract,
    page_lines,
    plot_blocks,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

ALPHA = "Alpha " * 8  # 40 characters without whitespace
BRAVO = "Bravo " * 10  # 50
DELTA = "Delta " * 6  # 30
# One source line: lines come from the elements, not from the bytes' line breaks.
CRAFTED = (
    "<html><head><title>Crafted</title></head><body>"
    '<div><a href="/">Home</a> <a href="/news">News</a></div>'
    "<div><div><div><div>"
    "<h1>Title of the story</h1>"
    f"<p>{ALPHA}</p><p>{BRAVO}</p><p>{DELTA}</p>"
    "</div></div></div></div>"
    "<div><div><div><div><p>Copyright 2024</p></div></div></div></div>"
    "</body></html>"
)


def doc(html: str) -> Document:
    return Document.from_text(html, url="https://example.org/a")


def words(text: str) -> str:
    return " ".join(text.split())


def article_page(*, pretty: bool) -> str:
    """A news page: menu, article, related links, footer; minified or pretty-printed."""
    paragraphs = [
        "The council approved the new bridge after a long debate that lasted well into the night.",
        "Residents had asked for a safer crossing for years, and the vote was finally unanimous.",
        "Construction starts in spring and should take two years, the mayor told the reporters.",
        "Traffic will be diverted over the old ferry road while the works are under way there.",
    ]
    menu = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(12))
    related = "".join(f'<li><a href="/r{i}">Related story number {i}</a></li>' for i in range(6))
    parts = [
        "<!DOCTYPE html><html><head><title>Bridge</title>",
        "<style>body { font-family: serif; color: #333333; background: #ffffff; }</style>",
        "<script>var tracking = 'a very long tracking script that is not text at all';</script>",
        "</head><body>",
        f'<div class="menu"><ul>{menu}</ul></div>',
        '<div class="main"><div class="story"><h1>Council approves bridge</h1>',
        *(f"<p>{p}</p>" for p in paragraphs),
        "</div></div>",
        f'<div class="related"><ul>{related}</ul></div>',
        '<div class="bottom"><div><div><p>(c) 2024 The Daily Example</p></div></div></div>',
        "</body></html>",
    ]
    return ("\n  " if pretty else "").join(parts)


# --- the curve and the region, computed by hand -------------------------------------------------


def test_crafted_page_lines() -> None:
    lines = page_lines(doc(CRAFTED).tree)
    assert lines.texts[:5] == ["Home News", "Title of the story", words(ALPHA), words(BRAVO), words(DELTA)]
    assert lines.texts[5:9] == ["", "", "", ""]  # four closing divs: the gap
    assert lines.texts[9] == "Copyright 2024"
    assert lines.lengths[:5] == [8, 15, 40, 50, 30]
    assert lines.link_lengths[:5] == [8, 0, 0, 0, 0]
    assert len(lines.texts) == 16  # then four closing divs, body and html


def test_page_lines_gather_what_whole_tree_scans_find() -> None:
    """The walk skips heads, scripts, SVG and buttons, yet gathers the tags, ``itemprop``
    elements and links inside them, and the links and itemprops of markup after ``</html>``
    (a second top-level element), as a scan of the whole document does."""
    page = (
        '<html><head><meta property="og:type" content="article"><meta itemprop="name" content="n">'
        '<script type="application/ld+json">{}</script></head><body>'
        '<button><a href="/in-button">b</a><img src="i.png"></button>'
        '<svg><a href="/in-svg"></a><script>x</script></svg>'
        '<article itemprop="articleBody"><h1>T</h1><p>Text</p><ul><li><a href="/a">a</a></li></ul>'
        "<pre><code>c</code></pre></article>"
        '</body></html><div><a href="/late" itemprop="url">late</a><h1>not in the tree</h1></div>'
    )
    tree = doc(page).tree
    assert next(tree.itersiblings()).tag == "html"  # the parser's second top-level element
    lines = page_lines(tree)
    for tag in FACT_TAGS:
        assert lines.elements[tag] == list(tree.iter(tag)), tag
    assert [e.tag for e in lines.elements["h1"]] == ["h1"]
    assert lines.itemprops == tree.xpath("//*[@itemprop]")
    assert lines.marked == tree.xpath("//*[@itemprop or @rel or @datetime]")
    assert lines.headings == list(tree.iter("h1", "h2", "h3"))
    assert lines.hrefs == tree.xpath("//a/@href")
    assert lines.hrefs == ["/in-button", "/in-svg", "/a", "/late"]


def test_crafted_page_curve_and_region() -> None:
    result = LineBlockExtractor().extract(doc(CRAFTED))
    # Line lengths (the menu line is all links, so it counts 0):
    #   0 15 40 50 30 0 0 0 0 13 0 0 0 0 0 0; blocks of 3 lines:
    assert result.blocks == [55, 105, 120, 80, 30, 0, 0, 13, 13, 13, 0, 0, 0, 0, 0, 0]
    # threshold = min(86, 0.3 * 120) = 36; block 0 rises above it with 3 non-empty blocks after
    # it, but its first line is empty (the menu), so the region starts at line 1; it ends where
    # the curve falls to zero (blocks 5 and 6). The copyright run peaks at 13 < 36: no region.
    assert result.threshold == pytest.approx(36.0)
    assert (result.start, result.end) == (1, 5)
    assert result.regions == [(1, 5)]
    assert result.text.splitlines() == [
        "Title of the story",
        words(ALPHA),
        words(BRAVO),
        words(DELTA),
    ]


def test_fixed_threshold_moves_the_rise() -> None:
    # Above 105 the first rise is the peak itself (block 2): the title line is left out.
    result = LineBlockExtractor(threshold=110).extract(doc(CRAFTED))
    assert result.threshold == 110
    assert (result.start, result.end) == (2, 5)
    assert result.text.splitlines()[0] == words(ALPHA)


def test_block_curve_is_a_sliding_sum() -> None:
    assert block_curve([1, 2, 3, 4], 3) == [6, 9, 7, 4]
    assert block_curve([1, 2, 3, 4], 1) == [1, 2, 3, 4]
    assert block_curve([5], 3) == [5]
    assert block_curve([], 3) == []
    with pytest.raises(ValueError):
        block_curve([1], 0)


def _lines(*lengths: int) -> list[str]:
    return ["x" * n for n in lengths]


def test_secondary_region_kept_by_mass() -> None:
    lines = _lines(0, 50, 60, 0, 0, 0, 0, 40, 30, 0, 0, 0, 0, 0)
    result = cx_extract(lines)
    assert result.blocks == [110, 110, 60, 0, 0, 40, 70, 70, 30, 0, 0, 0, 0, 0]
    # The maximum (block 0) is its own peak; the second run rises at block 5 (40 > 33, then
    # three non-empty blocks), whose first non-empty line is 7. Its mass 70 >= 0.2 * 110.
    assert (result.start, result.end) == (1, 3)
    assert result.regions == [(1, 3), (7, 9)]
    assert result.text.splitlines() == ["x" * 50, "x" * 60, "x" * 40, "x" * 30]


def test_secondary_region_dropped_when_light_or_linky() -> None:
    light = cx_extract(_lines(0, 50, 60, 0, 0, 0, 0, 12, 8, 0, 0, 0, 0, 0))
    assert light.regions == [(1, 3)]  # mass 20 < 0.2 * 110
    lengths = [0, 50, 60, 0, 0, 0, 0, 40, 30, 0, 0, 0, 0, 0]
    links = [0, 0, 0, 0, 0, 0, 0, 15, 10, 0, 0, 0, 0, 0]
    linky = cx_extract(_lines(*lengths), lengths=lengths, link_lengths=links)
    assert linky.blocks[5:9] == [25, 45, 45, 20]  # anchor text does not count
    assert linky.regions == [(1, 3)]  # 25 of its 70 characters are links


def test_link_lines_count_zero() -> None:
    result = cx_extract(["a b c d", "text"], lengths=[4, 4], link_lengths=[3, 0])
    assert result.blocks == [4, 4]
    assert result.text == "text"


def test_single_long_line_is_a_region() -> None:
    # One line between gaps cannot have 3 non-empty blocks after its rise (paper, condition 2).
    result = cx_extract(["", "", "", "", "y" * 200, "", "", "", ""])
    assert result.text == "y" * 200
    assert (result.start, result.end) == (4, 5)


def test_cx_extract_without_text() -> None:
    for lines in ([], ["", " ", "\t"]):
        result = cx_extract(lines)
        assert result.text == ""
        assert (result.start, result.end, result.regions) == (0, 0, [])
    assert cx_extract([" ", "  "]).blocks == [0, 0]


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError):
        LineBlockExtractor(k=0)
    assert LineBlockExtractor().k == DEFAULT_K


# --- pages -------------------------------------------------------------------------------------


def test_minified_page_reads_like_pretty_printed() -> None:
    minified = LineBlockExtractor().extract(doc(article_page(pretty=False)))
    pretty = LineBlockExtractor().extract(doc(article_page(pretty=True)))
    assert "\n" not in article_page(pretty=False)
    assert minified.text == pretty.text
    assert minified.text.startswith("Council approves bridge\nThe council approved")
    assert minified.text.endswith("while the works are under way there.")
    for noise in ("Section 3", "Related story", "Daily Example", "tracking", "font-family"):
        assert noise not in minified.text


def test_scripts_styles_and_hidden_text_are_not_lines() -> None:
    html = (
        "<html><head><style>p { color: red; }</style></head><body>"
        "<script>document.write('script text script text script text');</script>"
        "<p>Visible text.</p><noscript>Enable JavaScript.</noscript>"
        "<template><p>template text</p></template>"
        '<div style="display: none">hidden by style</div><div hidden>hidden by attribute</div>'
        '<span aria-hidden="true">icon</span><p>More visible text.</p>'
        "<select><option>an option</option></select><textarea>typed</textarea>"
        "</body></html>"
    )
    joined = " ".join(page_lines(doc(html).tree).texts)
    assert "Visible text." in joined and "More visible text." in joined
    for hidden in ("script", "color", "Enable", "template", "hidden by", "icon", "option", "typed"):
        assert hidden not in joined


def test_noscript_page_is_read_when_it_is_the_page() -> None:
    # Discourse-like: the visible page is a loading splash, the content is in <noscript>.
    posts = "".join(f"<p>Post number {i} says something long enough to be text.</p>" for i in range(8))
    html = f"<html><body><div>Loading</div><noscript><div>{posts}</div></noscript></body></html>"
    result = LineBlockExtractor().extract(doc(html))
    assert "Post number 0" in result.text and "Post number 7" in result.text


def test_unclosed_button_does_not_hide_the_page() -> None:
    # libxml2 nests everything after an unclosed <button> inside it.
    html = (
        "<html><body><button>Menu<div><p>"
        + "A paragraph of the article that follows the broken button markup. " * 4
        + "</p></div></body></html>"
    )
    assert "broken button markup" in LineBlockExtractor().extract(doc(html)).text


def test_empty_page() -> None:
    document = Document.from_bytes(b"", url="https://example.org/empty")
    assert document.tree is None
    result = LineBlockExtractor().extract(document)
    assert result.text == ""
    assert result.lines == [] and result.blocks == []
    assert (result.start, result.end, result.regions) == (0, 0, [])


def test_page_without_body_text() -> None:
    html = (
        "<html><head><title>Only a title</title><script>var x = 1;</script></head>"
        '<body><div><img src="a.png"></div><div><a href="/">Home</a></div></body></html>'
    )
    result = LineBlockExtractor().extract(doc(html))
    assert result.text == ""
    assert result.regions == []
    assert all(block == 0 for block in result.blocks)


def test_gbk_page() -> None:
    body = "".join(
        f"<p>{sentence}</p>"
        for sentence in (
            "今天上午，市政府召开新闻发布会，介绍了新建大桥的进展情况和下一步的工作安排。",
            "据介绍，大桥全长三公里，预计明年年底建成通车，届时两岸居民出行将更加方便。",
            "发布会上，有关负责人还回答了记者关于交通管制和施工安全等方面的提问。",
        )
    )
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gbk">'
        "<title>大桥</title></head><body>"
        '<div><a href="/">首页</a> <a href="/news">新闻</a> <a href="/bbs">论坛</a></div>'
        f"<div><div><div><div>{body}</div></div></div></div>"
        "<div><div><p>版权所有</p></div></div></body></html>"
    )
    document = Document.from_bytes(html.encode("gbk"), url="https://example.cn/a")
    result = LineBlockExtractor().extract(document)
    assert result.text.splitlines()[0].startswith("今天上午，市政府召开新闻发布会")
    assert "安全等方面的提问。" in result.text
    assert "首页" not in result.text and "版权所有" not in result.text


# --- the plot and the command --------------------------------------------------------------------


def test_plot_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    result = LineBlockExtractor().extract(doc(CRAFTED))
    written = plot_blocks(result, tmp_path / "blocks.png")
    assert written.read_bytes().startswith(PNG_MAGIC)
    empty = plot_blocks(LineBlockExtractor().extract(doc("")), tmp_path / "empty.png")
    assert empty.read_bytes().startswith(PNG_MAGIC)


def run_blocks(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    blocks_command.add_arguments(parser)
    return blocks_command.run(parser.parse_args(list(argv)))


def test_blocks_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress(CRAFTED.encode("utf-8")))
    assert run_blocks(str(page), "--k", "3") == 0
    out = capsys.readouterr().out
    assert "16 lines" in out and "main region: lines 1-4" in out
    assert "Title of the story" in out
    with pytest.raises(CommandError, match="no such file"):
        run_blocks(str(tmp_path / "missing.html"))
    broken = tmp_path / "broken.html.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(CommandError, match="cannot read"):
        run_blocks(str(broken))
    with pytest.raises(CommandError, match="--k"):
        run_blocks(str(page), "--k", "0")


_MISSING_COMMANDS = [
    name for name in COMMANDS if importlib.util.find_spec(f"forumcrawl.commands.{name}") is None
]


@pytest.mark.skipif(
    bool(_MISSING_COMMANDS), reason=f"CLI registry incomplete: {', '.join(_MISSING_COMMANDS)}"
)
def test_blocks_cli_subprocess(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    page = tmp_path / "page.html"
    page.write_text(CRAFTED, encoding="utf-8")
    plot = tmp_path / "blocks.png"
    done = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "blocks", str(page), "--plot", str(plot)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "main region: lines 1-4" in done.stdout
    assert f"threshold: {min(PAPER_THRESHOLD, 36.0):g}" in done.stdout
    assert plot.read_bytes().startswith(PNG_MAGIC)

    done = subprocess.run(
        [sys.executable, "-m", "forumcrawl.cli", "blocks", str(tmp_path / "missing.html")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "no such file" in done.stderr
