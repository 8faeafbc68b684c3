"""List pages: their entries found as siblings built alike (``list_items``), and a page the
kind model finds a list whose entries hold its text reported as one, with its items, by the
single-page cascade (``extract_bytes``) and ``forumcrawl extract``."""

from __future__ import annotations

from datetime import datetime, timezone

import lxml.html

from forumcrawl.extractors.listing import ListItem, list_items
from forumcrawl.offline import extract_bytes

from .conftest import extract_page

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
ENTRY = (
    '<article class="card post-{i}"><h3><a href="/news/story-{i}">Harbour story {i}</a></h3>'
    '<a href="/news/story-{i}">Crews cleared the wreck on day {i}</a><span>March {day}, 2024</span></article>'
)
NEWS = (
    "<html><head><title>News | Coast Gazette</title>"
    '<script type="application/ld+json">{"@type": "CollectionPage", "name": "News"}</script></head>'
    "<body><nav><a href='/'>Home</a><a href='/news'>News</a></nav><main><h1>News</h1><div class='grid'>"
    + "".join(ENTRY.format(i=i, day=i % 28 + 1) for i in range(40))
    + "</div></main><footer><a href='/about'>About</a></footer></body></html>"
)


def test_the_largest_group_of_linked_siblings_built_alike_is_the_list():
    tree = lxml.html.fromstring(
        "<body><nav><ul><li><a href='/a'>Home page of the site</a></li><li><a href='/b'>About us and more</a></li>"
        "<li><a href='/c'>Contact and directions</a></li></ul></nav>"
        "<div><p class='x'>No link here at all</p><p class='x'>None here either</p><p class='x'>Nor here</p></div>"
        "<ul><li class='item-1'><a href='/p/1'>First entry</a> with its teaser <script>skip()</script></li>"
        "<li class='item-2'><a href='p/2'>Second entry</a> with its teaser</li>"
        "<li class='item-3'><a href='https://other.test/3'>Third entry</a> with its teaser</li></ul></body>"
    )
    group = list_items(tree, "http://site.test/list/")
    assert group is not None
    assert group.items == [
        ListItem("http://site.test/p/1", "First entry with its teaser"),
        ListItem("http://site.test/list/p/2", "Second entry with its teaser"),
        ListItem("https://other.test/3", "Third entry with its teaser"),
    ]
    assert list_items(tree, min_items=4) is None
    assert list_items(None) is None


def test_a_page_likelier_a_list_whose_entries_hold_its_text_is_a_listing_with_its_items():
    record = extract_bytes(NEWS.encode(), page_id="news", url="http://news.test/news", now=NOW)
    assert record["kind"] == "listing"
    assert len(record["items"]) == 40
    assert record["items"][7] == {
        "url": "http://news.test/news/story-7",
        "text": "Harbour story 7 Crews cleared the wreck on day 7 March 8, 2024",
    }
    assert all(f"Harbour story {i}\n" in record["text"] for i in range(40))


def test_an_article_with_a_list_of_related_stories_stays_an_article():
    related = "".join(
        f"<li class='related'><a href='/news/other-{i}'>Another story about the coast, part {i}</a></li>" for i in range(12)
    )
    prose = "<p>" + "The harbour stayed closed for a second day while crews cleared the wreck. " * 12 + "</p>"
    page = (
        '<html><head><meta property="og:type" content="article"><title>Storm closes harbour</title></head>'
        f"<body><h1>Storm closes harbour</h1>{prose}<ul>{related}</ul></body></html>"
    )
    record = extract_bytes(page.encode(), page_id="storm", now=NOW)
    assert record["kind"] == "article" and "items" not in record
    assert "crews cleared the wreck" in record["text"]


def test_a_blog_post_beside_its_blogroll_of_bare_links_stays_an_article():
    """The kind model finds this page likelier a list (a thousand links, a ``CollectionPage``),
    and the blogroll is its largest list; but its entries are bare links and the post's prose
    lies outside them."""
    roll = "".join(f"<li class='link'><a href='http://blog{i}.test/'>Friend blog {i}</a></li>" for i in range(1000))
    prose = "".join(
        f"<p>Paragraph {i}: good bosses know when to get out of the way, and they say so in meetings.</p>"
        for i in range(40)
    )
    page = (
        "<html><head><title>Good bosses</title>"
        '<script type="application/ld+json">{"@type": "CollectionPage", "name": "Blog"}</script></head>'
        f"<body><div class='module'><ul>{roll}</ul></div><div id='main'><h2>Good bosses</h2>{prose}</div></body></html>"
    )
    record = extract_bytes(page.encode(), page_id="post", now=NOW)
    assert record["kind"] == "article" and "items" not in record
    assert "Paragraph 39: good bosses" in record["text"] and "Friend blog 7" not in record["text"]


def test_forumcrawl_extract_reports_the_listing_and_its_items(tmp_path):
    record = extract_page(tmp_path, "news.html", NEWS)
    assert record["kind"] == "listing"
    assert [item["url"] for item in record["items"][:2]] == ["/news/story-0", "/news/story-1"]  # a saved page has no address
