"""A generated news site or blog, varying along dimensions taken from real publishing software.

Each dimension is drawn from the seed independently unless given (:class:`NewsPlan`):

- ``shape``, the article URLs: ``date`` (``/2024/05/01/slug/``), ``flat`` (``/slug.html``, slugs
  with digits such as ``sudo-2.html``), ``id`` (``/news/12345``), ``query`` (``/?p=123``) and the
  Chinese portals' ``people`` (``/n1/2024/0501/c1001-40227563.html``), ``cn_a``
  (``/a/20240501/12345.htm``), ``cn_content`` (``…/content_12345678.htm``) and ``paper``
  (``/html/2024-05/01/nw.D110000renmrb_20240501_1-01.htm``); the portals are in Chinese.
- ``pager``: listing pages as ``page/N/``, ``indexN.html``, ``?paged=N`` or ``index_N.html``;
  listings of categories, and optionally tags, authors and month archives, each paged.
- ``hidden``: machine-readable marks (JSON-LD ``NewsArticle``/``BlogPosting``, possibly in an
  ``@graph``; OpenGraph with ``article:*``; ``<meta name=author>``; ``itemprop``) and ``visible``:
  the shown byline (``<time datetime>`` with ``rel=author``, an hCard ``address.vcard.author``
  with ``abbr.published[title]``, or plain "by" text with a written date).
- ``canonical`` (declared ``rel=canonical``), ``comments`` (with ``?replytocom=`` reply links),
  ``sitemap`` (none, robots.txt ``Sitemap:`` with an index and a gzip url set, a plain
  ``/sitemap.xml``, or a news sitemap), ``feed`` (none, RSS or Atom announced in the head).

Pages are rendered on request; :meth:`NewsSite.truth` gives every article (canonical URL, title,
author, time, body, comments), every listing and the other pages, under a server's base URL.
"""

from __future__ import annotations

import gzip
import html
import json
import random
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from forumcrawl.mockforum.site import Response, request_target
from forumcrawl.mocknews.text import NewsWriter, slugify

__all__ = ["SHAPES", "ArticleTruth", "NewsPlan", "NewsSite", "NewsTruth"]

#: Article URL shapes; the last four are Chinese portals'.
SHAPES = ("date", "flat", "id", "query", "people", "cn_a", "cn_content", "paper")
_CHINESE = frozenset({"people", "cn_a", "cn_content", "paper"})
PAGERS = ("path", "index", "query", "cn")
HIDDEN = ("jsonld", "graph", "og", "meta", "itemprop")
VISIBLE = ("time", "hcard", "byline")
SITEMAPS = ("none", "robots", "plain", "news")
#: How the article body is marked: hAtom ``.entry-content``, ``itemprop=articleBody``, or not.
BODIES = ("hentry", "articlebody", "none")
#: How listings show their articles: headline teasers with excerpts (blogs) or a list of dated
#: links (portals).
TEASERS = ("heading", "list")
#: How an article shows related articles: a list in a box named so, linked headlines in a box
#: whose name tells nothing, or a long list of title links (a portal's "hot news") in such a box.
RELATED = ("list", "headings", "many")
FEEDS = ("none", "rss", "atom")
_CHANNELS = ("guonei", "shehui", "caijing", "keji", "tiyu", "wenhua")
_START = datetime(2023, 3, 1, tzinfo=timezone.utc)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@dataclass(frozen=True)
class NewsPlan:
    """The dimensions of one site (see the module's docstring)."""

    shape: str
    pager: str
    per_page: int
    hidden: tuple[str, ...]
    visible: str
    canonical: bool
    comments: bool
    sitemap: str
    feed: str
    tags: bool
    authors: bool
    archives: bool
    code: bool
    body: str
    teaser: str
    related: str

    @property
    def lang(self) -> str:
        """``zh`` for the Chinese portals' shapes, else ``en``."""
        return "zh" if self.shape in _CHINESE else "en"

    @classmethod
    def draw(cls, seed: int, **given: object) -> NewsPlan:
        """Each dimension not ``given`` drawn from ``seed``, independently of the others."""
        rng = random.Random(f"mocknews-plan-{seed}")
        drawn = {
            "shape": rng.choice(SHAPES),
            "pager": rng.choice(PAGERS),
            "per_page": rng.randint(5, 12),
            "hidden": tuple(h for h in HIDDEN if rng.random() < 0.35),
            "visible": rng.choice(VISIBLE),
            "canonical": rng.random() < 0.6,
            "comments": rng.random() < 0.5,
            "sitemap": rng.choice(SITEMAPS),
            "feed": rng.choice(FEEDS),
            "tags": rng.random() < 0.6,
            "authors": rng.random() < 0.6,
            "archives": rng.random() < 0.5,
            "code": rng.random() < 0.3,
            "body": rng.choice(BODIES),
            "teaser": rng.choice(TEASERS),
            "related": rng.choice(RELATED),
        }
        unknown = set(given) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown plan dimensions: {', '.join(sorted(unknown))}")
        plan = cls(**{**drawn, **given})  # type: ignore[arg-type]
        for name, allowed in (("shape", SHAPES), ("pager", PAGERS), ("visible", VISIBLE),
                              ("sitemap", SITEMAPS), ("feed", FEEDS), ("body", BODIES),
                              ("teaser", TEASERS), ("related", RELATED)):
            if getattr(plan, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}")
        if plan.lang == "zh" and plan.code:
            plan = replace(plan, code=False)
        return plan


