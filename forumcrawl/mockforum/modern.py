"""The ``modern`` family: a Django-style forum with a JavaScript-first theme, Chinese, UTF-8.

What it puts in a crawler's way: every page links the login page with ``?next=`` its own path,
and the login page does the same, so ``/accounts/login/?next=/accounts/login/%3Fnext%3D…`` nests
without end (the site answers any ``next``; only a crawler can stop); pagers spell page 1 as
``?page=1``; boards have ``?sort=latest`` and ``?sort=top`` views; users have paginated post
lists (``/user/<name>/posts?page=2``) of excerpts with times; slugs and user names are
percent-encoded Chinese. A thread's "收藏" (favourite) link, an action for members, redirects
a visitor to the login page with ``?next=`` the action's path, as askbot's close links do.
Post times are empty ``<span class="timeago" title="<ISO>">`` that a browser's script would
fill, and authors only an avatar's ``alt`` and a ``data-author``.
"""

from __future__ import annotations

from datetime import datetime
from urllib.parse import parse_qsl, quote, urlsplit

from forumcrawl.mockforum.family import Family, Listing, Page, attr, chunks, slugify, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import iso_with_offset

__all__ = ["Modern"]

SITE_NAME = "折腾笔记社区"
#: The site's UTC offset: naive plan times are its local time.
OFFSET = "+08:00"


