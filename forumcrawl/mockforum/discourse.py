"""The ``discourse`` family: the HTML Discourse serves to crawlers and browsers without
JavaScript, English, UTF-8.

What it puts in a crawler's way: every post has a permalink ``/t/<slug>/<id>/<post number>``
that serves the thread page around the post; topic pages count from 1 (``?page=2``, and page 2
links back to ``?page=1``, page 1 itself), but topic lists count from 0 (``/c/<slug>/<id>?page=1``
is a category's second page); and each user's activity (``/u/<name>/activity``) is a list of
their posts with authors, times and text, built like a thread page without being one. Times are
``<time datetime>`` with ``itemprop="datePublished"``, authors ``itemprop="author"``; Discourse
shows no signatures, and an edit only as a later ``dateModified``.
"""

from __future__ import annotations

from datetime import datetime

from forumcrawl.mockforum.family import Family, Page, attr, chunks, slugify, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import discourse_time, iso_with_offset

__all__ = ["Discourse"]

SITE_NAME = "Makers Hub"
_COLOURS = ("0088CC", "BF1E2E", "3AB54A", "F7941D", "652D90", "25AAE2")
_HEAD = ('<span class="link-top-line"><a itemprop="url" href="{href}" class="title raw-link '
         'raw-topic-link">{title}</a></span>')


def username(user: User) -> str:
    """A user's Discourse username (their name, lower case, ``_`` for what URLs cannot hold)."""
    return slugify(user.name).replace("-", "_")


