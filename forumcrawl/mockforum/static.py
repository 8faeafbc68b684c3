"""The ``static`` family: a Discuz site with rewritten ("pseudo-static") URLs and its own theme.

URLs look like ``forum-2-1.html`` and ``thread-123-2-1.html`` (thread, page, list page), the
markup is div-based with class names unlike the stock template, pages are UTF-8, and times are
written relative to the site's clock ("3 天前", "昨天 12:30", "半小时前").
"""

from __future__ import annotations

import base64
from datetime import datetime, timedelta
from urllib.parse import quote

from forumcrawl.mockforum.family import Family, Page, attr, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import discuz_time, relative_zh_time

__all__ = ["Static"]

SITE_NAME = "极客小站"
_FLOORS = {1: "楼主", 2: "沙发", 3: "板凳"}


def floor_label(floor: int) -> str:
    """This theme's floor names: the first three named, then ``N楼``."""
    return _FLOORS.get(floor, f"{floor}楼")


class Static(Family):
    """Discuz X3.4 behind URL rewriting, with a third-party responsive theme."""

    name = "static"
    lang = "zh"
    encoding = "utf-8"
    wrong_encoding = "gbk"
    disallow = ("/admin/", "/forum.php?mod=post", "/home.php")

    INDEX = "forum.php"
    SEARCH = "search.php?mod=forum"
    LOGIN = "member.php?mod=logging&action=login"
    REGISTER = "member.php?mod=register"
    ANNOUNCEMENT = "forum.php?mod=announcement&id=1"
    GUIDE = "forum.php?mod=guide&view=new"
    SIGN = "plugin.php?id=dsu_paulsign:sign"
    ADMIN = "admin/"

    # -- links ------------------------------------------------------------------------------------

    @staticmethod
    def board_href(board: Board, page: int) -> str:
        """``forum-{fid}-{page}.html``."""
        return f"forum-{board.fid}-{page}.html"

    def thread_href(self, thread: Thread, page: int) -> str:
        return f"thread-{thread.tid}-{page}-{thread.list_page}.html"

    @staticmethod
    def user_href(user: User) -> str:
        """``space-uid-{uid}.html``."""
        return f"space-uid-{user.uid}.html"

    @staticmethod
    def _newthread(board: Board) -> str:
        return f"forum.php?mod=post&action=newthread&fid={board.fid}"

    @staticmethod
    def _reply(thread: Thread) -> str:
        return f"forum.php?mod=post&action=reply&fid={thread.fid}&tid={thread.tid}"

    def _repquote(self, thread: Thread, post: Post) -> str:
        return f"{self._reply(thread)}&repquote={post.pid}"

    @staticmethod
    def _favorite(thread: Thread) -> str:
        return f"home.php?mod=spacecp&ac=favorite&type=thread&id={thread.tid}"

    @staticmethod
    def _attachment_href(post: Post) -> str:
        token = base64.b64encode(f"{post.attachment}|{post.pid}|1".encode()).decode()
        return f"forum.php?mod=attachment&aid={quote(token, safe='')}"

    def _missing_href(self) -> str:
        return f"thread-{self.plan.missing_tid}-1-1.html"

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return relative_zh_time(moment, self.plan.now)

    def _when(self, moment: datetime) -> str:
        return self.time_text(moment)[0]

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        self.add_page(self.INDEX, self.index)
        self.add_alias("", self.INDEX)
        self.add_alias("index.html", self.INDEX)
        for href, render in ((self.SEARCH, self.search), (self.LOGIN, self.login),
                             (self.REGISTER, self.register_page)):
            self.add_page(href, render)
        for board in plan.boards:
            for n in range(1, len(board.list_pages(plan.threads_per_list_page)) + 1):
                self.add_page(self.board_href(board, n), lambda b=board, n=n: self.board(b, n))
            self.disallowed.add(self._newthread(board))
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            self.disallowed.update({self._reply(thread), self._favorite(thread)})
            for post in thread.posts:
                self.disallowed.add(self._repquote(thread, post))
                if post.attachment:
                    self.add_broken(self._attachment_href(post), "binary",
                                    lambda p=post: self.binary(p.pid))
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.ANNOUNCEMENT, self.announcement),
            not_found=self._missing_href(),
            server_error=self.SIGN,
            empty=self.GUIDE,
        )

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, title: str, kind: str, crumbs: list[tuple[str, str]], content: str) -> str:
        """The theme's frame: header with nav, search and user links; breadcrumbs; footer."""
        trail = "".join(f'<span class="sep">&rsaquo;</span><a href="{attr(h)}">{text(label)}</a>'
                        for h, label in crumbs)
        return f"""<!DOCTYPE html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{text(title)}</title>
<meta name="keywords" content="{attr(title)}">
<meta name="description" content="{attr(title)} - {SITE_NAME}">
<link rel="stylesheet" href="template/geek/css/style.css?v=3">
<script src="template/geek/js/app.js?v=3" defer></script>
</head>
<body class="page-{kind}">
<header class="site-header">
  <div class="container">
    <a class="brand" href="index.html"><img src="template/geek/img/logo.svg" alt="{SITE_NAME}"></a>
    <nav class="main-nav">
      <a href="{attr(self.INDEX)}" class="active">社区</a>
      <a href="{attr(self.GUIDE)}">导读</a>
      <a href="{attr(self.SIGN)}">签到</a>
    </nav>
    <form class="top-search" action="{attr(self.SEARCH)}" method="post">
      <input type="text" name="srchtxt" placeholder="搜索帖子、用户">
      <button type="submit">搜索</button>
    </form>
    <div class="user-links">
      <a href="{attr(self.LOGIN)}">登录</a>
      <a href="{attr(self.REGISTER)}" class="btn-reg">注册</a>
    </div>
  </div>
</header>
<div class="container">
  <div class="crumbs"><a href="./">首页</a>{trail}</div>
{content}
</div>
<footer class="site-footer">
  <div class="container">
    <p><a href="{attr(self.SEARCH)}">搜索</a> &middot; <a href="{attr(self.ADMIN)}">站长后台</a> &middot; <a href="javascript:;">联系我们</a></p>
    <p>Copyright &copy; 2015-2024 {SITE_NAME} 版权所有 &middot; Powered by Discuz! X3.4 &middot; 页面生成于 {discuz_time(self.plan.now)}</p>
  </div>
</footer>
<script>window.GEEK = {{ rewrite: true, charset: "utf-8" }};</script>
</body>
</html>
"""

    @staticmethod
    def _pager(hrefs: list[str], current: int) -> str:
        """The theme's pager (nothing for a single page)."""
        total = len(hrefs)
        if total < 2:
            return ""
        parts = ['<div class="pager">']
        if current > 1:
            parts.append(f'<a class="prev" href="{attr(hrefs[current - 2])}">上一页</a>')
        for n, href in enumerate(hrefs, start=1):
            parts.append(f'<span class="current">{n}</span>' if n == current
                         else f'<a href="{attr(href)}">{n}</a>')
        if current < total:
            parts.append(f'<a class="next" href="{attr(hrefs[current])}">下一页</a>')
        parts.append(f'<span class="pager-total">共 {total} 页</span></div>')
        return "".join(parts)

    def _user_link(self, user: User, cls: str) -> str:
        return f'<a class="{cls}" href="{attr(self.user_href(user))}">{text(user.name)}</a>'

    # -- pages ------------------------------------------------------------------------------------

    def index(self) -> Page:
        """Home: announcement bar, statistics, one card per board."""
        plan = self.plan
        today = plan.now.date()
        posts = plan.all_posts
        cards = []
        for board in plan.boards:
            latest = board.threads[0]
            last_page = len(latest.pages(plan.posts_per_page))
            moderator = (f'<div class="board-mod">版主：{self._user_link(board.moderator, "mod")}</div>'
                         if board.moderator else "")
            cards.append(f"""    <div class="board-card">
      <a class="board-name" href="{attr(self.board_href(board, 1))}">{text(board.theme.name)}</a>
      <p class="board-desc">{text(board.theme.description)}</p>
      <div class="board-stat"><span>主题 {len(board.threads)}</span><span>帖子 {sum(len(t.posts) for t in board.threads)}</span></div>
      <div class="board-last">最新：<a href="{attr(self.thread_href(latest, last_page))}">{text(latest.title)}</a>
        <span class="by">{self._user_link(latest.last.author, "u")}</span><span class="when">{self._when(latest.last.time)}</span></div>
      {moderator}
    </div>""")
        newest = plan.newest_user
        content = f"""<div class="notice-bar"><span class="notice-label">公告</span><a href="{attr(self.ANNOUNCEMENT)}">{text(plan.announcement_title)}</a><span class="when">{self._when(plan.announcement_time)}</span></div>
<div class="site-stats">今日 <b>{sum(p.time.date() == today for p in posts)}</b> &middot; 昨日 <b>{sum(p.time.date() == today - timedelta(days=1) for p in posts)}</b> &middot; 帖子 <b>{len(posts)}</b> &middot; 会员 <b>{len(plan.users)}</b> &middot; 新会员 {self._user_link(newest, "u")}</div>
<section class="board-group">
  <h2 class="group-title">综合交流</h2>
  <div class="board-grid">
{chr(10).join(cards)}
  </div>
</section>"""
        return self.page(self.layout(f"{SITE_NAME} - 社区首页", "index", [], content))

    def _topic_item(self, thread: Thread) -> str:
        first, last = thread.posts[0], thread.last
        pages = len(thread.pages(self.plan.posts_per_page))
        more = "".join(f'<a href="{attr(self.thread_href(thread, n))}">{n}</a>'
                       for n in range(2, pages + 1))
        return f"""  <li class="topic-item">
    <div class="topic-main"><a class="topic-link" href="{attr(self.thread_href(thread, 1))}">{text(thread.title)}</a>{f'<span class="topic-pages">{more}</span>' if more else ""}</div>
    <div class="topic-info">{self._user_link(first.author, "topic-author")}<span class="topic-time">{self._when(first.time)}</span><span class="topic-count">回复 {len(thread.posts) - 1} / 查看 {thread.views}</span><span class="topic-last">最后回复 {self._user_link(last.author, "u")} <span>{self._when(last.time)}</span></span></div>
  </li>"""

    def _missing_item(self) -> str:
        """A topic deleted after the list was cached: its link answers 404."""
        return f"""  <li class="topic-item">
    <div class="topic-main"><a class="topic-link" href="{attr(self._missing_href())}">求助：旧版固件下载地址汇总</a></div>
    <div class="topic-info"><span class="topic-time">{discuz_time(self.plan.now - timedelta(days=60))}</span></div>
  </li>"""

    def board(self, board: Board, page: int) -> Page:
        """``forum-{fid}-{page}.html``: board header and the topic list."""
        plan = self.plan
        lists = board.list_pages(plan.threads_per_list_page)
        items = [self._topic_item(t) for t in lists[page - 1]]
        if board is plan.boards[0] and page == 1:
            items.insert(min(2, len(items)), self._missing_item())
        pager = self._pager([self.board_href(board, n) for n in range(1, len(lists) + 1)], page)
        moderator = ""
        if board.moderator:
            moderator = f"版主：{self._user_link(board.moderator, 'u')} &middot; "
        today = sum(p.time.date() == plan.now.date() for t in board.threads for p in t.posts)
        content = f"""<div class="board-head">
  <h1>{text(board.theme.name)}</h1>
  <p>{text(board.theme.description)}</p>
  <div class="board-meta">{moderator}主题 {len(board.threads)} &middot; 今日 {today}</div>
  <a class="btn-post" href="{attr(self._newthread(board))}">发帖</a>
</div>
{pager}
<ul class="topic-list">
{chr(10).join(items)}
</ul>
{pager}"""
        title = f"{board.theme.name} - {SITE_NAME}" + (f" - 第{page}页" if page > 1 else "")
        return self.page(self.layout(title, "list", [(self.board_href(board, 1), board.theme.name)],
                                     content))

    def _content(self, post: Post) -> str:
        parts = []
        if post.edit:
            parts.append(f'<div class="edit-tip">本帖最后由 {text(post.edit.editor.name)} 于 '
                         f"{self._when(post.edit.time)} 编辑</div>")
        if post.quote:
            quoted = post.quote.post
            parts.append(f'<blockquote class="floor-quote"><p class="quote-from">{text(quoted.author.name)}'
                         f" 发表于 {self._when(quoted.time)}</p><p>{text(post.quote.text)}</p></blockquote>")
        parts.extend(f"<p>{text(p)}</p>" for p in post.paragraphs)
        return "\n".join(parts)

    def _floor(self, thread: Thread, post: Post) -> str:
        user = post.author
        attachment = ""
        if post.attachment:
            attachment = (f'<div class="floor-attach"><a href="{attr(self._attachment_href(post))}">'
                          f"IMG_{post.attachment}.png</a> <span>56.3 KB</span></div>")
        sign = f'<div class="floor-sign">{text(post.signature)}</div>' if post.signature else ""
        return f"""<article class="floor" id="pid{post.pid}">
  <aside class="floor-user">
    <a class="floor-avatar" href="{attr(self.user_href(user))}"><img src="uc_server/avatar.php?uid={user.uid}&amp;size=small" alt=""></a>
    {self._user_link(user, "floor-name")}
    <span class="floor-group">{text(user.group)}</span>
    <ul class="floor-stats"><li>帖子<b>{user.posts}</b></li><li>积分<b>{user.credits}</b></li></ul>
  </aside>
  <section class="floor-main">
    <header class="floor-head"><span class="floor-no">{floor_label(post.floor)}</span><span class="floor-time">{self._when(post.time)}</span><a class="only-author" href="javascript:;">只看该作者</a></header>
    <div class="floor-content">
{self._content(post)}
    </div>
    {attachment}
    {sign}
    <footer class="floor-actions"><a href="{attr(self._repquote(thread, post))}">回复</a><a href="javascript:;">举报</a><a class="floor-link" href="#pid{post.pid}">#{post.floor}</a></footer>
  </section>
</article>"""

    def thread(self, thread: Thread, page: int) -> Page:
        """``thread-{tid}-{page}-{list page}.html``: header, pager, the floors of one page."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = len(thread.pages(plan.posts_per_page))
        pager = self._pager([self.thread_href(thread, n) for n in range(1, total + 1)], page)
        floors = "\n".join(self._floor(thread, p)
                           for p in self.posts_of(thread, plan.posts_per_page, page))
        content = f"""<div class="thread-head">
  <h1 class="thread-title">{text(thread.title)}</h1>
  <div class="thread-meta"><span>查看 {thread.views}</span><span>回复 {len(thread.posts) - 1}</span>
    <a class="fav" href="{attr(self._favorite(thread))}">收藏</a>
    <a class="btn-reply" href="{attr(self._reply(thread))}">回复</a>
    <a class="back" href="{attr(self.board_href(board, thread.list_page))}">返回列表</a></div>
