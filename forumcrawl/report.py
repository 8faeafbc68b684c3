"""What a crawl's feed holds, at a glance: the summary behind ``forumcrawl report``.

A feed of thousands of thread pages says little line by line. :func:`summarize` counts, per site
and board (boards of different sites are never merged: two forums both have a "General"),
threads, pages and posts, posts per day, the top threads and authors, which cascade stage
extracted each page, and the fields the extraction missed, with example URLs to open.
:func:`read_stats` adds what only the crawl knows (requests, failures, its start and end) from
the stats file a crawl writes with ``FORUMCRAWL_STATS_FILE``. :func:`render_html` draws all of it
as one self-contained, full-width HTML page (inline SVG, no script, no network, a CJK font stack
so Chinese and Japanese names show), which a headless browser can also turn into a PNG.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

__all__ = ["BoardCount", "CrawlStats", "FeedSummary", "ThreadCount", "read_stats", "render_html",
           "summarize"]

#: Authors and threads listed in the report.
TOP_AUTHORS = 15
TOP_THREADS = 15
#: Example URLs kept per kind of miss.
MISS_EXAMPLES = 3
#: Days shown one by one in the activity chart; a longer span is drawn by month.
MAX_DAYS = 120
#: Fonts asked for, in order: Latin first, then every common CJK family (Linux, macOS, Windows),
#: so a page of Chinese boards never shows empty boxes where one of them is installed.
FONT_STACK = (
    'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, '
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei", '
    '"PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK JP", sans-serif'
)
NO_BOARD = "(no board)"


@dataclass
class BoardCount:
    """One board of one site."""

    threads: int = 0
    pages: int = 0
    posts: int = 0
    last_post: str = ""


@dataclass
class ThreadCount:
    """One thread: its pages and posts in the feed."""

    url: str
    pages: int = 0
    posts: int = 0


@dataclass
class FeedSummary:
    """Counts over a feed of ForumThread, WholeThread or Article items."""

    pages: int = 0
    #: (site, board) → its counts.
    boards: dict[tuple[str, str], BoardCount] = field(default_factory=dict)
    #: (site, board, title) → the thread; a thread's pages share site, board and title.
    threads: dict[tuple[str, str, str], ThreadCount] = field(default_factory=dict)
    posts_by_day: Counter[str] = field(default_factory=Counter)
    #: (site, author) → posts: one name on two sites is two people.
    authors: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: (site, method) → pages.
    methods: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Items (``page/<field>``) and posts (``post/<field>``) with that field empty.
    missing: Counter[str] = field(default_factory=Counter)
    #: A few URLs of the pages behind each count of :attr:`missing`.
    miss_examples: dict[str, list[str]] = field(default_factory=dict)
    languages: Counter[str] = field(default_factory=Counter)

    @property
    def posts(self) -> int:
        return sum(b.posts for b in self.boards.values())

    @property
    def sites(self) -> list[str]:
        """The sites, most posts first."""
        posts: Counter[str] = Counter()
        for (site, _), board in self.boards.items():
            posts[site] += board.posts
        return sorted(posts, key=lambda s: (-posts[s], s))

    def boards_of(self, site: str) -> list[tuple[str, BoardCount]]:
        """A site's boards, most posts first."""
        mine = [(board, count) for (s, board), count in self.boards.items() if s == site]
        return sorted(mine, key=lambda bc: (-bc[1].posts, bc[0]))


@dataclass
class CrawlStats:
    """What the crawl itself counted (its stats file), beyond what the feed holds."""

    start: str = ""
    finish: str = ""
    reason: str = ""
    requests: int = 0
    responses: int = 0
    #: Failed downloads (no answer, or HTTP 4xx/5xx) and pages extraction failed on.
    failures: Counter[str] = field(default_factory=Counter)