class Discourse(Family):
    """Discourse 3.2's crawler view, for an anonymous visitor."""

    name = "discourse"
    lang = "en"
    encoding = "utf-8"
    wrong_encoding = "cp1252"
    disallow = ("/admin/", "/session", "/new-topic", "/email/", "/my/")
    presets = {"default": {"boards": 4, "threads_per_board": 12},
               "small": {"boards": 3, "threads_per_board": 4}}
    shows_signatures = False

    INDEX = "/"
    LATEST = "/latest"
    CATEGORIES = "/categories"
    TOP = "/top"
    LOGIN = "/login"
    SIGNUP = "/signup"
    GUIDELINES = "/guidelines"
    TOS = "/tos"
    ABOUT = "/about"
    ADMIN = "/admin/"

    # -- links ------------------------------------------------------------------------------------

    @staticmethod
    def listing_href(base: str, page: int) -> str:
        """Page ``page`` (from 1) of a topic or activity list: lists count ``?page=`` from 0."""
        return base if page == 1 else f"{base}?page={page - 1}"

    def board_href(self, board: Board, page: int) -> str:
        """``/c/<slug>/<id>``, then ``?page=1`` for the second page."""
        return self.listing_href(f"/c/{slugify(board.theme.name)}/{board.fid}", page)

    @staticmethod
    def thread_base(thread: Thread) -> str:
        """``/t/<slug>/<id>``."""
        return f"/t/{slugify(thread.title)}/{thread.tid}"

    def thread_href(self, thread: Thread, page: int) -> str:
        base = self.thread_base(thread)
        return base if page == 1 else f"{base}?page={page}"

    def post_href(self, thread: Thread, post: Post) -> str:
        """``/t/<slug>/<id>/<post number>``."""
        return f"{self.thread_base(thread)}/{post.floor}"

    @staticmethod
    def user_href(user: User) -> str:
        """``/u/<username>``."""
        return f"/u/{username(user)}"

    def activity_href(self, user: User, page: int) -> str:
        """A page of the user's activity (their posts, newest first)."""
        return self.listing_href(f"{self.user_href(user)}/activity", page)

    def activity(self, user: User) -> list[list[tuple[Thread, Post]]]:
        """The pages of a user's activity."""
        return chunks(self.posts_by(user), self.plan.posts_per_page)

    def latest(self) -> list[list[Thread]]:
        """The pages of the front page's list: every topic by last activity."""
        threads = sorted(self.plan.threads.values(), key=lambda t: (t.last.time, t.tid),
                         reverse=True)
        return chunks(threads, 2 * self.plan.threads_per_list_page)

    def _top(self) -> list[Thread]:
        return sorted(self.plan.threads.values(), key=lambda t: (t.views, t.tid), reverse=True)[:10]

    @staticmethod
    def _new_topic(board: Board) -> str:
        return f"/new-topic?category_id={board.fid}"

    @staticmethod
    def _upload(post: Post) -> str:
        return f"/uploads/default/original/1X/{post.attachment:x}{post.pid:x}.png"

    def _missing(self) -> str:
        return f"/t/old-firmware-download-links/{self.plan.missing_tid}"

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return discourse_time(moment), moment

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        for n in range(1, len(self.latest()) + 1):
            self.add_page(self.listing_href(self.INDEX, n), lambda n=n: self.front(n))
        self.add_alias(self.LATEST, self.INDEX)
        for href, render in ((self.CATEGORIES, self.categories), (self.TOP, self.top),
                             (self.LOGIN, self.login), (self.SIGNUP, self.signup)):
            self.add_page(href, render)
        for board in plan.boards:
            for n in range(1, len(board.list_pages(plan.threads_per_list_page)) + 1):
                self.add_page(self.board_href(board, n), lambda b=board, n=n: self.board(b, n))
            self.disallowed.add(self._new_topic(board))
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            if self.page_count(thread) > 1:
                self.add_alias(f"{self.thread_base(thread)}?page=1", self.thread_href(thread, 1))
            for post in thread.posts:
                self.add_alias(self.post_href(thread, post),
                               self.thread_href(thread, self.page_of(post)))
                if post.attachment:
                    self.add_broken(self._upload(post), "binary", lambda p=post: self.binary(p.pid))
        for user in plan.users:
            for n in range(1, len(self.activity(user)) + 1):
                self.add_page(self.activity_href(user, n),
                              lambda u=user, n=n: self.user_activity(u, n))
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.GUIDELINES, self.guidelines),
            not_found=self._missing(),
            server_error=self.ABOUT,
            empty=self.TOS,
        )

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, title: str, canonical: str, content: str, *, extra_head: str = "") -> str:
        """The crawler layout: head with Open Graph, logo header, main outlet, footer nav."""
        return f"""<!DOCTYPE html>
<html lang="en" class="desktop-view not-mobile-device text-size-normal anon">
  <head>
    <meta charset="utf-8">
    <title>{text(title)}</title>
    <meta name="description" content="A community for people who build, fix and tinker">
    <meta name="generator" content="Discourse 3.2.0 - https://github.com/discourse/discourse version 3.2.0">
    <link rel="icon" type="image/png" href="/uploads/default/optimized/1X/favicon_2_32x32.png">
    <meta name="theme-color" media="all" content="#ffffff">
    <meta name="viewport" content="width=device-width, initial-scale=1.0, minimum-scale=1.0, user-scalable=yes, viewport-fit=cover">
    <link rel="canonical" href="{attr(canonical)}" />
{extra_head}    <link href="/stylesheets/color_definitions_light_2_1_4c1f.css?__ws=makers" media="all" rel="stylesheet" class="light-scheme"/>
    <link href="/stylesheets/desktop_4c1f.css?__ws=makers" media="all" rel="stylesheet" data-target="desktop"/>
    <meta property="og:site_name" content="{SITE_NAME}" />
    <meta property="og:type" content="website" />
    <meta name="twitter:card" content="summary" />
    <meta property="og:title" content="{attr(title)}" />
    <script type="application/ld+json">{{"@context":"http://schema.org","@type":"WebSite","url":"/","name":"{SITE_NAME}"}}</script>
  </head>
  <body class="crawler ">
    <header>
      <a href="{self.INDEX}"><img src="/uploads/default/original/1X/logo.png" alt="{SITE_NAME}" id="site-logo" style="max-width: 150px;"></a>
      <span class="header-buttons"><a href="{self.SIGNUP}" class="btn btn-primary sign-up-button">Sign Up</a> <a href="{self.LOGIN}" class="btn btn-primary login-button">Log In</a></span>
    </header>
    <div id="main-outlet" class="wrap" role="main">
{content}
    </div>
    <footer class="container wrap">
      <nav class='crawler-nav'>
        <ul>
        <li itemscope itemtype='http://schema.org/SiteNavigationElement'><span itemprop='name'><a href='{self.INDEX}' itemprop="url">Home </a></span></li>
        <li itemscope itemtype='http://schema.org/SiteNavigationElement'><span itemprop='name'><a href='{self.CATEGORIES}' itemprop="url">Categories </a></span></li>
        <li itemscope itemtype='http://schema.org/SiteNavigationElement'><span itemprop='name'><a href='{self.GUIDELINES}' itemprop="url">FAQ/Guidelines </a></span></li>
        <li itemscope itemtype='http://schema.org/SiteNavigationElement'><span itemprop='name'><a href='{self.TOS}' itemprop="url">Terms of Service </a></span></li>
        <li itemscope itemtype='http://schema.org/SiteNavigationElement'><span itemprop='name'><a href='{self.ABOUT}' itemprop="url">About </a></span></li>
        <li itemscope itemtype='http://schema.org/SiteNavigationElement'><span itemprop='name'><a href='{self.ADMIN}' itemprop="url" rel="nofollow">Admin </a></span></li>
        </ul>
      </nav>
      <p class='powered-by-link'>Powered by <a href="https://www.discourse.org">Discourse</a>, best viewed with JavaScript enabled</p>
    </footer>
  </body>
</html>
"""

    @staticmethod
    def nav(hrefs: list[str], current: int, *, wrap: str = "navigation") -> str:
        """The crawler view's previous/next page links (nothing for one page)."""
        links = []
        if current > 1:
            links.append(f"<span itemprop='name'><a rel=\"prev\" itemprop=\"url\" href=\""
                         f"{attr(hrefs[current - 2])}\">&larr; previous page</a></span>")
        if current < len(hrefs):
            links.append(f"<span itemprop='name'><b><a rel=\"next\" itemprop=\"url\" href=\""
                         f"{attr(hrefs[current])}\">next page &rarr;</a></b></span>")
        if not links:
            return ""
        return (f"<div role='navigation' itemscope itemtype='http://schema.org/SiteNavigationElement'"
                f" class=\"{wrap}\">\n  " + "\n  ".join(links) + "\n</div>")

    def badge(self, board: Board) -> str:
        """A category badge linking the category."""
        colour = _COLOURS[self.plan.boards.index(board) % len(_COLOURS)]
        return (f"<a href=\"{attr(self.board_href(board, 1))}\" class=\"badge-wrapper bullet\" "
                f"itemprop=\"item\"><span class='badge-category-bg' style='background-color: #"
                f"{colour}'></span><span class='badge-category clear-badge'><span class='category-"
                f"name' itemprop='name'>{text(board.theme.name)}</span></span></a>")

    @staticmethod
    def avatar(user: User, size: int) -> str:
        """The letter avatar Discourse draws for a user without a picture."""
        return (f'<img width="{size}" height="{size}" src="/letter_avatar_proxy/v4/letter/'
                f'{username(user)[0]}/{user.uid % 0xFFFFFF:06x}/{2 * size}.png" class="avatar" '
                f'alt="{attr(user.name)}" loading="lazy">')

    def topic_list(self, threads: list[Thread], *, missing: bool = False) -> str:
        """The topic list table of the front page and the categories."""
        rows = []
        for n, thread in enumerate(threads, start=1):
            pages = self.page_count(thread)
            page_links = ""
            if pages > 1:
                page_links = ('\n          <span class="page-links">' + "".join(
                    f" <a href='{attr(self.thread_href(thread, k))}'>{k}</a> "
                    for k in range(2, pages + 1)) + "</span>")
            posters = {p.author.uid: p.author for p in thread.posts}
            avatars = "".join(f'<a href="{self.user_href(u)}" data-user-card="{username(u)}">'
                              f"{self.avatar(u, 25)}</a>" for u in list(posters.values())[:5])
            last = thread.last
            rows.append(f"""      <tr class="topic-list-item">
        <td class="main-link" itemprop='itemListElement' itemscope itemtype='http://schema.org/ListItem'>
          <meta itemprop='position' content='{n}'>
          {_HEAD.format(href=attr(self.thread_href(thread, 1)), title=text(thread.title))}{page_links}
          <div class="link-bottom-line">{self.badge(self.plan.board(thread.fid))}</div>
        </td>
        <td class="posters">{avatars}</td>
        <td class="replies"><span class='posts' title='posts'>{len(thread.posts) - 1}</span></td>
        <td class="views"><span class='views' title='views'>{thread.views}</span></td>
        <td class="activity"><a href="{attr(self.post_href(thread, last))}" title="last post"><time datetime="{iso_with_offset(last.time, "Z")}">{last.time:%b} {last.time.day}</time></a></td>
      </tr>""")
        if missing:
            rows.insert(min(2, len(rows)), f"""      <tr class="topic-list-item">
        <td class="main-link">{_HEAD.format(href=self._missing(), title="Old firmware download links")}</td>
        <td class="posters"></td><td class="replies">0</td><td class="views">0</td><td class="activity"></td>
      </tr>""")
        return f"""<div class="topic-list-container" itemscope itemtype='http://schema.org/ItemList'>
  <meta itemprop='itemListOrder' content='http://schema.org/ItemListOrderDescending'>
  <table class='topic-list'>
    <thead><tr><th>Topic</th><th></th><th class="replies">Replies</th><th class="views">Views</th><th>Activity</th></tr></thead>
    <tbody>
{chr(10).join(rows)}
    </tbody>
  </table>
</div>"""

    def post_block(self, thread: Thread, post: Post, *, excerpt: bool = False) -> str:
        """A post as the crawler view prints it: author, time, position, cooked text, likes;
        ``excerpt`` for the activity list (the first paragraph, the topic's title above)."""
        user = post.author
        published = iso_with_offset(post.time, "Z")
        modified = iso_with_offset(post.edit.time, "Z") if post.edit else published
        kind = ("itemprop='comment' itemscope itemtype='http://schema.org/Comment' "
                if post.floor > 1 and not excerpt else "")
        body = [f"<p>{text(p)}</p>" for p in (post.paragraphs[:1] if excerpt else post.paragraphs)]
        if post.quote and not excerpt:
            quoted = post.quote.post
            body.insert(0, f"""<aside class="quote no-group" data-username="{username(quoted.author)}" data-post="{quoted.floor}" data-topic="{thread.tid}">
<div class="title">
<div class="quote-controls"></div>
{self.avatar(quoted.author, 24)}<a href="{attr(self.post_href(thread, quoted))}">{text(quoted.author.name)}:</a></div>
<blockquote>
<p>{text(post.quote.text)}</p>
</blockquote>
</aside>""")
        if post.attachment and not excerpt:
            body.append(f'<p><div class="lightbox-wrapper"><a class="lightbox" href="{self._upload(post)}" '
                        f'title="photo_{post.attachment}.png"><img src="{self._upload(post)}" '
                        f'alt="photo_{post.attachment}" width="690" height="460"></a></div></p>')
        heading = ""
        if excerpt:
            board = self.plan.board(thread.fid)
            heading = (f"\n  <div class='stream-topic-title'><a href=\"{attr(self.post_href(thread, post))}"
                       f"\" class='title'>{text(thread.title)}</a> {self.badge(board)}</div>")
        likes = (post.pid * 7) % 9
        return f"""<div id='post_{post.floor}' {kind}class='topic-body crawler-post{" user-stream-item" if excerpt else ""}'>{heading}
  <div class='crawler-post-meta'>
    <span class="creator" itemprop="author" itemscope itemtype="http://schema.org/Person">
      <a itemprop="url" rel="nofollow" href='{self.user_href(user)}'><span itemprop='name'>{text(user.name)}</span></a>
    </span>
    <link itemprop="mainEntityOfPage" href="{attr(self.thread_href(thread, 1))}">
    <span class="crawler-post-infos">
      <a href="{attr(self.post_href(thread, post))}" class="post-date"><time itemprop='datePublished' datetime='{published}' class='post-time'>{discourse_time(post.time)}</time></a>
      <meta itemprop='datePublished' content='{published}'>
      <meta itemprop='dateModified' content='{modified}'>
      <span itemprop='position'>{post.floor}</span>
    </span>
  </div>
  <div class='post' itemprop='text'>
{chr(10).join(body)}
  </div>
  <div itemprop="interactionStatistic" itemscope itemtype="http://schema.org/InteractionCounter">
    <meta itemprop="interactionType" content="http://schema.org/LikeAction"/>
    <meta itemprop="userInteractionCount" content="{likes}" />
    <span class='post-likes'>{f"{likes} Like{'s' if likes > 1 else ''}" if likes else ""}</span>
  </div>
</div>"""

    # -- pages ------------------------------------------------------------------------------------

    def _list_page(self, title: str, heading: str, hrefs: list[str], page: int, threads: list[Thread],
                   *, missing: bool = False) -> Page:
        pills = "".join(f'<li><a href="{h}">{label}</a></li>' for h, label in (
            (self.LATEST, "Latest"), (self.TOP, "Top"), (self.CATEGORIES, "Categories")))
        content = (f'{heading}\n<ul class="nav-pills">{pills}</ul>\n'
                   f"{self.topic_list(threads, missing=missing)}\n{self.nav(hrefs, page)}")
        return self.page(self.layout(title, hrefs[page - 1], content))

    def front(self, page: int) -> Page:
        """``/``: the latest topics of every category."""
        pages = self.latest()
        hrefs = [self.listing_href(self.INDEX, n) for n in range(1, len(pages) + 1)]
        return self._list_page(f"{SITE_NAME} - Latest topics", "<h1>Latest topics</h1>", hrefs,
                               page, pages[page - 1])

    def top(self) -> Page:
        """``/top``: the most viewed topics."""
        return self._list_page(f"Top topics - {SITE_NAME}", "<h1>Top topics</h1>", [self.TOP], 1,
                               self._top())

    def board(self, board: Board, page: int) -> Page:
        """``/c/<slug>/<id>``: the category's description and topic list."""
        lists = board.list_pages(self.plan.threads_per_list_page)
        hrefs = [self.board_href(board, n) for n in range(1, len(lists) + 1)]
        heading = (f'<div class="category-crawler"><h1>{self.badge(board)}</h1>\n<p class="category-'
                   f'description">{text(board.theme.description)}</p>\n<a href="{attr(self._new_topic(board))}"'
                   f' class="btn btn-default" rel="nofollow">+ New Topic</a></div>')
        title = f"Latest {board.theme.name} topics - {SITE_NAME}"
        return self._list_page(title, heading, hrefs, page, lists[page - 1],
                               missing=board is self.plan.boards[0] and page == 1)

    def categories(self) -> Page:
        """``/categories``: each category with its counts and newest topics."""
        rows = []
        for board in self.plan.boards:
            newest = "".join(f'<li><a href="{attr(self.thread_href(t, 1))}">{text(t.title)}</a></li>'
                             for t in board.threads[:3])
            rows.append(f"""      <tr class="category-list-item">
        <td class="category">{self.badge(board)}<div class="category-description">{text(board.theme.description)}</div></td>
        <td class="topics"><span class="value">{len(board.threads)}</span> <span class="unit">topics</span></td>
        <td class="latest"><ul class="latest-topic-list">{newest}</ul></td>
      </tr>""")
        content = f"""<h1>Categories</h1>
<table class="category-list">
  <thead><tr><th class="category">Category</th><th class="topics">Topics</th><th class="latest">Latest</th></tr></thead>
  <tbody>
{chr(10).join(rows)}
  </tbody>
</table>"""
        return self.page(self.layout(f"Categories - {SITE_NAME}", self.CATEGORIES, content))

    def thread(self, thread: Thread, page: int) -> Page:
        """``/t/<slug>/<id>``: title, category, the page's posts, previous/next page links."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = self.page_count(thread)
        hrefs = [self.thread_href(thread, n) for n in range(1, total + 1)]
        if total > 1:
            hrefs[0] = f"{self.thread_base(thread)}?page=1"
        posts = "\n".join(self.post_block(thread, p)
                          for p in self.posts_of(thread, plan.posts_per_page, page))
        related = [t for t in board.threads if t is not thread][:4]
        first = thread.posts[0]
        content = f"""<div id="topic-title">
  <h1><a href="{attr(self.thread_href(thread, 1))}">{text(thread.title)}</a></h1>
  <div class="topic-category" itemscope itemtype="http://schema.org/BreadcrumbList">
    <span itemprop="itemListElement" itemscope itemtype="http://schema.org/ListItem">{self.badge(board)}<meta itemprop="position" content="1" /></span>
  </div>