</div>
{pager}
<div class="floor-list">
{floors}
</div>
{pager}"""
        title = f"{thread.title} - {board.theme.name} - {SITE_NAME}"
        crumbs = [(self.board_href(board, 1), board.theme.name),
                  (self.thread_href(thread, 1), thread.title)]
        return self.thread_page(thread, self.layout(title, "thread", crumbs, content))

    def user(self, user: User) -> Page:
        """``space-uid-{uid}.html``: profile card, numbers, recent threads."""
        started = [t for t in self.plan.threads.values() if t.posts[0].author is user]
        items = "".join(f'<li><a href="{attr(self.thread_href(t, 1))}">{text(t.title)}</a></li>'
                        for t in started) or "<li class=\"empty\">还没有发表过主题</li>"
        sign = f'<div class="profile-sign">{text(user.signature)}</div>' if user.signature else ""
        content = f"""<div class="profile-card">
  <img class="avatar" src="uc_server/avatar.php?uid={user.uid}&amp;size=big" alt="">
  <div class="profile-info"><h1 class="profile-name">{text(user.name)}</h1><p class="profile-uid">UID {user.uid}</p><p class="profile-group">{text(user.group)}</p></div>
</div>
<dl class="profile-stats">
  <dt>帖子</dt><dd>{user.posts}</dd>
  <dt>主题</dt><dd>{user.threads}</dd>
  <dt>积分</dt><dd>{user.credits}</dd>
  <dt>注册时间</dt><dd>{discuz_time(user.joined)}</dd>
  <dt>最后访问</dt><dd>{self._when(user.last_visit)}</dd>