def summarize(items: Iterable[Mapping[str, Any]]) -> FeedSummary:
    """Count a feed; an article (no ``posts``) counts as one post by its author, a whole-thread
    record (``FORUMCRAWL_ITEM=thread``: ``page_urls``, no text of its own) as its pages."""
    summary = FeedSummary()
    for item in items:
        whole = "page_urls" in item
        pages = (len(item.get("page_urls") or []) or 1) if whole else 1
        site = str(item.get("site") or "(no site)")
        board_name = str(item.get("board") or NO_BOARD)
        url = str(item.get("url") or "")
        summary.pages += pages
        board = summary.boards.setdefault((site, board_name), BoardCount())
        board.pages += pages
        key = (site, board_name, str(item.get("title") or ""))
        if key not in summary.threads:
            summary.threads[key] = ThreadCount(url=str(item.get("thread_url") or url))
            board.threads += 1
        thread = summary.threads[key]
        thread.pages += pages
        summary.methods[site, str(item.get("method") or ("(whole thread)" if whole else "(none)"))] += 1
        if item.get("language"):
            summary.languages[str(item["language"])] += 1
        for name in ("title", "author", "published") + (() if whole else ("text",)):
            if not item.get(name):
                _miss(summary, f"page/{name}", url)
        posts = item.get("posts")
        if posts is None:
            posts = [{"author": item.get("author"), "published": item.get("published")}]
        for post in posts:
            board.posts += 1
            thread.posts += 1
            if post.get("author"):
                summary.authors[site, str(post["author"])] += 1
            else:
                _miss(summary, "post/author", url)
            if post.get("published"):
                day = str(post["published"])[:10]
                summary.posts_by_day[day] += 1
                board.last_post = max(board.last_post, day)
            else:
                _miss(summary, "post/published", url)
    return summary


def _miss(summary: FeedSummary, what: str, url: str) -> None:
    summary.missing[what] += 1
    examples = summary.miss_examples.setdefault(what, [])
    if url and len(examples) < MISS_EXAMPLES and url not in examples:
        examples.append(url)