class Modern(Family):
    """A Django forum app with a single-page-app style theme, served without running scripts."""

    name = "modern"
    lang = "zh"
    encoding = "utf-8"
    wrong_encoding = "gbk"
    disallow = ("/admin/", "/api/", "/topic/*/reply/", "/category/*/publish/")
    presets = {"default": {"boards": 4, "threads_per_board": 12},
               "small": {"boards": 3, "threads_per_board": 4}}

    INDEX = "/"
    LOGIN = "/accounts/login/"
    SIGNUP = "/accounts/signup/"
    SEARCH = "/search/"
    RULES = "/pages/rules/"
    ABOUT = "/pages/about/"
    STATS = "/stats/"
    ADMIN = "/admin/"

    LISTINGS = (
        Listing("sort=latest", "最新发布", key=lambda t: (t.posts[0].time, t.tid)),
        Listing("sort=top", "最多回复", key=lambda t: (len(t.posts), t.tid)),
    )

    # -- links ------------------------------------------------------------------------------------

    @staticmethod
    def paged(base: str, page: int, query: str = "", *, first: bool = False) -> str:
        """``base`` with ``query`` and ``page=N``; page 1 has no ``page`` unless ``first``, as
        the pagers write it (``?page=1``)."""
        parts = [query] if query else []
        if page > 1 or first:
            parts.append(f"page={page}")
        return f"{base}?{'&'.join(parts)}" if parts else base

    @staticmethod
    def board_base(board: Board) -> str:
        """``/category/<id>/<slug>/``."""
        return f"/category/{board.fid}/{quote(slugify(board.theme.name))}/"

    def board_href(self, board: Board, page: int, listing: Listing | None = None,
                   *, first: bool = False) -> str:
        """A list page of a board, in the default order or a ``sort`` view."""
        return self.paged(self.board_base(board), page, listing.query if listing else "",
                          first=first)

    @staticmethod
    def thread_base(thread: Thread) -> str:
        """``/topic/<id>/<slug>/``."""
        return f"/topic/{thread.tid}/{quote(slugify(thread.title))}/"

    def thread_href(self, thread: Thread, page: int) -> str:
        return self.paged(self.thread_base(thread), page)

    @staticmethod
    def user_href(user: User) -> str:
        """``/user/<name>/``, the name percent-encoded."""
        return f"/user/{quote(user.name, safe='')}/"

    def posts_href(self, user: User, page: int) -> str:
        """A page of the user's post list."""
        return self.paged(f"{self.user_href(user)}posts", page)

    def post_pages(self, user: User) -> list[list[tuple[Thread, Post]]]:
        """The pages of a user's post list, newest first."""
        return chunks(self.posts_by(user), self.plan.posts_per_page)

    def login_href(self, current: str) -> str:
        """The login link a page prints: ``next`` is the page's own path and query."""
        return f"{self.LOGIN}?next={quote(current, safe='/')}"

    def post_anchor(self, thread: Thread, post: Post) -> str:
        """A link to a post: its page, and ``#post-<pid>``."""
        return f"{self.thread_href(thread, self.page_of(post))}#post-{post.pid}"

    def _reply(self, thread: Thread, post: Post | None = None) -> str:
        href = f"{self.thread_base(thread)}reply/"
        return f"{href}?quote={post.pid}" if post else href

    def _favorite(self, thread: Thread) -> str:
        return f"{self.thread_base(thread)}favorite/"

    def _publish(self, board: Board) -> str:
        return f"{self.board_base(board)}publish/"

    @staticmethod
    def _feed(board: Board) -> str:
        return f"/feeds/category/{board.fid}/topics.xml"

    @staticmethod
    def _attachment(post: Post) -> str:
        return f"/media/attachments/{post.time:%Y/%m}/IMG_{post.attachment}.png"

    def _missing(self) -> str:
        return f"/topic/{self.plan.missing_tid}/{quote('旧版固件下载')}/"

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return iso_with_offset(moment, OFFSET), moment

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        self.add_page(self.INDEX, self.index)
        for href, render in ((self.SIGNUP, self.signup), (self.SEARCH, self.search)):
            self.add_page(href, render)
        self.add_page(self.LOGIN, lambda: self.login(self.LOGIN))
        self.add_query_alias(self.LOGIN, self.LOGIN, self.login)
        self.register_listings()
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            if self.page_count(thread) > 1:
                self.add_alias(self.paged(self.thread_base(thread), 1, first=True),
                               self.thread_href(thread, 1))
            self.disallowed.add(self._reply(thread))
            for post in thread.posts:
                self.disallowed.add(self._reply(thread, post))
                if post.attachment:
                    self.add_broken(self._attachment(post), "binary",
                                    lambda p=post: self.binary(p.pid))
        self.register_post_lists()
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.RULES, self.rules),
            not_found=self._missing(),
            server_error=self.STATS,
            empty=self.ABOUT,
        )
        served = [h for h, r in self.routes.items() if r.role in ("page", "topic")
                  or r.kind == "truncated"]
        for href in served:
            login = self.login_href(href)
            self.add_alias(login, self.LOGIN, lambda h=login: self.login(h))
        self.register_feeds()
        self.register_actions()

    def register_feeds(self) -> None:
        """Each board's feed; after the login aliases, since a feed links no login page."""
        for board in self.plan.boards:
            self.add_page(self._feed(board), lambda b=board: self.feed(b))

    def register_actions(self) -> None:
        """Each thread's favourite action; after the login aliases, since its redirect names
        its own login URL (answered by the login page's query alias)."""
        for thread in self.plan.threads.values():
            favorite = self._favorite(thread)
            self.add_page(favorite, lambda h=favorite: self.redirect(self.login_href(h)))

    def register_listings(self) -> None:
        """The boards' list pages, in the default order and each sort view."""
        for board in self.plan.boards:
            for listing in (None, *self.LISTINGS):
                for n in range(1, len(self.listed(board, listing)) + 1):
                    self.add_page(self.board_href(board, n, listing),
                                  lambda b=board, n=n, v=listing: self.board(b, n, v))
                pages = len(self.listed(board, listing))
                if pages > 1:
                    self.add_alias(self.board_href(board, 1, listing, first=True),
                                   self.board_href(board, 1, listing))
            self.disallowed.add(self._publish(board))

    def feed(self, board: Board) -> Page:
        """The board's RSS feed, linked from its pages as machina and askbot link theirs: each
        item a topic's first post with its author and time, which read as HTML look like the
        posts of a thread page."""
        items = "".join(
            f"<item><title>{text(t.title)}</title><link>{attr(self.thread_href(t, 1))}</link>"
            f"<dc:creator>{text(t.posts[0].author.name)}</dc:creator>"
            f"<pubDate>{t.posts[0].time:%a, %d %b %Y %H:%M:%S} +0800</pubDate>"
            f"<description>{text(' '.join(t.posts[0].paragraphs))}</description></item>"
            for listed in self.listed(board, None) for t in listed
        )
        body = (
            '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
            'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>'
            f"<title>{text(board.theme.name)} - {SITE_NAME}</title>"
            f"<link>{attr(self.board_href(board, 1))}</link>{items}</channel></rss>"
        )
        return Page(200, body, self.encoding, self.encoding, "application/rss+xml")

    def register_post_lists(self) -> None:
        """Each user's post list pages."""
        for user in self.plan.users:
            for n in range(1, len(self.post_pages(user)) + 1):
                self.add_page(self.posts_href(user, n), lambda u=user, n=n: self.user_posts(u, n))

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, current: str, title: str, content: str, *, aside: str = "",
               crumbs: list[tuple[str, str]] | None = None) -> str:
        """The theme's frame: top bar with search and the login link back to ``current``,
        breadcrumbs, main column, sidebar, footer, and the scripts that fill the times in."""
        trail = "".join(f'<li class="breadcrumb-item"><a href="{attr(h)}">{text(label)}</a></li>'
                        for h, label in crumbs or [])
        side = f'\n    <aside class="col-lg-3 sidebar">\n{aside}\n    </aside>' if aside else ""
        return f"""<!DOCTYPE html>
<html lang="zh-Hans" data-theme="light">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="csrf-token" content="guest">
  <title>{text(title)}</title>
  <link rel="stylesheet" href="/static/css/app.4f2a91c.css">
  <link rel="alternate" type="application/rss+xml" title="{SITE_NAME}" href="/feeds/latest.xml">
  <script defer src="/static/js/vendor.1b8e3d0.js"></script>
  <script defer src="/static/js/app.4f2a91c.js"></script>
</head>
<body class="d-flex flex-column min-vh-100">
<nav class="navbar navbar-expand-lg sticky-top" aria-label="主导航">
  <div class="container">
    <a class="navbar-brand" href="{self.INDEX}"><img src="/static/img/logo.svg" alt="{SITE_NAME}" height="28"></a>
    <ul class="navbar-nav me-auto">
      <li class="nav-item"><a class="nav-link" href="{self.INDEX}">首页</a></li>
      <li class="nav-item"><a class="nav-link" href="{self.RULES}">社区规则</a></li>
    </ul>
    <form class="d-flex" role="search" action="{self.SEARCH}" method="get"><input class="form-control" type="search" name="q" placeholder="搜索话题" aria-label="搜索"></form>
    <div class="navbar-auth">
      <a class="btn btn-outline-primary btn-sm" href="{attr(self.login_href(current))}" rel="nofollow">登录</a>
      <a class="btn btn-primary btn-sm" href="{self.SIGNUP}" rel="nofollow">注册</a>
    </div>
  </div>
</nav>
<div class="container flex-grow-1 py-3">
  <nav aria-label="breadcrumb"><ol class="breadcrumb"><li class="breadcrumb-item"><a href="{self.INDEX}">{SITE_NAME}</a></li>{trail}</ol></nav>
  <div class="row">
    <main class="col-lg-{9 if aside else 12}" id="main">
{content}
    </main>{side}
  </div>
</div>
<footer class="site-footer mt-auto py-3">
  <div class="container d-flex justify-content-between">
    <span>&copy; 2024 {SITE_NAME} &middot; <a href="{self.ABOUT}">关于我们</a> &middot; <a href="{self.SEARCH}">搜索</a> &middot; <a href="{self.STATS}">站点统计</a> &middot; <a href="{self.ADMIN}" rel="nofollow">管理</a></span>
    <span class="text-muted">页面由脚本渲染，时间以本地时区显示</span>
  </div>
</footer>
<script>document.addEventListener("DOMContentLoaded", function () {{ window.timeago && window.timeago.render(document.querySelectorAll(".timeago"), "zh_CN"); }});</script>
</body>
</html>
"""

    @staticmethod
    def timeago(moment: datetime) -> str:
        """An empty span the browser's script fills with "3 天前"; only ``title`` holds the time."""
        return f'<span class="timeago" title="{iso_with_offset(moment, OFFSET)}"></span>'

    def avatar(self, user: User, size: int = 40) -> str:
        """The only trace of a user on a post: a linked avatar, the name in ``alt``."""
        return (f'<a href="{attr(self.user_href(user))}" class="avatar" data-username="'
                f'{attr(user.name)}"><img alt="{attr(user.name)}" src="/media/avatars/{user.uid % 97}/'
                f'{user.uid}.png" width="{size}" height="{size}" loading="lazy"></a>')

    @staticmethod
    def pager(hrefs: list[str], current: int) -> str:
        """A Bootstrap pagination list (nothing for one page)."""
        if len(hrefs) < 2:
            return ""
        mark = ' aria-current="page"'
        items = [f'<li class="page-item{" active" if n == current else ""}"><a class="page-link" '
                 f'href="{attr(href)}"{mark if n == current else ""}>{n}</a></li>'
                 for n, href in enumerate(hrefs, start=1)]
        if current < len(hrefs):
            items.append(f'<li class="page-item"><a class="page-link" href="{attr(hrefs[current])}" '
                         f'rel="next">下一页</a></li>')
        return ('<nav aria-label="分页"><ul class="pagination">' + "".join(items) + "</ul></nav>")

    def _topic_card(self, thread: Thread) -> str:
        first = thread.posts[0]
        return f"""      <li class="topic-card" data-topic-id="{thread.tid}">
        {self.avatar(first.author, 32)}
        <div class="topic-card__body">
          <a class="topic-card__title" href="{attr(self.thread_href(thread, 1))}">{text(thread.title)}</a>
          <div class="topic-card__meta"><span class="badge">{text(self.plan.board(thread.fid).theme.name)}</span> {self.timeago(first.time)} <span class="replies">{len(thread.posts) - 1} 回复</span> <span class="views">{thread.views} 浏览</span></div>
        </div>
        {self._card_last(thread)}
      </li>"""

    def _card_last(self, thread: Thread) -> str:
        """A topic card's last-reply time, linked to that reply's page."""
        last = thread.last
        return f'<a class="topic-card__last" href="{attr(self.post_anchor(thread, last))}">{self.timeago(last.time)}</a>'

    def _sidebar(self) -> str:
        plan = self.plan
        boards = "".join(f'<li><a href="{attr(self.board_href(b, 1))}">{text(b.theme.name)}</a> '
                         f'<span class="count">{len(b.threads)}</span></li>' for b in plan.boards)
        return f"""      <section class="card"><h2 class="card-title">版块</h2><ul class="list-unstyled">{boards}</ul></section>
      <section class="card"><h2 class="card-title">统计</h2><p>话题 {len(plan.threads)} &middot; 帖子 {len(plan.all_posts)} &middot; 会员 {len(plan.users)}</p><p>欢迎新会员 {self.avatar(plan.newest_user, 24)}</p></section>"""

    # -- pages ------------------------------------------------------------------------------------

    def index(self) -> Page:
        """``/``: the categories and the most recently active topics."""
        plan = self.plan
        latest = sorted(plan.threads.values(), key=lambda t: (t.last.time, t.tid), reverse=True)
        cards = "".join(f"""      <div class="col-md-6"><div class="category-card">
        <a class="category-card__name" href="{attr(self.board_href(b, 1))}">{text(b.theme.name)}</a>
        <p>{text(b.theme.description)}</p>
        <span class="text-muted">{len(b.threads)} 个话题</span>
      </div></div>
""" for b in plan.boards)
        topics = "\n".join(self._topic_card(t) for t in latest[:10])
        content = f"""      <div class="row g-3 mb-4">
{cards}      </div>
      <h2 class="section-title">最新动态</h2>
      <ul class="topic-list list-unstyled">
{topics}
      </ul>"""
        return self.page(self.layout(self.INDEX, f"{SITE_NAME} - 首页", content,
                                     aside=self._sidebar()))

    def board(self, board: Board, page: int, listing: Listing | None) -> Page:
        """``/category/<id>/<slug>/``: the sort tabs, topic cards and pager."""
        plan = self.plan
        href = self.board_href(board, page, listing)
        lists = self.listed(board, listing)
        cards = [self._topic_card(t) for t in lists[page - 1]]
        if listing is None and board is plan.boards[0] and page == 1:
            cards.insert(min(2, len(cards)), f'      <li class="topic-card"><div class="topic-card__'
                         f'body"><a class="topic-card__title" href="{attr(self._missing())}">求助：旧版固件'
                         f'下载地址汇总</a></div></li>')
        hrefs = [self.board_href(board, n, listing, first=n == 1) for n in range(1, len(lists) + 1)]
        tabs = "".join(
            f'<li class="nav-item"><a class="nav-link{" active" if view == listing else ""}" href="'
            f'{attr(self.board_href(board, 1, view))}">{label}</a></li>'
            for view, label in ((None, "最近回复"), *((v, v.label) for v in self.LISTINGS)))
        content = f"""      <header class="category-header">
        <h1>{text(board.theme.name)}</h1>
        <p class="lead">{text(board.theme.description)}</p>
        <a class="btn btn-primary" href="{attr(self._publish(board))}" rel="nofollow">发布话题</a>
        <a class="feed-link" href="{attr(self._feed(board))}" title="RSS">订阅</a>
      </header>
      <ul class="nav nav-tabs">{tabs}</ul>
      <ul class="topic-list list-unstyled">
{chr(10).join(cards)}
      </ul>
      {self.pager(hrefs, page)}"""
        title = f"{board.theme.name} - {SITE_NAME}" + (f" - 第{page}页" if page > 1 else "")
        return self.page(self.layout(href, title, content, aside=self._sidebar(),
                                     crumbs=[(self.board_href(board, 1), board.theme.name)]))

    def _post(self, thread: Thread, post: Post) -> str:
        user = post.author
        parts = []
        if post.quote:
            quoted = post.quote.post
            parts.append(f'<blockquote class="post-quote"><a class="post-quote__source" href="'
                         f'{attr(self.post_anchor(thread, quoted))}">#{quoted.floor}</a>'
                         f'<p>{text(post.quote.text)}</p></blockquote>')
        parts.extend(f"<p>{text(p)}</p>" for p in post.paragraphs)
        if post.attachment:
            parts.append(f'<figure class="post-image"><a href="{self._attachment(post)}"><img src="'
                         f'{self._attachment(post)}" alt="" loading="lazy"></a></figure>')
        edited = (f' <span class="post__edited" title="{iso_with_offset(post.edit.time, OFFSET)}">'
                  f"（已编辑）</span>" if post.edit else "")
        signature = (f'\n    <div class="post__signature">{text(post.signature)}</div>'
                     if post.signature else "")
        return f"""  <article class="post" id="post-{post.pid}" data-author="{attr(user.name)}" data-pid="{post.pid}">
    <div class="post__avatar">{self.avatar(user, 48)}</div>
    <div class="post__main">
      <header class="post__header"><a class="post__floor" href="{attr(self.post_anchor(thread, post))}">#{post.floor}</a> {self.timeago(post.time)}{edited}</header>
      <div class="post__content">
{chr(10).join(parts)}
      </div>{signature}
      <footer class="post__actions"><button type="button" class="btn btn-link" data-action="like" data-pid="{post.pid}">赞</button><a class="btn btn-link" href="{attr(self._reply(thread, post))}" rel="nofollow">引用回复</a></footer>
    </div>
  </article>"""

    def thread(self, thread: Thread, page: int) -> Page:
        """``/topic/<id>/<slug>/``: title, the posts of one page, pager, reply button."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = self.page_count(thread)
        hrefs = [self.paged(self.thread_base(thread), n, first=total > 1) for n in range(1, total + 1)]
        posts = "\n".join(self._post(thread, p) for p in self.posts_of(thread, plan.posts_per_page, page))
        content = f"""      <header class="topic-header">
        <h1 class="topic-title">{text(thread.title)}</h1>
        <div class="topic-meta"><a class="badge" href="{attr(self.board_href(board, 1))}">{text(board.theme.name)}</a> {thread.views} 浏览 &middot; {len(thread.posts) - 1} 回复</div>
      </header>
      {self.pager(hrefs, page)}
      <section class="post-list">
{posts}
      </section>
      {self.pager(hrefs, page)}
      <a class="btn btn-primary" href="{attr(self._reply(thread))}" rel="nofollow">回复</a> <a class="btn btn-link" href="{attr(self._favorite(thread))}">收藏</a>"""
        title = f"{thread.title} - {board.theme.name} - {SITE_NAME}"
        crumbs = [(self.board_href(board, 1), board.theme.name)]
        return self.thread_page(thread, self.layout(self.thread_href(thread, page), title, content,
                                                    crumbs=crumbs))

    def _profile_head(self, user: User) -> str:
        return f"""      <header class="profile-header">
        {self.avatar(user, 96)}
        <h1 class="profile-name">{text(user.name)}</h1>
        <p class="text-muted">{text(user.group)} &middot; 加入于 {self.timeago(user.joined)}</p>
        <ul class="nav nav-pills"><li class="nav-item"><a class="nav-link" href="{attr(self.user_href(user))}">资料</a></li><li class="nav-item"><a class="nav-link" href="{attr(self.posts_href(user, 1))}">帖子</a></li></ul>
      </header>"""

    def user(self, user: User) -> Page:
        """``/user/<name>/``: the profile."""
        signature = (f'<p class="profile-signature">{text(user.signature)}</p>'
                     if user.signature else "")
        content = f"""{self._profile_head(user)}
      <dl class="profile-stats"><dt>帖子</dt><dd>{user.posts}</dd><dt>话题</dt><dd>{user.threads}</dd><dt>积分</dt><dd>{user.credits}</dd><dt>最后活跃</dt><dd>{self.timeago(user.last_visit)}</dd></dl>
      {signature}"""
        return self.page(self.layout(self.user_href(user), f"{user.name} - {SITE_NAME}", content))

    def user_posts(self, user: User, page: int) -> Page:
        """``/user/<name>/posts``: the user's posts, newest first, as excerpts with times."""
        pages = self.post_pages(user)
        items = "\n".join(f"""      <li class="post-excerpt" data-pid="{post.pid}">
        <a class="post-excerpt__topic" href="{attr(self.post_anchor(thread, post))}">{text(thread.title)}</a>
        <p class="post-excerpt__text">{text(post.paragraphs[0])}</p>
        <span class="post-excerpt__meta">#{post.floor} {self.timeago(post.time)}</span>
      </li>""" for thread, post in pages[page - 1])
        hrefs = [self.posts_href(user, n) for n in range(1, len(pages) + 1)]
        content = (f'{self._profile_head(user)}\n      <ul class="post-excerpts list-unstyled">\n'
                   f"{items}\n      </ul>\n      {self.pager(hrefs, page)}")
        return self.page(self.layout(hrefs[page - 1], f"{user.name} 的帖子 - {SITE_NAME}", content,
                                     crumbs=[(self.user_href(user), user.name)]))

    def _panel(self, current: str, title: str, body: str, status: int = 200) -> Page:
        content = f'      <div class="card panel"><h1 class="card-title">{text(title)}</h1>\n{body}\n      </div>'
        return self.page(self.layout(current, f"{title} - {SITE_NAME}", content), status)

    def login(self, current: str) -> Page:
        """``/accounts/login/``: the form remembers ``next``; the page's own login link, like
        every page's, points back to it (``current``, as requested), one level deeper."""
        pairs = dict(parse_qsl(urlsplit(current).query))
        return self._panel(current, "登录", f"""      <form method="post" action="{self.LOGIN}" class="auth-form">
        <input type="hidden" name="csrfmiddlewaretoken" value="guest">
        <input type="hidden" name="next" value="{attr(pairs.get("next", "/"))}">
        <label>用户名或邮箱 <input type="text" name="login" autocomplete="username" required></label>
        <label>密码 <input type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit" class="btn btn-primary">登录</button>
      </form>
      <p>还没有帐号？<a href="{self.SIGNUP}">注册</a></p>""")

    def signup(self) -> Page:
        """``/accounts/signup/``: the sign-up form."""
        return self._panel(self.SIGNUP, "注册", f"""      <form method="post" action="{self.SIGNUP}" class="auth-form">
        <label>用户名 <input type="text" name="username" required></label>
        <label>邮箱 <input type="email" name="email" required></label>
        <label>密码 <input type="password" name="password1" required></label>
        <button type="submit" class="btn btn-primary">注册</button>
      </form>
      <p>已有帐号？<a href="{self.LOGIN}">登录</a></p>""")

    def search(self) -> Page:
        """``/search/``: the search form."""
        return self._panel(self.SEARCH, "搜索", f"""      <form method="get" action="{self.SEARCH}"><input class="form-control" type="search" name="q" placeholder="输入关键词"><button class="btn btn-primary" type="submit">搜索</button></form>""")

    def rules(self) -> Page:
        """``/pages/rules/``: the community rules (served truncated)."""
        plan = self.plan
        body = "\n".join(f"        <div class=\"rule\"><p>{text(p)}</p></div>" for p in plan.announcement_text)
        return self._panel(self.RULES, plan.announcement_title, f"""{body}
        <div class="rule"><p>违反规则的帖子将被删除，情节严重者封禁帐号。</p></div>""")

    def not_found(self) -> Page:
        """The "topic does not exist" page, with a 404 status."""
        return self._panel(self._missing(), "页面不存在",
                           "      <p>你访问的话题不存在或已被删除。</p>", status=404)

    def server_error(self) -> Page:
        """Django's bare server error page, with a 500 status."""
        return self.page("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Server Error (500)</title></head>
<body><h1>Server Error (500)</h1><p></p></body></html>""", status=500)
