"""The compiled parts (``extractors/_walk.pyx``, ``extractors/_scan.pyx``) against the Python
code they stand in for.

The Python code is the reference: wherever the extensions are built, the walk must give the same
lines (every field but the recorded steps) and the same simple tree as ``cx.page_lines`` and
``dom_density._simplify``, and the same block lines as ``ksf.page_lines`` from the steps, on odd markup as on whole forum pages; the topic scan the same counts
as the kind signals' regex; and ``forumcrawl extract`` the same records with them as without
them (``FORUMCRAWL_PURE_PYTHON``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime, timezone
import os
import subprocess
import sys

import lxml.html
import pytest

from forumcrawl.document import Document
from forumcrawl.extractors import arbiter, cx, dom_density, kinds, ksf
from forumcrawl.extractors import text as text_module
from forumcrawl.mockforum.site import ALL_FAMILIES, ForumSite
from forumcrawl.offline import extract_bytes

compiled = pytest.importorskip(
    "forumcrawl.extractors._walk", reason="the compiled parts are not built (no C compiler at install)"
)
scan = pytest.importorskip("forumcrawl.extractors._scan")


def _lines_view(lines: cx.PageLines) -> dict[str, object]:
    """Every field of ``lines`` but the steps, elements by identity (lxml hands back the same
    proxy for a node while one is alive)."""
    view: dict[str, object] = {}
    for f in dataclasses.fields(lines):
        if f.name in ("events", "skipped", "stepped"):
            continue
        value = getattr(lines, f.name)
        if f.name == "elements":
            value = {tag: [id(e) for e in found] for tag, found in value.items()}
        elif f.name in ("marked", "headings", "writers"):
            value = [id(e) for e in value]
        elif f.name == "containers":
            value = {at: id(e) for at, e in value.items()}
        view[f.name] = value
    return view


def _tree_view(tree: dom_density.SimpleTree) -> list[tuple[object, ...]]:
    return [dataclasses.astuple(node) for node in tree.nodes]


def assert_same_walk(html: str | bytes) -> None:
    tree = lxml.html.document_fromstring(html)
    reference = cx.page_lines(tree)
    simple = dom_density._simplify(tree, reference, True)
    lines, got = compiled.walk(tree)
    assert not lines.stepped and reference.stepped
    assert _lines_view(lines) == _lines_view(reference)
    assert _tree_view(got) == _tree_view(simple)
    # Single-page KSF's lines, from the nodes against from the steps.
    blocks, from_steps = ksf.page_lines(tree), ksf.page_lines(tree, reference)  # both alive: ids hold
    assert [(line.text, id(line.element), line.link_chars) for line in blocks] == [
        (line.text, id(line.element), line.link_chars) for line in from_steps
    ]


ODD_PAGES = {
    "muted and hidden": (
        "<html><body><nav><a href=/a>Home</a> <a href='/b'>News</a></nav>"
        "<div hidden><p>paywalled part of the story</p></div>"
        "<div style='display: none'>hidden by style</div><div aria-hidden=true>aria</div>"
        "<article itemprop=articleBody><h1>Title</h1><p>First <b>bold</b> paragraph, "
        "<a href=/x>a link</a> and a tail.</p><p>Second<br>line after a break.</p></article>"
        "<aside class=sidebar>side text</aside><footer>(c) site</footer></body></html>"
    ),
    "skipped and swallowed": (
        "<html><body><script>var x = '<p>no</p>';</script><style>p{}</style>"
        "<button><div>a button that swallowed a block</div><p>more</p></button>"
        "<label>Name <input name=n></label><select><option>one</option></select>"
        "<textarea>typed</textarea><template><p>later</p></template>"
        "<!-- a comment --><?php echo 1 ?><p>text after the widgets</p></body></html>"
    ),
    "forms and layout": (
        "<html><body><form action=/s><p>search the site</p><input name=q></form>"
        "<table width=30%><tr><td class='left col'>cell one</td><td>cell two</td></tr></table>"
        "<div style='width: 200px'>narrow</div><div id=comments class=reply><p>a reply</p></div>"
        "<form><div>" + "a long form body that holds most of the page. " * 20 + "</div></form>"
        "<ul><li><a href=/1>one</a></li><li><img src=x.png> two</li></ul></body></html>"
    ),
    "no body, namespaces, siblings": (
        "<div><svg:svg><svg:text>vector</svg:text></svg:svg><o:p>office</o:p>"
        "<custom-tag>custom <em>element</em></custom-tag><p>para</p></div>"
    ),
    "noscript page and entities": (
        "<html><body><noscript><div class=post><p>"
        + "the whole thread served to clients without scripts. " * 10
        + "</p></div></noscript><p>&nbsp;&amp; &#169; tail</p></body></html>"
    ),
    "links around blocks": (
        "<html><body><a href=/story><div><h2>Headline in a link</h2><p>teaser text</p></div></a>"
        "<p time datetime=2024-01-01 rel=author>marked</p><h3>Sub</h3><h1>One</h1></body></html>"
        "<p>after the end of the page</p>"
    ),
    "writers' links and blocks": (
        "<html><head><meta class=byline-meta><script class=author-data></script></head><body>"
        "<a href='/author/ann/' class=x>Ann</a><template><span class='post-author'>Bo</span></template>"
        "<div class='a&amp;byline'>By Cy</div><a href=/authors/>all</a><a class=author>Dee</a>"
        "<select><option class=author>Ed</option></select></body></html><p class=byline>after the end</p>"
    ),
}


@pytest.mark.parametrize("name", sorted(ODD_PAGES))
def test_the_compiled_walk_equals_the_python_walk_on_odd_markup(name):
    assert_same_walk(ODD_PAGES[name])


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_the_compiled_walk_equals_the_python_walk_on_forum_pages(family):
    site = ForumSite.from_preset(family, "small")
    truth = site.truth("http://127.0.0.1")
    urls = [url for thread in truth.threads[:3] for url in thread.pages] + truth.non_topic_urls[:5]
    assert urls
    for url in urls:
        response = site.render(url)
        assert response.status == 200, url
        assert_same_walk(response.body)


def test_random_markup_walks_the_same():
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    tags = st.sampled_from(
        ["div", "p", "span", "a", "b", "br", "li", "ul", "nav", "aside", "footer", "noscript",
         "script", "label", "button", "form", "input", "table", "td", "h1", "h2", "img", "section",
         "article", "figcaption", "iframe", "x-card", "pre"]
    )
    attributes = st.sampled_from(
        ["", " hidden", " aria-hidden=true", " style='display:none'", " style='width:50%'",
         " class=sidebar", " id=main", " itemprop=text", " href=/p", " rel=next", " width=120",
         " xml:lang=en", " datetime=2024-01-01 style='width: 30%'", " class='Share nav' id=x"]
    )
    words = st.sampled_from(
        ["", " ", "word", "两个字", "  spaced  out  ", "\n", "a&amp;b", "\xa0", "\u2003x", "y\u200b", "\r\n z"]
    )

    def element(children: list[str]) -> st.SearchStrategy[str]:
        return st.builds(
            lambda tag, attrs, text, tail: f"<{tag}{attrs}>{text}{''.join(children)}</{tag}>{tail}",
            tags, attributes, words, words,
        )

    markup = st.recursive(
        st.builds(lambda tag, attrs, text: f"<{tag}{attrs}>{text}</{tag}>", tags, attributes, words),
        lambda inner: st.lists(inner, max_size=4).flatmap(element),
        max_leaves=25,
    )

    @hypothesis.given(st.lists(markup, min_size=1, max_size=4))
    @hypothesis.settings(max_examples=150, deadline=None)
    def check(parts: list[str]) -> None:
        assert_same_walk("<html><body>" + "".join(parts) + "</body></html>")

    check()


def test_a_document_gets_the_compiled_tree_and_the_steps_on_demand():
    document = Document.from_bytes(ODD_PAGES["muted and hidden"].encode())
    if not cx.COMPILED:
        pytest.skip("FORUMCRAWL_PURE_PYTHON is set")
    lines = cx.document_lines(document)
    assert not lines.stepped and not lines.events
    simple = dom_density.simplify_tree(document)
    assert _tree_view(simple) == _tree_view(dom_density._simplify(document.tree, cx.page_lines(document.tree), True))
    steps = cx.document_steps(document)
    assert steps.stepped and steps.events and steps.texts == lines.texts
    assert cx.document_steps(document) is steps  # walked once per page


def test_extract_writes_the_same_records_with_and_without_the_compiled_parts(monkeypatch):
    if not cx.COMPILED:
        pytest.skip("FORUMCRAWL_PURE_PYTHON is set")
    pages: dict[str, bytes] = {}
    for family in ALL_FAMILIES:
        site = ForumSite.from_preset(family, "small")
        truth = site.truth("http://127.0.0.1")
        for url in [*list(truth.threads[0].pages)[:2], *truth.non_topic_urls[:2]]:
            pages[url] = site.render(url).body
    for name, html in ODD_PAGES.items():
        pages[name] = html.encode()
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)  # the pages' relative times
    with_it = [extract_bytes(body, page_id=page_id, now=now) for page_id, body in pages.items()]
    monkeypatch.setattr(cx, "_compiled_walk", None)
    monkeypatch.setattr(kinds, "_SCANNER", None)
    monkeypatch.setattr(kinds, "_scan", None)
    monkeypatch.setattr(kinds, "_PROFILE_COUNTER", None)
    monkeypatch.setattr(arbiter, "_scan", None)
    monkeypatch.setattr(text_module, "_word_tokens", text_module._WORD_RE.findall)
    monkeypatch.setattr(ksf, "_compiled", None)
    without = [extract_bytes(body, page_id=page_id, now=now) for page_id, body in pages.items()]
    assert sum(bool(record["text"]) for record in with_it) > len(pages) // 2
    assert sum(record.get("kind") == "thread" or bool(record.get("posts")) for record in with_it) >= len(ALL_FAMILIES)
    assert with_it == without


@pytest.mark.parametrize("first", ["dom_density", "kinds", "ksf", "cx", "_walk", "_scan"])
def test_the_compiled_walk_loads_whichever_extractor_is_imported_first(first):
    code = f"import forumcrawl.extractors.{first}; from forumcrawl.extractors import cx; print(cx.COMPILED)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(not os.environ.get("FORUMCRAWL_PURE_PYTHON"))


def test_the_pure_python_switch_turns_the_compiled_walk_off():
    code = "from forumcrawl.extractors import cx; print(cx.COMPILED)"
    for value, expected in (("1", "False"), ("", "True")):
        env = {**os.environ, "FORUMCRAWL_PURE_PYTHON": value}
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert run.stdout.strip() == expected


def _regex_topics(text: str) -> Counter[str]:
    return Counter(match.lastgroup for match in kinds._WORDS.finditer(text))


def test_the_topic_scan_counts_what_the_regex_counts():
    scanner = scan.TopicScanner(kinds._TOPIC_WORDS, "reply_zh", kinds._ZH_REPLY_WORDS)
    texts = [
        "get a quote, get your quote; get a started get a quotes get a  quote",
        "posts:12 posts: 4 post:x reply_ quote_ _quote replies réplies reviewé 3reviews",
        "add to cart add to  cart add to basket, add to bags in stock-out of stock",
        "回复2楼 帖子 发表于 注册积分 回 复 楼楼 reply回复 回复reply",
        "book a book an book now booking a book anew plans planning api apis",
        "", "q", "re", "回", "ｒｅｐｌｙ reply\nreply\treply",
    ]
    for text in texts:
        assert Counter(scanner.count(text)) == _regex_topics(text), text
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    pieces = [word.replace("|", "") for words in kinds._TOPIC_WORDS.values() for word in words]
    pieces += [*kinds._ZH_REPLY_WORDS, "get a ", "get your ", "s", "_", ":", " ", "  ", "\n", ",", "-",
               "é", "中", "1", "²", "x", "ed", "ing", "回", "发表"]

    @hypothesis.given(st.lists(st.sampled_from(pieces), max_size=30))
    @hypothesis.settings(max_examples=400, deadline=None)
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        assert Counter(scanner.count(text)) == _regex_topics(text)

    check()


def test_the_topic_scan_refuses_lists_it_cannot_follow():
    with pytest.raises(ValueError, match="opens with a word"):
        scan.TopicScanner({"a": ("book",), "b": ("book now",)})
    with pytest.raises(ValueError, match="two ASCII"):
        scan.TopicScanner({"a": ("价格",)})


def _regex_dates(text: str) -> int:
    return len(kinds._DATE.findall("\n".join(filter(kinds._DIGIT.search, text.split("\n")))))


DATE_AND_PRICE_TEXTS = [
    "posted 2024-05-01, updated 01.05.2024 and 1/5/24; 2024-5-1x 2024-05-011 12024-05-01",
    "may 1, 2024 · sept. 12 2023 · march 3,2024 · mayor 1, 2024 · may 123, 2024 · dec 1, 20245",
    "1 may 2024, 12 december 2023, 123 may 2024, 3 days ago, 1 minute ago, 10 years agone",
    "2024年5月1日 12024年12月31日 2024年123月1日 ٢٠٢٤-٠٥-٠١ ２０２４年５月１日",
    "$5 $ 12,99 € 3.50€ 4 usd 10eur 7 gbpx ¥ 1000 £9.99. 3 € 5,- €",
    "odd\xa0blanks\u2003and\x1cseparators\x85here\u200bnot one  \t\n",
]


def test_the_date_price_token_and_visible_character_scans_count_what_python_counts():
    for text in DATE_AND_PRICE_TEXTS:
        assert scan.count_dates(text) == _regex_dates(text), text
        assert scan.count_prices(text) == len(kinds._PRICE.findall(text)), text
        assert scan.count_tokens(text) == len(text.split()), text
        assert scan.visible(text) == len("".join(text.split())), text
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    pieces = ["1", "12", "2024", "123", "٣", "２", "-", "/", ".", ",", " ", "  ", "\n", "\t", "\xa0",
              "\x1c", "\u2003",
              "may", "dec", "march", "sept", "jan", "x", "é", "_", "days", "minute", "s", " ago", "ago",
              "年", "月", "日", "$", "€", "£", "¥", "usd", "eur", "gbp", "a", "o"]

    @hypothesis.given(st.lists(st.sampled_from(pieces), max_size=25))
    @hypothesis.settings(max_examples=600, deadline=None)
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        assert scan.count_dates(text) == _regex_dates(text)
        assert scan.count_prices(text) == len(kinds._PRICE.findall(text))
        assert scan.count_tokens(text) == len(text.split())
        assert scan.visible(text) == len("".join(text.split()))

    check()


def test_the_literal_counter_counts_what_the_profile_regex_counts():
    counter = scan.LiteralCounter(kinds._PROFILE_WORDS)
    texts = ["/u/u/user?uid=5&u=٣ home.phprofile /members/people space authors u=x", "", "u",
             "home.php"]
    for text in texts:
        assert counter.count(text) == len(kinds._PROFILE_LINK.findall(text)), text
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    pieces = [*(word.replace("#", "7") for word in kinds._PROFILE_WORDS), "u=", "1", "/", "u", "s",
              "er", "=", "id", "p", "rofile", "٣", "\n", "x"]

    @hypothesis.given(st.lists(st.sampled_from(pieces), max_size=20))
    @hypothesis.settings(max_examples=400, deadline=None)
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        assert counter.count(text) == len(kinds._PROFILE_LINK.findall(text))

    check()
    with pytest.raises(ValueError, match="ASCII"):
        scan.LiteralCounter(("#1",))
    with pytest.raises(ValueError, match="at most"):
        scan.LiteralCounter(tuple(f"w{i}" for i in range(40)))


def _regex_words(text: str) -> list[str]:
    text = text.lower()
    pattern = arbiter._WORD if arbiter._CJK.search(text) is None else arbiter._CJK_WORD
    return pattern.findall(text)


def test_the_word_scan_finds_the_words_of_the_regex_path():
    texts = ["Grüße aus Köln_Süd, 3×4 İstanbul ΣΟΦΙΑ", "日本語のテキストと한국어 mixed_words 123",
             "中文，标点。混合English词", "ｆｕｌｌｗｉｄｔｈ ½ ⅷ ²", ""]
    for text in texts:
        assert scan.words(text) == _regex_words(text), text
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    pieces = ["ä", "Ü", "ß", "İ", "Σ", "a", "Z", "_", "1", "²", " ", "\n", "-", "中", "文", "の", "ア", "한",
              "・", "。", "x_y", "Äb"]

    @hypothesis.given(st.lists(st.sampled_from(pieces), max_size=25))
    @hypothesis.settings(max_examples=400, deadline=None)
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        assert scan.words(text) == _regex_words(text)

    check()


def test_the_word_token_scan_finds_what_the_tokenizer_regex_finds():
    for sample in ["It's the cats’ toys, don't 'quote' x'_y a''b", "l'été d’un été", "", "'a'"]:
        assert scan.word_tokens(sample) == text_module._WORD_RE.findall(sample), sample
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    pieces = ["a", "B", "'", "’", "_", "1", " ", "ü", "中", "''", "-", "s", "x'y", "²"]

    @hypothesis.given(st.lists(st.sampled_from(pieces), max_size=25))
    @hypothesis.settings(max_examples=400, deadline=None)
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        assert scan.word_tokens(text) == text_module._WORD_RE.findall(text)

    check()


def test_the_bag_overlap_sums_what_python_sums():
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    bags = st.dictionaries(st.sampled_from(["a", "b", "词", "c1", "d"]), st.integers(1, 50)).map(Counter)

    @hypothesis.given(bags, bags)
    @hypothesis.settings(max_examples=300, deadline=None)
    def check(a: Counter[str], b: Counter[str]) -> None:
        shared = a.keys() & b.keys()
        assert scan.bag_overlap(a, b) == sum(min(a[w], b[w]) for w in shared)
        assert arbiter.token_agreement(a, b)[0] == pytest.approx(
            sum(min(a[w], b[w]) for w in shared) / a.total() if a else 0.0
        )

    check()
    with pytest.raises(TypeError):
        scan.bag_overlap([], {})
