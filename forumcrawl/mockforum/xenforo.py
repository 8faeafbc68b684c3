"""The ``xenforo`` family: XenForo 2-style pages, English, UTF-8, ``page-N`` path pagination.

What it puts in a crawler's way: every post's ``#N`` link is a permalink
(``/threads/<slug>.<id>/post-<pid>``) that serves the page holding the post, as do
``/posts/<pid>/`` (activity lists) and ``/goto/post?id=`` (quote headers); thread lists link
``/threads/…/latest``; each board has sort, prefix and date filters
(``?order=reply_count&direction=desc``, ``?prefix_id=2``, ``?last_days=7``) that serve the same
threads reordered or filtered, each paginated; times are ``<time class="u-dt">`` elements whose
text is relative ("Yesterday at 9:15 PM") and whose ``datetime`` attribute is exact.
"""

from __future__ import annotations

from datetime import datetime

from forumcrawl.mockforum.family import Family, Listing, Page, attr, slugify, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import epoch, iso_with_offset, xenforo_time

__all__ = ["XenForo"]

SITE_NAME = "Workbench Community"
#: Thread prefixes by id: label and colour class.
PREFIXES = {1: ("Question", "label--blue"), 2: ("Solved", "label--green"),
            3: ("Guide", "label--orange")}
_ASSETS = "_v=5c4e3a1b"


def prefix_of(thread: Thread) -> int:
    """A thread's prefix id (0: none), fixed by its id."""
    return thread.tid % 4


