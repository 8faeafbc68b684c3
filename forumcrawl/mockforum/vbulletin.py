"""The ``vbulletin`` family: vBulletin 3.8-style table pages, English, windows-1252.

What it puts in a crawler's way: guest session ids in some links (``showthread.php?s=<32 hex>&t=5``,
the same page), post permalinks ``showthread.php?p=<pid>#post<pid>`` that serve the page holding
the post, next/previous thread links (``&goto=nextnewest``), sort and age views of every board
(``forumdisplay.php?f=2&sort=views&order=desc``, ``&daysprune=30``), and ``printthread.php``,
which shows a whole thread on one page and is not a thread page. Times read
``Today, 03:15 PM`` / ``03-05-2024, 02:02 PM``.
"""

from __future__ import annotations

import hashlib
import zlib
from datetime import datetime

from forumcrawl.mockforum.family import Family, Listing, Page, attr, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import vbulletin_time

__all__ = ["VBulletin"]

SITE_NAME = "Garage Bench Forums"
_HR = '<hr size="1" style="color:#D1D1E1; background-color:#D1D1E1" />'


class VBulletin(Family):
    """vBulletin 3.8 with its default style, for a guest without cookies."""

    name = "vbulletin"
    lang = "en"
    encoding = "windows-1252"
    wrong_encoding = "utf-8"
    disallow = ("/admincp/", "/newreply.php", "/newthread.php", "/private.php",
                "/sendmessage.php", "/subscription.php")
    presets = {"default": {"boards": 4, "threads_per_board": 14},
               "small": {"boards": 3, "threads_per_board": 4}}

    INDEX = "index.php"
    SEARCH = "search.php"
    REGISTER = "register.php"
    MEMBERS = "memberlist.php"
    FAQ = "faq.php"
    CALENDAR = "calendar.php"
    ONLINE = "online.php"
    CONTACT = "sendmessage.php"
    ADMIN = "admincp/index.php"

    #: The default order: the plain list under another URL.
    DEFAULT_ORDER = "sort=lastpost&order=desc"
    LISTINGS = (
        Listing("sort=title&order=asc", "Thread", key=lambda t: t.title, ascending=True),
        Listing("sort=lastpost&order=asc", "Last Post (oldest first)",
                key=lambda t: (t.last.time, t.tid), ascending=True),
        Listing("sort=replycount&order=desc", "Replies", key=lambda t: (len(t.posts), t.tid)),
        Listing("sort=views&order=desc", "Views", key=lambda t: (t.views, t.tid)),
    )

    # -- links ------------------------------------------------------------------------------------

    def board_href(self, board: Board, page: int, listing: Listing | None = None) -> str:
        """``forumdisplay.php?f=2``, then ``&page=N``, then the view's sort or age."""
        href = f"forumdisplay.php?f={board.fid}" + (f"&page={page}" if page > 1 else "")
        return f"{href}&{listing.query}" if listing else href

    def listings(self) -> list[Listing]:
        """The column sorts and the "last 30 days" view of every board."""
        return [*self.LISTINGS, Listing("daysprune=30", "Last 30 Days", keep=self.active_within(30))]

    def thread_href(self, thread: Thread, page: int) -> str:
        href = f"showthread.php?t={thread.tid}"
        return href if page == 1 else f"{href}&page={page}"

    @staticmethod
    def post_href(post: Post) -> str:
        """The permalink (its ``#post<pid>`` fragment is added where it is printed)."""
        return f"showthread.php?p={post.pid}"

    @staticmethod
    def user_href(user: User) -> str:
        """``member.php?u=N``."""
        return f"member.php?u={user.uid}"

    @staticmethod
    def print_href(thread: Thread) -> str:
        """The printable version: every post on one page."""
        return f"printthread.php?t={thread.tid}"

    def session(self, page: str) -> str:
        """The guest session id a page writes into some of its links ('' for none): one of three
        ids, as three visitors' pages would carry."""
        n = zlib.crc32(page.encode()) % 4
        return hashlib.md5(f"{self.plan.missing_tid}:{n}".encode()).hexdigest() if n else ""

    @staticmethod
    def with_session(href: str, sid: str) -> str:
        """``href`` with ``s=<sid>`` first in its query, as vBulletin puts it."""
        if not sid:
            return href
        path, query = href.split("?", 1)
        return f"{path}?s={sid}&{query}"

    def _neighbours(self, thread: Thread) -> dict[str, Thread]:
        """The ``goto=nextnewest`` / ``nextoldest`` targets within the thread's board."""
        threads = self.plan.board(thread.fid).threads
        n = threads.index(thread)
        found = {}
        if n > 0:
            found["nextnewest"] = threads[n - 1]
        if n + 1 < len(threads):
            found["nextoldest"] = threads[n + 1]
        return found

    @staticmethod
    def _reply(thread: Thread) -> str:
        return f"newreply.php?do=newreply&noquote=1&t={thread.tid}"

    @staticmethod
    def _quote_href(post: Post) -> str:
        return f"newreply.php?do=newreply&p={post.pid}"

    @staticmethod
    def _new_thread(board: Board) -> str:
        return f"newthread.php?do=newthread&f={board.fid}"

    @staticmethod
    def _thread_tools(thread: Thread) -> dict[str, str]:
        return {"Email this Page": f"sendmessage.php?do=sendtofriend&t={thread.tid}",
                "Subscribe to this Thread": f"subscription.php?do=addsubscription&t={thread.tid}"}

    @staticmethod
    def _pm(user: User) -> str:
        return f"private.php?do=newpm&u={user.uid}"

    @staticmethod
    def _attachment(post: Post) -> str:
        return f"attachment.php?attachmentid={post.attachment}&d=1709000000"

    def _missing(self) -> str:
        return f"showthread.php?t={self.plan.missing_tid}"

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return vbulletin_time(moment, self.plan.now), moment

    def _when(self, moment: datetime) -> str:
        day, clock = vbulletin_time(moment, self.plan.now).split(", ")
        return f'{day} <span class="time">{clock}</span>'

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        self.add_page(self.INDEX, self.index)
        self.add_alias("", self.INDEX)
        for href, render in ((self.SEARCH, self.search), (self.REGISTER, self.register_page),
                             (self.MEMBERS, self.members)):
            self.add_page(href, render)
        index_sid = self.session(self.INDEX)
        for board in plan.boards:
            first = self.board_href(board, 1)
            self.add_alias(self.with_session(first, index_sid), first)
            self.add_alias(f"{first}&{self.DEFAULT_ORDER}", first)
            for listing in (None, *self.listings()):
                for n, threads in enumerate(self.listed(board, listing), start=1):
                    href = self.board_href(board, n, listing)
                    self.add_page(href, lambda b=board, n=n, v=listing: self.board(b, n, v))
                    sid = self.session(href) if listing is None else ""
                    for thread in threads:
                        self.add_alias(self.with_session(self.thread_href(thread, 1), sid),
                                       self.thread_href(thread, 1))
            self.disallowed.add(self._new_thread(board))
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            self.add_page(self.print_href(thread), lambda t=thread: self.print_thread(t))
            for goto, other in self._neighbours(thread).items():
                self.add_alias(f"{self.thread_href(thread, 1)}&goto={goto}",
                               self.thread_href(other, 1))
            self.disallowed.update({self._reply(thread), *self._thread_tools(thread).values()})
            for post in thread.posts:
                self.add_alias(self.post_href(post), self.thread_href(thread, self.page_of(post)))
                self.disallowed.update({self._quote_href(post), self._pm(post.author)})
                if post.attachment:
                    self.add_broken(self._attachment(post), "binary",
                                    lambda p=post: self.binary(p.pid))
        self.disallowed.add(self.CONTACT)
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.FAQ, self.faq),
            not_found=self._missing(),
            server_error=self.ONLINE,
            empty=self.CALENDAR,
        )

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, href: str, title: str, crumbs: list[tuple[str, str]], content: str) -> str:
        """The vBulletin 3 frame: logo, navbar with breadcrumbs and the login box, the button
        bar, the footer; ``href`` is the page's own link (its session id goes into the script)."""
        sid = self.session(href)
        trail = "".join(f'\n\t\t\t\t<span class="navbar">&gt; <a href="{attr(h)}">{text(label)}</a>'
                        f"</span>" for h, label in crumbs[:-1])
        last = crumbs[-1][1] if crumbs else SITE_NAME
        reload = crumbs[-1][0] if crumbs else self.INDEX
        clock = vbulletin_time(self.plan.now, self.plan.now).split(", ")[1]
        return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="en">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=windows-1252" />
