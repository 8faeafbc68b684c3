"""``Universe``: the markup family of a generated forum, its routes and pages.

One class renders every forum of the universe; what it prints follows the forum's
:class:`~forumcrawl.mockforum.universe.dimensions.Dimensions`. It registers every URL its pages
link in the shared route table (:class:`~forumcrawl.mockforum.family.Family`), so the truth and
what is served cannot drift apart.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime
from urllib.parse import quote

from forumcrawl.mockforum.family import Family, Page, attr, chunks, text
from forumcrawl.mockforum.plan import Board, Plan, Post, Thread, User
from forumcrawl.mockforum.times import iso
from forumcrawl.mockforum.truth import PostTruth, path_key
from forumcrawl.mockforum.universe.dimensions import Dimensions
from forumcrawl.mockforum.universe.markup import Markup
from forumcrawl.mockforum.universe.urls import Urls

__all__ = ["Universe"]

_SITE_NAMES = {"en": ("Bitsmiths Forum", "The Garage Bench", "Night Shift Talk", "Open Circuit",
                      "Lakeside Makers"),
               "zh": ("极客社区", "数码之家论坛", "技术交流区", "生活百科论坛", "开源中国社区")}
_WORDS = {
    "en": {"home": "Home", "latest": "Latest", "members": "Members", "faq": "FAQ", "login": "Log in",
           "register": "Register", "archive": "Archive", "print": "Print view", "mobile": "Mobile",
           "who": "Who posted?", "reply": "Reply", "by": "by", "replies": "Replies",
           "views": "Views", "subs": "Sub-forums", "posts_by": "Posts by {name}",
           "login_needed": "You must be logged in to view this board.", "private": "VIP Lounge",
           "missing": "Old firmware download links", "full": "Full version"},
    "zh": {"home": "首页", "latest": "最新", "members": "会员", "faq": "帮助", "login": "登录",
           "register": "注册", "archive": "存档", "print": "打印", "mobile": "手机版",
           "who": "谁参与了", "reply": "回复", "by": "作者", "replies": "回复", "views": "查看",
           "subs": "子版块", "posts_by": "{name} 的帖子", "login_needed": "您需要登录后才能浏览本版块。",
           "private": "VIP 会员区", "missing": "旧版固件下载地址", "full": "完整版"},
}
#: Charset the wrong-charset thread's bytes are really in, by the charset it declares.
_WRONG = {"utf-8": {"en": "cp1252", "zh": "gbk"}, "gbk": "utf-8", "big5": "utf-8",
          "windows-1252": "utf-8"}


class Universe(Family):
    """A forum of the universe, rendered from its plan and dimensions."""

    name = "universe"
    ADMIN = "/admin/"
    disallow = ("/admin/", "/history/")
    INDEX = "/"
    LOGIN = "/login"
    REGISTER = "/register"
    FAQ = "/faq"
    MEMBERS = "/memberlist"
    ONLINE = "/online.php"
    TEAM = "/team"

    def __init__(self, plan: Plan, dims: Dimensions, seed: int) -> None:
        self.dims = dims
        self.lang = dims.lang
        self.encoding = dims.encoding
        wrong = _WRONG[dims.encoding]
        self.wrong_encoding = wrong if isinstance(wrong, str) else wrong[dims.lang]
        self.shows_signatures = dims.signature != "none"
        self.site_name = random.Random(f"universe:{seed}:name").choice(_SITE_NAMES[dims.lang])
        self.words = _WORDS[dims.lang]
        self.urls = Urls(dims, plan.posts_per_page, plan.threads_per_list_page)
        self.markup = Markup(dims, self.urls, plan.now)
        if dims.broken == "none":
            for thread in plan.threads.values():
                thread.wrong_charset = False
        super().__init__(plan)

    # -- Family's interface -------------------------------------------------------------------

    def key(self, target: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        """As the base, with the path's percent-escapes read the way a server decodes them."""
        path, query = super().key(target)
        return path_key(path), query

    def thread_href(self, thread: Thread, page: int) -> str:
        return self.urls.thread_href(thread, page)

    def user_href(self, user: User) -> str:
        return self.urls.user_href(user)

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return self.markup.time_text(moment)

    def post_truth(self, post: Post) -> PostTruth:
        """The post as an extractor should find it: its own words and code, the time the page
        tells (exact where an attribute holds it), the quote and signature only where shown."""
        raw, denoted = self.time_text(post.time)
        return PostTruth(
            floor=post.floor, author=post.author.name, published=iso(denoted), published_raw=raw,
            text=self.markup.post_text(post),
            quote=post.quote.text if post.quote and self.dims.quote != "none" else None,
            signature=post.signature if self.shows_signatures else None,
            edited=post.edit is not None,
        )

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan, dims, urls = self.plan, self.dims, self.urls
        self.add_page(self.INDEX, self.index)
        self.add_alias("/index.php", self.INDEX)
        self.add_page(self.MEMBERS, self.member_list)
        self.add_page(self.REGISTER, lambda: self._static(self.words["register"], "<form method=post "
                      'action="/register"><input name="username"><button>OK</button></form>'))
        self.add_page(self.LOGIN, self.login)
        if dims.login == "action_redirect":
            self.add_query_alias(self.LOGIN, self.LOGIN, lambda target: self.login())
        for board in plan.boards:
            for n in range(1, len(self._board_lists(board)) + 1):
                self.add_page(urls.board_href(board, n), lambda b=board, n=n: self.board(b, n))
        if dims.login == "private_board":
            self.add_page(self._private_href(), self.private_board)
        if dims.latest == "yes":
            for n in range(1, len(self._latest()) + 1):
                self.add_page(urls.latest(n), lambda n=n: self.latest(n))
        for thread in plan.threads.values():
            self._register_thread(thread)
        for user in plan.users:
            self.add_page(self.user_href(user), lambda u=user: self.user(u))
            if dims.member_posts == "post_list":
                for n in range(1, len(self._user_posts(user)) + 1):
                    self.add_page(urls.user_posts(user, n), lambda u=user, n=n: self.user_posts(u, n))
        if dims.lite_copy == "archiver":
            self.add_page("/archiver/", self.archive_index)
            for board in plan.boards:
                self.add_page(urls.archive_board(board), lambda b=board: self.archive_board(b))
        self.disallowed.add(self.ADMIN)
        self.disallowed.update(urls.history(p) for t in plan.threads.values() for p in t.posts
                               if p.edit is not None and dims.edit == "history_link")
        if dims.broken == "some":
            self.add_broken(self.FAQ, "truncated", lambda: self.truncated(self.faq()))
            self.add_broken(self._missing_href(), "not-found", self.not_found)
            self.add_broken(self.ONLINE, "server-error", self.server_error)
            self.add_broken(self.TEAM, "empty", self.empty)
        else:
            self.add_page(self.FAQ, self.faq)

    def _register_thread(self, thread: Thread) -> None:
        dims, urls = self.dims, self.urls
        self.add_thread(thread, self.thread)
        count = self.page_count(thread)
        if dims.thread_alias == "mini_pager":
            for n in range(1, count + 1):
                self.add_alias(urls.short(thread, n), urls.thread_href(thread, n))
        if dims.thread_alias == "page_one" and count > 1:
            self.add_alias(urls.page_one(thread), urls.thread_href(thread, 1))
        for post in thread.posts:
            holder = urls.thread_href(thread, self.page_of(post))
            if dims.post_link == "post_number":
                self.add_alias(urls.post_number(thread, post.floor), holder)
            elif dims.post_link == "permalink":
                self.add_alias(urls.permalink(post), holder)
            elif dims.post_link == "redirect":
                self.add_alias(urls.permalink(post), holder,
                               render=lambda h=holder, p=post: self.redirect(f"{h}#post-{p.pid}"))
        if dims.login == "action_redirect":
            back = quote(urls.reply(thread), safe="")
            self.add_alias(urls.reply(thread), self.LOGIN,
                           render=lambda b=back: self.redirect(f"{self.LOGIN}?return={b}"))
        for n in range(1, count + 1):
            if dims.lite_copy == "archiver":
                self.add_page(urls.archive(thread, n), lambda n=n: self.archive_thread(thread, n))
            elif dims.lite_copy == "mobile":
                self.add_page(urls.mobile(thread, n), lambda n=n: self.mobile(thread, n))
        if dims.lite_copy == "print":
            self.add_page(urls.print_view(thread), lambda: self.print_view(thread))
        elif dims.lite_copy == "who_posted":
            self.add_page(urls.who_posted(thread), lambda: self.who_posted(thread))

    # -- shared pieces ---------------------------------------------------------------------------

    def _board_lists(self, board: Board) -> list[list[Thread]]:
        return board.list_pages(self.plan.threads_per_list_page)

    def _latest(self) -> list[list[Thread]]:
        threads = sorted(self.plan.threads.values(), key=lambda t: (t.last.time, t.tid), reverse=True)
        return chunks(threads, 2 * self.plan.threads_per_list_page)

    def _user_posts(self, user: User) -> list[list[tuple[Thread, Post]]]:
        return chunks(self.posts_by(user), self.plan.posts_per_page)

    def _private_href(self) -> str:
        return self.urls.board(max(b.fid for b in self.plan.boards) + 7, self.words["private"], 1)

    def _missing_href(self) -> str:
        slug = self.urls.slug(Thread(self.plan.missing_tid, 0, self.words["missing"], [], 0))
        return self.urls.thread(self.plan.missing_tid, slug, 1)

    def layout(self, title: str, content: str, *, crumbs: Sequence[tuple[str, str]] = (),
               head: str = "") -> str:
        """The page frame: header with the site's links, breadcrumbs, footer."""
        w, dims = self.words, self.dims
        nav = [(self.INDEX, w["home"])]
        if dims.latest == "yes":
            nav.append((self.urls.latest(1), w["latest"]))
        nav += [(self.MEMBERS, w["members"]), (self.FAQ, w["faq"]), (self.LOGIN, w["login"]),
                (self.REGISTER, w["register"])]
        links = " | ".join(f'<a href="{attr(h)}">{text(label)}</a>' for h, label in nav)
        trail = " &rsaquo; ".join(f'<a href="{attr(h)}">{text(label)}</a>'
                                  for h, label in [(self.INDEX, self.site_name), *crumbs])
        footer = [f'<a href="{self.ADMIN}">Admin</a>']
        if dims.lite_copy == "archiver":
            footer.append(f'<a href="/archiver/">{text(w["archive"])}</a>')
        if dims.broken == "some":
            footer += [f'<a href="{self.ONLINE}">Online</a>', f'<a href="{self.TEAM}">Team</a>']
        return f"""<!DOCTYPE html>
<html lang="{'zh-CN' if dims.lang == 'zh' else 'en'}">
<head>
<meta http-equiv="Content-Type" content="text/html; charset={self.encoding}">
<title>{text(title)}</title>
<link rel="stylesheet" href="/static/style.css">
{head}</head>
<body>
<div id="wrap">
<header class="site-header"><a class="logo" href="{self.INDEX}">{text(self.site_name)}</a>
<nav class="top-nav">{links}</nav></header>
<div class="breadcrumbs">{trail}</div>
<main id="content">
{content}
</main>
<footer class="site-footer">{" | ".join(footer)}<p>&copy; {self.plan.now.year} {text(self.site_name)}</p></footer>
</div>
</body>
</html>"""

    def _static(self, title: str, body: str, status: int = 200) -> Page:
        content = f'<div class="static"><h1>{text(title)}</h1>\n{body}\n</div>'
        return self.page(self.layout(f"{title} - {self.site_name}", content), status)

    def thread_row(self, thread: Thread) -> str:
        """A thread's row in a list: title, mini pager, author, counts, last post."""
        dims, urls = self.dims, self.urls
        count = self.page_count(thread)
        pages = ""
        if dims.thread_alias == "mini_pager":
            pages = " ".join(f'<a href="{attr(urls.short(thread, n))}">{n}</a>' for n in range(1, count + 1))
        elif count > 1:
            pages = " ".join(f'<a href="{attr(urls.thread_href(thread, n))}">{n}</a>'
                             for n in range(2, count + 1))
        last = thread.last
        last_href = (urls.thread_href(thread, count) if dims.post_link == "none" else
                     urls.post_number(thread, last.floor) if dims.post_link == "post_number" else
                     urls.permalink(last))
        op = thread.posts[0].author
        return f"""<tr class="topic-row">
<td class="topic"><a class="topictitle" href="{attr(urls.thread_href(thread, 1))}">{text(thread.title)}</a> <span class="mini-pager">{pages}</span>
<div class="topic-by">{text(self.words["by"])} <a href="{attr(self.user_href(op))}">{text(op.name)}</a></div></td>
<td class="replies">{len(thread.posts) - 1}</td><td class="views">{thread.views}</td>
<td class="lastpost"><a href="{attr(last_href)}">{text(self.markup.absolute(last.time))}</a> {text(self.words["by"])} {text(last.author.name)}</td>
</tr>"""

    def _rows(self, threads: list[Thread], extra: str = "") -> str:
        w = self.words
        return (f'<table class="topics"><thead><tr><th>Topic</th><th>{text(w["replies"])}</th><th>'
                f'{text(w["views"])}</th><th></th></tr></thead><tbody>\n'
                + "\n".join(self.thread_row(t) for t in threads) + extra + "\n</tbody></table>")

    def _board_row(self, board: Board) -> str:
        return (f'<tr><td><a class="forumtitle" href="{attr(self.urls.board_href(board, 1))}">'
                f'{text(board.theme.name)}</a><div class="desc">{text(board.theme.description)}'
                f'</div></td><td>{len(board.threads)}</td></tr>')

    # -- pages ------------------------------------------------------------------------------------

    def index(self) -> Page:
        """The board index (only the first board where the others are its sub-boards)."""
        boards = self.plan.boards[:1] if self.dims.sub_boards == "yes" else self.plan.boards
        rows = [self._board_row(b) for b in boards]
        if self.dims.login == "private_board":
            rows.append(f'<tr><td><a class="forumtitle" href="{attr(self._private_href())}">'
                        f'{text(self.words["private"])}</a></td><td></td></tr>')
        content = f'<h1>{text(self.site_name)}</h1>\n<table class="forums">{"".join(rows)}</table>'
        return self.page(self.layout(self.site_name, content))

    def board(self, board: Board, page: int) -> Page:
        """A page of a board's thread list, with its sub-boards above the first."""
        lists = self._board_lists(board)
        hrefs = [self.urls.board_href(board, n) for n in range(1, len(lists) + 1)]
        pager, head = self.markup.pager(hrefs, page)
        subs = ""
        if self.dims.sub_boards == "yes" and board is self.plan.boards[0] and page == 1:
            subs = (f'<h2>{text(self.words["subs"])}</h2><table class="forums">'
                    + "".join(self._board_row(b) for b in self.plan.boards[1:]) + "</table>")
        missing = ""
        if self.dims.broken == "some" and board is self.plan.boards[0] and page == 1:
            missing = (f'\n<tr class="topic-row"><td class="topic"><a class="topictitle" href="'
                       f'{attr(self._missing_href())}">{text(self.words["missing"])}</a></td>'
                       f'<td>0</td><td>0</td><td></td></tr>')
        content = (f"<h1>{text(board.theme.name)}</h1>\n{subs}\n{pager}\n"
                   f"{self._rows(lists[page - 1], missing)}\n{pager}")
        return self.page(self.layout(f"{board.theme.name} - {self.site_name}", content,
                                     crumbs=[(hrefs[0], board.theme.name)], head=head))

    def latest(self, page: int) -> Page:
        """A page of every thread by last activity."""
        lists = self._latest()
        hrefs = [self.urls.latest(n) for n in range(1, len(lists) + 1)]
        pager, head = self.markup.pager(hrefs, page)
        content = f'<h1>{text(self.words["latest"])}</h1>\n{self._rows(lists[page - 1])}\n{pager}'
        return self.page(self.layout(f"{self.words['latest']} - {self.site_name}", content, head=head))

    def private_board(self) -> Page:
        """A listed board that only shows a login form."""
        return self._static(self.words["private"], f'<p class="error">{text(self.words["login_needed"])}'
                            f'</p><form method="post" action="{self.LOGIN}"><input name="username">'
                            f'<input type="password" name="password"><button>OK</button></form>')

    def title_html(self, thread: Thread) -> str:
        """The thread's title where this forum shows it (``title_at``)."""
        where = self.dims.title_at
        if where == "h1":
            return f'<h1 class="topic-title">{text(thread.title)}</h1>'
        if where == "h2_link":
            return (f'<h2 class="topic-title"><a href="{attr(self.urls.thread_href(thread, 1))}">'
                    f"{text(thread.title)}</a></h2>")
        return ""

    def thread(self, thread: Thread, page: int) -> Page:
        """A thread page: title, pager, posts (an ad after the first), tools, pager."""
        dims, urls, markup = self.dims, self.urls, self.markup
        board = self.plan.board(thread.fid)
        count = self.page_count(thread)
        hrefs = [urls.thread_href(thread, n) for n in range(1, count + 1)]
        if dims.thread_alias == "page_one" and count > 1 and page > 1:
            hrefs[0] = urls.page_one(thread)
        pager, head = markup.pager(hrefs, page)
        if dims.canonical_tag == "yes":
            head += f'<link rel="canonical" href="{attr(urls.thread_href(thread, page))}">\n'
        blocks = [markup.post_block(thread, p, self.user_href(p.author))
                  for p in self.posts_of(thread, self.plan.posts_per_page, page)]
        if dims.ads != "none":
            blocks.insert(1, markup.ad_block(thread))
        tools = self._tools(thread, page)
        crumbs = [(urls.board_href(board, 1), board.theme.name)]
        if dims.title_at == "crumb":
            crumbs.append((urls.thread_href(thread, 1), thread.title))
        content = (f"{self.title_html(thread)}\n{pager}\n{markup.posts_wrapper(blocks)}\n{pager}\n"
                   f'<div class="thread-tools">{tools}</div>')
        title = f"{thread.title} - {board.theme.name} - {self.site_name}"
        return self.thread_page(thread, self.layout(title, content, crumbs=crumbs, head=head))

    def _tools(self, thread: Thread, page: int) -> str:
        dims, urls, w = self.dims, self.urls, self.words
        tools = []
        if dims.login == "action_redirect":
            tools.append((urls.reply(thread), w["reply"]))
        copy = {"archiver": (urls.archive(thread, page), w["archive"]),
                "print": (urls.print_view(thread), w["print"]),
                "mobile": (urls.mobile(thread, page), w["mobile"]),
                "who_posted": (urls.who_posted(thread), w["who"])}.get(dims.lite_copy)
        if copy:
            tools.append(copy)
        return " ".join(f'<a href="{attr(h)}" rel="nofollow">{text(label)}</a>' for h, label in tools)

    def member_list(self) -> Page:
        """Every member, linked."""
        rows = "".join(f'<li><a href="{attr(self.user_href(u))}">{text(u.name)}</a> ({u.posts})</li>'
                       for u in self.plan.users)
        return self._static(self.words["members"], f'<ul class="memberlist">{rows}</ul>')

    def user(self, user: User) -> Page:
        """A member's profile."""
        posts = ""
        if self.dims.member_posts == "post_list":
            posts = (f'<p><a href="{attr(self.urls.user_posts(user, 1))}">'
                     f'{text(self.words["posts_by"].format(name=user.name))}</a></p>')
        body = (f'<dl class="profile"><dt>Group</dt><dd>{text(user.group)}</dd><dt>Joined</dt><dd>'
                f'{text(self.markup.absolute(user.joined))}</dd><dt>Posts</dt><dd>{user.posts}</dd>'
                f'</dl>{posts}')
        return self._static(user.name, body)

    def user_posts(self, user: User, page: int) -> Page:
        """A page of a member's posts, each in the thread markup under its thread's title."""
        pages = self._user_posts(user)
        hrefs = [self.urls.user_posts(user, n) for n in range(1, len(pages) + 1)]
        pager, head = self.markup.pager(hrefs, page)
        blocks = []
        for thread, post in pages[page - 1]:
            where = self.urls.thread_href(thread, self.page_of(post))
            blocks.append(f'<h3 class="result-title"><a href="{attr(where)}">{text(thread.title)}</a></h3>\n'
                          + self.markup.post_block(thread, post, self.user_href(user)))
        heading = text(self.words["posts_by"].format(name=user.name))
        content = f"<h1>{heading}</h1>\n{pager}\n{self.markup.posts_wrapper(blocks)}\n{pager}"
        return self.page(self.layout(f"{heading} - {self.site_name}", content,
                                     crumbs=[(self.user_href(user), user.name)], head=head))

    def login(self) -> Page:
        """The login form."""
        return self._static(self.words["login"], f'<form method="post" action="{self.LOGIN}">'
                            '<input name="username"><input type="password" name="password">'
                            "<button>OK</button></form>")

    def faq(self) -> Page:
        """The FAQ (served cut off where the forum has broken pages)."""
        items = "\n".join(f'<div class="faq-item"><h3>{text(q)}</h3><div class="answer"><p>{text(a)}'
                          f"</p></div></div>" for q, a in (
                              ("How do I register?", "Use the Register link at the top."),
                              ("Why can't I log in?", "Check that cookies are enabled."),
                              ("How do I change my signature?", "Open your profile settings."),
                              ("Can I edit my posts?", "Yes, for a limited time after posting."),
                              ("Who are the moderators?", "See the team page.")))
        return self._static(self.words["faq"], items)

    def not_found(self) -> Page:
        """The forum's 404 page."""
        return self._static("404", "<p>The topic you requested does not exist.</p>", status=404)

    def server_error(self) -> Page:
        """A plugin page that fails (500)."""
        return self.page("<html><head><title>Error</title></head><body><h1>Internal Server Error"
                         "</h1></body></html>", status=500)

    # -- lite copies ------------------------------------------------------------------------------

    def _lite_posts(self, posts: list[Post]) -> str:
        return "\n".join(
            f'<div class="lite-post"><p class="author"><strong>{text(p.author.name)}</strong> '
            f'{text(self.markup.absolute(p.time))}</p><div class="message">'
            + "<br>".join(text(line) for line in self.markup.post_text(p).split("\n"))
            + "</div></div>" for p in posts)

    def _lite(self, title: str, content: str, head: str = "") -> Page:
        return self.page(f"""<!DOCTYPE html>
<html><head><meta http-equiv="Content-Type" content="text/html; charset={self.encoding}">
<title>{text(title)}</title>{head}</head>
<body><div class="lite">{content}</div></body></html>""")

    def archive_index(self) -> Page:
        """``/archiver/``: the boards."""
        items = "".join(f'<li><a href="{attr(self.urls.archive_board(b))}">{text(b.theme.name)}</a></li>'
                        for b in self.plan.boards)
        return self._lite(f"{self.site_name} - {self.words['archive']}", f"<ul>{items}</ul>")

    def archive_board(self, board: Board) -> Page:
        """An archiver board: every thread."""
        items = "".join(f'<li><a href="{attr(self.urls.archive(t, 1))}">{text(t.title)}</a></li>'
                        for t in board.threads)
        return self._lite(board.theme.name, f'<h1>{text(board.theme.name)}</h1><ul>{items}</ul>')

    def archive_thread(self, thread: Thread, page: int) -> Page:
        """An archiver copy of a thread page, linking the full version."""
        count = self.page_count(thread)
        pages = " ".join(f'<a href="{attr(self.urls.archive(thread, n))}">{n}</a>'
                         for n in range(1, count + 1) if n != page)
        posts = self._lite_posts(self.posts_of(thread, self.plan.posts_per_page, page))
        full = f'<a href="{attr(self.urls.thread_href(thread, page))}">{text(self.words["full"])}</a>'
        return self._lite(thread.title, f"<h1>{text(thread.title)}</h1><p>{full}</p>{posts}"
                          f'<div class="pages">{pages}</div>')

    def mobile(self, thread: Thread, page: int) -> Page:
        """A mobile copy of a thread page."""
        count = self.page_count(thread)
        hrefs = [self.urls.mobile(thread, n) for n in range(1, count + 1)]
        nav = " ".join(f'<a href="{attr(h)}">{n}</a>' for n, h in enumerate(hrefs, start=1) if n != page)
        posts = self._lite_posts(self.posts_of(thread, self.plan.posts_per_page, page))
        return self._lite(thread.title, f"<h2>{text(thread.title)}</h2>{posts}<div>{nav}</div>")

    def print_view(self, thread: Thread) -> Page:
        """The whole thread on one page."""
        return self._lite(thread.title, f"<h1>{text(thread.title)}</h1>{self._lite_posts(thread.posts)}")

    def who_posted(self, thread: Thread) -> Page:
        """Who posted in a thread, and how often."""
        counts: dict[int, tuple[User, int]] = {}
        for post in thread.posts:
            user, n = counts.get(post.author.uid, (post.author, 0))
            counts[post.author.uid] = (user, n + 1)
        rows = "".join(f'<tr><td><a href="{attr(self.user_href(u))}">{text(u.name)}</a></td><td>{n}</td></tr>'
                       for u, n in counts.values())
        return self._lite(f"{self.words['who']} - {thread.title}", f"<table>{rows}</table>")
