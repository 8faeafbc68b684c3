"""The items forumcrawl exports (DESIGN §8).

Plain dataclasses: Scrapy and itemadapter export them in declaration order, and the offline
``forumcrawl extract`` command writes the same fields. Only ``url`` is required. Dates are ISO 8601
strings (with a UTC offset when the page gives one); the ``*_raw`` twin keeps what the page said.
schema.org counterparts: ForumThread ≈ DiscussionForumPosting, Post ≈ Comment, Article ≈ Article.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Article", "ArticleComment", "ForumThread", "Post", "WholeThread", "plain"]


def plain(value: Any) -> Any:
    """``value`` with dataclasses turned into dicts, recursively (JSON-ready)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


@dataclass(kw_only=True, slots=True)
class Post:
    """One post (floor) of a thread page."""

    #: Floor number as the page shows it (``#12``, ``12楼``, ``沙发`` → 2), else the position (1-based).
    floor: int | None = None
    #: Display name of the poster.
    author: str | None = None
    #: Publication time, ISO 8601.
    published: str | None = None
    #: The time exactly as written on the page (``发表于 2024-3-5 14:02``, ``3 天前``).
    published_raw: str | None = None
    #: The post's own words: quotes of earlier posts, signatures and edit notices removed.
    text: str = ""
    #: The text of each quote removed from ``text`` (the quoted post's header included), in order.
    quotes: list[str] = field(default_factory=list)
    #: Where each quote stood in ``text``: the offset of the line it came before (``len(text)``
    #: after the last line), so that the page's text shows it in place.
    quote_at: list[int] = field(default_factory=list)
    #: The Naive Bayes value filter's verdict (``顶``-only replies, ads, signatures): True when
    #: worthless, False when valuable, None when the filter is off
    #: (FORUMCRAWL_VALUE_FILTER_ENABLED).
    worthless: bool | None = None


@dataclass(kw_only=True, slots=True)
class ForumThread:
    """One page of a forum thread: its first post (on page 1) and its replies."""

    #: URL of the thread page.
    url: str
    #: URL of the thread's first page, whatever form of it was fetched (all pages of one thread
    #: share it; None when the site's thread identity is not known).
    thread_url: str | None = None
    #: Host name of the forum.
    site: str | None = None
    #: Thread title.
    title: str | None = None
    #: Board / category from the breadcrumb, outermost first, joined with " > ".
    board: str | None = None
    #: Page number of the thread page (1 for the first page).
    page: int | None = None
    #: Highest page of the same thread this page names: its own number or a page-flip link's
    #: (the thread's page count when its pager shows the last page; None without thread identity).
    last_page: int | None = None
    #: The thread's identifier in its site's URLs (``tid=834`` → ``834``, or the URL path without
    #: the page), what tells one thread from another (None without thread identity).
    thread_id: str | None = None
    #: Author of the first post on this page.
    author: str | None = None
    #: Time of the first post on this page, ISO 8601.
    published: str | None = None
    #: The time exactly as written on the page.
    published_raw: str | None = None
    #: Whole text of the thread page: every post, in order, separated by blank lines.
    text: str = ""
    #: Every post on the page, in order.
    posts: list[Post] = field(default_factory=list)
    #: Number of replies on this page (posts after the first one).
    reply_count: int | None = None
    #: Main language of the text (``zh``, ``en`` …), guessed from its characters.
    language: str | None = None
    #: Cascade stage that produced the text (``ksf``, ``template``, ``dom``, ``cx``).
    method: str | None = None
    #: Identifier of the learned site rule used, when a rule was used.
    rule_id: str | None = None
    #: Set on a recrawl (FORUMCRAWL_INCREMENTAL): the time of the previous crawl; ``posts`` then
    #: holds only the page's posts that are new since it, ``floor`` counting on from the thread's.
    new_since: str | None = None


@dataclass(kw_only=True, slots=True)
class WholeThread:
    """A whole forum thread: the posts of all its pages, in order (``FORUMCRAWL_ITEM=thread``)."""

    #: URL of the thread's first page (its pages' shared ``thread_url``).
    url: str
    #: Host name of the forum.
    site: str | None = None
    #: Thread title.
    title: str | None = None
    #: Board / category from the breadcrumb, outermost first, joined with " > ".
    board: str | None = None
    #: Number of pages the thread has, as its pages' page flips show (None when unknown).
    pages: int | None = None
    #: URL of each page exported, in page order.
    page_urls: list[str] = field(default_factory=list)
    #: Author of the thread's first post.
    author: str | None = None
    #: Time of the thread's first post, ISO 8601.
    published: str | None = None
    #: Every post of the thread in order; ``floor`` runs 1, 2, 3 … over the whole thread, and a
    #: post a page repeats from an earlier page (a question above every page) is kept once.
    posts: list[Post] = field(default_factory=list)
    #: Number of replies in the whole thread (posts after the first one).
    reply_count: int | None = None
    #: Whether every page of the thread was exported; None when the site's thread identity is
    #: unknown (the page is then a thread of its own).
    complete: bool | None = None
    #: Page numbers the thread has but the crawl did not export.
    missing_pages: list[int] = field(default_factory=list)
    #: Main language of the text, guessed from its characters.
    language: str | None = None
    #: Set on a recrawl (FORUMCRAWL_INCREMENTAL): the time of the previous crawl; ``posts`` then
    #: holds only the posts that are new since it.
    new_since: str | None = None


@dataclass(kw_only=True, slots=True)
class ArticleComment:
    """A reader's comment under an article (exported with FORUMCRAWL_NEWS_COMMENTS)."""

    author: str | None = None
    #: Time of the comment, ISO 8601.
    published: str | None = None
    text: str = ""


@dataclass(kw_only=True, slots=True)
class Article:
    """A news or blog article."""

    #: URL of the article.
    url: str
    #: Host name of the site.
    site: str | None = None
    #: Headline.
    title: str | None = None
    #: Byline.
    author: str | None = None
    #: Publication time, ISO 8601.
    published: str | None = None
    #: The time exactly as written on the page.
    published_raw: str | None = None
    #: Body text, paragraphs separated by newlines.
    text: str = ""
    #: Main language of the text, guessed from its characters.
    language: str | None = None
    #: Cascade stage that produced the text.
    method: str | None = None
    #: Identifier of the learned site rule used, when a rule was used.
    rule_id: str | None = None
    #: Time of the last change the page marks, ISO 8601 (news spider).
    modified: str | None = None
    #: Readers' comments, in page order; None unless FORUMCRAWL_NEWS_COMMENTS is on.
    comments: list[ArticleComment] | None = None
