"""An article's title, author and dates from what its page marks and shows, through
``article_metadata``, the single-page cascade (``extract_bytes``) and ``forumcrawl extract``."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from forumcrawl.document import Document
from forumcrawl.extractors.metadata import ArticleMeta, article_metadata, without_labels
from forumcrawl.offline import ExtractOptions, extract_bytes

from .conftest import extract_page

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
PROSE = "<p>" + "The harbour stayed closed for a second day while crews cleared the wreck. " * 8 + "</p>"


def tree(html: str):
    return Document.from_text(html, "http://news.test/a").tree


def test_author_and_date_from_meta_tags():
    t = tree(
        '<meta name="author" content="By Jane Roe">'
        '<meta property="article:published_time" content="2024-03-05T14:02:00+08:00">'
    )
    meta = article_metadata(t, now=NOW)
    assert (meta.author, meta.published) == ("Jane Roe", "2024-03-05T14:02:00+08:00")
    assert article_metadata(tree("<p>x</p>"), now=NOW) == ArticleMeta()
    assert article_metadata(None) == ArticleMeta()


def test_in_body_microdata_when_meta_tags_are_missing():
    t = tree(
        '<p class="byline"><span itemprop="author"><a itemprop="name">李雷</a></span>'
        '<time datetime="2023-11-02T08:00:00Z">2 Nov</time></p>'
    )
    meta = article_metadata(t, now=NOW)
    assert (meta.author, meta.published) == ("李雷", "2023-11-02T08:00:00Z")


def test_the_shown_headline_not_the_site_s_logo_nor_the_title_s_suffix():
    t = tree(
        "<html><head><title>Storm closes the harbour for a second day | Coast Gazette</title>"
        '<meta property="og:title" content="Storm closes the harbour for a second day | Coast Gazette">'
        "</head><body><header><h1>Coast Gazette</h1></header><article><h1>Storm closes the harbour for a second day,"
        " crews say</h1>" + PROSE + "</article>"
    )
    assert article_metadata(t, now=NOW).title == "Storm closes the harbour for a second day, crews say"
    blog_name = tree(
        "<title>Silicon Exposed: Open Verilog flow for GreenPak4</title>"
        '<meta property="og:title" content="Open Verilog flow for GreenPak4"><h1>Silicon Exposed</h1>' + PROSE
    )
    assert article_metadata(blog_name, now=NOW).title == "Open Verilog flow for GreenPak4"
    no_heading = tree(
        '<meta property="og:title" content="Storm closes the harbour | Coast Gazette">'
        '<meta property="og:site_name" content="Coast Gazette"><h1>Coast Gazette</h1>' + PROSE
    )
    assert article_metadata(no_heading, now=NOW).title == "Storm closes the harbour"


def test_byline_label_alone_on_its_line_and_the_name_as_the_byline_writes_it():
    t = tree(
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Storm closes harbour",'
        ' "author": {"@type": "Person", "name": "Ann Reporter"}}</script>'
        "<h1>Storm closes harbour</h1><div><p>Written by</p><p>Dr. Ann Reporter</p></div>" + PROSE
    )
    assert article_metadata(t, now=NOW).author == "Dr. Ann Reporter"
    unmarked = tree("<h1>Storm closes harbour</h1><p>By Ann Reporter | 5 min read</p>" + PROSE)
    assert article_metadata(unmarked, now=NOW).author == "Ann Reporter"
    sentence = tree("<h1>Storm closes harbour</h1><p>By the end of 2024 the harbour had closed twice.</p>" + PROSE)
    assert article_metadata(sentence, now=NOW).author is None


def test_the_date_shown_by_the_headline_picks_the_marked_change_over_the_first_publication():
    marks = (
        '<meta property="article:published_time" content="2024-01-10T08:00:00Z">'
        '<meta property="article:modified_time" content="2025-08-19T13:25:59Z">'
    )
    shown_change = tree(marks + "<h1>Storm closes harbour</h1><p>Updated August 19, 2025</p>" + PROSE)
    assert article_metadata(shown_change, now=NOW).published == "2025-08-19T13:25:59Z"
    nothing_shown = tree(marks + "<h1>Storm closes harbour</h1>" + PROSE)
    assert article_metadata(nothing_shown, now=NOW).published == "2024-01-10T08:00:00Z"
    unmarked = tree("<h1>Storm closes harbour</h1><p>March 27, 2024 - 4 min read</p>" + PROSE)
    assert article_metadata(unmarked, now=NOW).published == "March 27, 2024"


ARTICLE = (
    "<html><head><title>Storm closes harbour - Coast Gazette</title>"
    '<script type="application/ld+json">{"@context": "https://schema.org", "@graph": ['
    '{"@type": "WebSite", "name": "Coast Gazette"},'
    '{"@type": "WebPage", "datePublished": "2024-05-01T08:30:00+02:00",'
    ' "author": {"@type": "Person", "name": "Ann Reporter"}}]}</script></head>'
    "<body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav><h1>Storm closes harbour</h1>"
    "<p>By Ann Reporter and Bo Lee</p>" + PROSE + "</body></html>"
)


def test_single_page_cascade_reports_the_fields_of_a_page_s_marks_and_byline():
    record = extract_bytes(ARTICLE.encode(), page_id="storm", now=NOW)
    assert record["kind"] == "article"
    assert (record["title"], record["author"]) == ("Storm closes harbour", "Ann Reporter and Bo Lee")
    assert record["published"].startswith("2024-05-01T08:30")


def test_forumcrawl_extract_writes_the_fields(tmp_path):
    record = extract_page(tmp_path, "storm.html", ARTICLE)
    assert (record["title"], record["author"]) == ("Storm closes harbour", "Ann Reporter and Bo Lee")
    assert record["published"].startswith("2024-05-01")


def test_meta_rows_labels_left_without_their_values_leave_the_text():
    text = "Storm closes harbour\nPosted by:\nShare\nBy the end of the day the crews had cleared it.\nCategories"
    assert without_labels(text) == "Storm closes harbour\nBy the end of the day the crews had cleared it."
    page = (
        "<html><body><h1>Storm closes harbour</h1>" + PROSE + "<div class='meta'><p>Posted by:</p>"
        "<p><a href='/u/ann'>Ann</a></p><p>Categories:</p><p><a href='/c/news'>News</a></p></div></body></html>"
    )
    record = extract_bytes(page.encode(), page_id="storm", options=ExtractOptions(kind="article"), now=NOW)
    assert "crews cleared the wreck" in record["text"] and "Ann" in record["text"]
    assert not any(line.strip() in {"Posted by:", "Categories:"} for line in record["text"].split("\n"))


def test_the_section_the_site_joins_to_its_titles_is_cut_off_the_headline():
    t = tree(
        "<html><head><title>Why the harbour closed | Opinion</title>"
        '<script type="application/ld+json">{"@type": "NewsArticle",'
        ' "headline": "Storm closes the harbour for a second day | Opinion"}</script></head>'
        "<body><h1>Storm closes the harbour for a second day | Opinion</h1>" + PROSE + "</body></html>"
    )
    assert article_metadata(t, now=NOW).title == "Storm closes the harbour for a second day"
    subtitle = tree(
        "<html><head><title>Storm closes the harbour | Crews at work - Coast Gazette</title>"
        '<meta property="og:title" content="Storm closes the harbour | Crews at work">'
        "</head><body><h1>Storm closes the harbour | Crews at work</h1>" + PROSE + "</body></html>"
    )
    assert article_metadata(subtitle, now=NOW).title == "Storm closes the harbour | Crews at work"


def test_a_headline_that_lost_characters_to_a_wrong_encoding_is_the_marked_title():
    t = tree(
        "<html><head><meta property=\"og:title\" content=\"Event Planning: A Beginner's Guide\"></head>"
        "<body><h1>Event Planning? A Beginner? Guide</h1>" + PROSE + "</body></html>"
    )
    assert article_metadata(t, now=NOW).title == "Event Planning: A Beginner's Guide"


def budget_page(author: object, shown: str = "", site: str = "") -> str:
    """A page on meals with a JSON-LD article whose ``author`` is given, a byline ``shown``
    under its headline, and ``og:site_name`` ``site``."""
    ld = json.dumps({"@type": "NewsArticle", "headline": "Meals on a budget", "author": author})
    meta = f'<meta property="og:site_name" content="{site}">' if site else ""
    return f'{meta}<script type="application/ld+json">{ld}</script><h1>Meals on a budget</h1>{shown}{PROSE}'


def person(name: str, kind: str = "Person") -> dict[str, str]:
    return {"@type": kind, "name": name}


def test_the_byline_wins_over_an_author_that_is_the_site_and_stops_at_the_marked_name():
    site_as_author = budget_page(person("Heart Foundation", "Organization"), "<p>by Tracy Parker, Dietitian</p>")
    assert article_metadata(tree(site_as_author), now=NOW).author == "Tracy Parker, Dietitian"
    role = budget_page(person("Sean Peek"), "<p>Written by:Sean Peek, Senior AnalystUpdated Sep 17, 2025</p>")
    assert article_metadata(tree(role), now=NOW).author == "Sean Peek"
    names = ("Danielle DeSiato", "Donna Enzmann", "Natalie Nguyen")
    writers = budget_page([person(n) for n in names], f"<p>Written by {names[0]}, {names[1]}, and {names[2]}</p>")
    assert article_metadata(tree(writers), now=NOW).author == "Danielle DeSiato, Donna Enzmann, and Natalie Nguyen"


def test_the_publisher_named_after_the_writers_is_no_writer():
    page = budget_page(
        person("Manoj Jain and Jagpreet Chhatwal, The Commercial Appeal"), site="Memphis Commercial Appeal"
    )
    assert article_metadata(tree(page), now=NOW).author == "Manoj Jain and Jagpreet Chhatwal"


def test_an_author_link_or_box_names_the_writer_when_nothing_else_does():
    link = tree(
        "<h1>Meals on a budget</h1>" + PROSE * 3
        + "<div><a href='/author/'>Our authors</a>"
        "<a href='https://blog.test/author/jordanna/'>Jordanna Campbell</a></div>"
    )
    assert article_metadata(link, now=NOW).author == "Jordanna Campbell"
    box = tree(
        "<h1>Meals on a budget</h1>" + PROSE
        + "<div class='blog_author-box'><div>Articles by Lauren</div></div>"
        "<div class='blog_author-text'><div>Lauren Vetter</div><p>Lauren writes about search.</p></div>"
    )
    assert article_metadata(box, now=NOW).author == "Lauren Vetter"
    assert article_metadata(tree("<h1>Meals on a budget</h1>" + PROSE), now=NOW).author is None


def test_a_page_that_says_it_is_an_article_but_reads_as_posts_keeps_its_marked_fields():
    comment = "<div class='post'><b>{}</b><p>{}</p></div>"
    page = (
        "<html><head><title>Storm closes harbour - Coast Gazette</title>"
        '<meta property="og:type" content="article">'
        '<meta property="article:published_time" content="2024-05-01T08:30:00+02:00">'
        '<meta name="author" content="Ann Reporter"></head><body><h1>Storm closes harbour!</h1>'
        + "".join(comment.format(f"user{i}", f"Reply number {i} says the crews worked all night long.")
                  for i in range(4))
        + "</body></html>"
    )
    record = extract_bytes(page.encode(), page_id="storm", options=ExtractOptions(kind="thread"), now=NOW)
    assert record["kind"] == "thread"
    assert (record["title"], record["author"]) == ("Storm closes harbour!", "Ann Reporter")
    assert record["published"].startswith("2024-05-01")


def test_a_headline_a_break_cuts_over_two_lines_is_the_title_without_a_byline_put_in_it():
    marks = (
        "<html><head><title>Harbour News | Real Estate 101</title>"
        '<script type="application/ld+json">{"@type": "Article", "headline": "Harbour News | Real Estate 101"}'
        "</script></head><body>"
    )
    split = tree(marks + "<h1>Real Estate Investing for Beginners <br>Real Estate 101</h1>" + PROSE)
    assert article_metadata(split, now=NOW).title == "Real Estate Investing for Beginners Real Estate 101"
    with_byline = tree(
        "<title>Storm closes the harbour</title><h1>Storm closes the harbour <br>"
        "<small>Posted on July 1, 2024 by ann</small></h1>" + PROSE
    )
    assert article_metadata(with_byline, now=NOW).title == "Storm closes the harbour"


def test_a_numeric_day_shown_month_first_is_the_marked_publication_day():
    marks = (
        '<meta property="article:published_time" content="2025-08-01T15:01:58Z">'
        '<meta property="article:modified_time" content="2025-08-27T17:08:44Z">'
    )
    t = tree(marks + "<h1>Storm closes harbour</h1><p>8/1/2025</p><p>Updated 8/27/2025</p>" + PROSE)
    assert article_metadata(t, now=NOW).published == "2025-08-01T15:01:58Z"
    same_day = marks.replace("2025-08-27T17:08:44Z", "2025-08-01T15:01:59Z")
    t = tree(same_day + "<h1>Storm closes harbour</h1><p>August 1, 2025</p>" + PROSE)
    assert article_metadata(t, now=NOW).published == "2025-08-01T15:01:58Z"


def test_the_date_a_published_meta_names():
    t = tree('<meta name="published" content="July 17, 2025"><h1>Storm closes harbour</h1>' + PROSE)
    assert article_metadata(t, now=NOW).published == "July 17, 2025"


def author_of(html: str) -> str | None:
    return article_metadata(tree(html), now=NOW).author


def test_a_byline_inside_a_meta_row_after_its_date_or_a_separator():
    row = "<h1>Meals on a budget</h1><p>March 15, 2022 · 3 min read · By ASU Online</p>" + PROSE
    assert author_of(row) == "ASU Online"
    dated = "<h1>Meals on a budget</h1><p>03/01/2017 by Agatha Caleo, Candidate Representative</p>" + PROSE
    assert author_of(dated) == "Agatha Caleo, Candidate Representative"
    credit = "<h1>Meals on a budget</h1><p>Photo by Ann Lee</p>" + PROSE
    assert author_of(credit) is None


def test_a_reviewer_names_the_writer_only_where_the_page_names_no_other_person():
    review = "<p>Reviewed by Justin C. Meserole, Trial Attorney at Morgan &amp; Morgan, on December 9, 2024.</p>"
    firm = budget_page(person("Morgan & Morgan", "Organization"), review, site="Morgan & Morgan")
    assert author_of(firm) == "Justin C. Meserole"
    written = budget_page(person("Morgan & Morgan", "Organization"), "<p>By Ann Lee</p>" + review)
    assert author_of(written) == "Ann Lee"
    assert author_of(budget_page(person("Ann Lee"), review)) == "Ann Lee"


def test_a_writer_link_whose_text_is_no_name_names_the_writer_by_its_address():
    shown = "<h1>Meals on a budget</h1><p>What will we eat?</p><p>Juliette Carreiro</p><p>Tech Writer</p>"
    link = shown + "<a href='/us/blog/authors/juliette-carreiro'>Articles by Juliette</a>" + PROSE
    assert author_of(link) == "Juliette Carreiro"
    one_word = shown + "<a href='/author/juliette'>Articles by Juliette</a>" + PROSE
    assert author_of(one_word) is None


def test_addresses_and_handles_are_no_names_and_a_label_shown_alone_is_read_past():
    email = '<meta name="author" content="a.sleegers@paper.test"><h1>Meals on a budget</h1>' + PROSE
    assert author_of(email) is None
    boxes = (
        "<h1>Meals on a budget</h1>" + PROSE
        + "<span class='pb-byline'>By <a>Erin Cunningham</a></span>"
        "<span class='tweet-authors'>Follow @erinmcunningham</span>"
    )
    assert author_of(boxes) == "Erin Cunningham"
    handle = "<h1>Meals on a budget</h1>" + PROSE + "<span class='tweet-authors'>Follow @erin</span>"
    assert author_of(handle) is None
    linked = "<h1>Meals on a budget</h1><p>von <a>Till Eckert</a>, <a>Max Bernhard</a></p>" + PROSE
    assert author_of(linked) == "Till Eckert, Max Bernhard"


def test_the_title_and_author_are_given_without_the_characters_that_show_nothing():
    page = "<title>Paläs&shy;tinenser klagen</title><h1>Paläs&shy;tinenser klagen</h1><p>By Ann&#8203; Lee</p>" + PROSE
    meta = article_metadata(tree(page), now=NOW)
    assert (meta.title, meta.author) == ("Palästinenser klagen", "Ann Lee")
