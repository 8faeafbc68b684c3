"""The ``qa`` family: the ``modern`` theme's threads as a question site lists them (askbot).

What it puts in a crawler's way: one listing of every question in eight sort orders (activity,
age, answers and views, each descending and ascending), each order's pages at
``/questions/scope:all/sort:<order>/page:<n>/``, so every order's pages share one URL pattern;
every listing page links the first page of every order; pagers show a window of pages around
the current one (``1 … 4 5 6 7 8 … 10``), so a listing's later pages are linked only from its
nearer pages, one window at a time. Most pages of the sorted orders repeat questions the crawl
already knows, while the default order's later pages are the only listing of some questions:
a budget pooled over the pattern closes on the sorted orders' repeats before the default
order's pager reaches them. Questions have no boards (the board is a tag shown as text), and
profiles list no posts; everything else is ``modern``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forumcrawl.mockforum.family import Page, attr, chunks, text
from forumcrawl.mockforum.modern import SITE_NAME, Modern
from forumcrawl.mockforum.plan import Board, Thread, User

__all__ = ["QA"]

#: The sort orders, as the tabs name them, and what each sorts by (largest first for ``desc``).
SORTS: tuple[tuple[str, str, Callable[[Thread], Any]], ...] = tuple(
    (f"{field}-{direction}", label, key)
    for field, label, key in (
        ("activity", "活跃", lambda t: (t.last.time, t.tid)),
        ("age", "最新", lambda t: (t.posts[0].time, t.tid)),
        ("answers", "回答", lambda t: (len(t.posts), t.tid)),
        ("views", "浏览", lambda t: (t.views, t.tid)),
    )
    for direction in ("desc", "asc")
)
#: The default order (the plain ``/questions/`` is its first page).
DEFAULT = "activity-desc"
#: Pages a pager shows on each side of the current one.
WINDOW = 2


class QA(Modern):
    """A question site in the ``modern`` theme, listed in sort orders that share a URL pattern."""

    name = "qa"
    presets = {"default": {"boards": 4, "threads_per_board": 12},
               "small": {"boards": 2, "threads_per_board": 6}}

    QUESTIONS = "/questions/"

    # -- links ------------------------------------------------------------------------------------

    def listing_href(self, sort: str, page: int) -> str:
        """A page of the listing in ``sort`` order (``/questions/`` for the default's first)."""
        if sort == DEFAULT and page == 1:
            return self.QUESTIONS
        return f"{self.QUESTIONS}scope:all/sort:{sort}/page:{page}/"

    def listed_in(self, sort: str) -> list[list[Thread]]:
        """The listing's pages in ``sort`` order."""
        key = next(k for name, _, k in SORTS if name == sort)
        threads = sorted(self.plan.threads.values(), key=key, reverse=sort.endswith("-desc"))
        return chunks(threads, self.plan.threads_per_list_page)

    def board_href(self, board: Board, page: int, listing: Any = None, *, first: bool = False) -> str:
        """No boards: the listing stands for them (breadcrumbs, a thread's board badge)."""
        return self.QUESTIONS

    # -- routes -----------------------------------------------------------------------------------

    def register_listings(self) -> None:
        """Every sort order's listing pages (the default's first page also as ``page:1``)."""
        for sort, _, _ in SORTS:
            for n in range(1, len(self.listed_in(sort)) + 1):
                self.add_page(self.listing_href(sort, n), lambda s=sort, n=n: self.listing(s, n))
        self.add_alias(f"{self.QUESTIONS}scope:all/sort:{DEFAULT}/page:1/", self.QUESTIONS)

    def register_feeds(self) -> None:
        """None: the question list links no board feed."""

    def register_post_lists(self) -> None:
        """Profiles list no posts: the listings are the only way to the questions."""

    # -- pages ------------------------------------------------------------------------------------

    def window_pager(self, sort: str, page: int, pages: int) -> str:
        """askbot's pager: the first and last pages, :data:`WINDOW` pages on each side of the
        current one, gaps as "…", and a "next" link."""
        if pages < 2:
            return ""
        shown = sorted({1, pages, *range(max(1, page - WINDOW), min(pages, page + WINDOW) + 1)})
        items, last = [], 0
        for n in shown:
            if n > last + 1:
                items.append('<li class="page-item disabled"><span class="page-link">…</span></li>')
            href = self.listing_href(sort, n) if n > 1 else f"{self.QUESTIONS}scope:all/sort:{sort}/page:1/"
            current = ' aria-current="page"' if n == page else ""
            items.append(f'<li class="page-item{" active" if n == page else ""}"><a class="page-link" '
                         f'href="{attr(href)}"{current}>{n}</a></li>')
            last = n
        if page < pages:
            items.append(f'<li class="page-item"><a class="page-link" href="'
                         f'{attr(self.listing_href(sort, page + 1))}" rel="next">下一页 »</a></li>')
        return '<nav aria-label="分页"><ul class="pagination">' + "".join(items) + "</ul></nav>"

    def _card_last(self, thread: Thread) -> str:
        """askbot's question cards link the question alone: the last answer's time is text."""
        return f'<span class="topic-card__last">{self.timeago(thread.last.time)}</span>'

    def _sidebar(self) -> str:
        plan = self.plan
        return (f'      <section class="card"><h2 class="card-title">统计</h2><p>问题 {len(plan.threads)} '
                f'&middot; 回答 {len(plan.all_posts) - len(plan.threads)} &middot; 会员 {len(plan.users)}'
                f'</p><p>欢迎新会员 {self.avatar(plan.newest_user, 24)}</p></section>')

    def index(self) -> Page:
        """``/``: the five most recently asked questions and the way to all of them."""
        plan = self.plan
        newest = sorted(plan.threads.values(), key=lambda t: (t.posts[0].time, t.tid), reverse=True)
        cards = [self._topic_card(t) for t in newest[:5]]
        cards.insert(2, f'      <li class="topic-card"><div class="topic-card__body"><a class="topic-'
                        f'card__title" href="{attr(self._missing())}">求助：旧版固件下载地址汇总</a></div></li>')
        content = f"""      <h2 class="section-title">最新问题</h2>
      <ul class="topic-list list-unstyled">
{chr(10).join(cards)}
      </ul>
      <a class="btn btn-primary" href="{self.QUESTIONS}">全部问题</a>"""
        return self.page(self.layout(self.INDEX, f"{SITE_NAME} - 首页", content, aside=self._sidebar()))

    def listing(self, sort: str, page: int) -> Page:
        """``/questions/…``: the sort tabs, one page of question cards, the windowed pager."""
        lists = self.listed_in(sort)
        tabs = "".join(
            f'<li class="nav-item"><a class="nav-link{" active" if name == sort else ""}" href="'
            f'{attr(self.listing_href(name, 1))}">'
            f'{label}{"↓" if name.endswith("-desc") else "↑"}</a></li>'
            for name, label, _ in SORTS)
        cards = "\n".join(self._topic_card(t) for t in lists[page - 1])
        content = f"""      <header class="category-header"><h1>全部问题</h1></header>
      <ul class="nav nav-tabs">{tabs}</ul>
      <ul class="topic-list list-unstyled">
{cards}
      </ul>
      {self.window_pager(sort, page, len(lists))}"""
        title = f"全部问题 - {SITE_NAME}" + (f" - 第{page}页" if page > 1 else "")
        return self.page(self.layout(self.listing_href(sort, page), title, content, aside=self._sidebar(),
                                     crumbs=[(self.QUESTIONS, "全部问题")]))

    def _profile_head(self, user: User) -> str:
        return f"""      <header class="profile-header">
        {self.avatar(user, 96)}
        <h1 class="profile-name">{text(user.name)}</h1>
        <p class="text-muted">{text(user.group)} &middot; 加入于 {self.timeago(user.joined)}</p>
      </header>"""