</dl>
{sign}
<h2 class="profile-h2">最近主题</h2>
<ul class="profile-threads">{items}</ul>"""
        return self.page(self.layout(f"{user.name}的个人空间 - {SITE_NAME}", "space", [], content))

    def _simple(self, title: str, kind: str, body: str, status: int = 200) -> Page:
        content = f'<div class="panel"><h1 class="panel-title">{text(title)}</h1>\n{body}\n</div>'
        return self.page(self.layout(f"{title} - {SITE_NAME}", kind, [], content), status)

    def search(self) -> Page:
        """The search form."""
        return self._simple("搜索", "search", f"""<form class="search-form" action="{attr(self.SEARCH)}" method="post">
  <input type="text" name="srchtxt" placeholder="输入关键词">
  <button type="submit">搜索</button>
</form>
<p class="hint">提示：搜索内容至少为两个字。</p>""")

    def login(self) -> Page:
        """The login form."""
        return self._simple("登录", "login", f"""<form class="login-form" action="{attr(self.LOGIN)}" method="post">
  <label>用户名 <input type="text" name="username"></label>
  <label>密码 <input type="password" name="password"></label>
  <button type="submit">登录</button>
</form>
<p>还没有帐号？<a href="{attr(self.REGISTER)}">立即注册</a></p>""")

    def register_page(self) -> Page:
        """The registration form."""
        return self._simple("注册", "register", f"""<form class="login-form" action="{attr(self.REGISTER)}" method="post">
  <label>用户名 <input type="text" name="username"></label>
  <label>密码 <input type="password" name="password"></label>
  <label>邮箱 <input type="email" name="email"></label>
  <button type="submit">注册</button>
</form>
<p>已有帐号？<a href="{attr(self.LOGIN)}">登录</a></p>""")

    def announcement(self) -> Page:
        """The rules announcement (served truncated)."""
        plan = self.plan
        body = "\n".join(f"<p>{text(p)}</p>" for p in plan.announcement_text)
        return self._simple(plan.announcement_title, "announcement",
                            f'<div class="announce-meta">{discuz_time(plan.announcement_time)}'
                            f' 管理员</div>\n<div class="announce-body">{body}</div>')

    def not_found(self) -> Page:
        """The "thread does not exist" message, with a 404 status."""
        return self._simple("提示信息", "message",
                            "<p>抱歉，指定的主题不存在或已被删除或正在被审核</p>", status=404)

    def server_error(self) -> Page:
        """A broken plugin: the database error page, with a 500 status."""
        body = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Discuz! Database Error</title></head>
<body><h1>Discuz! Database Error</h1>
<div class="info">[2006] MySQL server has gone away</div>
</body></html>"""
        return self.page(body, status=500)
