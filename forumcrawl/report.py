"""What a crawl's feed holds, at a glance: the summary behind ``forumcrawl report``.

A feed of thousands of thread pages says little line by line. :func:`summarize` counts threads,
pages and posts per board, posts per day, the most active authors, which cascade stage extracted
each page, and the fields the extraction missed (no title, author or date); :func:`render_html`
draws it as one self-contained HTML page (inline SVG bars, no script, no network), which a
headless browser can also turn into a PNG.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FeedSummary", "render_html", "summarize"]

#: Authors listed in the report.
TOP_AUTHORS = 15


@dataclass
class FeedSummary:
    """Counts over a feed of ForumThread or Article items."""

    pages: int = 0
    #: Threads are told apart by site, board and title (a thread's pages share them).
    threads_by_board: Counter[str] = field(default_factory=Counter)
    pages_by_board: Counter[str] = field(default_factory=Counter)
    posts_by_board: Counter[str] = field(default_factory=Counter)
    posts_by_day: Counter[str] = field(default_factory=Counter)
    authors: Counter[str] = field(default_factory=Counter)
    methods: Counter[str] = field(default_factory=Counter)
    #: Items (``page/<field>``) and posts (``post/<field>``) with that field empty.
    missing: Counter[str] = field(default_factory=Counter)

    @property
    def posts(self) -> int:
        return sum(self.posts_by_board.values())

    @property
    def threads(self) -> int:
        return sum(self.threads_by_board.values())


def summarize(items: Iterable[Mapping[str, Any]]) -> FeedSummary:
    """Count a feed; an article (no ``posts``) counts as one post by its author, a whole-thread
    record (``FORUMCRAWL_ITEM=thread``: ``page_urls``, no text of its own) as its pages."""
    summary = FeedSummary()
    threads: set[tuple[str, str, str]] = set()
    for item in items:
        whole = "page_urls" in item
        pages = (len(item.get("page_urls") or []) or 1) if whole else 1
        summary.pages += pages
        board = str(item.get("board") or "(no board)")
        summary.pages_by_board[board] += pages
        key = (str(item.get("site")), board, str(item.get("title")))
        if key not in threads:
            threads.add(key)
            summary.threads_by_board[board] += 1
        summary.methods[str(item.get("method") or ("(whole thread)" if whole else "(none)"))] += 1
        fields = ("title", "author", "published") + (() if whole else ("text",))
        for name in fields:
            if not item.get(name):
                summary.missing[f"page/{name}"] += 1
        posts = item.get("posts")
        if posts is None:
            posts = [{"author": item.get("author"), "published": item.get("published")}]
        for post in posts:
            summary.posts_by_board[board] += 1
            if post.get("author"):
                summary.authors[str(post["author"])] += 1
            else:
                summary.missing["post/author"] += 1
            if post.get("published"):
                summary.posts_by_day[str(post["published"])[:10]] += 1
            else:
                summary.missing["post/published"] += 1
    return summary


def _bars(counts: list[tuple[str, int]], *, width: int = 420) -> str:
    """An inline SVG bar chart, one labelled bar a row."""
    if not counts:
        return "<p>none</p>"
    top = max(n for _, n in counts) or 1
    row = 20
    parts = [f'<svg class="bars" width="{width + 260}" height="{row * len(counts)}" role="img">']
    for i, (label, n) in enumerate(counts):
        y = i * row
        length = max(1, round(width * n / top))
        parts.append(
            f'<text x="0" y="{y + 14}">{html.escape(label[:36])}</text>'
            f'<rect x="200" y="{y + 3}" width="{length}" height="14"/>'
            f'<text x="{206 + length}" y="{y + 14}">{n}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _table(header: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_html(summary: FeedSummary, title: str) -> str:
    """The report as one HTML page with no external resources."""
    boards = sorted(summary.pages_by_board, key=lambda b: (-summary.posts_by_board[b], b))
    days = sorted(summary.posts_by_day.items())
    sections = [
        f"<h1>{html.escape(title)}</h1>",
        f'<p id="totals">{summary.threads} threads, {summary.pages} pages, '
        f"{summary.posts} posts</p>",
        "<h2>Per board</h2>",
        _table(
            ("board", "threads", "pages", "posts"),
            ((b, summary.threads_by_board[b], summary.pages_by_board[b], summary.posts_by_board[b])
             for b in boards),
        ),
        _bars([(b, summary.posts_by_board[b]) for b in boards]),
        "<h2>Posts per day</h2>",
        _bars(days) if len(days) <= 60 else _table(("day", "posts"), days),
        "<h2>Top authors</h2>",
        _bars(summary.authors.most_common(TOP_AUTHORS)),
        "<h2>Extraction methods</h2>",
        _table(("method", "pages"), summary.methods.most_common()),
        "<h2>Misses</h2>",
        _table(("field left empty", "count"), sorted(summary.missing.items()))
        if summary.missing else "<p>none: every page and post has its fields</p>",
    ]
    style = (
        "body{font:14px sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
        ".bars rect{fill:#4a7ab5}.bars text{font:12px sans-serif}"
    )
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{style}</style></head><body>{''.join(sections)}</body></html>\n"
    )