class XenForo(Family):
    """XenForo 2.2 with its default style, for a guest."""

    name = "xenforo"
    lang = "en"
    encoding = "utf-8"
    wrong_encoding = "cp1252"
    disallow = ("/admin.php", "/account/", "/forums/*/post-thread", "/threads/*/reply",
                "/posts/*/react", "/posts/*/report")
    presets = {"default": {"boards": 4, "threads_per_board": 12},
               "small": {"boards": 3, "threads_per_board": 4}}

    INDEX = "/"
    FORUMS = "/forums/"
    WHATS_NEW = "/whats-new/"
    MEMBERS = "/members/"
    SEARCH = "/search/"
    LOGIN = "/login/"
    REGISTER = "/register/"
    HELP = "/help/"
    TERMS = "/help/terms/"
    PRIVACY = "/help/privacy-policy/"
    ONLINE = "/online/"
    ADMIN = "/admin.php"

    # -- links ------------------------------------------------------------------------------------

    @staticmethod
    def board_base(board: Board, name: str) -> str:
        """``/forums/<slug>.<id>/``."""
        return f"/forums/{slugify(name)}.{board.fid}/"

    def board_href(self, board: Board, page: int, listing: Listing | None = None) -> str:
        """A list page of a board, ``page-N`` in the path and the view's query after it."""
        href = self.board_base(board, board.theme.name) + (f"page-{page}" if page > 1 else "")
        return f"{href}?{listing.query}" if listing else href

    @staticmethod
    def thread_base(thread: Thread) -> str:
        """``/threads/<slug>.<id>/``."""
        return f"/threads/{slugify(thread.title)}.{thread.tid}/"

    def thread_href(self, thread: Thread, page: int) -> str:
        return self.thread_base(thread) + (f"page-{page}" if page > 1 else "")

    def post_href(self, thread: Thread, post: Post) -> str:
        """The ``#N`` permalink of a post."""
        return f"{self.thread_base(thread)}post-{post.pid}"

    @staticmethod
    def user_href(user: User) -> str:
        """``/members/<slug>.<id>/``."""
        return f"/members/{slugify(user.name)}.{user.uid}/"

    def listings(self) -> list[Listing]:
        """The sorts and filters each board's filter menu links."""
        views = [
            Listing("order=reply_count&direction=desc", "Replies",
                    key=lambda t: (len(t.posts), t.tid)),
            Listing("order=view_count&direction=desc", "Views", key=lambda t: (t.views, t.tid)),
            Listing("order=post_date&direction=desc", "First message",
                    key=lambda t: (t.posts[0].time, t.tid)),
            Listing("order=title&direction=asc", "Title", key=lambda t: t.title, ascending=True),
            Listing("last_days=7", "Last 7 days", keep=self.active_within(7)),
        ]
        views += [Listing(f"prefix_id={pid}", label, keep=lambda t, p=pid: prefix_of(t) == p)
                  for pid, (label, _) in PREFIXES.items()]
        return views

    #: The menu's default sort: the plain list under another URL.
    DEFAULT_ORDER = "order=last_post_date&direction=desc"

    def _latest(self, thread: Thread) -> str:
        return f"{self.thread_base(thread)}latest"

    @staticmethod
    def _goto(post: Post) -> str:
        return f"/goto/post?id={post.pid}"

    @staticmethod
    def _post_short(post: Post, action: str = "") -> str:
        """``/posts/<pid>/``, a permalink, and the post's actions below it."""
        return f"/posts/{post.pid}/{action}"

    def _reply(self, thread: Thread, post: Post | None = None) -> str:
        href = f"{self.thread_base(thread)}reply"
        return f"{href}?quote={post.pid}" if post else href

    def _post_thread(self, board: Board) -> str:
        return f"{self.board_base(board, board.theme.name)}post-thread"

    @staticmethod
    def _attachment(post: Post) -> str:
        return f"/attachments/photo_{post.attachment}-png.{post.attachment}/"

    def _missing(self) -> str:
        return f"/threads/old-firmware-download-links.{self.plan.missing_tid}/"

    def _recent(self, user: User) -> list[tuple[Thread, Post]]:
        """The posts a member's profile lists."""
        return self.posts_by(user)[:8]

    def _newest_posts(self) -> list[tuple[Thread, Post]]:
        """What "What's new" lists: the twenty latest posts."""
        pairs = [(t, p) for t in self.plan.threads.values() for p in t.posts]
        return sorted(pairs, key=lambda tp: (tp[1].time, tp[1].pid), reverse=True)[:20]

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return iso_with_offset(moment, "+0000"), moment

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        self.add_page(self.INDEX, self.index)
        self.add_alias(self.FORUMS, self.INDEX)
        for href, render in ((self.WHATS_NEW, self.whats_new), (self.MEMBERS, self.members),
                             (self.SEARCH, self.search), (self.LOGIN, self.login),
                             (self.REGISTER, self.register_page), (self.HELP, self.help)):
            self.add_page(href, render)
        for board in plan.boards:
            for listing in (None, *self.listings()):
                for n in range(1, len(self.listed(board, listing)) + 1):
                    self.add_page(self.board_href(board, n, listing),
                                  lambda b=board, n=n, v=listing: self.board(b, n, v))
            first = self.board_href(board, 1)
            self.add_alias(f"{first}?{self.DEFAULT_ORDER}", first)
            self.disallowed.add(self._post_thread(board))
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            self.add_alias(self._latest(thread), self.thread_href(thread, self.page_count(thread)))
            self.disallowed.add(self._reply(thread))
            for post in thread.posts:
                page = self.thread_href(thread, self.page_of(post))
                self.add_alias(self.post_href(thread, post), page)
                self.disallowed.update({self._reply(thread, post), self._post_short(post, "report"),
                                        self._post_short(post, "react?reaction_id=1")})
                if post.quote:
                    quoted = post.quote.post
                    self.add_alias(self._goto(quoted), self.thread_href(thread, self.page_of(quoted)))
                if post.attachment:
                    self.add_broken(self._attachment(post), "binary",
                                    lambda p=post: self.binary(p.pid))
        linked = self._newest_posts() + [tp for u in plan.users for tp in self._recent(u)]
        for thread, post in linked:
            self.add_alias(self._post_short(post), self.thread_href(thread, self.page_of(post)))
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.TERMS, self.terms),
            not_found=self._missing(),
            server_error=self.ONLINE,
            empty=self.PRIVACY,
        )

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, template: str, title: str, heading: str, crumbs: list[tuple[str, str]],
               content: str, *, canonical: str, description: str = "", sidebar: str = "",
               extra_head: str = "") -> str:
        """The XenForo 2 frame: header, sticky nav with guest links, breadcrumbs, title with
        its description, sidebar, footer; ``heading`` and ``description`` are HTML."""
        trail = "\n".join(
            f'\t<li itemprop="itemListElement" itemscope itemtype="https://schema.org/ListItem">'
            f'<a href="{attr(h)}" itemprop="item"><span itemprop="name">{text(label)}</span></a>'
            f'<meta itemprop="position" content="{n}" /></li>'
            for n, (h, label) in enumerate([(self.FORUMS, "Forums"), *crumbs], start=1)
        )
        crumbs_html = (f'<ul class="p-breadcrumbs " itemscope itemtype="https://schema.org/'
                       f'BreadcrumbList">\n{trail}\n</ul>')
        main_class = "p-body-main--withSidebar" if sidebar else ""
        aside = (f'\n<div class="p-body-sidebarCol"></div>\n<div class="p-body-sidebar">\n'
                 f'{sidebar}\n</div>') if sidebar else ""
        return f"""<!DOCTYPE html>
<html id="XF" lang="en-US" dir="LTR" data-xf="2.2" data-app="public" data-template="{template}" data-logged-in="false" data-cookie-prefix="xf_" class="has-no-js template-{template}">
<head>
	<meta charset="utf-8" />
	<meta http-equiv="X-UA-Compatible" content="IE=Edge" />
	<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
	<title>{text(title)} | {SITE_NAME}</title>
	<link rel="manifest" href="/webmanifest.php">
	<meta name="theme-color" content="#185886" />
	<meta property="og:site_name" content="{SITE_NAME}" />
	<meta property="og:type" content="website" />
	<meta property="og:title" content="{attr(title)}" />
	<link rel="canonical" href="{attr(canonical)}" />
{extra_head}	<link rel="stylesheet" href="/css.php?css=public%3Anormalize.css%2Cpublic%3Afa.css%2Cpublic%3Acore.less%2Cpublic%3Aapp.less&amp;s=1&amp;l=1&amp;d=1709000000" />
	<script src="/js/xf/preamble.min.js?{_ASSETS}"></script>
</head>
<body data-template="{template}">
<div class="p-pageWrapper" id="top">
<header class="p-header" id="header">
	<div class="p-header-inner">
		<div class="p-header-content">
			<div class="p-header-logo p-header-logo--image">
				<a href="{self.INDEX}"><img src="/styles/default/xenforo/xenforo-logo.png" alt="{SITE_NAME}" width="100" height="36" /></a>
			</div>
		</div>
	</div>
</header>
<div class="p-navSticky p-navSticky--primary" data-xf-init="sticky-header">
	<nav class="p-nav">
		<div class="p-nav-inner">
			<div class="p-nav-scroller hScroller" data-xf-init="h-scroller">
				<div class="hScroller-scroll">
				<ul class="p-nav-list js-offCanvasNavSource">
					<li><div class="p-navEl is-selected"><a href="{self.FORUMS}" class="p-navEl-link" data-nav-id="forums">Forums</a></div></li>
					<li><div class="p-navEl"><a href="{self.WHATS_NEW}" class="p-navEl-link" data-nav-id="whatsNew">What's new</a></div></li>
					<li><div class="p-navEl"><a href="{self.MEMBERS}" class="p-navEl-link" data-nav-id="members">Members</a></div></li>
				</ul>
				</div>
			</div>
			<div class="p-nav-opposite">
				<div class="p-navgroup p-account p-navgroup--guest">
					<a href="{self.LOGIN}" class="p-navgroup-link p-navgroup-link--textual p-navgroup-link--logIn" data-xf-click="overlay" data-follow-redirects="on"><span class="p-navgroup-linkText">Log in</span></a>
					<div class="p-navgroup-linkSeparator"></div>
					<a href="{self.REGISTER}" class="p-navgroup-link p-navgroup-link--textual p-navgroup-link--register" data-xf-click="overlay" data-follow-redirects="on"><span class="p-navgroup-linkText">Register</span></a>
				</div>
				<div class="p-navgroup p-discovery">
					<a href="{self.WHATS_NEW}" class="p-navgroup-link p-navgroup-link--iconic p-navgroup-link--whatsnew" aria-label="What's new" title="What's new"><i aria-hidden="true"></i><span class="p-navgroup-linkText">What's new</span></a>
					<a href="{self.SEARCH}" class="p-navgroup-link p-navgroup-link--iconic p-navgroup-link--search" data-xf-click="menu" aria-label="Search" title="Search"><i aria-hidden="true"></i><span class="p-navgroup-linkText">Search</span></a>
				</div>
			</div>
		</div>
	</nav>
</div>
<div class="offCanvasMenu offCanvasMenu--nav js-headerOffCanvasMenu" data-menu="menu" aria-hidden="true"></div>
<div class="p-body">
	<div class="p-body-inner">
{crumbs_html}
		<div class="p-body-header">
			<div class="p-title "><h1 class="p-title-value">{heading}</h1></div>
			{description}
		</div>
		<div class="p-body-main {main_class}">
			<div class="p-body-content">
				<div class="p-body-pageContent">
{content}
				</div>
			</div>{aside}
		</div>
{crumbs_html}
	</div>
</div>
<footer class="p-footer" id="footer">
	<div class="p-footer-inner">
		<div class="p-footer-row">
			<div class="p-footer-row-opposite">
				<ul class="p-footer-linkList">
					<li><a href="{self.TERMS}">Terms and rules</a></li>
					<li><a href="{self.PRIVACY}">Privacy policy</a></li>
					<li><a href="{self.HELP}">Help</a></li>
					<li><a href="{self.ADMIN}" rel="nofollow">Admin</a></li>
					<li><a href="{self.INDEX}">Home</a></li>
				</ul>
			</div>
		</div>
		<div class="p-footer-copyright">
			<a href="https://xenforo.com" class="u-concealed" dir="ltr" target="_blank" rel="sponsored noopener">Community platform by XenForo<sup>&reg;</sup> <span class="copyright">&copy; 2010-2024 XenForo Ltd.</span></a>
		</div>
	</div>
</footer>
</div>
<div class="u-bottomFixer js-bottomFixTarget"></div>
<a href="#top" class="button--scroll button" data-xf-click="scroll-to"><span class="button-text"><i class="fa--xf far fa-arrow-up" aria-hidden="true"></i><span class="u-srOnly">Top</span></span></a>
<script src="/js/vendor/jquery/jquery-3.5.1.min.js?{_ASSETS}"></script>
<script src="/js/xf/core-compiled.js?{_ASSETS}"></script>
<script>XF.config.time = {{ now: {epoch(self.plan.now)}, today: {epoch(self.plan.now) - epoch(self.plan.now) % 86400}, todayDow: {self.plan.now.isoweekday() % 7} }};</script>
</body>
</html>
"""

    def time(self, moment: datetime) -> str:
        """A ``<time class="u-dt">``: relative text, exact ``datetime`` and epoch seconds."""
        shown, title = xenforo_time(moment, self.plan.now)
        return (f'<time class="u-dt" dir="auto" datetime="{iso_with_offset(moment, "+0000")}" '
                f'data-time="{epoch(moment)}" data-date-string="{moment:%b} {moment.day}, '
                f'{moment.year}" title="{attr(title)}">{text(shown)}</time>')

    @staticmethod
    def username(user: User) -> str:
        """The member link XenForo prints wherever a name appears."""
        return (f'<a href="{attr(XenForo.user_href(user))}" class="username " dir="auto" '
                f'data-user-id="{user.uid}" data-xf-init="member-tooltip">{text(user.name)}</a>')

    @staticmethod
    def avatar(user: User, size: str) -> str:
        """A member's avatar, linked to the profile."""
        return (f'<a href="{attr(XenForo.user_href(user))}" class="avatar avatar--{size}" '
                f'data-user-id="{user.uid}" data-xf-init="member-tooltip"><img src="/data/avatars/'
                f'{size}/{user.uid // 1000}/{user.uid}.jpg?1700000000" alt="{attr(user.name)}" '
                f'class="avatar-u{user.uid}-{size}" loading="lazy" /></a>')

    @staticmethod
    def page_nav(hrefs: list[str], current: int) -> str:
        """XenForo's page navigation (nothing for one page)."""
        if len(hrefs) < 2:
            return ""
        items = "\n".join(
            f'\t\t<li class="pageNav-page {"pageNav-page--current " if n == current else ""}">'
            f'<a href="{attr(href)}">{n}</a></li>' for n, href in enumerate(hrefs, start=1))
        prev = (f'<a href="{attr(hrefs[current - 2])}" class="pageNav-jump pageNav-jump--prev">'
                f'Prev</a>' if current > 1 else "")
        after = (f'<a href="{attr(hrefs[current])}" class="pageNav-jump pageNav-jump--next">'
                 f'Next</a>' if current < len(hrefs) else "")
        return (f'<div class="block-outer"><div class="pageNavWrapper pageNavWrapper--mixed ">'
                f'<div class="pageNav  ">{prev}\n\t<ul class="pageNav-main">\n{items}\n\t</ul>'
                f'{after}</div></div></div>')

    def _block(self, title: str, body: str) -> str:
        return (f'<div class="block" data-widget-definition="{slugify(title)}">\n'
                f'\t<div class="block-container">\n\t\t<h3 class="block-minorHeader">'
                f'{text(title)}</h3>\n\t\t<div class="block-body block-row">\n{body}\n\t\t</div>'
                f'\n\t</div>\n</div>')

    def sidebar(self) -> str:
        """Members online, the newest posts and the forum statistics."""
        plan = self.plan
        online = ", ".join(self.username(u) for u in plan.users[:: max(len(plan.users) // 5, 1)])
        latest = "\n".join(
            f'\t\t\t<li class="block-row"><div class="contentRow"><div class="contentRow-figure">'
            f'{self.avatar(p.author, "xxs")}</div><div class="contentRow-main contentRow-main--close">'
            f'<a href="{attr(self._latest(t))}">{text(t.title)}</a><div class="contentRow-minor '
            f'contentRow-minor--smaller">Latest: {text(p.author.name)} &middot; {self.time(p.time)}'
            f'</div></div></div></li>'
            for t, p in self._newest_posts()[:5])
        stats = (f'<dl class="pairs pairs--justified"><dt>Threads</dt><dd>{len(plan.threads)}</dd>'
                 f'</dl>\n<dl class="pairs pairs--justified"><dt>Messages</dt><dd>'
                 f'{len(plan.all_posts)}</dd></dl>\n<dl class="pairs pairs--justified"><dt>Members'
                 f'</dt><dd>{len(plan.users)}</dd></dl>\n<dl class="pairs pairs--justified"><dt>'
                 f'Latest member</dt><dd>{self.username(plan.newest_user)}</dd></dl>')
        return "\n".join((
            self._block("Members online",
                        f'<ul class="listInline listInline--comma"><li>{online}</li></ul>'
                        f'\n<div class="block-footer"><a href="{self.ONLINE}">Current visitors'
                        f'</a></div>'),
            self._block("Latest posts", f'\t\t\t<ul class="block-body">\n{latest}\n\t\t\t</ul>'),
            self._block("Forum statistics", stats),
        ))

    # -- pages ------------------------------------------------------------------------------------

    def index(self) -> Page:
        """``/``: the node list, each forum with its counts and latest post."""
        nodes = []
        for board in self.plan.boards:
            latest = board.threads[0]
            last = latest.last
            messages = sum(len(t.posts) for t in board.threads)
            nodes.append(f"""<div class="node node--id{board.fid} node--depth2 node--forum node--read">
	<div class="node-body">
		<span class="node-icon" aria-hidden="true"><i class="fa--xf far fa-comments" aria-hidden="true"></i></span>
		<div class="node-main js-nodeMain">
			<h3 class="node-title"><a href="{attr(self.board_href(board, 1))}" data-xf-init="element-tooltip" data-shortcut="node-description">{text(board.theme.name)}</a></h3>
			<div class="node-description node-description--tooltip js-nodeDescTooltip">{text(board.theme.description)}</div>
		</div>
		<div class="node-stats">
			<dl class="pairs pairs--rows"><dt>Threads</dt><dd>{len(board.threads)}</dd></dl>
			<dl class="pairs pairs--rows"><dt>Messages</dt><dd>{messages}</dd></dl>
		</div>
		<div class="node-extra">
			<div class="node-extra-icon">{self.avatar(last.author, "xs")}</div>
			<div class="node-extra-row"><a href="{attr(self.post_href(latest, last))}" class="node-extra-title" title="{attr(latest.title)}">{text(latest.title)}</a></div>
			<div class="node-extra-row"><ul class="listInline listInline--bullet"><li class="node-extra-date">{self.time(last.time)}</li><li class="node-extra-user">{self.username(last.author)}</li></ul></div>
		</div>
	</div>
</div>""")
        content = f"""<div class="block block--category block--category1">
	<span class="u-anchorTarget" id="general-discussion.1"></span>
	<div class="block-container">
		<h2 class="block-header"><a href="/#general-discussion.1">General discussion</a></h2>
		<div class="block-body">
{chr(10).join(nodes)}
		</div>
	</div>
</div>"""
        return self.page(self.layout("forum_list", "Forums", "Forums", [], content,
                                     canonical=self.INDEX, sidebar=self.sidebar()))

    def _prefix_label(self, board: Board, thread: Thread) -> str:
        pid = prefix_of(thread)
        if not pid:
            return ""
        label, colour = PREFIXES[pid]
        href = f"{self.board_href(board, 1)}?prefix_id={pid}"
        return (f'<a href="{attr(href)}" class="labelLink" rel="nofollow"><span class="label '
                f'{colour}" dir="auto">{label}</span></a> ')

    def _thread_item(self, board: Board, thread: Thread) -> str:
        first, last = thread.posts[0], thread.last
        pages = self.page_count(thread)
        jump = ""
        if pages > 1:
            jump = '<span class="structItem-pageJump">' + "".join(
                f'<a href="{attr(self.thread_href(thread, n))}">{n}</a>'
                for n in range(2, pages + 1)) + "</span>"
        return f"""<div class="structItem structItem--thread js-inlineModContainer js-threadListItem-{thread.tid}" data-author="{attr(first.author.name)}">
	<div class="structItem-cell structItem-cell--icon"><div class="structItem-iconContainer">{self.avatar(first.author, "s")}</div></div>
	<div class="structItem-cell structItem-cell--main" data-xf-init="touch-proxy">
		<div class="structItem-title">{self._prefix_label(board, thread)}<a href="{attr(self.thread_href(thread, 1))}" data-tp-primary="on" data-xf-init="preview-tooltip">{text(thread.title)}</a></div>
		<div class="structItem-minor">
			<ul class="structItem-parts">
				<li>{self.username(first.author)}</li>
				<li class="structItem-startDate"><a href="{attr(self.thread_href(thread, 1))}" rel="nofollow">{self.time(first.time)}</a></li>
			</ul>
			{jump}
		</div>
	</div>
	<div class="structItem-cell structItem-cell--meta">
		<dl class="pairs pairs--justified"><dt>Replies</dt><dd>{len(thread.posts) - 1}</dd></dl>
		<dl class="pairs pairs--justified structItem-minor"><dt>Views</dt><dd>{thread.views}</dd></dl>
	</div>
	<div class="structItem-cell structItem-cell--latest">
		<a href="{attr(self._latest(thread))}" rel="nofollow">{self.time(last.time)}</a>
		<div class="structItem-minor">{self.username(last.author)}</div>
	</div>
	<div class="structItem-cell structItem-cell--icon structItem-cell--iconEnd"><div class="structItem-iconContainer">{self.avatar(last.author, "xxs")}</div></div>
</div>"""

    def _filter_menu(self, board: Board, listing: Listing | None) -> str:
        """The filter bar: the active filter's removal link, then every sort and filter."""
        first = self.board_href(board, 1)
        active = ""
        if listing is not None:
            active = (f'<ul class="filterBar-filters"><li><a href="{attr(first)}" class='
                      f'"filterBar-filterToggle" data-xf-init="tooltip" title="Remove this filter">'
                      f'<span class="filterBar-filterToggle-label">{text(listing.label)}</span>'
                      f'</a></li></ul>')
        rows = [f'<a href="{attr(f"{first}?{self.DEFAULT_ORDER}")}" class="menu-linkRow">'
                f'Last message</a>']
        rows += [f'<a href="{attr(self.board_href(board, 1, view))}" class="menu-linkRow'
                 f'{" is-selected" if view == listing else ""}">{text(view.label)}</a>'
                 for view in self.listings()]
        return (f'<div class="block-filterBar"><div class="filterBar">{active}<a class='
                f'"filterBar-menuTrigger" data-xf-click="menu" role="button" tabindex="0" '
                f'aria-expanded="false" aria-haspopup="true">Filters</a>\n<div class="menu '
                f'menu--wide" data-menu="menu" aria-hidden="true"><div class="menu-content">\n'
                f'<h4 class="menu-header">Sort and show only:</h4>\n'
                + "\n".join(rows) + "\n</div></div></div></div>")

    def _missing_item(self) -> str:
        """A thread deleted since the list was cached: its link answers 404."""
        return f"""<div class="structItem structItem--thread js-threadListItem-{self.plan.missing_tid}">
	<div class="structItem-cell structItem-cell--main"><div class="structItem-title"><a href="{self._missing()}" data-tp-primary="on">Old firmware download links</a></div></div>
</div>"""

    def board(self, board: Board, page: int, listing: Listing | None) -> Page:
        """``/forums/<slug>.<id>/``: the filter bar, the thread list, page navigation."""
        plan = self.plan
        lists = self.listed(board, listing)
        items = [self._thread_item(board, t) for t in lists[page - 1]]
        if listing is None and board is plan.boards[0] and page == 1:
            items.insert(min(2, len(items)), self._missing_item())
        if not items:
            items = ['<div class="structItemContainer-group"><div class="block-row">There are no '
                     'threads matching your filters.</div></div>']
        nav = self.page_nav([self.board_href(board, n, listing) for n in range(1, len(lists) + 1)],
                            page)
        content = f"""<div class="block-outer"><div class="block-outer-opposite"><div class="buttonGroup">
	<a href="{attr(self._post_thread(board))}" class="button--cta button button--icon button--icon--write" rel="nofollow"><span class="button-text">Post thread</span></a>
</div></div></div>
{nav}
<div class="block block--messages" data-xf-init="" data-type="thread" data-href="/inline-mod/">
	<div class="block-container">
		{self._filter_menu(board, listing)}
		<div class="block-body">
			<div class="structItemContainer">
				<div class="structItemContainer-group js-threadList">
{chr(10).join(items)}
				</div>
			</div>
		</div>
	</div>
</div>
{nav}"""
        name = board.theme.name
        title = name + (f" | Page {page}" if page > 1 else "")
        description = f'<div class="p-description">{text(board.theme.description)}</div>'
        return self.page(self.layout("forum_view", title, text(name), [], content,
                                     canonical=self.board_href(board, page),
                                     description=description))

    def _body(self, post: Post) -> str:
        quote = ""
        if post.quote:
            quoted = post.quote.post
            quote = (f'<blockquote data-attributes="member: {quoted.author.uid}" data-quote="'
                     f'{attr(quoted.author.name)}" data-source="post: {quoted.pid}" class="bbCodeBlock '
                     f'bbCodeBlock--expandable bbCodeBlock--quote js-expandWatch">\n\t<div class='
                     f'"bbCodeBlock-title"><a href="{attr(self._goto(quoted))}" class="bbCodeBlock-'
                     f'sourceJump" rel="nofollow" data-xf-click="attribution" data-content-selector='
                     f'"#post-{quoted.pid}">{text(quoted.author.name)} said:</a></div>\n\t<div class='
                     f'"bbCodeBlock-content"><div class="bbCodeBlock-expandContent js-expandContent ">'
                     f'{text(post.quote.text)}</div><div class="bbCodeBlock-expandLink js-expandLink">'
                     f'<a role="button" tabindex="0">Click to expand...</a></div></div>\n'
                     f'</blockquote>')
        return quote + "<br />\n<br />\n".join(text(p) for p in post.paragraphs)

    def _message(self, thread: Thread, post: Post) -> str:
        user = post.author
        permalink = attr(self.post_href(thread, post))
        attachment = ""
        if post.attachment:
            attachment = f"""
			<section class="message-attachments">
				<h4 class="block-textHeader">Attachments</h4>
				<ul class="attachmentList"><li class="file file--linked"><a class="file-preview js-lbImage" href="{self._attachment(post)}" target="_blank"><img src="/data/attachments/0/{post.attachment}-thumb.jpg" alt="photo_{post.attachment}.png" width="133" height="100" loading="lazy" /></a><div class="file-content"><div class="file-info"><span class="file-name" title="photo_{post.attachment}.png">photo_{post.attachment}.png</span><div class="file-meta">56.3 KB &middot; Views: {post.pid % 90 + 5}</div></div></div></li></ul>
			</section>"""
        edited = ""
        if post.edit:
            edited = f'\n\t\t\t<div class="message-lastEdit">Last edited: {self.time(post.edit.time)}</div>'
        signature = ""
        if post.signature:
            signature = (f'\n\t\t\t<aside class="message-signature"><div class="bbWrapper">'
                         f'{text(post.signature)}</div></aside>')
        return f"""<article class="message message--post js-post js-inlineModContainer" data-author="{attr(user.name)}" data-content="post-{post.pid}" id="js-post-{post.pid}">
	<span class="u-anchorTarget" id="post-{post.pid}"></span>
	<div class="message-inner">
		<div class="message-cell message-cell--user">
			<section class="message-user" itemscope itemtype="https://schema.org/Person">
				<div class="message-avatar"><div class="message-avatar-wrapper">{self.avatar(user, "m")}</div></div>
				<div class="message-userDetails">
					<h4 class="message-name"><a href="{attr(self.user_href(user))}" class="username " dir="auto" data-user-id="{user.uid}" data-xf-init="member-tooltip"><span itemprop="name">{text(user.name)}</span></a></h4>
					<h5 class="userTitle message-userTitle" dir="auto" itemprop="jobTitle">{text(user.group)}</h5>
				</div>
				<div class="message-userExtras">
					<dl class="pairs pairs--justified"><dt>Joined</dt><dd>{user.joined:%b} {user.joined.day}, {user.joined.year}</dd></dl>
					<dl class="pairs pairs--justified"><dt>Messages</dt><dd>{user.posts:,}</dd></dl>
					<dl class="pairs pairs--justified"><dt>Location</dt><dd>{text(user.location)}</dd></dl>
				</div>
				<span class="message-userArrow"></span>
			</section>
		</div>
		<div class="message-cell message-cell--main">
		<div class="message-main js-quickEditTarget">
			<header class="message-attribution message-attribution--split">
				<ul class="message-attribution-main listInline ">
					<li class="u-concealed"><a href="{permalink}" rel="nofollow">{self.time(post.time)}</a></li>
				</ul>
				<ul class="message-attribution-opposite message-attribution-opposite--list ">
					<li><a href="{permalink}" class="message-attribution-gadget" data-xf-init="share-tooltip" aria-label="Share" rel="nofollow"><i class="fa--xf far fa-share-alt" aria-hidden="true"></i></a></li>
					<li><a href="{permalink}" rel="nofollow">#{post.floor}</a></li>
				</ul>
			</header>
			<div class="message-content js-messageContent">
			<div class="message-userContent lbContainer js-lbContainer" data-lb-id="post-{post.pid}">
				<article class="message-body js-selectToQuote">
					<div class="bbWrapper">{self._body(post)}</div>
					<div class="js-selectToQuoteEnd">&nbsp;</div>
				</article>
			</div>{attachment}{edited}{signature}
			</div>
			<footer class="message-footer">
				<div class="message-actionBar actionBar">
					<div class="actionBar-set actionBar-set--external">
						<a href="{attr(self._post_short(post, "react?reaction_id=1"))}" class="reaction actionBar-action actionBar-action--reaction" rel="nofollow"><i aria-hidden="true"></i><span class="reaction-text">Like</span></a>
						<a href="{attr(self._reply(thread, post))}" class="actionBar-action actionBar-action--reply" title="Reply, quoting this message" rel="nofollow">Reply</a>
					</div>
					<div class="actionBar-set actionBar-set--internal">
						<a href="{attr(self._post_short(post, "report"))}" class="actionBar-action actionBar-action--report" data-xf-click="overlay">Report</a>
					</div>
				</div>
			</footer>
		</div>
		</div>
	</div>
</article>"""

    def thread(self, thread: Thread, page: int) -> Page:
        """``/threads/<slug>.<id>/``: the thread header, page navigation and the messages."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = self.page_count(thread)
        hrefs = [self.thread_href(thread, n) for n in range(1, total + 1)]
        nav = self.page_nav(hrefs, page)
        messages = "\n".join(self._message(thread, p)
                             for p in self.posts_of(thread, plan.posts_per_page, page))
        first = thread.posts[0]
        pid = prefix_of(thread)
        label = (f'<span class="label {PREFIXES[pid][1]}" dir="auto">{PREFIXES[pid][0]}</span>'
                 f'<span class="label-append">&nbsp;</span>' if pid else "")
        description = (f'<div class="p-description"><ul class="listInline listInline--bullet"><li>'
                       f'<i class="fa--xf far fa-user" aria-hidden="true" title="Thread starter">'
                       f'</i> {self.username(first.author)}</li><li><i class="fa--xf far fa-clock" '
                       f'aria-hidden="true" title="Start date"></i> <a href="{attr(hrefs[0])}" '
                       f'class="u-concealed">{self.time(first.time)}</a></li></ul></div>')
        content = f"""<div class="block-outer">{nav}<div class="block-outer-opposite"><div class="buttonGroup">
	<a href="{attr(self._reply(thread))}" class="button--cta button button--icon button--icon--reply" rel="nofollow"><span class="button-text">Reply</span></a>
</div></div></div>
<div class="block block--messages" data-xf-init="lightbox select-to-quote" data-message-selector=".js-post" data-type="post" data-href="/inline-mod/">
	<div class="block-container lbContainer">
		<div class="block-body js-replyNewMessageContainer">
{messages}
		</div>
	</div>
</div>
{nav}"""
        links = "".join(f'\t<link rel="{rel}" href="{attr(hrefs[n - 1])}" />\n'
                        for rel, n in (("prev", page - 1), ("next", page + 1)) if 0 < n <= total)
        title = thread.title + (f" | Page {page}" if page > 1 else "")
        return self.thread_page(thread, self.layout(
            "thread_view", title, label + text(thread.title),
            [(self.board_href(board, 1), board.theme.name)], content, canonical=hrefs[page - 1],
            description=description, extra_head=links))

    def _activity(self, pairs: list[tuple[Thread, Post]]) -> str:
        """Post snippets, each linked by its ``/posts/<pid>/`` permalink."""
        rows = []
        for thread, post in pairs:
            snippet = post.paragraphs[0]
            snippet = snippet if len(snippet) <= 140 else snippet[:140].rsplit(" ", 1)[0] + "…"
            rows.append(f"""<li class="block-row block-row--separated">
	<div class="contentRow">
		<span class="contentRow-figure">{self.avatar(post.author, "s")}</span>
		<div class="contentRow-main">
			<h3 class="contentRow-title"><a href="{attr(self._post_short(post))}">{text(thread.title)}</a></h3>
			<div class="contentRow-snippet">{text(snippet)}</div>
			<div class="contentRow-minor"><ul class="listInline listInline--bullet"><li>{self.username(post.author)}</li><li>Post #{post.floor}</li><li>{self.time(post.time)}</li></ul></div>
		</div>
	</div>
</li>""")
        return '<ol class="block-body">\n' + "\n".join(rows) + "\n</ol>"

    def whats_new(self) -> Page:
        """``/whats-new/``: the latest posts across the forum."""
        content = (f'<div class="block"><div class="block-container"><h2 class="block-header">'
                   f'New posts</h2>\n{self._activity(self._newest_posts())}\n</div></div>')
        return self.page(self.layout("whats_new", "What's new", "What's new", [], content,
                                     canonical=self.WHATS_NEW, sidebar=self.sidebar()))

    def user(self, user: User) -> Page:
        """``/members/<slug>.<id>/``: the member header and their latest activity."""
        signature = (f'<div class="block-row"><h4 class="block-textHeader">Signature</h4>'
                     f'<div class="bbWrapper">{text(user.signature)}</div></div>'
                     if user.signature else "")
        content = f"""<div class="block">
	<div class="block-container">
		<div class="block-body">
			<div class="memberHeader">
				<div class="memberHeader-main">
					<span class="memberHeader-avatar">{self.avatar(user, "l")}</span>
					<div class="memberHeader-content memberHeader-content--info">
						<h1 class="memberHeader-name"><span class="username" dir="auto" data-user-id="{user.uid}">{text(user.name)}</span></h1>
						<div class="memberHeader-banners"><em class="userBanner userBanner--primary"><span class="userBanner-before"></span><strong>{text(user.group)}</strong></em></div>
						<div class="memberHeader-blurbContainer"><div class="memberHeader-blurb">From {text(user.location)}</div>
						<div class="memberHeader-blurb"><dl class="pairs pairs--inline"><dt>Joined</dt><dd>{self.time(user.joined)}</dd></dl> &middot; <dl class="pairs pairs--inline"><dt>Last seen</dt><dd dir="auto">{self.time(user.last_visit)}</dd></dl></div></div>
					</div>
				</div>
				<div class="memberHeader-content">
					<div class="memberHeader-stats"><div class="pairJustifier">
						<dl class="pairs pairs--rows pairs--rows--centered fauxBlockLink"><dt>Messages</dt><dd>{user.posts:,}</dd></dl>
						<dl class="pairs pairs--rows pairs--rows--centered"><dt>Reaction score</dt><dd>{user.credits:,}</dd></dl>
					</div></div>
				</div>
			</div>
		</div>
		<h2 class="block-tabHeader tabs"><span class="tabs-tab is-active">Latest activity</span></h2>
		{self._activity(self._recent(user))}
		{signature}
	</div>
</div>"""
        return self.page(self.layout("member_view", user.name, text(user.name), [
            (self.MEMBERS, "Members")], content, canonical=self.user_href(user)))

    def members(self) -> Page:
        """``/members/``: the most active members."""
        top = sorted(self.plan.users, key=lambda u: (-u.posts, u.uid))[:10]
        rows = "\n".join(
            f'<li class="block-row"><div class="contentRow"><div class="contentRow-figure">'
            f'{self.avatar(u, "s")}</div><div class="contentRow-main"><div class="contentRow-extra '
            f'contentRow-extra--largest">{u.posts:,}</div><h3 class="contentRow-header">'
            f'{self.username(u)}</h3><div class="contentRow-lesser">{text(u.group)}</div></div>'
            f'</div></li>' for u in top)
        content = (f'<div class="block"><div class="block-container"><h3 class="block-minorHeader">'
                   f'Most messages</h3><ol class="block-body">\n{rows}\n</ol></div></div>')
        return self.page(self.layout("member_notable", "Notable members", "Notable members", [],
                                     content, canonical=self.MEMBERS, sidebar=self.sidebar()))

    def _simple(self, template: str, href: str, title: str, body: str, status: int = 200) -> Page:
        content = (f'<div class="block"><div class="block-container"><div class="block-body '
                   f'block-row">\n{body}\n</div></div></div>')
        return self.page(self.layout(template, title, text(title), [], content, canonical=href),
                         status)

    def search(self) -> Page:
        """``/search/``: the search form."""
        return self._simple("search_form", self.SEARCH, "Search", f"""<form action="{self.SEARCH}search" method="post" class="block" data-xf-init="ajax-submit">
	<dl class="formRow formRow--input"><dt><div class="formRow-labelWrapper"><label class="formRow-label" for="_xfUid-1">Keywords</label></div></dt><dd><input type="search" class="input" name="keywords" id="_xfUid-1" /></dd></dl>
	<dl class="formRow formRow--input"><dt><div class="formRow-labelWrapper"><label class="formRow-label" for="_xfUid-2">Posted by</label></div></dt><dd><input type="text" class="input" name="c[users]" id="_xfUid-2" placeholder="Member" /></dd></dl>
	<dl class="formRow formSubmitRow"><dt></dt><dd><button type="submit" class="button--primary button"><span class="button-text">Search</span></button></dd></dl>
</form>""")

    def login(self) -> Page:
        """``/login/``: the login form."""
        return self._simple("login", self.LOGIN, "Log in", f"""<form action="{self.LOGIN}login" method="post" class="block">
	<dl class="formRow formRow--input"><dt><div class="formRow-labelWrapper"><label class="formRow-label" for="_xfUid-3">Your name or email address</label></div></dt><dd><input type="text" class="input" name="login" id="_xfUid-3" autocomplete="username" /></dd></dl>
	<dl class="formRow formRow--input"><dt><div class="formRow-labelWrapper"><label class="formRow-label" for="_xfUid-4">Password</label></div></dt><dd><input type="password" class="input" name="password" id="_xfUid-4" autocomplete="current-password" /></dd></dl>
	<dl class="formRow formSubmitRow"><dt></dt><dd><button type="submit" class="button--primary button"><span class="button-text">Log in</span></button></dd></dl>
</form>
<div class="block-outer block-outer--after"><div class="block-outer-middle">Don't have an account? <a href="{self.REGISTER}">Register now</a></div></div>""")

    def register_page(self) -> Page:
        """``/register/``: the registration form."""
        return self._simple("register_form", self.REGISTER, "Register", f"""<form action="{self.REGISTER}register" method="post" class="block">
	<dl class="formRow formRow--input"><dt><div class="formRow-labelWrapper"><label class="formRow-label">Email</label></div></dt><dd><input type="email" class="input" name="email" /></dd></dl>
	<dl class="formRow formRow--input"><dt><div class="formRow-labelWrapper"><label class="formRow-label">User name</label></div></dt><dd><input type="text" class="input" name="username" /></dd></dl>
	<dl class="formRow"><dt></dt><dd>By registering you agree to our <a href="{self.TERMS}">terms and rules</a> and <a href="{self.PRIVACY}">privacy policy</a>.</dd></dl>
	<dl class="formRow formSubmitRow"><dt></dt><dd><button type="submit" class="button--primary button"><span class="button-text">Register</span></button></dd></dl>
</form>""")

    def help(self) -> Page:
        """``/help/``: the help index."""
        return self._simple("help_index", self.HELP, "Help", f"""<ul class="listPlain">
	<li><a href="{self.TERMS}">Terms and rules</a> &ndash; You must agree to these terms and rules before using the site.</li>
	<li><a href="{self.PRIVACY}">Privacy policy</a> &ndash; Our privacy policy.</li>
</ul>""")

    def terms(self) -> Page:
        """``/help/terms/``: the rules (served truncated)."""
        plan = self.plan
        body = "\n".join(f"<div class=\"bbWrapper\">{text(p)}</div>" for p in plan.announcement_text)
        return self._simple("help_page", self.TERMS, "Terms and rules", f"""<h2 class="block-textHeader">{text(plan.announcement_title)}</h2>
{body}
<div class="bbWrapper">These rules may change without notice. Continued use of the forum means you accept the current version.</div>""")

    def not_found(self) -> Page:
        """XenForo's "thread not found" error, with a 404 status."""
        return self._simple("error", self._missing(), "Oops! We ran into some problems.",
                            '<div class="blockMessage">The requested thread could not be found.'
                            '</div>', status=404)

    def server_error(self) -> Page:
        """The server error page XenForo shows when the database fails, with a 500 status."""
        return self.page("""<!DOCTYPE html>
<html><head><meta charset="utf-8" /><title>Server error</title></head>
<body><div class="blockMessage"><h1>Oops! We ran into some problems. Please try again later.</h1>
<p>More error details may be in the browser console.</p></div></body></html>""", status=500)