</div>
<div itemscope itemtype='http://schema.org/DiscussionForumPosting'>
  <meta itemprop='headline' content='{attr(thread.title)}'>
  <link itemprop='url' href='{attr(self.thread_href(thread, 1))}'>
  <meta itemprop='datePublished' content='{iso_with_offset(first.time, "Z")}'>
  <meta itemprop='articleSection' content='{attr(board.theme.name)}'>
  <div itemprop='publisher' itemscope itemtype="http://schema.org/Organization"><meta itemprop='name' content='{SITE_NAME}'></div>
{posts}
</div>
{self.nav(hrefs, page, wrap="topic-body crawler-post")}
<div id="related-topics" class="more-topics__list" role="complementary">
  <h3 id="related-topics-title" class="more-topics__list-title">Related topics</h3>
{self.topic_list(related)}
</div>"""
        links = "".join(f'    <link rel="{rel}" href="{attr(hrefs[n - 1])}">\n'
                        for rel, n in (("prev", page - 1), ("next", page + 1)) if 0 < n <= total)
        title = f"{thread.title} - {board.theme.name} - {SITE_NAME}"
        return self.thread_page(thread, self.layout(title, self.thread_href(thread, page), content,
                                                    extra_head=links))

    def _user_header(self, user: User) -> str:
        return (f'<div class="user-crawler">{self.avatar(user, 120)}<h1 class="username"><a href="'
                f'{self.user_href(user)}">{text(user.name)}</a></h1><p class="user-title">'
                f'{text(user.group)}</p>\n<ul class="nav-pills"><li><a href="{self.user_href(user)}">'
                f'Summary</a></li><li><a href="{self.activity_href(user, 1)}">Activity</a></li></ul>'
                f'</div>')

    def user(self, user: User) -> Page:
        """``/u/<username>``: the user's summary."""
        content = f"""{self._user_header(user)}
<div class="user-summary">
  <ul class="stats-section">
    <li class="stats-days-visited"><span class="value">{(self.plan.now - user.joined).days // 3}</span> days visited</li>
    <li class="stats-posts-count"><span class="value">{user.posts}</span> posts created</li>
    <li class="stats-topic-count"><span class="value">{user.threads}</span> topics created</li>
  </ul>
  <p class="user-location">{text(user.location)}</p>
  <p class="user-joined">Joined <time datetime="{iso_with_offset(user.joined, "Z")}">{discourse_time(user.joined)}</time></p>
</div>"""
        return self.page(self.layout(f"Profile - {username(user)} - {SITE_NAME}",
                                     self.user_href(user), content))

    def user_activity(self, user: User, page: int) -> Page:
        """``/u/<username>/activity``: the user's posts, newest first, each a post-like block."""
        pages = self.activity(user)
        hrefs = [self.activity_href(user, n) for n in range(1, len(pages) + 1)]
        items = "\n".join(self.post_block(t, p, excerpt=True) for t, p in pages[page - 1])
        content = (f'{self._user_header(user)}\n<div class="user-content user-stream" itemscope '
                   f'itemtype="http://schema.org/ItemList">\n{items}\n</div>\n{self.nav(hrefs, page)}')
        return self.page(self.layout(f"Activity - {username(user)} - {SITE_NAME}", hrefs[page - 1],
                                     content))

    def _static(self, href: str, title: str, body: str, status: int = 200) -> Page:
        content = f'<div class="static-page"><h1>{text(title)}</h1>\n{body}\n</div>'
        return self.page(self.layout(f"{title} - {SITE_NAME}", href, content), status)

    def login(self) -> Page:
        """``/login``: what a browser without JavaScript gets."""
        return self._static(self.LOGIN, "Log In", f"""<noscript><p>This site works best with JavaScript enabled.</p></noscript>
<form action="/session" method="post" id="login-form">
  <label for="login-account-name">Email / Username</label><input type="text" id="login-account-name" name="login" autocomplete="username">
  <label for="login-account-password">Password</label><input type="password" id="login-account-password" name="password" autocomplete="current-password">
  <button type="submit" class="btn btn-primary">Log In</button>
</form>
<p><a href="{self.SIGNUP}">Create your account</a></p>""")

    def signup(self) -> Page:
        """``/signup``: the sign-up form."""
        return self._static(self.SIGNUP, "Create your account", f"""<form action="/u" method="post" id="signup-form">
  <label>Email <input type="email" name="email"></label>
  <label>Username <input type="text" name="username"></label>
  <button type="submit" class="btn btn-primary">Sign Up</button>
</form>
<p>By signing up you accept the <a href="{self.TOS}">terms of service</a>. <a href="{self.LOGIN}">Log in</a> if you have an account.</p>""")

    def guidelines(self) -> Page:
        """``/guidelines``: the community guidelines (served truncated)."""
        plan = self.plan
        body = "\n".join(f"<p>{text(p)}</p>" for p in plan.announcement_text)
        return self._static(self.GUIDELINES, "FAQ", f"""<div class="body-page"><h2 id="rules">{text(plan.announcement_title)}</h2>
<div class="guideline">{body}</div>
<h2 id="civilized">This is a civilized place for public discussion</h2>
<div class="guideline"><p>Please treat this discussion forum with the same respect you would a public park.</p></div></div>""")

    def not_found(self) -> Page:
        """Discourse's "page doesn't exist" message, with a 404 status."""
        return self._static(self._missing(), "Oops! That page doesn’t exist or is private.",
                            f'<div class="page-not-found"><a href="{self.INDEX}">Latest</a> '
                            f'<a href="{self.TOP}">Top</a></div>', status=404)

    def server_error(self) -> Page:
        """The bare page the web server shows when Discourse is down, with a 500 status."""
        return self.page("""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Oops</title></head>
<body><div class="error-page"><h1>Oops</h1>
<p>The software powering this discussion forum encountered an unexpected problem. We apologize for the inconvenience.</p>
</div></body></html>""", status=500)
