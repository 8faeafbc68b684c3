"""The ``phpbb`` family: phpBB 3 prosilver-style pages, English, UTF-8, ``start=`` pagination."""

from __future__ import annotations

from datetime import datetime

from forumcrawl.mockforum.family import Family, Page, attr, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import phpbb_time

__all__ = ["PhpBB"]

SITE_NAME = "The Tinkerers’ Lounge"


def link(href: str) -> str:
    """phpBB writes every internal link as ``./…``; escaped for an attribute."""
    return attr(f"./{href}")


class PhpBB(Family):
    """phpBB 3.2 with the prosilver style."""

    name = "phpbb"
    lang = "en"
    encoding = "utf-8"
    wrong_encoding = "cp1252"
    disallow = ("/adm/", "/posting.php")

    INDEX = "index.php"
    SEARCH = "search.php"
    LOGIN = "ucp.php?mode=login"
    REGISTER = "ucp.php?mode=register"
    FAQ = "faq.php"
    TEAM = "memberlist.php?mode=team"
    ONLINE = "viewonline.php"
    ADMIN = "adm/index.php"

    # -- links ------------------------------------------------------------------------------------

    def board_href(self, board: Board, page: int) -> str:
        """``viewforum.php?f=2`` then ``&start=N`` (N = topics before the page)."""
        href = f"viewforum.php?f={board.fid}"
        return href if page == 1 else f"{href}&start={(page - 1) * self.plan.threads_per_list_page}"

    def thread_href(self, thread: Thread, page: int) -> str:
        href = f"viewtopic.php?t={thread.tid}"
        return href if page == 1 else f"{href}&start={(page - 1) * self.plan.posts_per_page}"

    @staticmethod
    def post_href(post: Post) -> str:
        """The ``viewtopic.php?p=N`` permalink (an alias of the page holding the post)."""
        return f"viewtopic.php?p={post.pid}"

    @staticmethod
    def user_href(user: User) -> str:
        """Profile page."""
        return f"memberlist.php?mode=viewprofile&u={user.uid}"

    @staticmethod
    def _reply(thread: Thread) -> str:
        return f"posting.php?mode=reply&t={thread.tid}"

    @staticmethod
    def _quote(post: Post) -> str:
        return f"posting.php?mode=quote&p={post.pid}"

    @staticmethod
    def _new_topic(board: Board) -> str:
        return f"posting.php?mode=post&f={board.fid}"

    @staticmethod
    def _download(post: Post) -> str:
        return f"download/file.php?id={post.attachment}"

    def _missing(self) -> str:
        return f"viewtopic.php?t={self.plan.missing_tid}"

    def _last_page(self, thread: Thread) -> str:
        return self.thread_href(thread, len(thread.pages(self.plan.posts_per_page)))

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return phpbb_time(moment), moment

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        self.add_page(self.INDEX, self.index)
        self.add_alias("", self.INDEX)
        for href, render in ((self.SEARCH, self.search), (self.LOGIN, self.login),
                             (self.REGISTER, self.register_page)):
            self.add_page(href, render)
        for board in plan.boards:
            for n in range(1, len(board.list_pages(plan.threads_per_list_page)) + 1):
                self.add_page(self.board_href(board, n), lambda b=board, n=n: self.board(b, n))
            self.disallowed.add(self._new_topic(board))
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            self.add_alias(self.post_href(thread.last), self._last_page(thread))
            self.disallowed.add(self._reply(thread))
            for post in thread.posts:
                self.disallowed.add(self._quote(post))
                if post.attachment:
                    self.add_broken(self._download(post), "binary",
                                    lambda p=post: self.binary(p.pid))
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.FAQ, self.faq),
            not_found=self._missing(),
            server_error=self.ONLINE,
            empty=self.TEAM,
        )

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, title: str, section: str, crumbs: list[tuple[str, str]], content: str) -> str:
        """The prosilver frame: header bar with search, nav bar with breadcrumbs, footer."""
        trail = "".join(
            f'<span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement"'
            f' itemscope><a href="{link(h)}" itemtype="https://schema.org/Thing" itemscope itemprop='
            f'"item"><span itemprop="name">{text(label)}</span></a><meta itemprop="position" '
            f'content="{n}" /></span>\n'
            for n, (h, label) in enumerate(crumbs, start=2)
        )
        return f"""<!DOCTYPE html>
<html dir="ltr" lang="en-gb">
<head>
<meta charset="utf-8" />
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<meta name="viewport" content="width=device-width, initial-scale=1" />

<title>{text(title)}</title>

<link href="./assets/css/font-awesome.min.css?assets_version=12" rel="stylesheet">
<link href="./styles/prosilver/theme/stylesheet.css?assets_version=12" rel="stylesheet">
<link href="./styles/prosilver/theme/en/stylesheet.css?assets_version=12" rel="stylesheet">
<!--[if lte IE 9]>
	<link href="./styles/prosilver/theme/tweaks.css?assets_version=12" rel="stylesheet">
<![endif]-->
</head>
<body id="phpbb" class="nojs notouch section-{section} ltr ">

<div id="wrap" class="wrap">
	<a id="top" class="top-anchor" accesskey="t"></a>
	<div id="page-header">
		<div class="headerbar" role="banner">
			<div class="inner">
			<div id="site-description" class="site-description">
				<a id="logo" class="logo" href="{link(self.INDEX)}" title="Board index"><span class="site_logo"></span></a>
				<h1>{text(SITE_NAME)}</h1>
				<p>Hardware, software and everything in between</p>
				<p class="skiplink"><a href="#start_here">Skip to content</a></p>
			</div>
			<div id="search-box" class="search-box search-header" role="search">
				<form action="{link(self.SEARCH)}" method="get" id="search">
				<fieldset>
					<input name="keywords" id="keywords" type="search" maxlength="128" title="Search for keywords" class="inputbox search tiny" size="20" value="" placeholder="Search&hellip;" />
					<button class="button button-search" type="submit" title="Search"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span></button>
					<a href="{link(self.SEARCH)}" class="button button-search-end" title="Advanced search"><i class="icon fa-cog fa-fw" aria-hidden="true"></i><span class="sr-only">Advanced search</span></a>
				</fieldset>
				</form>
			</div>
			</div>
		</div>
		<div class="navbar" role="navigation">
			<div class="inner">
			<ul id="nav-main" class="nav-main linklist" role="menubar">
				<li data-skip-responsive="true"><a href="{link(self.FAQ)}" rel="help" title="Frequently Asked Questions" role="menuitem"><i class="icon fa-question-circle fa-fw" aria-hidden="true"></i><span>FAQ</span></a></li>
				<li class="rightside" data-skip-responsive="true"><a href="{link(self.LOGIN)}" title="Login" accesskey="x" role="menuitem"><i class="icon fa-power-off fa-fw" aria-hidden="true"></i><span>Login</span></a></li>
				<li class="rightside" data-skip-responsive="true"><a href="{link(self.REGISTER)}" role="menuitem"><i class="icon fa-pencil-square-o fa-fw" aria-hidden="true"></i><span>Register</span></a></li>
			</ul>
			<ul id="nav-breadcrumbs" class="nav-breadcrumbs linklist navlinks" role="menubar">
				<li class="breadcrumbs" itemscope itemtype="https://schema.org/BreadcrumbList">
					<span class="crumb" itemtype="https://schema.org/ListItem" itemprop="itemListElement" itemscope><a href="{link(self.INDEX)}" itemtype="https://schema.org/Thing" itemscope itemprop="item" accesskey="h" data-navbar-reference="index"><i class="icon fa-home fa-fw"></i><span itemprop="name">Board index</span></a><meta itemprop="position" content="1" /></span>
{trail}				</li>
				<li class="rightside responsive-search"><a href="{link(self.SEARCH)}" title="View the advanced search options" role="menuitem"><i class="icon fa-search fa-fw" aria-hidden="true"></i><span class="sr-only">Search</span></a></li>
			</ul>
			</div>
		</div>
	</div>

	<a id="start_here" class="anchor"></a>
	<div id="page-body" class="page-body" role="main">
{content}
	</div>

<div id="page-footer" class="page-footer" role="contentinfo">
	<div class="navbar" role="navigation">
	<div class="inner">
	<ul id="nav-footer" class="nav-footer linklist" role="menubar">
		<li class="breadcrumbs"><span class="crumb"><a href="{link(self.INDEX)}" data-navbar-reference="index"><i class="icon fa-home fa-fw" aria-hidden="true"></i><span>Board index</span></a></span></li>
		<li class="rightside"><a href="{link(self.TEAM)}" role="menuitem"><i class="icon fa-shield fa-fw" aria-hidden="true"></i><span>The team</span></a></li>
		<li class="rightside"><a href="{link(self.ADMIN)}" role="menuitem"><span>Administration Control Panel</span></a></li>
		<li class="rightside" data-last-responsive="true"><span>All times are <span title="UTC">UTC</span></span></li>
	</ul>
	</div>
	</div>
	<div class="copyright">
		<p class="footer-row"><span class="footer-copyright">Powered by phpBB&reg; Forum Software &copy; phpBB Limited</span></p>
		<p class="footer-row" role="menu"><a class="footer-link" href="{link(self.FAQ)}" title="Privacy" role="menuitem"><span class="footer-link-text">Privacy</span></a> | <a class="footer-link" href="{link(self.FAQ)}" title="Terms" role="menuitem"><span class="footer-link-text">Terms</span></a></p>
	</div>
</div>
</div>
<script src="./assets/javascript/jquery-3.6.0.min.js?assets_version=12"></script>
<script src="./assets/javascript/core.js?assets_version=12"></script>
<script src="./styles/prosilver/template/forum_fn.js?assets_version=12"></script>
</body>
</html>
"""

    @staticmethod
    def _pagination(hrefs: list[str], current: int, label: str) -> str:
        """phpBB's pagination block: "N posts" then page buttons (none for one page)."""
        total = len(hrefs)
        if total < 2:
            return f'<div class="pagination">\n\t\t\t{label} &bull; Page <strong>1</strong> of <strong>1</strong>\n\t\t</div>'
        items = []
        if current > 1:
            items.append(f'<li class="arrow previous"><a class="button button-icon-only" href="{link(hrefs[current - 2])}" rel="prev" role="button"><i class="icon fa-chevron-left fa-fw" aria-hidden="true"></i><span class="sr-only">Previous</span></a></li>')
        for n, href in enumerate(hrefs, start=1):
            items.append('<li class="active"><span>{}</span></li>'.format(n) if n == current
                         else f'<li><a class="button" href="{link(href)}" role="button">{n}</a></li>')
        if current < total:
            items.append(f'<li class="arrow next"><a class="button button-icon-only" href="{link(hrefs[current])}" rel="next" role="button"><i class="icon fa-chevron-right fa-fw" aria-hidden="true"></i><span class="sr-only">Next</span></a></li>')
        return (f'<div class="pagination">\n\t\t\t{label}\n\t\t\t<ul>\n\t\t\t'
                + "\n\t\t\t".join(items) + "\n\t\t\t</ul>\n\t\t</div>")

    @staticmethod
    def _user_link(user: User) -> str:
        return f'<a href="{link(PhpBB.user_href(user))}" class="username">{text(user.name)}</a>'

    # -- pages ------------------------------------------------------------------------------------

    def index(self) -> Page:
        """``index.php``: the forum table, who is online, statistics."""
        plan = self.plan
        rows = []
        for board in plan.boards:
            posts = sum(len(t.posts) for t in board.threads)
            latest = board.threads[0]
            subject = latest.title if len(latest.posts) == 1 else f"Re: {latest.title}"
            moderator = (f"<br /><strong>Moderator:</strong> {self._user_link(board.moderator)}"
                         if board.moderator else "")
            rows.append(f"""		<li class="row">
			<dl class="row-item forum_read">
				<dt title="No unread posts">
					<div class="list-inner">
						<a href="{link(self.board_href(board, 1))}" class="forumtitle">{text(board.theme.name)}</a>
						<br />{text(board.theme.description)}
						{moderator}
					</div>
				</dt>
				<dd class="topics">{len(board.threads)} <dfn>Topics</dfn></dd>
				<dd class="posts">{posts} <dfn>Posts</dfn></dd>
				<dd class="lastpost">
					<span>
						<dfn>Last post</dfn>
						<a href="{link(self.post_href(latest.last))}#p{latest.last.pid}" title="{attr(subject)}" class="lastsubject">{text(subject)}</a> <br />
						by {self._user_link(latest.last.author)}
						<a href="{link(self.post_href(latest.last))}#p{latest.last.pid}" title="View the latest post"><i class="icon fa-external-link-square fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">View the latest post</span></a>
						<br />{phpbb_time(latest.last.time)}
					</span>
				</dd>
			</dl>
		</li>""")
        newest = plan.newest_user
        content = f"""<p class="right responsive-center time">It is currently {phpbb_time(plan.now)}</p>
<div class="action-bar compact">
	<a href="{link(self.SEARCH)}" class="button"><span>View unanswered posts</span></a>
</div>
<div class="forabg">
	<div class="inner">
	<ul class="topiclist">
		<li class="header">
			<dl class="row-item">
				<dt><div class="list-inner"><a href="{link(self.INDEX)}">General Discussion</a></div></dt>
				<dd class="topics">Topics</dd>
				<dd class="posts">Posts</dd>
				<dd class="lastpost"><span>Last post</span></dd>
			</dl>
		</li>
	</ul>
	<ul class="topiclist forums">
{chr(10).join(rows)}
	</ul>
	</div>
</div>
<form method="post" action="{link(self.LOGIN)}&amp;sid=0" class="headerspace">
	<h3><a href="{link(self.LOGIN)}">Login</a>&nbsp; &bull; &nbsp;<a href="{link(self.REGISTER)}">Register</a></h3>
	<fieldset class="quick-login">
		<label for="username"><span>Username:</span> <input type="text" tabindex="1" name="username" id="username" size="10" class="inputbox" title="Username" /></label>
		<label for="password"><span>Password:</span> <input type="password" tabindex="2" name="password" id="password" size="10" class="inputbox" title="Password" autocomplete="off" /></label>
		<input type="submit" tabindex="5" name="login" value="Login" class="button2" />
	</fieldset>
</form>
<div class="stat-block online-list">
	<h3><a href="{link(self.ONLINE)}">Who is online</a></h3>
	<p>In total there are <strong>{len(plan.users) // 3 + 2}</strong> users online :: 0 registered, 0 hidden and {len(plan.users) // 3 + 2} guests (based on users active over the past 5 minutes)</p>
</div>
<div class="stat-block statistics">
	<h3>Statistics</h3>
	<p>Total posts <strong>{len(plan.all_posts)}</strong> &bull; Total topics <strong>{len(plan.threads)}</strong> &bull; Total members <strong>{len(plan.users)}</strong> &bull; Our newest member <strong>{self._user_link(newest)}</strong></p>
</div>"""
        return self.page(self.layout(f"{SITE_NAME} - Index page", "index", [], content))

    def _topic_row(self, thread: Thread, n: int) -> str:
        first, last = thread.posts[0], thread.last
        pages = len(thread.pages(self.plan.posts_per_page))
        pagination = ""
        if pages > 1:
            buttons = "".join(f'<li><a class="button" href="{link(self.thread_href(thread, k))}" role="button">{k}</a></li>'
                              for k in range(1, pages + 1))
            pagination = f'<div class="pagination"><span><i class="icon fa-clone fa-fw" aria-hidden="true"></i></span><ul>{buttons}</ul></div>'
        return f"""		<li class="row bg{n % 2 + 1}">
			<dl class="row-item topic_read">
				<dt title="No unread posts">
					<div class="list-inner">
						<a href="{link(self.thread_href(thread, 1))}" class="topictitle">{text(thread.title)}</a>
						<br />
						{pagination}
						<div class="responsive-hide left-box">
							by {self._user_link(first.author)} &raquo; {phpbb_time(first.time)}
						</div>
					</div>
				</dt>
				<dd class="posts">{len(thread.posts) - 1} <dfn>Replies</dfn></dd>
				<dd class="views">{thread.views} <dfn>Views</dfn></dd>
				<dd class="lastpost">
					<span><dfn>Last post </dfn>by {self._user_link(last.author)}
						<a href="{link(self.post_href(last))}#p{last.pid}" title="Go to last post"><i class="icon fa-external-link-square fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only"></span></a>
						<br />{phpbb_time(last.time)}
					</span>
				</dd>
			</dl>
		</li>"""

    def _missing_row(self) -> str:
        """A topic row whose topic was deleted since: it leads to a 404."""
        return f"""		<li class="row bg1">
			<dl class="row-item topic_read">
				<dt title="No unread posts"><div class="list-inner">
					<a href="{link(self._missing())}" class="topictitle">Old firmware download links</a>
				</div></dt>
				<dd class="posts">0 <dfn>Replies</dfn></dd>
				<dd class="views">0 <dfn>Views</dfn></dd>
				<dd class="lastpost"><span>&nbsp;</span></dd>
			</dl>
		</li>"""

    def board(self, board: Board, page: int) -> Page:
        """``viewforum.php``: forum title, pagination, the topic list."""
        plan = self.plan
        lists = board.list_pages(plan.threads_per_list_page)
        rows = [self._topic_row(t, n) for n, t in enumerate(lists[page - 1])]
        if board is plan.boards[0] and page == 1:
            rows.insert(min(2, len(rows)), self._missing_row())
        hrefs = [self.board_href(board, n) for n in range(1, len(lists) + 1)]
        pagination = self._pagination(hrefs, page, f"{len(board.threads)} topics")
        moderator = (f"<p><strong>Moderator:</strong> {self._user_link(board.moderator)}</p>"
                     if board.moderator else "")
        content = f"""<h2 class="forum-title"><a href="{link(self.board_href(board, 1))}">{text(board.theme.name)}</a></h2>
<div>
	<div style="display: none !important;">{text(board.theme.description)}<br /></div>
</div>
{moderator}
<div class="action-bar bar-top">
	<a href="{link(self._new_topic(board))}" class="button" title="Post a new topic"><span>New Topic</span> <i class="icon fa-pencil fa-fw" aria-hidden="true"></i></a>
	<div class="search-box" role="search">
		<form method="get" id="forum-search" action="{link(self.SEARCH)}">
		<fieldset><input class="inputbox search tiny" type="search" name="keywords" id="search_keywords" size="20" placeholder="Search this forum&hellip;" /></fieldset>
		</form>
	</div>
	{pagination}
</div>
<div class="forumbg">
	<div class="inner">
	<ul class="topiclist">
		<li class="header">
			<dl class="row-item">
				<dt><div class="list-inner">Topics</div></dt>
				<dd class="posts">Replies</dd>
				<dd class="views">Views</dd>
				<dd class="lastpost"><span>Last post</span></dd>
			</dl>
		</li>
	</ul>
	<ul class="topiclist topics">
{chr(10).join(rows)}
	</ul>
	</div>
</div>
<div class="action-bar bar-bottom">
	<a href="{link(self._new_topic(board))}" class="button" title="Post a new topic"><span>New Topic</span></a>
	{pagination}
</div>"""
        title = f"{board.theme.name} - {SITE_NAME}" + (f" - Page {page}" if page > 1 else "")
        crumbs = [(self.board_href(board, 1), board.theme.name)]
        return self.page(self.layout(title, "viewforum", crumbs, content))

    def _post(self, thread: Thread, post: Post, n: int) -> str:
        user = post.author
        subject = thread.title if post.floor == 1 else f"Re: {thread.title}"
        quote = ""
        if post.quote:
            quote = (f"<blockquote><cite>{text(post.quote.post.author.name)} wrote:</cite>"
                     f"{text(post.quote.text)}</blockquote>")
        body = "<br>\n<br>\n".join(text(p) for p in post.paragraphs)
        attachment = ""
        if post.attachment:
            attachment = (f'<dl class="attachbox"><dt>Attachments</dt><dd><dl class="file"><dt class='
                          f'"attach-image"><a href="{link(self._download(post))}">photo_{post.attachment}'
                          f'.png</a></dt><dd>photo_{post.attachment}.png (56.3 KiB) Viewed '
                          f'{post.pid % 90 + 5} times</dd></dl></dd></dl>')
        notice = ""
        if post.edit:
            times = "1 time" if post.edit.count == 1 else f"{post.edit.count} times"
            notice = (f'<div class="notice">Last edited by {self._user_link(post.edit.editor)} on '
                      f"{phpbb_time(post.edit.time)}, edited {times} in total.</div>")
        signature = (f'<div id="sig{post.pid}" class="signature">{text(post.signature)}</div>'
                     if post.signature else "")
        return f"""		<div id="p{post.pid}" class="post has-profile bg{n % 2 + 1}">
		<div class="inner">
		<dl class="postprofile" id="profile{post.pid}">
			<dt class="has-profile-rank no-avatar">
				<div class="avatar-container"></div>
				{self._user_link(user)}
			</dt>
			<dd class="profile-rank">{text(user.group)}</dd>
			<dd class="profile-posts"><strong>Posts:</strong> {user.posts}</dd>
			<dd class="profile-joined"><strong>Joined:</strong> {phpbb_time(user.joined)}</dd>
			<dd class="profile-custom-field profile-phpbb_location"><strong>Location:</strong> {text(user.location)}</dd>
		</dl>
		<div class="postbody">
			<div id="post_content{post.pid}">
			<h3{' class="first"' if post.floor == 1 else ""}><a href="#p{post.pid}">{text(subject)}</a></h3>
			<ul class="post-buttons">
				<li><a href="{link(self._quote(post))}" title="Reply with quote" class="button button-icon-only"><i class="icon fa-quote-left fa-fw" aria-hidden="true"></i><span class="sr-only">Quote</span></a></li>
			</ul>
			<p class="author"><a class="unread" href="#p{post.pid}" title="Post"><i class="icon fa-file fa-fw icon-lightgray icon-md" aria-hidden="true"></i><span class="sr-only">Post</span></a> <span class="responsive-hide">by <strong>{self._user_link(user)}</strong> &raquo; </span>{phpbb_time(post.time)}</p>
			<div class="content">{quote}{body}</div>
			{attachment}
			{notice}
			{signature}
			</div>
		</div>
		<div class="back2top"><a href="#top" class="top" title="Top"><i class="icon fa-chevron-circle-up fa-fw icon-gray" aria-hidden="true"></i><span class="sr-only">Top</span></a></div>
		</div>
		</div>
		<hr class="divider" />"""

    def thread(self, thread: Thread, page: int) -> Page:
        """``viewtopic.php``: topic title, pagination, the posts of one page."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = len(thread.pages(plan.posts_per_page))
        hrefs = [self.thread_href(thread, n) for n in range(1, total + 1)]
        label = f"{len(thread.posts)} post" + ("s" if len(thread.posts) > 1 else "")
        pagination = self._pagination(hrefs, page, label)
        shown = self.posts_of(thread, plan.posts_per_page, page)
        posts = "\n".join(self._post(thread, post, n) for n, post in enumerate(shown))
        content = f"""<h2 class="topic-title"><a href="{link(self.thread_href(thread, 1))}">{text(thread.title)}</a></h2>