<meta name="generator" content="vBulletin 3.8.11" />
<meta name="keywords" content="{attr(title)}, forum, garage, workshop" />
<meta name="description" content="{attr(title)} - {SITE_NAME}" />
<style type="text/css" id="vbulletin_css">
body {{ background: #E1E1E2; color: #000000; font: 10pt verdana, geneva, lucida, 'lucida grande', arial, helvetica, sans-serif; margin: 5px 10px 10px 10px; padding: 0px; }}
.page {{ background: #FFFFFF; color: #000000; }}
.tborder {{ background: #D1D1E1; color: #000000; border: 1px solid #0B198C; }}
.thead {{ background: #5C7099 url(images/gradients/gradient_thead.gif) repeat-x top left; color: #FFFFFF; font: bold 11px tahoma, verdana, geneva, lucida, 'lucida grande', arial, helvetica, sans-serif; }}
.alt1, .alt1Active {{ background: #F5F5FF; color: #000000; }}
.alt2, .alt2Active {{ background: #E1E4F2; color: #000000; }}
</style>
<link rel="stylesheet" type="text/css" href="clientscript/vbulletin_important.css?v=3811" />
<script type="text/javascript" src="clientscript/yui/yahoo-dom-event/yahoo-dom-event.js?v=3811"></script>
<script type="text/javascript">
<!--
var SESSIONURL = "{f"s={sid}&amp;" if sid else ""}";
var SECURITYTOKEN = "guest";
var IMGDIR_MISC = "images/misc";
var vb_disable_ajax = parseInt("0", 10);
// -->
</script>
<script type="text/javascript" src="clientscript/vbulletin_global.js?v=3811"></script>
<title>{text(title)}</title>
</head>
<body>
<!-- logo -->
<a name="top"></a>
<table border="0" width="100%" cellpadding="0" cellspacing="0" align="center">
<tr>
	<td align="left"><a href="{self.INDEX}"><img src="images/misc/vbulletin3_logo_white.gif" border="0" alt="{SITE_NAME}" /></a></td>
	<td align="right" id="header_right_cell">&nbsp;</td>
</tr>
</table>
<!-- /logo -->
<!-- content table -->
<div align="center">
	<div class="page" style="width:100%; text-align:left">
		<div style="padding:0px 25px 0px 25px" align="left">
<br />
<!-- breadcrumb, login, pm info -->
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<tr>
	<td class="alt1" width="100%">
		<table cellpadding="0" cellspacing="0" border="0">
		<tr valign="bottom">
			<td><a href="#" onclick="history.back(1); return false;"><img src="images/misc/navbits_start.gif" alt="Go Back" border="0" /></a></td>
			<td>&nbsp;</td>
			<td width="100%"><span class="navbar"><a href="{self.INDEX}" accesskey="1">{SITE_NAME}</a></span>{trail}</td>
		</tr>
		<tr>
			<td class="navbar" style="font-size:10pt; padding-top:1px" colspan="3"><a href="{attr(reload)}"><img class="inlineimg" src="images/misc/navbits_finallink_ltr.gif" alt="Reload this Page" border="0" /></a> <strong>{text(last)}</strong></td>
		</tr>
		</table>
	</td>
	<td class="alt2" nowrap="nowrap" style="padding:0px">
		<!-- login form -->
		<form action="login.php?do=login" method="post" onsubmit="md5hash(vb_login_password, vb_login_md5password, vb_login_md5password_utf, 0)">
		<script type="text/javascript" src="clientscript/vbulletin_md5.js?v=3811"></script>
		<table cellpadding="0" cellspacing="3" border="0">
		<tr>
			<td class="smallfont" style="white-space: nowrap;"><label for="navbar_username">User Name</label></td>
			<td><input type="text" class="bginput" style="font-size: 11px" name="vb_login_username" id="navbar_username" size="10" accesskey="u" tabindex="101" value="User Name" onfocus="if (this.value == 'User Name') this.value = '';" /></td>
			<td class="smallfont" nowrap="nowrap"><label for="cb_cookieuser_navbar"><input type="checkbox" name="cookieuser" value="1" tabindex="103" id="cb_cookieuser_navbar" accesskey="c" />Remember Me?</label></td>
		</tr>
		<tr>
			<td class="smallfont"><label for="navbar_password">Password</label></td>
			<td><input type="password" class="bginput" style="font-size: 11px" name="vb_login_password" id="navbar_password" size="10" tabindex="102" /></td>
			<td><input type="submit" class="button" value="Log in" tabindex="104" title="Enter your username and password in the boxes provided to login, or click the 'register' button to create a profile for yourself." accesskey="s" /></td>
		</tr>
		</table>
		<input type="hidden" name="s" value="{sid}" />
		<input type="hidden" name="securitytoken" value="guest" />
		<input type="hidden" name="do" value="login" />
		</form>
		<!-- / login form -->
	</td>
</tr>
</table>
<!-- / breadcrumb, login, pm info -->
<!-- nav buttons bar -->
<div class="tborder" style="padding:1px; border-top-width:0px">
	<table cellpadding="0" cellspacing="0" border="0" width="100%" align="center">
	<tr align="center">
		<td class="vbmenu_control"><a href="{self.REGISTER}" rel="nofollow">Register</a></td>
		<td class="vbmenu_control"><a rel="help" href="{self.FAQ}" accesskey="5">FAQ</a></td>
		<td class="vbmenu_control"><a href="{self.MEMBERS}">Members List</a></td>
		<td class="vbmenu_control"><a href="{self.CALENDAR}">Calendar</a></td>
		<td class="vbmenu_control"><a href="{self.SEARCH}" accesskey="4" rel="nofollow">Search</a></td>
	</tr>
	</table>
</div>
<!-- / nav buttons bar -->
<br />
{content}
<br />
<div class="smallfont" align="center">All times are GMT. The time now is <span class="time">{clock}</span>.</div>
<br />
		</div>
	</div>
</div>
<!-- / close content container -->
<form action="{self.INDEX}" method="get" style="clear:left">
<table cellpadding="6" cellspacing="0" border="0" width="100%" class="page" align="center">
<tr>
	<td class="tfoot" align="right" width="100%">
		<div class="smallfont">
			<strong>
				<a href="{self.CONTACT}" rel="nofollow" accesskey="9">Contact Us</a> -
				<a href="{self.INDEX}">{SITE_NAME}</a> -
				<a href="{self.ADMIN}">Admin</a> -
				<a href="#top" onclick="self.scrollTo(0, 0); return false;">Top</a>
			</strong>
		</div>
	</td>
</tr>
</table>
<br />
<div align="center">
	<div class="smallfont" align="center">
	Powered by vBulletin&reg; Version 3.8.11<br />Copyright &copy;2000 - 2024, vBulletin Solutions Inc.
	</div>
</div>
</form>
</body>
</html>
"""

    @staticmethod
    def page_nav(hrefs: list[str], current: int, per_page: int, total_items: int) -> str:
        """vBulletin's ``div.pagenav`` table (nothing for one page)."""
        pages = len(hrefs)
        if pages < 2:
            return ""

        def results(n: int) -> str:
            return f"{(n - 1) * per_page + 1} to {min(n * per_page, total_items)} of {total_items}"

        cells = [f'\t<td class="vbmenu_control" style="font-weight:normal">Page {current} of {pages}</td>']
        if current > 1:
            cells.append(f'\t<td class="alt1"><a rel="prev" class="smallfont" href="{attr(hrefs[current - 2])}" title="Prev Page - Results {results(current - 1)}">&lt;</a></td>')
        for n, href in enumerate(hrefs, start=1):
            cells.append(f'\t<td class="alt2"><span class="smallfont" title="Showing results {results(n)}"><strong>{n}</strong></span></td>'
                         if n == current else
                         f'\t<td class="alt1"><a class="smallfont" href="{attr(href)}" title="Show results {results(n)}">{n}</a></td>')
        if current < pages:
            cells.append(f'\t<td class="alt1"><a rel="next" class="smallfont" href="{attr(hrefs[current])}" title="Next Page - Results {results(current + 1)}">&gt;</a></td>')
        return ('<div class="pagenav" align="right">\n<table class="tborder" cellpadding="3" '
                'cellspacing="1" border="0">\n<tr>\n' + "\n".join(cells) + "\n</tr>\n</table>\n</div>")

    def _user_link(self, user: User) -> str:
        return f'<a href="{self.user_href(user)}">{text(user.name)}</a>'

    def _last_post(self, thread: Thread) -> str:
        last = thread.last
        return (f'{self._when(last.time)}<br />\n\t\t\tby {self._user_link(last.author)}  <a href="'
                f'{attr(self.post_href(last))}#post{last.pid}"><img class="inlineimg" src="images/'
                f'buttons/lastpost.gif" alt="Go to last post" border="0" /></a>')

    # -- pages ------------------------------------------------------------------------------------

    def index(self) -> Page:
        """``index.php``: the forum table with last posts, then "What's Going On?"."""
        plan = self.plan
        sid = self.session(self.INDEX)
        rows = []
        for board in plan.boards:
            latest = board.threads[0]
            title = latest.title if len(latest.title) <= 30 else latest.title[:30] + "..."
            moderator = (f'\n\t\t\t\t<div class="smallfont" style="margin-top:6px"><strong>Moderator:'
                         f'</strong> {self._user_link(board.moderator)}</div>' if board.moderator else "")
            rows.append(f"""<tr align="center">
	<td class="alt1Active" colspan="2" id="f{board.fid}" align="left">
		<table cellpadding="0" cellspacing="0" border="0">
		<tr>
			<td><img src="images/statusicon/forum_old.gif" alt="" border="0" id="forum_statusicon_{board.fid}" /></td>
			<td><img src="clear.gif" alt="" width="9" height="1" border="0" /></td>
			<td>
				<div><a href="{attr(self.with_session(self.board_href(board, 1), sid))}"><strong>{text(board.theme.name)}</strong></a></div>
				<div class="smallfont">{text(board.theme.description)}</div>{moderator}
			</td>
		</tr>
		</table>
	</td>
	<td class="alt2" nowrap="nowrap">
		<div class="smallfont" align="left">
			<div style="clear:both"><a href="{attr(self.post_href(latest.last))}#post{latest.last.pid}" title="Go to last post in thread '{attr(latest.title)}'"><strong>{text(title)}</strong></a></div>
			<div align="right">{self._last_post(latest)}</div>
		</div>
	</td>
	<td class="alt1">{len(board.threads)}</td>
	<td class="alt2">{sum(len(t.posts) for t in board.threads)}</td>
</tr>""")
        content = f"""<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<thead>
	<tr align="center">
		<td class="thead">&nbsp;</td>
		<td class="thead" width="100%" align="left">Forum</td>
		<td class="thead" width="175">Last Post</td>
		<td class="thead">Threads</td>
		<td class="thead">Posts</td>
	</tr>
</thead>
<tbody>
	<tr><td class="tcat" colspan="5">Workshop Talk</td></tr>
</tbody>
<tbody id="collapseobj_forumbit_1">
{chr(10).join(rows)}
</tbody>
</table>
<br />
<!-- what's going on box -->
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<thead>
	<tr><td class="tcat" colspan="2">What's Going On?</td></tr>
</thead>
<tbody>
	<tr><td class="thead" colspan="2"><a href="{self.ONLINE}">Currently Active Users</a>: {len(plan.users) // 3 + 2} (0 members and {len(plan.users) // 3 + 2} guests)</td></tr>
	<tr><td class="thead" colspan="2">{SITE_NAME} Statistics</td></tr>
	<tr>
		<td class="alt2"><img src="images/misc/stats.gif" alt="{SITE_NAME} Statistics" border="0" /></td>
		<td class="alt1" width="100%"><div class="smallfont">
			<div>Threads: {len(plan.threads)}, Posts: {len(plan.all_posts)}, Members: {len(plan.users)}</div>
			<div>Welcome to our newest member, {self._user_link(plan.newest_user)}</div>
		</div></td>
	</tr>
</tbody>
</table>"""
        return self.page(self.layout(self.INDEX, f"{SITE_NAME} - Powered by vBulletin", [], content))

    def _thread_row(self, thread: Thread, sid: str) -> str:
        first = thread.posts[0]
        pages = self.page_count(thread)
        multipage = ""
        if pages > 1:
            links = " ".join(f'<a href="{attr(self.thread_href(thread, n))}">{n}</a>'
                             for n in range(1, pages + 1))
            multipage = (f'\n\t\t\t<span class="smallfont" style="white-space:nowrap">(<img class='
                         f'"inlineimg" src="images/misc/multipage.gif" alt="Multi-page thread" '
                         f'border="0" /> {links})</span>')
        excerpt = first.paragraphs[0][:100]
        return f"""<tr>
	<td class="alt1" id="td_threadstatusicon_{thread.tid}"><img src="images/statusicon/thread.gif" id="thread_statusicon_{thread.tid}" alt="" border="" /></td>
	<td class="alt2">&nbsp;</td>
	<td class="alt1" id="td_threadtitle_{thread.tid}" title="{attr(excerpt)}">
		<div>
			<a href="{attr(self.with_session(self.thread_href(thread, 1), sid))}" id="thread_title_{thread.tid}">{text(thread.title)}</a>{multipage}
		</div>
		<div class="smallfont"><span style="cursor:pointer" onclick="window.open('{self.user_href(first.author)}', '_self')">{text(first.author.name)}</span></div>
	</td>
	<td class="alt2" title="Replies: {len(thread.posts) - 1}, Views: {thread.views}">
		<div class="smallfont" style="text-align:right; white-space:nowrap">
			{self._last_post(thread)}
		</div>
	</td>
	<td class="alt1" align="center">{len(thread.posts) - 1}</td>
	<td class="alt2" align="center">{thread.views}</td>
</tr>"""

    def _missing_row(self) -> str:
        """A thread deleted since the list was cached: its link answers 404."""
        return f"""<tr>
	<td class="alt1"><img src="images/statusicon/thread_lock.gif" alt="" border="" /></td>
	<td class="alt2">&nbsp;</td>
	<td class="alt1"><div><a href="{self._missing()}" id="thread_title_{self.plan.missing_tid}">Old firmware download links</a></div></td>
	<td class="alt2">&nbsp;</td><td class="alt1" align="center">-</td><td class="alt2" align="center">-</td>
</tr>"""

    def _sort_link(self, board: Board, query: str, label: str) -> str:
        href = f"{self.board_href(board, 1)}&{query}"
        return f'<a href="{attr(href)}" rel="nofollow">{label}</a>'

    def board(self, board: Board, page: int, listing: Listing | None) -> Page:
        """``forumdisplay.php``: sortable thread table, page navigation, display options."""
        plan = self.plan
        href = self.board_href(board, page, listing)
        sid = self.session(href) if listing is None else ""
        lists = self.listed(board, listing)
        rows = [self._thread_row(t, sid) for t in lists[page - 1]]
        if listing is None and board is plan.boards[0] and page == 1:
            rows.insert(min(2, len(rows)), self._missing_row())
        shown = sum(len(threads) for threads in lists)
        nav = self.page_nav([self.board_href(board, n, listing) for n in range(1, len(lists) + 1)],
                            page, plan.threads_per_list_page, shown)
        reverse = (self._sort_link(board, "sort=lastpost&order=asc", '<img class="inlineimg" src='
                   '"images/buttons/sortasc.gif" alt="Reverse Sort Order" border="0" />'))
        sorts = {query: self._sort_link(board, query, label) for query, label in (
            ("sort=title&order=asc", "Thread"), ("sort=replycount&order=desc", "Replies"),
            ("sort=views&order=desc", "Views"), (self.DEFAULT_ORDER, "Last Post"))}
        content = f"""<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center" style="border-bottom-width:0px">
<tr>
	<td class="tcat" width="100%">Threads in Forum<span class="normal"> : {text(board.theme.name)}</span></td>
	<td class="vbmenu_control" nowrap="nowrap"><a href="{self._new_thread(board)}" rel="nofollow"><img src="images/buttons/newthread.gif" alt="Post New Thread" border="0" /></a></td>
</tr>
</table>
{nav}
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center" id="threadslist">
<tbody>
<tr>
	<td class="thead" colspan="2">&nbsp;</td>
	<td class="thead" width="100%">{sorts["sort=title&order=asc"]}</td>
	<td class="thead" width="150" align="center" nowrap="nowrap"><span style="white-space:nowrap">{sorts[self.DEFAULT_ORDER]} {reverse}</span></td>
	<td class="thead" align="center" nowrap="nowrap"><span style="white-space:nowrap">{sorts["sort=replycount&order=desc"]}</span></td>
	<td class="thead" align="center" nowrap="nowrap"><span style="white-space:nowrap">{sorts["sort=views&order=desc"]}</span></td>
</tr>
</tbody>
<tbody id="threadbits_forum_{board.fid}">
{chr(10).join(rows) or '<tr><td class="alt1" colspan="6">There are no threads in this forum.</td></tr>'}
</tbody>
</table>
{nav}
<br />
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<tr><td class="thead">Display Options</td></tr>
<tr><td class="alt1"><div class="smallfont">Showing threads 1 to {shown} of {shown}. Show threads from the: <a href="{attr(self.board_href(board, 1))}">Beginning</a> | <a href="{attr(f"{self.board_href(board, 1)}&daysprune=30")}" rel="nofollow">Last 30 Days</a></div></td></tr>
</table>"""
        title = f"{board.theme.name} - {SITE_NAME}"
        return self.page(self.layout(href, title, [(self.board_href(board, 1), board.theme.name)],
                                     content))

    def _quote_block(self, post: Post) -> str:
        if not post.quote:
            return ""
        quoted = post.quote.post
        return f"""<div style="margin:20px; margin-top:5px; ">
	<div class="smallfont" style="margin-bottom:2px">Quote:</div>
	<table cellpadding="6" cellspacing="0" border="0" width="100%">
	<tr>
		<td class="alt2" style="border:1px inset">
			<div>Originally Posted by <strong>{text(quoted.author.name)}</strong> <a href="{attr(self.post_href(quoted))}#post{quoted.pid}" rel="nofollow"><img class="inlineimg" src="images/buttons/viewpost.gif" border="0" alt="View Post" /></a></div>
			<div style="font-style:italic">{text(post.quote.text)}</div>
		</td>
	</tr>
	</table>
</div>"""

    def _post(self, thread: Thread, post: Post) -> str:
        user = post.author
        subject = thread.title if post.floor == 1 else f"Re: {thread.title}"
        body = "<br />\n<br />\n".join(text(p) for p in post.paragraphs)
        attachment = ""
        if post.attachment:
            attachment = (f'\n\t\t<div style="padding:6px"><fieldset class="fieldset"><legend>Attached '
                          f'Thumbnails</legend><a href="{attr(self._attachment(post))}" rel="Lightbox_'
                          f'{post.pid}" id="attachment{post.attachment}"><img class="thumbnail" src="'
                          f'attachment.php?attachmentid={post.attachment}&amp;stc=1&amp;thumb=1" border'
                          f'="0" alt="Click image for larger version" /></a></fieldset></div>')
        signature = (f"\n\t\t<!-- sig -->\n\t\t<div>__________________<br />\n\t\t"
                     f"{text(post.signature)}</div>\n\t\t<!-- / sig -->" if post.signature else "")
        edited = ""
        if post.edit:
            day, clock = vbulletin_time(post.edit.time, self.plan.now).split(", ")
            edited = (f'\n\t\t<!-- edit note -->\n\t\t<div class="smallfont">{_HR}<em>Last edited by '
                      f'{text(post.edit.editor.name)}; {day} at <span class="time">{clock}</span>.'
                      f'</em></div>\n\t\t<!-- / edit note -->')
        return f"""<div id="edit{post.pid}" style="padding:0px 0px 6px 0px">
<table id="post{post.pid}" class="tborder" cellpadding="6" cellspacing="0" border="0" width="100%" align="center">
<tr>
	<td class="thead" style="font-weight:normal; border: 1px solid #D1D1E1; border-right: 0px">
		<!-- status icon and date -->
		<a name="post{post.pid}"><img class="inlineimg" src="images/statusicon/post_old.gif" alt="Old" border="0" /></a>
		{vbulletin_time(post.time, self.plan.now)}
		<!-- / status icon and date -->
	</td>
	<td class="thead" style="font-weight:normal; border: 1px solid #D1D1E1; border-left: 0px" align="right">
		&nbsp;
		#<a href="{attr(self.post_href(post))}#post{post.pid}" target="new" rel="nofollow" id="postcount{post.pid}" name="{post.floor}"><strong>{post.floor}</strong></a>
	</td>
</tr>
<tr valign="top">
	<td class="alt2" width="175" style="border: 1px solid #D1D1E1; border-top: 0px; border-bottom: 0px">
		<div id="postmenu_{post.pid}">
			<a class="bigusername" href="{self.user_href(user)}">{text(user.name)}</a>
			<script type="text/javascript"> vbmenu_register("postmenu_{post.pid}", true); </script>
		</div>
		<div class="smallfont">{text(user.group)}</div>
		<div class="smallfont">
			&nbsp;<br />
			<div>Join Date: {user.joined:%b %Y}</div>
			<div>Location: {text(user.location)}</div>
			<div>Posts: {user.posts:,}</div>
		</div>
		<div class="smallfont"><a href="{self._pm(user)}" rel="nofollow">Send a private message</a></div>
	</td>
	<td class="alt1" id="td_post_{post.pid}" style="border-right: 1px solid #D1D1E1">
		<!-- icon and title -->
		<div class="smallfont"><strong>{text(subject)}</strong></div>
		{_HR}
		<!-- / icon and title -->
		<!-- message -->
		<div id="post_message_{post.pid}">
			{self._quote_block(post)}{body}
		</div>
		<!-- / message -->{attachment}{signature}{edited}
	</td>
</tr>
<tr>
	<td class="alt2" style="border: 1px solid #D1D1E1; border-top: 0px"><img class="inlineimg" src="images/statusicon/user_offline.gif" alt="{attr(user.name)} is offline" border="0" /></td>
	<td class="alt1" align="right" style="border: 1px solid #D1D1E1; border-left: 0px; border-top: 0px">
		<!-- controls -->
		<a href="{attr(self._quote_href(post))}" rel="nofollow"><img src="images/buttons/quote.gif" alt="Reply With Quote" border="0" /></a>
		<!-- / controls -->
	</td>
</tr>
</table>
</div>"""

    def thread(self, thread: Thread, page: int) -> Page:
        """``showthread.php``: thread tools, page navigation, the posts, next/previous thread."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = self.page_count(thread)
        href = self.thread_href(thread, page)
        nav = self.page_nav([self.thread_href(thread, n) for n in range(1, total + 1)], page,
                            plan.posts_per_page, len(thread.posts))
        posts = "\n".join(self._post(thread, p)
                          for p in self.posts_of(thread, plan.posts_per_page, page))
        tools = "".join(f'\n\t\t<tr><td class="vbmenu_option"><a href="{attr(h)}" rel="nofollow">'
                        f'{label}</a></td></tr>' for label, h in self._thread_tools(thread).items())
        goto = " | ".join(
            f'<a href="{attr(self.thread_href(thread, 1))}&amp;goto={goto}" rel="nofollow">'
            f'{"&laquo; Previous Thread" if goto == "nextoldest" else "Next Thread &raquo;"}</a>'
            for goto in sorted(self._neighbours(thread), reverse=True))
        controls = {
            where: f"""<!-- controls {where} postbits -->
<table cellpadding="0" cellspacing="0" border="0" width="100%" style="{style}">
<tr valign="{align}">
	<td class="smallfont"><a href="{attr(self._reply(thread))}" rel="nofollow"><img src="images/buttons/reply.gif" alt="Reply" border="0" /></a></td>
	<td align="right">{nav}</td>
</tr>
</table>
<!-- / controls {where} postbits -->"""
            for where, style, align in (("above", "margin-bottom:3px", "bottom"),
                                        ("below", "margin-top:-3px", "top"))}
        content = f"""<a name="poststop" id="poststop"></a>
{controls["above"]}
<!-- toolbar -->
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center" style="border-bottom-width:0px">
<tr>
	<td class="tcat" width="100%"><div class="smallfont">&nbsp;</div></td>
	<td class="vbmenu_control" id="threadtools" nowrap="nowrap">
		<a href="{self.print_href(thread)}">Thread Tools</a>
		<table cellpadding="4" cellspacing="1" border="0">
		<tr><td class="vbmenu_option"><img class="inlineimg" src="images/buttons/printer.gif" alt="Show Printable Version" /> <a href="{self.print_href(thread)}" accesskey="3" rel="nofollow">Show Printable Version</a></td></tr>{tools}
		</table>
	</td>
</tr>
</table>
<!-- end toolbar -->
<div id="posts">
{posts}
<div id="lastpost"></div></div>
{controls["below"]}
<br />
<div class="smallfont" align="center"><strong>&laquo;</strong> {goto} <strong>&raquo;</strong></div>
<br />
<div class="smallfont" align="left"><a href="{attr(self.board_href(board, thread.list_page))}">&laquo; Back to {text(board.theme.name)}</a></div>"""
        title = f"{thread.title} - {SITE_NAME}" + (f" - Page {page}" if page > 1 else "")
        crumbs = [(self.board_href(board, 1), board.theme.name), (href, thread.title)]
        return self.thread_page(thread, self.layout(href, title, crumbs, content))

    def print_thread(self, thread: Thread) -> Page:
        """``printthread.php``: every post of the thread, plainly, on one page."""
        board = self.plan.board(thread.fid)
        posts = "\n<br />\n".join(f"""<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%">
<tr><td class="page">
	<table cellpadding="0" cellspacing="0" border="0" width="100%">
	<tr><td class="smallfont"><strong>{text(post.author.name)}</strong></td><td class="smallfont" align="right">{vbulletin_time(post.time, self.plan.now)}</td></tr>
	</table>
	<hr />
	<div><strong>{text(thread.title if post.floor == 1 else f"Re: {thread.title}")}</strong></div>
	<div>{"<br /><br />".join(text(p) for p in post.paragraphs)}</div>
</td></tr>
</table>""" for post in thread.posts)
        body = f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="en">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=windows-1252" />
<meta name="robots" content="noindex,follow" />
<title>{SITE_NAME} - {text(thread.title)}</title>
<style type="text/css">td, p, li, div {{ font: 10pt verdana, geneva, lucida, 'lucida grande', arial, helvetica, sans-serif; }} .smallfont {{ font-size: 11px; }} .tborder {{ border: 1px solid #808080; }} .page {{ background-color: white; color: black; }}</style>
</head>
<body>
<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%">
<tr><td class="page"><div>
	<span class="largefont"><strong>{SITE_NAME}</strong></span> (<a href="{self.INDEX}">{SITE_NAME}</a>)<br />
	- <span class="largefont"><a href="{attr(self.board_href(board, 1))}">{text(board.theme.name)}</a></span><br />
	- - <a href="{attr(self.thread_href(thread, 1))}">{text(thread.title)}</a>
</div></td></tr>
</table>
<br />
{posts}
<br />
<div class="smallfont" align="center">All times are GMT. Powered by vBulletin&reg; Version 3.8.11</div>
</body>
</html>
"""
        return self.page(body)

    def user(self, user: User) -> Page:
        """``member.php``: the member's profile."""
        signature = (f'<div class="alt1" style="padding:6px"><strong>Signature</strong><br />'
                     f'{text(user.signature)}</div>' if user.signature else "")
        content = f"""<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<tr><td class="tcat">View Profile: {text(user.name)}</td></tr>
<tr><td class="alt2">
	<div id="username_box"><h1>{text(user.name)} <img class="inlineimg" src="images/statusicon/user_offline.gif" alt="{attr(user.name)} is offline" border="0" /></h1><h2>{text(user.group)}</h2></div>
</td></tr>
<tr><td class="alt1">
	<fieldset class="statistics_group"><legend>Total Posts</legend><ul class="list_no_decoration">
		<li><span class="shade">Total Posts:</span> {user.posts:,}</li>
		<li><span class="shade">Posts Per Day:</span> {user.posts / max((self.plan.now - user.joined).days, 1):.2f}</li>
	</ul></fieldset>
	<fieldset class="statistics_group"><legend>General Information</legend><ul class="list_no_decoration">
		<li><span class="shade">Last Activity:</span> {vbulletin_time(user.last_visit, self.plan.now)}</li>
		<li><span class="shade">Join Date:</span> {user.joined:%m-%d-%Y}</li>
		<li><span class="shade">Location:</span> {text(user.location)}</li>
	</ul></fieldset>
	{signature}
	<div><a href="{self._pm(user)}" rel="nofollow">Send a private message to {text(user.name)}</a></div>
</td></tr>
</table>"""
        return self.page(self.layout(self.user_href(user), f"{SITE_NAME} - View Profile: {user.name}",
                                     [(self.MEMBERS, "Members List"), (self.user_href(user), user.name)],
                                     content))

    def members(self) -> Page:
        """``memberlist.php``: every member with post count and join date."""
        rows = "\n".join(f'<tr><td class="alt1Active"><a href="{self.user_href(u)}">{text(u.name)}</a>'
                         f'<div class="smallfont">{text(u.group)}</div></td><td class="alt2">'
                         f'{u.joined:%m-%d-%Y}</td><td class="alt1">{u.posts:,}</td></tr>'
                         for u in self.plan.users)
        content = f"""<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" align="center">
<tr><td class="tcat" colspan="3">Members List</td></tr>
<tr><td class="thead">User Name</td><td class="thead">Join Date</td><td class="thead">Posts</td></tr>
{rows}
</table>"""
        return self.page(self.layout(self.MEMBERS, f"{SITE_NAME} - Members List",
                                     [(self.MEMBERS, "Members List")], content))

    def _panel(self, href: str, title: str, body: str, status: int = 200) -> Page:
        content = (f'<table class="tborder" cellpadding="6" cellspacing="1" border="0" width="100%" '
                   f'align="center">\n<tr><td class="tcat">{text(title)}</td></tr>\n<tr><td class='
                   f'"panelsurround" align="center"><div class="panel"><div align="left">\n{body}\n'
                   f"</div></div></td></tr>\n</table>")
        return self.page(self.layout(href, f"{SITE_NAME} - {title}", [(href, title)], content),
                         status)

    def search(self) -> Page:
        """``search.php``: the search form."""
        return self._panel(self.SEARCH, "Search Forums", f"""<form action="{self.SEARCH}?do=process" method="post" name="vbform">
	<fieldset class="fieldset"><legend>Search by Keyword</legend><input type="text" class="bginput" name="query" size="35" value="" /></fieldset>
	<fieldset class="fieldset"><legend>Search by User Name</legend><input type="text" class="bginput" name="searchuser" size="35" value="" /></fieldset>
	<input type="submit" class="button" name="dosearch" value="Search Now" accesskey="s" />
</form>""")

    def register_page(self) -> Page:
        """``register.php``: the forum rules a new member must accept."""
        return self._panel(self.REGISTER, "Register", f"""<p>In order to proceed, you must agree with the following rules:</p>
<fieldset class="fieldset"><legend>Forum Rules</legend><div style="padding:3px">Registration to this forum is free! We do insist that you abide by the rules and policies detailed below.</div></fieldset>
<form action="{self.REGISTER}" method="post"><input type="hidden" name="do" value="register" /><label for="cb_rules_agree"><input type="checkbox" name="agree" id="cb_rules_agree" value="1" /><strong>I have read, and agree to abide by the {SITE_NAME} rules.</strong></label><input type="submit" class="button" value="Register" /></form>""")

    def faq(self) -> Page:
        """``faq.php``: the FAQ (served truncated)."""
        plan = self.plan
        answers = "".join(f"<p>{text(p)}</p>" for p in plan.announcement_text)
        return self._panel(self.FAQ, "Frequently Asked Questions", f"""<div class="fieldset"><strong>{text(plan.announcement_title)}</strong>{answers}</div>
<div class="fieldset"><strong>Why should I register?</strong><p>You may not be able to use all features of the forum until you register.</p></div>
<div class="fieldset"><strong>What are cookies?</strong><p>Cookies are small text files stored on your computer; without them this forum adds a session id to its links.</p></div>""")

    def not_found(self) -> Page:
        """vBulletin's "Invalid Thread specified" message, with a 404 status."""
        return self._panel(self._missing(), f"{SITE_NAME} Message",
                           "<p>No Thread specified. If you followed a valid link, please notify the "
                           f'<a href="{self.CONTACT}">administrator</a></p>', status=404)

    def server_error(self) -> Page:
        """vBulletin's database error page, with a 500 status."""
        return self.page("""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html><head><title>Garage Bench Forums Database Error</title></head>
<body><table style="width:100%"><tr><td><p><strong>Database error</strong></p>
<p>The Garage Bench Forums database has encountered a problem.</p>
<ul><li>Load the page again by clicking the <a href="#" onclick="window.location = window.location;">Refresh</a> button in your web browser.</li></ul>
</td></tr></table></body></html>""", status=500)