def read_stats(path: Path) -> CrawlStats:
    """The crawl facts of a stats file (``FORUMCRAWL_STATS_FILE``: Scrapy's stats as JSON)."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a stats file ({exc.msg})") from None
    if not isinstance(data, dict):  # bad content, as above: the command reports either in one line
        raise ValueError(f"{path}: not a stats file (expected a JSON object)")  # noqa: TRY004
    failures: Counter[str] = Counter()
    for name, value in data.items():
        if name.startswith("downloader/exception_type_count/"):
            kind = name.rsplit(".", 1)[-1]
            if kind != "IgnoreRequest":  # the crawl's own choice not to fetch, not a failure
                failures[kind] += int(value)
        elif name.startswith("downloader/response_status_count/") and name[-3:].isdigit():
            if int(name[-3:]) >= 400:
                failures[f"HTTP {name[-3:]}"] += int(value)
        elif name.startswith("forumcrawl/extract/error/"):
            failures[f"extraction failed ({name.rsplit('/', 1)[1]})"] += int(value)
    return CrawlStats(
        start=str(data.get("start_time") or "")[:19], finish=str(data.get("finish_time") or "")[:19],
        reason=str(data.get("finish_reason") or ""),
        requests=int(data.get("downloader/request_count") or 0),
        responses=int(data.get("response_received_count") or 0), failures=failures,
    )


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _link(url: str, text: str | None = None) -> str:
    label = _esc(text if text is not None else url)
    if not url.startswith(("http://", "https://")):
        return label
    return f'<a href="{_esc(url)}">{label}</a>'


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]], numeric: int = 0, cls: str = "") -> str:
    """A table of already escaped cells; the last ``numeric`` columns align right."""
    first = len(header) - numeric
    def cell(tag: str, i: int, value: str) -> str:
        return f'<{tag} class="n">{value}</{tag}>' if i >= first else f"<{tag}>{value}</{tag}>"
    head = "".join(cell("th", i, _esc(h)) for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _bar(value: int, top: int) -> str:
    """A number with a bar of its share of ``top`` behind it (one cell, no second chart)."""
    share = 100 * value / top if top else 0
    return f'<span class="bar" style="width:{share:.1f}%"></span><span class="v">{value:,}</span>'


def _activity(summary: FeedSummary) -> str:
    """Posts over time as an SVG column chart: by day, or by month over a long span."""
    days = sorted(d for d in summary.posts_by_day if _is_day(d))
    if not days:
        return "<p>No post in the feed has a date.</p>"
    first, last = date.fromisoformat(days[0]), date.fromisoformat(days[-1])
    by_month = (last - first).days > MAX_DAYS
    counts: Counter[str] = Counter()
    for day, n in summary.posts_by_day.items():
        if _is_day(day):
            counts[day[:7] if by_month else day] += n
    keys = _span(first, last, by_month)
    top = max(counts.values())
    width, height, pad = 1000, 180, 24
    step = width / len(keys)
    bars = []
    for i, key in enumerate(keys):
        n = counts.get(key, 0)
        h = (height - pad) * n / top
        bars.append(f'<rect x="{i * step:.1f}" y="{height - pad - h:.1f}" width="{max(step - 1, 1):.1f}" '
                    f'height="{h:.1f}"><title>{key}: {n} posts</title></rect>')
    if len(keys) > 2:
        marks = [(keys[0], 0.0, "start"), (keys[len(keys) // 2], width / 2, "middle"), (keys[-1], width, "end")]
    else:
        marks = [(keys[0], 0.0, "start")] + ([(keys[-1], width, "end")] if len(keys) == 2 else [])
    text = "".join(f'<text x="{x}" y="{height - 6}" text-anchor="{a}">{_esc(k)}</text>' for k, x, a in marks)
    unit = "month" if by_month else "day"
    return (f'<p>Posts per {unit}, {_esc(keys[0])} to {_esc(keys[-1])}; the highest {unit}: {top:,} posts.</p>'
            f'<svg class="activity" viewBox="0 0 {width} {height}" preserveAspectRatio="none" role="img" '
            f'aria-label="posts per {unit}">{"".join(bars)}{text}</svg>')


def _is_day(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _span(first: date, last: date, by_month: bool) -> list[str]:
    """Every day (or month) from ``first`` to ``last``, so quiet days show as gaps."""
    if by_month:
        months, (y, m) = [], (first.year, first.month)
        while (y, m) <= (last.year, last.month):
            months.append(f"{y:04d}-{m:02d}")
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        return months
    return [date.fromordinal(n).isoformat() for n in range(first.toordinal(), last.toordinal() + 1)]


def _facts(summary: FeedSummary, stats: CrawlStats | None) -> str:
    """The crawl at a glance: one card per fact, a detail line under some."""
    days = sorted(d for d in summary.posts_by_day if _is_day(d))
    cards = [
        ("sites", f"{len(summary.sites):,}", ""),
        ("threads", f"{len(summary.threads):,}", ""),
        ("thread pages", f"{summary.pages:,}", ""),
        ("posts", f"{summary.posts:,}", f"dated {days[0]} to {days[-1]}" if days else "no dates"),
    ]
    if stats is not None:
        cards += [
            ("crawl", _duration(stats.start, stats.finish), f"{stats.start} to {stats.finish[11:]}"),
            ("requests", f"{stats.requests:,}", f"{stats.responses:,} answered"),
            ("failures", f"{sum(stats.failures.values()):,}",
             ", ".join(f"{k} {n:,}" for k, n in stats.failures.most_common(3))),
        ]
    out = "".join(f'<div class="card"><div class="k">{_esc(k)}</div><div class="v">{_esc(v)}</div>'
                  f'<div class="d">{_esc(d)}</div></div>' for k, v, d in cards)
    note = ""
    if stats is None:
        note = ('<p class="note">Requests, failures and the crawl\'s times come from its stats file: '
                "crawl with <code>-s FORUMCRAWL_STATS_FILE=stats.json</code> and add "
                "<code>--stats stats.json</code>.</p>")
    return f'<section class="facts">{out}</section>{note}'


def _duration(start: str, finish: str) -> str:
    """``1 h 02 min``, ``3 min 20 s`` or ``18 s`` between two ISO times; ``–`` when unknown."""
    try:
        seconds = int((datetime.fromisoformat(finish) - datetime.fromisoformat(start)).total_seconds())
    except ValueError:
        return "–"
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def _boards(summary: FeedSummary) -> str:
    top = max((b.posts for b in summary.boards.values()), default=0)
    rows = []
    for site in summary.sites:
        for board, count in summary.boards_of(site):
            rows.append((_esc(site), _esc(board), _esc(count.last_post or "–"), f"{count.threads:,}",
                         f"{count.pages:,}", _bar(count.posts, top)))
    return _table(("site", "board", "last post", "threads", "pages", "posts"), rows, numeric=3, cls="wide")


def _top_threads(summary: FeedSummary) -> str:
    ranked = sorted(summary.threads.items(), key=lambda kv: (-kv[1].posts, kv[0]))[:TOP_THREADS]
    top = ranked[0][1].posts if ranked else 0
    rows = [(_link(t.url, title or "(no title)"), _esc(site), _esc(board), f"{t.pages:,}", _bar(t.posts, top))
            for (site, board, title), t in ranked]
    return _table(("thread", "site", "board", "pages", "posts"), rows, numeric=2, cls="threads")


def _top_authors(summary: FeedSummary) -> str:
    ranked = summary.authors.most_common(TOP_AUTHORS)
    top = ranked[0][1] if ranked else 0
    rows = [(_esc(author), _esc(site), _bar(n, top)) for (site, author), n in ranked]
    return _table(("author", "site", "posts"), rows, numeric=1)


def _extraction(summary: FeedSummary) -> str:
    """Which stage read the pages, per site, and what it missed with pages to look at."""
    rows = [(_esc(site), _esc(method), f"{n:,}")
            for (site, method), n in sorted(summary.methods.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    methods = _table(("site", "method", "pages"), rows, numeric=1)
    if not summary.missing:
        return methods + "<p>No misses: every page and post has its title, author, date and text.</p>"
    misses = [(_esc(what.replace("page/", "page without ").replace("post/", "post without ")),
               f"{n:,}", " ".join(_link(u) for u in summary.miss_examples.get(what, [])))
              for what, n in sorted(summary.missing.items())]
    return methods + _table(("missed", "count", "example pages"), misses, numeric=0, cls="misses")


STYLE = f"""
*{{box-sizing:border-box}}
body{{font:15px/1.45 {FONT_STACK};margin:0;padding:24px 32px;color:#1d2329;background:#f6f7f9}}
h1{{font-size:24px;margin:0 0 4px}} h2{{font-size:18px;margin:28px 0 10px}}
.sub{{color:#5b6570;margin:0 0 18px}}
.facts{{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px}}
.card{{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:10px 14px}}
.card .k{{color:#5b6570;font-size:13px}} .card .v{{font-size:22px;font-weight:600;white-space:nowrap}}
.card .d{{color:#5b6570;font-size:12px}}
.note{{color:#5b6570;font-size:13px}}
.grid{{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:24px}}
table{{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dde1e6}}
th,td{{padding:5px 10px;border-bottom:1px solid #eceff2;text-align:left;vertical-align:top}}
th{{background:#eef1f4;font-weight:600;font-size:13px}}
td.n,th.n{{text-align:right;white-space:nowrap;position:relative;min-width:110px}}
td.n .bar{{position:absolute;left:0;bottom:2px;height:5px;background:#4a7ab5;opacity:.55;border-radius:2px}}
table.threads td:first-child{{width:50%}}
td.n .v{{position:relative}}
.misses td:last-child a{{display:block;overflow-wrap:anywhere}}
a{{color:#1f5fa8;text-decoration:none}} a:hover{{text-decoration:underline}}
svg.activity{{width:100%;height:180px;background:#fff;border:1px solid #dde1e6}}
svg.activity rect{{fill:#4a7ab5}} svg.activity text{{font:12px {FONT_STACK};fill:#5b6570}}
code{{background:#eef1f4;padding:0 4px;border-radius:3px}}
"""


def render_html(summary: FeedSummary, title: str, stats: CrawlStats | None = None) -> str:
    """The report as one full-width HTML page with no external resources."""
    language = summary.languages.most_common(1)[0][0] if summary.languages else "en"
    sections = [
        f"<h1>{_esc(title)}</h1>",
        (f'<p class="sub" id="totals">{len(summary.threads)} threads, {summary.pages} pages, '
         f"{summary.posts} posts on {_plural(len(summary.sites), 'site')}</p>"),
        _facts(summary, stats),
        "<h2>Sites and boards</h2>", _boards(summary),
        "<h2>Activity</h2>", _activity(summary),
        '<div class="grid"><div><h2>Top threads</h2>', _top_threads(summary), "</div>",
        "<div><h2>Top authors</h2>", _top_authors(summary), "</div></div>",
        "<h2>Extraction</h2>", _extraction(summary),
    ]
    return (
        f'<!DOCTYPE html><html lang="{_esc(language)}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{STYLE}</style></head>"
        f"<body>{''.join(sections)}</body></html>\n"
    )