<div class="action-bar bar-top">
	<a href="{link(self._reply(thread))}" class="button" title="Post a reply"><span>Post Reply</span> <i class="icon fa-reply fa-fw" aria-hidden="true"></i></a>
	<div class="search-box" role="search">
		<form method="get" id="topic-search" action="{link(self.SEARCH)}">
		<fieldset><input class="inputbox search tiny" type="search" name="keywords" id="search_keywords" size="20" placeholder="Search this topic&hellip;" /></fieldset>
		</form>
	</div>
	{pagination}
</div>
{posts}
<div class="action-bar bar-bottom">
	<a href="{link(self._reply(thread))}" class="button" title="Post a reply"><span>Post Reply</span></a>
	{pagination}
</div>
<div class="action-bar actions-jump">
	<p class="jumpbox-return"><a href="{link(self.board_href(board, 1))}" class="left-box arrow-left" accesskey="r"><i class="icon fa-angle-left fa-fw icon-black" aria-hidden="true"></i><span>Return to &ldquo;{text(board.theme.name)}&rdquo;</span></a></p>
</div>"""
        title = f"{thread.title} - {SITE_NAME}" + (f" - Page {page}" if page > 1 else "")
        return self.thread_page(thread, self.layout(
            title, "viewtopic", [(self.board_href(board, 1), board.theme.name)], content))

    def user(self, user: User) -> Page:
        """``memberlist.php?mode=viewprofile``: the member's profile."""
        share = 100 * user.posts / max(len(self.plan.all_posts), 1)
        signature = ""
        if user.signature:
            signature = f"""<div class="panel bg1">
	<div class="inner">
		<h3>Signature</h3>
		<div class="postbody"><div class="signature standalone">{text(user.signature)}</div></div>
	</div>
</div>"""
        content = f"""<h2 class="memberlist-title">Viewing profile - {text(user.name)}</h2>
<form method="post" action="{link(self.user_href(user))}" id="viewprofile">
<div class="panel bg1">
	<div class="inner">
	<dl class="left-box details profile-details">
		<dt>Username:</dt>
		<dd><span>{text(user.name)}</span></dd>
		<dt>Rank:</dt>
		<dd>{text(user.group)}</dd>
		<dt>Location:</dt>
		<dd>{text(user.location)}</dd>
	</dl>
	</div>
</div>
<div class="panel bg2">
	<div class="inner">
	<div class="column1">
		<h3>User statistics</h3>
		<dl class="details">
			<dt>Joined:</dt> <dd>{phpbb_time(user.joined)}</dd>
			<dt>Last active:</dt> <dd>{phpbb_time(user.last_visit)}</dd>
			<dt>Total posts:</dt>
			<dd>{user.posts} | <strong>{share:.2f}%</strong> of all posts</dd>
		</dl>
	</div>
	</div>
</div>
{signature}
</form>"""
        return self.page(self.layout(f"{SITE_NAME} - Viewing profile - {user.name}", "memberlist",
                                     [], content))

    def _panel_page(self, title: str, section: str, body: str, status: int = 200) -> Page:
        content = f"""<h2>{text(title)}</h2>
<div class="panel">
	<div class="inner">
{body}
	</div>
</div>"""
        return self.page(self.layout(f"{SITE_NAME} - {title}", section, [], content), status)

    def search(self) -> Page:
        """``search.php``: the advanced search form."""
        return self._panel_page("Search", "search", f"""<form method="get" action="{link(self.SEARCH)}" id="search">
	<fieldset>
	<dl><dt><label for="keywords">Search for keywords:</label></dt>
	<dd><input type="search" class="inputbox" name="keywords" id="keywords" size="40" title="Search for keywords" /></dd></dl>
	<dl><dt><label for="author">Search for author:</label></dt>
	<dd><input type="search" class="inputbox" name="author" id="author" size="40" title="Search for author" /></dd></dl>
	</fieldset>
	<input type="submit" name="submit" value="Search" class="button1" />
</form>""")

    def login(self) -> Page:
        """``ucp.php?mode=login``: the login form."""
        return self._panel_page("Login", "ucp", f"""<form action="{link(self.LOGIN)}" method="post" id="login">
	<fieldset class="fields1">
	<dl><dt><label for="username">Username:</label></dt><dd><input type="text" tabindex="1" name="username" id="username" size="25" class="inputbox autowidth" /></dd></dl>
	<dl><dt><label for="password">Password:</label></dt><dd><input type="password" tabindex="2" id="password" name="password" size="25" class="inputbox autowidth" autocomplete="off" /></dd></dl>
	<dl><dt>&nbsp;</dt><dd><input type="submit" name="login" tabindex="6" value="Login" class="button1" /></dd></dl>
	</fieldset>
</form>
<p><a href="{link(self.REGISTER)}">Register</a></p>""")

    def register_page(self) -> Page:
        """``ucp.php?mode=register``: the terms a new member must accept."""
        return self._panel_page("Registration", "ucp", f"""<div class="content">
	<h2>{text(SITE_NAME)} - Terms of use</h2>
	<p>By accessing this board you agree to be legally bound by the following terms. If you do not agree, please do not access or use the board.</p>
</div>
<form method="post" action="{link(self.REGISTER)}" id="agreement">
	<fieldset class="submit-buttons">
	<input type="submit" name="agreed" id="agreed" value="I agree to these terms" class="button1" />&nbsp;
	<input type="submit" name="not_agreed" value="I do not agree to these terms" class="button2" />
	</fieldset>
</form>""")

    def faq(self) -> Page:
        """``faq.php``: frequently asked questions (served truncated)."""
        plan = self.plan
        answers = "".join(f"<p>{text(p)}</p>" for p in plan.announcement_text)
        return self._panel_page("Frequently Asked Questions", "faq", f"""<h3>{text(plan.announcement_title)}</h3>
<div class="content">{answers}</div>
<h3>Why do I need to register?</h3>
<div class="content"><p>You may not have to, it is up to the administrator of the board as to whether you need to register in order to post messages.</p></div>
<h3>Why do I get logged off automatically?</h3>
<div class="content"><p>If you do not check the Remember me box when you login, the board will only keep you logged in for a preset time.</p></div>""")

    def not_found(self) -> Page:
        """phpBB's "topic does not exist" message, with a 404 status."""
        return self._panel_page("Information", "viewtopic",
                                "<p>The requested topic does not exist.</p>", status=404)

    def server_error(self) -> Page:
        """A fatal database error page, with a 500 status."""
        body = """<!DOCTYPE html>
<html dir="ltr">
<head><meta charset="utf-8"><title>General Error</title></head>
<body id="errorpage">
<div id="wrap"><div id="page-header"><h1>General Error</h1></div>
<div id="acp"><div class="panel"><div id="content"><h2>SQL ERROR [ mysqli ]</h2>
<p>Table 'phpbb.phpbb_sessions' is marked as crashed and should be repaired [145]</p>
</div></div></div></div>
</body>
</html>"""
        return self.page(body, status=500)