@dataclass(frozen=True)
class CommentTruth:
    """A reader's comment under an article."""

    author: str
    published: str
    text: str


@dataclass(frozen=True)
class ArticleTruth:
    """One article as a crawler should export it."""

    url: str
    title: str
    author: str
    #: ISO 8601 with offset.
    published: str
    #: The body: paragraphs (and the code block) separated by newlines.
    text: str
    comments: tuple[CommentTruth, ...] = ()

    @property
    def date(self) -> str:
        """The publication day, ``YYYY-MM-DD`` (some sites show no time of day)."""
        return self.published[:10]


@dataclass
class NewsTruth:
    """Every article and listing of a site, with absolute URLs."""

    articles: dict[str, ArticleTruth]
    listings: set[str]
    others: set[str]
    plan: NewsPlan


@dataclass
class _Article:
    number: int
    path: str
    title: str
    author: str
    moment: datetime
    paragraphs: list[str]
    code: str | None
    category: str
    tags: list[str]
    comments: list[tuple[int, CommentTruth]] = field(default_factory=list)
    #: Days after publication of the last change (sitemaps' ``lastmod``, ``dateModified``).
    edited: int = 1

    @property
    def modified(self) -> datetime:
        return self.moment + timedelta(days=self.edited)

    @property
    def text(self) -> str:
        parts = list(self.paragraphs)
        if self.code is not None:
            parts.insert(len(parts) // 2, self.code)
        return "\n".join(parts)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


class NewsSite:
    """A deterministic generated news site; pure (no sockets), served by :func:`serve_news`."""

    def __init__(self, seed: int = 0, *, articles: int = 60, **dimensions: object) -> None:
        self.seed = seed
        self.plan = NewsPlan.draw(seed, **dimensions)
        self.family = f"news-{self.plan.shape}"
        self.version = 0
        #: The address the site is served at (see :func:`serve_news`).
        self.base_url = "http://127.0.0.1/"
        rng = random.Random(f"mocknews-{seed}")
        self._rng = rng
        self.writer = NewsWriter(self.plan.lang, rng)
        self.zone = timezone(timedelta(hours=8)) if self.plan.lang == "zh" else timezone.utc
        self.authors = self.writer.names(rng.randint(3, 6))
        self.categories = self.writer.terms(rng.randint(3, 6))
        self.tag_names = self.writer.terms(8) if self.plan.tags else []
        self._slugs: set[str] = set()
        self._titles: set[str] = set()
        self._number = rng.randint(1200, 9000)
        self.articles: list[_Article] = []
        self.routes: dict[str, tuple[str, object]] = {}
        self.listings: dict[str, list[str]] = {}
        self.grow(articles)

    def grow(self, count: int) -> None:
        """Publish ``count`` more articles (after the others), as a site does between crawls."""
        self.articles += self._make_articles(count)
        self.routes, self.listings = {}, {}
        self._route()
        self.version += 1

    def edit(self, index: int, days: int) -> None:
        """Change article ``index`` ``days`` after its publication (its ``lastmod``)."""
        self.articles[index].edited = days
        self.version += 1

    # -- content ---------------------------------------------------------------------------

    def _make_articles(self, count: int) -> list[_Article]:
        rng, writer, plan = self._rng, self.writer, self.plan
        taken, slugs = self._titles, self._slugs
        moment = self.articles[-1].moment if self.articles else _START.astimezone(self.zone)
        made: list[_Article] = []
        number = self._number
        for i in range(len(self.articles), len(self.articles) + count):
            # Several articles a day now and then: a day's permalinks share their date segments.
            moment += timedelta(hours=rng.choice((2, 5, 9, 26, 49, 75)), minutes=rng.randint(0, 59))
            number += rng.randint(1, 40)
            title = writer.title(taken)
            path = self._article_path(i, number, title, moment, slugs)
            code = None
            if plan.code and rng.random() < 0.4:
                code = "$ make deploy\n-----\nok: 3 services restarted"
            article = _Article(
                number=number, path=path, title=title, author=rng.choice(self.authors), moment=moment,
                paragraphs=writer.paragraphs(), code=code, category=rng.choice(self.categories),
                tags=rng.sample(self.tag_names, rng.randint(1, 3)) if self.tag_names else [],
            )
            if plan.comments:
                for c in range(rng.choice((0, 0, 1, 2, 4))):
                    when = moment + timedelta(hours=rng.randint(1, 60), minutes=c)
                    comment = CommentTruth(rng.choice(writer.names(12)), when.isoformat(), writer.comment())
                    article.comments.append((number * 10 + c, comment))
            made.append(article)
        self._number = number
        return made

    def _article_path(self, i: int, number: int, title: str, moment: datetime, slugs: set[str]) -> str:
        shape = self.plan.shape
        if shape in {"date", "flat"}:
            base = slugify(title)
            slug, n = base, 2
            while slug in slugs:
                slug, n = f"{base}-{n}", n + 1
            slugs.add(slug)
            return f"/{moment:%Y/%m/%d}/{slug}/" if shape == "date" else f"/{slug}.html"
        if shape == "id":
            return f"/news/{number}"
        if shape == "query":
            return f"/?p={number}"
        if shape == "people":
            return f"/n1/{moment:%Y}/{moment:%m%d}/c{1001 + i % 5}-{40227000 + number}.html"
        if shape == "cn_a":
            return f"/a/{moment:%Y%m%d}/{number}.htm"
        if shape == "cn_content":
            return f"/{_CHANNELS[i % 3]}/{moment:%Y-%m}/{moment:%d}/content_{6940000 + number}.htm"
        return f"/html/{moment:%Y-%m}/{moment:%d}/nw.D110000renmrb_{moment:%Y%m%d}_{i % 4 + 1}-{i % 8 + 1:02d}.htm"

    # -- URLs --------------------------------------------------------------------------------

    def _page_path(self, base: str, n: int) -> str:
        if n == 1:
            return base
        pager = self.plan.pager
        if pager == "path":
            return f"{base}page/{n}/"
        if pager == "index":
            return f"{base}index{n}.html"
        if pager == "cn":
            return f"{base}index_{n}.html"
        return f"{base}{'&' if '?' in base else '?'}paged={n}"

    def _listing_bases(self) -> dict[str, list[_Article]]:
        zh = self.plan.lang == "zh"
        newest = sorted(self.articles, key=lambda a: a.moment, reverse=True)
        bases: dict[str, list[_Article]] = {"/": newest}
        for k, name in enumerate(self.categories):
            path = f"/{_CHANNELS[k]}/" if zh else f"/category/{slugify(name)}/"
            bases[path] = [a for a in newest if a.category == name]
        for name in self.tag_names:
            bases[f"/tag/{slugify(name) or self.tag_names.index(name)}/"] = [a for a in newest if name in a.tags]
        if self.plan.authors:
            for k, name in enumerate(self.authors):
                bases[f"/author/{slugify(name) or f'u{k}'}/"] = [a for a in newest if a.author == name]
        if self.plan.archives:
            for article in newest:
                bases.setdefault(f"/{article.moment:%Y/%m}/", []).append(article)
        return {base: items for base, items in bases.items() if items}

    def _route(self) -> None:
        for article in self.articles:
            self.routes[article.path] = ("article", article)
        per = self.plan.per_page
        for base, items in self._listing_bases().items():
            pages = [items[i:i + per] for i in range(0, len(items), per)]
            for n, chunk in enumerate(pages, 1):
                path = self._page_path(base, n)
                self.routes[path] = ("listing", (base, n, len(pages), chunk))
                self.listings.setdefault(base, []).append(path)
        self.routes["/about.html" if self.plan.shape == "flat" else "/about/"] = ("about", None)
        self.routes["/robots.txt"] = ("robots", None)
        sitemap, feed = self.plan.sitemap, self.plan.feed
        if sitemap == "robots":
            self.routes["/sitemap_index.xml"] = ("sitemap_index", None)
            self.routes["/post-sitemap.xml.gz"] = ("urlset_gz", None)
            self.routes["/category-sitemap.xml"] = ("category_sitemap", None)
        elif sitemap == "plain":
            self.routes["/sitemap.xml"] = ("urlset", None)
        elif sitemap == "news":
            self.routes["/news-sitemap.xml"] = ("news_sitemap", None)
        if feed != "none":
            self.routes[self.feed_path] = (feed, None)

    @property
    def feed_path(self) -> str:
        """Where the feed is served (when the plan has one)."""
        return "/feed/" if self.plan.feed == "rss" else "/atom.xml"

    def truth(self, base_url: str) -> NewsTruth:
        """The site's truth with absolute URLs under ``base_url``."""
        articles = {}
        for a in self.articles:
            url = urljoin(base_url, a.path)
            articles[url] = ArticleTruth(url, a.title, a.author, a.moment.isoformat(), a.text,
                                         tuple(c for _, c in a.comments))
        listings = {urljoin(base_url, path) for pages in self.listings.values() for path in pages}
        others = {urljoin(base_url, p) for p, (kind, _) in self.routes.items() if kind not in {"article", "listing"}}
        return NewsTruth(articles, listings, others, self.plan)

    # -- rendering ---------------------------------------------------------------------------

    def render(self, raw_target: str) -> Response:
        """The response to a request target (``/path?query``)."""
        target = request_target(raw_target)
        parts = urlsplit(target)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "replytocom"]
        key = parts.path + (f"?{urlencode(query)}" if query else "")
        route = self.routes.get(key)
        if route is None:
            return Response(404, {"Content-Type": "text/html; charset=utf-8"},
                            b"<html><body><h1>Not found</h1></body></html>")
        kind, payload = route
        if kind == "article":
            assert isinstance(payload, _Article)
            return self._html(self._article_page(payload))
        if kind == "listing":
            return self._html(self._listing_page(*payload))  # type: ignore[misc]
        if kind == "about":
            return self._html(self._layout("About", self._about(), og_type="website"))
        if kind == "robots":
            lines = ["User-agent: *", "Disallow: /wp-admin/", ""]
            if self.plan.sitemap in {"robots", "news"}:
                name = "sitemap_index.xml" if self.plan.sitemap == "robots" else "news-sitemap.xml"
                lines.append(f"Sitemap: {self._absolute(name)}")
            return Response(200, {"Content-Type": "text/plain"}, "\n".join(lines).encode())
        if kind == "urlset_gz":
            return Response(200, {"Content-Type": "application/x-gzip"},
                            gzip.compress(self._urlset(self.articles).encode(), mtime=0))
        body = {
            "sitemap_index": self._sitemap_index,
            "urlset": lambda: self._urlset(self.articles, listings=True),
            "category_sitemap": self._category_sitemap,
            "news_sitemap": self._news_sitemap,
            "rss": self._rss,
            "atom": self._atom,
        }[kind]()
        media = {"rss": "application/rss+xml", "atom": "application/atom+xml"}.get(kind, "application/xml")
        return Response(200, {"Content-Type": f"{media}; charset=utf-8"}, body.encode())

    def _absolute(self, path: str) -> str:
        # Sitemaps, robots.txt and feeds hold absolute URLs: under base_url, set by the server.
        return urljoin(self.base_url, path)

    def _html(self, page: str) -> Response:
        return Response(200, {"Content-Type": "text/html; charset=utf-8"}, page.encode("utf-8"))

    def _fmt_date(self, moment: datetime) -> str:
        if self.plan.lang == "zh":
            return f"{moment:%Y年%m月%d日 %H:%M}"
        return f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year}"

    def _layout(self, title: str, main: str, *, head: str = "", og_type: str = "website") -> str:
        plan, zh = self.plan, self.plan.lang == "zh"
        site_name = "新闻网" if zh else "The Valley Courier"
        newest = sorted(self.articles, key=lambda a: a.moment, reverse=True)
        cats = "".join(f'<li><a href="{_esc(base)}">{_esc(name)}</a></li>'
                       for base, name in zip(self._category_bases(), self.categories))
        recent = "".join(f'<li><a href="{_esc(a.path)}">{_esc(a.title)}</a></li>' for a in newest[:5])
        aside = [f'<section class="widget"><h2 class="widget-title">{"最新" if zh else "Recent Posts"}</h2><ul>{recent}</ul></section>',
                 f'<section class="widget"><h2 class="widget-title">{"频道" if zh else "Categories"}</h2><ul>{cats}</ul></section>']
        if plan.archives:
            months = sorted({a.moment.strftime("%Y/%m") for a in self.articles}, reverse=True)
            aside.append('<section class="widget"><h2 class="widget-title">Archives</h2><ul>'
                         + "".join(f'<li><a href="/{m}/">{m}</a></li>' for m in months) + "</ul></section>")
        if self.tag_names:
            aside.append('<section class="widget tagcloud">' + " ".join(
                f'<a href="/tag/{slugify(t) or self.tag_names.index(t)}/">{_esc(t)}</a>' for t in self.tag_names) + "</section>")
        feed = ""
        if plan.feed != "none":
            media = "application/rss+xml" if plan.feed == "rss" else "application/atom+xml"
            feed = f'<link rel="alternate" type="{media}" title="{site_name} feed" href="{self.feed_path}">'
        about = "/about.html" if plan.shape == "flat" else "/about/"
        return (
            f'<!DOCTYPE html><html lang="{plan.lang}"><head><meta charset="utf-8"><title>{_esc(title)} | {site_name}</title>'
            + (f'<meta property="og:site_name" content="{site_name}"><meta property="og:type" content="{og_type}">'
               if "og" in plan.hidden else "")
            + f"{feed}{head}</head><body>"
            f'<header class="site-header"><a class="site-title" href="/">{site_name}</a>'
            f'<nav class="main-nav"><ul><li><a href="/">{"首页" if zh else "Home"}</a></li>{cats}'
            f'<li><a href="{about}">{"关于我们" if zh else "About"}</a></li></ul></nav></header>'
            f'<div class="cookie-consent" role="dialog"><p>{"本站使用Cookie以改善体验。" if zh else "We use cookies to improve your experience on our site."}</p>'
            f'<button>{"同意" if zh else "Accept"}</button></div>'
            f'<div class="wrap"><main id="main">{main}</main><aside id="secondary">{"".join(aside)}</aside></div>'
            f'<footer class="site-footer"><p>© 2024 {site_name}. {"版权所有" if zh else "All rights reserved."}</p></footer>'
            "</body></html>"
        )

    def _category_bases(self) -> list[str]:
        zh = self.plan.lang == "zh"
        return [f"/{_CHANNELS[k]}/" if zh else f"/category/{slugify(n)}/" for k, n in enumerate(self.categories)]

    def _author_link(self, name: str) -> str:
        if self.plan.authors:
            return f"/author/{slugify(name) or f'u{self.authors.index(name)}'}/"
        return "/about/" if self.plan.shape != "flat" else "/about.html"

    def _byline(self, a: _Article) -> str:
        visible, zh = self.plan.visible, self.plan.lang == "zh"
        shown = self._fmt_date(a.moment)
        if visible == "time":
            return (f'<span class="posted-on">{"发布于" if zh else "Posted on"} <time class="entry-date published" '
                    f'datetime="{a.moment.isoformat()}">{shown}</time></span> <span class="byline">{"作者" if zh else "by"} '
                    f'<span class="author vcard"><a class="url fn n" rel="author" href="{self._author_link(a.author)}">'
                    f"{_esc(a.author)}</a></span></span>")
        if visible == "hcard":
            return (f'<abbr class="published" title="{a.moment.isoformat()}">{_DAYS[a.moment.weekday()]} '
                    f"{a.moment:%d %B %Y}</abbr>"
                    f'<address class="vcard author">{"作者" if zh else "By"} <a class="url fn" href="{self._author_link(a.author)}">'
                    f"{_esc(a.author)}</a></address>")
        if zh:
            return f'<div class="info">{shown} | 来源：新闻网 作者：{_esc(a.author)}</div>'
        return (f'<div class="post-meta"><span class="by">by</span> <span class="name">{_esc(a.author)}</span> '
                f'<span class="sep">·</span> <span class="date">{shown}</span></div>')

    def _hidden(self, a: _Article) -> str:
        hidden, out = self.plan.hidden, []
        kind = "NewsArticle" if self.plan.lang == "zh" or self.plan.shape == "id" else "BlogPosting"
        data = {"@type": kind, "headline": a.title, "datePublished": a.moment.isoformat(),
                "dateModified": a.modified.isoformat(),
                "author": {"@type": "Person", "name": a.author}}
        if "graph" in hidden:
            graph = {"@context": "https://schema.org", "@graph": [
                {"@type": "WebSite", "name": "site"}, {"@type": "WebPage", "name": a.title}, data]}
            out.append(f'<script type="application/ld+json">{json.dumps(graph, ensure_ascii=False)}</script>')
        elif "jsonld" in hidden:
            out.append(f'<script type="application/ld+json">{json.dumps({"@context": "https://schema.org", **data}, ensure_ascii=False)}</script>')
        if "og" in hidden:
            out.append(f'<meta property="og:title" content="{_esc(a.title)}">'
                       f'<meta property="article:published_time" content="{a.moment.isoformat()}">'
                       f'<meta property="article:author" content="{_esc(a.author)}">')
        if "meta" in hidden:
            out.append(f'<meta name="author" content="{_esc(a.author)}">'
                       f'<meta name="publishdate" content="{a.moment:%Y-%m-%d}">')
        return "".join(out)

    def _article_page(self, a: _Article) -> str:
        plan, zh = self.plan, self.plan.lang == "zh"
        i = self.articles.index(a)
        body = [f"<p>{_esc(p)}</p>" for p in a.paragraphs]
        if a.code is not None:
            body.insert(len(body) // 2, f"<pre><code>{_esc(a.code)}</code></pre>")
        item = ""
        if "itemprop" in plan.hidden:
            item = (f'<meta itemprop="datePublished" content="{a.moment.isoformat()}">'
                    f'<span itemprop="author" itemscope itemtype="https://schema.org/Person">'
                    f'<meta itemprop="name" content="{_esc(a.author)}"></span>')
        cat_base = self._category_bases()[self.categories.index(a.category)]
        tags = " ".join(f'<a href="/tag/{slugify(t) or self.tag_names.index(t)}/" rel="tag">{_esc(t)}</a>' for t in a.tags)
        footer = (f'<footer class="entry-footer"><span class="cat-links">{"分类" if zh else "Posted in"} '
                  f'<a href="{cat_base}">{_esc(a.category)}</a></span>'
                  + (f' <span class="tags-links">{"标签" if zh else "Tags:"} {tags}</span>' if tags else "") + "</footer>")
        nav = []
        if i > 0:
            nav.append(f'<a rel="prev" href="{_esc(self.articles[i - 1].path)}">← {_esc(self.articles[i - 1].title)}</a>')
        if i + 1 < len(self.articles):
            nav.append(f'<a rel="next" href="{_esc(self.articles[i + 1].path)}">{_esc(self.articles[i + 1].title)} →</a>')
        related = [r for r in self.articles if r.category == a.category and r is not a][:3]
        if plan.related == "many":
            related = [r for r in reversed(self.articles) if r is not a][:10]
        if plan.body == "none":
            article = (f'<div class="article">{item}<h1>{_esc(a.title)}</h1>{self._byline(a)}'
                       f'<div class="content" id="text">{"".join(body)}</div>{footer}</div>')
        else:
            mark = ' itemprop="articleBody"' if plan.body == "articlebody" else ' class="entry-content"'
            article = (f'<article class="post hentry" itemscope itemtype="https://schema.org/Article">{item}'
                       f'<header class="entry-header"><h1 class="entry-title">{_esc(a.title)}</h1>'
                       f'<div class="entry-meta">{self._byline(a)}</div></header>'
                       f'<div{mark}>{"".join(body)}</div>{footer}</article>')
        main = (
            f"{article}"
            f'<div class="share-bar">{"分享到" if zh else "Share:"} <a href="https://twitter.example/share">Twitter</a> '
            f'<a href="https://facebook.example/share">Facebook</a> <a href="mailto:?subject=x">Email</a></div>'
            f'<nav class="post-navigation">{" ".join(nav)}</nav>'
            f"{self._related(related)}"
            f"{self._comments(a)}"
        )
        head = self._hidden(a)
        if plan.canonical:
            head += f'<link rel="canonical" href="{_esc(a.path)}">'
        return self._layout(a.title, main, head=head, og_type="article")

    def _related(self, related: list[_Article]) -> str:
        zh = self.plan.lang == "zh"
        if self.plan.related == "many":
            return '<div class="box"><ul>' + "".join(
                f'<li><a href="{_esc(r.path)}">{_esc(r.title)}</a></li>' for r in related) + "</ul></div>"
        if self.plan.related == "headings":
            return '<div class="box">' + "".join(
                f'<div class="item"><h3><a href="{_esc(r.path)}">{_esc(r.title)}</a></h3><p>{_esc(r.paragraphs[0][:80])}…</p></div>'
                for r in related) + "</div>"
        rel = "".join(f'<li><a href="{_esc(r.path)}">{_esc(r.title)}</a><p>{_esc(r.paragraphs[0][:80])}…</p></li>'
                      for r in related)
        return f'<section class="related-posts"><h3>{"相关新闻" if zh else "Related"}</h3><ul>{rel}</ul></section>'

    def _comments(self, a: _Article) -> str:
        if not self.plan.comments:
            return ""
        zh = self.plan.lang == "zh"
        sep = "&amp;" if "?" in a.path else "?"
        items = "".join(
            f'<li class="comment" id="comment-{cid}"><article class="comment-body"><footer class="comment-meta">'
            f'<div class="comment-author vcard"><b class="fn">{_esc(c.author)}</b> <span class="says">says:</span></div>'
            f'<div class="comment-metadata"><time datetime="{c.published}">{self._fmt_date(datetime.fromisoformat(c.published))}</time></div>'
            f'</footer><div class="comment-content"><p>{_esc(c.text)}</p></div>'
            f'<div class="reply"><a class="comment-reply-link" href="{_esc(a.path)}{sep}replytocom={cid}#respond">{"回复" if zh else "Reply"}</a></div>'
            "</article></li>"
            for cid, c in a.comments
        )
        count = f"{len(a.comments)} 条评论" if zh else f"{len(a.comments)} Responses"
        return (f'<section id="comments" class="comments-area"><h2 class="comments-title">{count}</h2>'
                f'<ol class="comment-list">{items}</ol><div id="respond"><h3>{"发表评论" if zh else "Leave a Reply"}</h3>'
                f'<form id="commentform" method="post" action="/wp-comments-post.php"><textarea name="comment"></textarea>'
                f'<button>{"提交" if zh else "Post Comment"}</button></form></div></section>')

    def _listing_page(self, base: str, n: int, pages: int, chunk: list[_Article]) -> str:
        zh = self.plan.lang == "zh"
        if self.plan.teaser == "list":
            teasers = '<ul class="list">' + "".join(
                f'<li><a href="{_esc(a.path)}">{_esc(a.title)}</a> <span class="date">{self._fmt_date(a.moment)}</span></li>'
                for a in chunk) + "</ul>"
        else:
            teasers = self._teasers(chunk)
        flips = [f'<a class="page-numbers" href="{_esc(self._page_path(base, k))}">{k}</a>' if k != n
                 else f'<span class="page-numbers current">{k}</span>' for k in range(1, pages + 1)]
        if n < pages:
            flips.append(f'<a class="next page-numbers" href="{_esc(self._page_path(base, n + 1))}">{"下一页" if zh else "Older posts"} »</a>')
        head = f'<link rel="next" href="{_esc(self._page_path(base, n + 1))}">' if n < pages else ""
        heading = "" if base == "/" else f'<h1 class="page-title">{_esc(base.strip("/").split("/")[-1])}</h1>'
        title = heading and base.strip("/") or ("首页" if zh else "Home")
        return self._layout(title, f'{heading}{teasers}<nav class="pagination">{" ".join(flips)}</nav>', head=head)

    def _teasers(self, chunk: list[_Article]) -> str:
        zh = self.plan.lang == "zh"
        return "".join(
            f'<article class="post hentry"><h2 class="entry-title"><a href="{_esc(a.path)}" rel="bookmark">{_esc(a.title)}</a></h2>'
            f'<div class="entry-meta">{self._byline(a)}</div><div class="entry-summary"><p>{_esc(a.paragraphs[0][:160])}…</p></div>'
            f'<a class="more-link" href="{_esc(a.path)}">{"阅读全文" if zh else "Continue reading"}</a></article>'
            for a in chunk
        )

    def _about(self) -> str:
        if self.plan.lang == "zh":
            return "<h1>关于我们</h1><p>新闻网创办于二〇一〇年，报道本地新闻。</p><p>联系我们：编辑部。</p>"
        return ("<h1>About</h1><p>The Valley Courier has covered local news since 2010.</p>"
                "<p>Write to the newsroom with tips and corrections.</p>")

    # -- sitemaps and feeds ------------------------------------------------------------------

    def _urlset(self, articles: list[_Article], *, listings: bool = False) -> str:
        urls = [(self._absolute(a.path), a.modified.isoformat()) for a in articles]
        if listings:
            urls += [(self._absolute(base), None) for base in self.listings]
        body = "".join(f"<url><loc>{_esc(loc)}</loc>" + (f"<lastmod>{mod}</lastmod>" if mod else "") + "</url>"
                       for loc, mod in urls)
        return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'

    def _category_sitemap(self) -> str:
        body = "".join(f"<url><loc>{_esc(self._absolute(b))}</loc></url>" for b in self._category_bases())
        return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'

    def _sitemap_index(self) -> str:
        maps = "".join(f"<sitemap><loc>{self._absolute(p)}</loc></sitemap>"
                       for p in ("post-sitemap.xml.gz", "category-sitemap.xml"))
        return f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{maps}</sitemapindex>'

    def _news_sitemap(self) -> str:
        body = "".join(
            f"<url><loc>{_esc(self._absolute(a.path))}</loc><news:news><news:publication><news:name>News</news:name>"
            f"<news:language>{self.plan.lang}</news:language></news:publication>"
            f"<news:publication_date>{a.moment.isoformat()}</news:publication_date><news:title>{_esc(a.title)}</news:title>"
            "</news:news></url>" for a in self.articles)
        return ('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
                f'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">{body}</urlset>')

    def _latest(self) -> list[_Article]:
        return sorted(self.articles, key=lambda a: a.moment, reverse=True)[:10]

    def _rss(self) -> str:
        items = "".join(
            f"<item><title>{_esc(a.title)}</title><link>{_esc(self._absolute(a.path))}</link>"
            f"<pubDate>{a.moment:%a, %d %b %Y %H:%M:%S %z}</pubDate><description>{_esc(a.paragraphs[0])}</description></item>"
            for a in self._latest())
        return f'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>News</title><link>{self._absolute("")}</link>{items}</channel></rss>'

    def _atom(self) -> str:
        entries = "".join(
            f'<entry><title>{_esc(a.title)}</title><link href="{_esc(self._absolute(a.path))}"/><id>{_esc(self._absolute(a.path))}</id>'
            f"<published>{a.moment.isoformat()}</published><updated>{a.moment.isoformat()}</updated></entry>"
            for a in self._latest())
        return f'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>News</title>{entries}</feed>'
