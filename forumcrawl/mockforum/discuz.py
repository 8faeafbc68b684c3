"""The ``discuz`` family: Discuz! X3-style dynamic URLs, GBK pages, table-based post markup."""

from __future__ import annotations

import base64
import zlib
from datetime import datetime, timedelta
from urllib.parse import quote

from forumcrawl.mockforum.family import Family, Page, attr, text
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.times import discuz_time

__all__ = ["Discuz"]

SITE_NAME = "蓝色港湾论坛"
_FLOORS = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}
_SMILEY = '<img src="static/image/smiley/default/smile.gif" smilieid="1" border="0" alt="" />'


def floor_label(floor: int) -> str:
    """Discuz's names for the first four floors, then ``N#``."""
    return _FLOORS.get(floor, f"{floor}#")


class Discuz(Family):
    """Discuz! X3.4 with its default template, served in GBK."""

    name = "discuz"
    lang = "zh"
    encoding = "gbk"
    wrong_encoding = "utf-8"
    query_encoding = "gbk"
    disallow = (
        "/admin/",
        "/api/",
        "/forum.php?mod=post",
        "/forum.php?mod=redirect",
        "/home.php?mod=spacecp",
    )

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
        """List page ``page`` of a board (page 1 without ``&page=``, as the index links it)."""
        href = f"forum.php?mod=forumdisplay&fid={board.fid}"
        return href if page == 1 else f"{href}&page={page}"

    def thread_href(self, thread: Thread, page: int) -> str:
        href = f"{self._short_thread_href(thread)}&extra=page%3D{thread.list_page}"
        return href if page == 1 else f"{href}&page={page}"

    def _thread_pager_href(self, thread: Thread, page: int) -> str:
        """Pagers inside a thread spell page 1 with ``&page=1`` (an alias of the list's link)."""
        return f"{self._short_thread_href(thread)}&extra=page%3D{thread.list_page}&page={page}"

    @staticmethod
    def _short_thread_href(thread: Thread) -> str:
        """Breadcrumb and "copy link" form of page 1."""
        return f"forum.php?mod=viewthread&tid={thread.tid}"

    @staticmethod
    def user_href(user: User) -> str:
        """Profile link by uid (post author panels)."""
        return f"home.php?mod=space&uid={user.uid}"

    @staticmethod
    def user_name_href(user: User) -> str:
        """Profile link by GBK-escaped user name (moderators, last posters)."""
        return f"home.php?mod=space&username={quote(user.name.encode('gbk'))}"

    @staticmethod
    def _findpost(thread: Thread, post: Post) -> str:
        return f"forum.php?mod=redirect&goto=findpost&ptid={thread.tid}&pid={post.pid}"

    @staticmethod
    def _lastpost(thread: Thread) -> str:
        return f"forum.php?mod=redirect&tid={thread.tid}&goto=lastpost"

    @staticmethod
    def _newthread(board: Board) -> str:
        return f"forum.php?mod=post&action=newthread&fid={board.fid}"

    @staticmethod
    def _reply(thread: Thread) -> str:
        return f"forum.php?mod=post&action=reply&fid={thread.fid}&tid={thread.tid}"

    def _repquote(self, thread: Thread, post: Post, page: int) -> str:
        return (f"{self._reply(thread)}&repquote={post.pid}&extra=page%3D{thread.list_page}"
                f"&page={page}")

    def _group_href(self, user: User) -> str:
        return f"home.php?mod=spacecp&ac=usergroup&gid={self._gids[user.group]}"

    def _attachment_href(self, post: Post) -> str:
        token = base64.b64encode(f"{post.attachment}|{post.pid}|0".encode()).decode()
        return f"forum.php?mod=attachment&aid={quote(token, safe='')}"

    def _missing_href(self) -> str:
        return f"forum.php?mod=viewthread&tid={self.plan.missing_tid}&extra=page%3D1"

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        return discuz_time(moment), moment

    # -- routes -----------------------------------------------------------------------------------

    def register(self) -> None:
        plan = self.plan
        groups = sorted({user.group for user in plan.users})
        self._gids = {group: 10 + i for i, group in enumerate(groups)}
        self.add_page(self.INDEX, self.index)
        self.add_alias("", self.INDEX)
        for href, render in ((self.SEARCH, self.search), (self.LOGIN, self.login),
                             (self.REGISTER, self.register_page)):
            self.add_page(href, render)
        for board in plan.boards:
            for n in range(1, len(board.list_pages(plan.threads_per_list_page)) + 1):
                self.add_page(self.board_href(board, n), lambda b=board, n=n: self.board(b, n))
            self.add_alias(f"{self.board_href(board, 1)}&page=1", self.board_href(board, 1))
            self.disallowed.add(self._newthread(board))
            if board.moderator:
                moderator = board.moderator
                self.add_alias(self.user_name_href(moderator), self.user_href(moderator))
        for thread in plan.threads.values():
            self.add_thread(thread, self.thread)
            first = self.thread_href(thread, 1)
            self.add_alias(self._short_thread_href(thread), first)
            if len(thread.pages(plan.posts_per_page)) > 1:
                self.add_alias(self._thread_pager_href(thread, 1), first)
            last = thread.last.author
            self.add_alias(self.user_name_href(last), self.user_href(last))
            self.disallowed.update({self._lastpost(thread), self._reply(thread)})
            for n, posts in enumerate(thread.pages(plan.posts_per_page), start=1):
                for post in posts:
                    self.disallowed.update({self._findpost(thread, post),
                                            self._repquote(thread, post, n)})
                    if post.attachment:
                        self.add_broken(self._attachment_href(post), "binary",
                                        lambda p=post: self.binary(p.pid))
        self.disallowed.update(self._group_href(user) for user in plan.users)
        self.add_user_and_broken_pages(
            plan.users,
            truncated=(self.ANNOUNCEMENT, self.announcement),
            not_found=self._missing_href(),
            server_error=self.SIGN,
            empty=self.GUIDE,
        )

    # -- chrome -----------------------------------------------------------------------------------

    def layout(self, href: str, title: str, page_class: str, crumbs: list[tuple[str, str]],
               content: str) -> str:
        """The Discuz template around ``content``: head, top bar, user panel, nav, footer."""
        now = self.plan.now
        elapsed = zlib.crc32(href.encode()) % 90000 + 10000
        trail = "".join(f' <em>&rsaquo;</em> <a href="{attr(h)}">{text(label)}</a>'
                        for h, label in crumbs)
        return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=gbk" />
<title>{text(title)} -  Powered by Discuz!</title>
<meta name="keywords" content="{attr(title)}" />
<meta name="description" content="{attr(title)} ,{SITE_NAME}" />
<meta name="generator" content="Discuz! X3.4" />
<meta name="author" content="Discuz! Team and Comsenz UI Team" />
<meta name="copyright" content="2001-2024 Comsenz Inc." />
<meta name="MSSmartTagsPreventParsing" content="True" />
<meta http-equiv="MSThemeCompatible" content="Yes" />
<link rel="stylesheet" type="text/css" href="data/cache/style_1_common.css?Zy5" /><link rel="stylesheet" type="text/css" href="data/cache/style_1_forum_{page_class}.css?Zy5" /><script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', VERHASH = 'Zy5', charset = 'gbk', discuz_uid = '0', cookiepre = 'xQvL_2132_', cookiedomain = '', cookiepath = '/', showusercard = '1', attackevasive = '0', disallowfloat = 'newthread', creditnotice = '1|威望|,2|金钱|,3|贡献|', defaultstyle = '', REPORTURL = 'aHR0cDovLzEyNy4wLjAuMS8=', SITEURL = './', JSPATH = 'data/cache/', CSSPATH = 'data/cache/style_', DYNAMICURL = '';</script>
<script src="data/cache/common.js?Zy5" type="text/javascript"></script>
<meta name="application-name" content="{SITE_NAME}" />
<meta name="msapplication-tooltip" content="{SITE_NAME}" />
<script src="data/cache/forum.js?Zy5" type="text/javascript"></script>
</head>
<body id="nv_forum" class="pg_{page_class}" onkeydown="if(event.keyCode==27) return false;">
<div id="append_parent"></div><div id="ajaxwaitid"></div>
<div id="toptb" class="cl">
<div class="wp">
<div class="z"><a href="javascript:;" onclick="setHomepage(SITEURL);">设为首页</a><a href="javascript:;" onclick="addFavorite(this.href, '{SITE_NAME}');return false;">收藏本站</a></div>
<div class="y"><a id="switchblind" href="javascript:;" onclick="toggleBlind(this)" title="开启辅助访问" class="switchblind">开启辅助访问</a><a href="javascript:;" id="switchwidth" onclick="widthauto(this)" title="切换到宽版" class="switchwidth">切换到宽版</a></div>
</div>
</div>
<div id="hd">
<div class="wp">
<div class="hdc cl"><h2><a href="./" title="{SITE_NAME}"><img src="static/image/common/logo.png" alt="{SITE_NAME}" border="0" /></a></h2>
<script src="data/cache/logging.js?Zy5" type="text/javascript"></script>
<form method="post" autocomplete="off" id="lsform" action="member.php?mod=logging&amp;action=login&amp;loginsubmit=yes&amp;infloat=yes&amp;lssubmit=yes" onsubmit="return lsSubmit();">
<div class="fastlg cl">
<span id="return_ls" style="display:none"></span>
<div class="y pns">
<table cellspacing="0" cellpadding="0">
<tr>
<td><label for="ls_username">帐号</label></td>
<td><input type="text" name="username" id="ls_username" class="px vm xg1" value="用户名/Email" onfocus="if(this.value == '用户名/Email'){{this.value = '';this.className = 'px vm';}}" tabindex="901" /></td>
<td class="fastlg_l"><label for="ls_cookietime"><input type="checkbox" name="cookietime" id="ls_cookietime" class="pc" value="2592000" tabindex="903" />自动登录</label></td>
<td>&nbsp;<a href="javascript:;" onclick="showWindow('login', 'member.php?mod=logging&action=login&viewlostpw=1')">找回密码</a></td>
</tr>
<tr>
<td><label for="ls_password" class="z psw_w">密码</label></td>
<td><input type="password" name="password" id="ls_password" class="px vm" autocomplete="off" tabindex="902" /></td>
<td class="fastlg_l"><button type="submit" class="pn vm" tabindex="904" style="width: 75px;"><em>登录</em></button></td>
<td>&nbsp;<a href="{attr(self.REGISTER)}" class="xi2 xw1">立即注册</a></td>
</tr>
</table>
<input type="hidden" name="quickforward" value="yes" />
<input type="hidden" name="handlekey" value="ls" />
</div>
</div>
</form>
</div>
<div id="nv">
<a href="javascript:;" id="qmenu" onmouseover="delayShow(this, function () {{showMenu({{'ctrlid':'qmenu','pos':'34!','ctrlclass':'a','duration':2}});showForummenu(0);}})">快捷导航</a>
<ul><li class="a" id="mn_forum"><a href="{attr(self.INDEX)}" hidefocus="true" title="BBS">论坛<span>BBS</span></a></li><li id="mn_forum_10"><a href="{attr(self.GUIDE)}" hidefocus="true" title="Guide">导读<span>Guide</span></a></li><li id="mn_Nac60"><a href="{attr(self.SIGN)}" hidefocus="true">签到</a></li><li id="mn_N12a7"><a href="{attr(self.LOGIN)}" hidefocus="true">登录</a></li></ul>
</div>
<div id="scbar" class="cl">
<form id="scbar_form" method="post" autocomplete="off" onsubmit="searchFocus($('scbar_txt'))" action="search.php?searchsubmit=yes" target="_blank">
<input type="hidden" name="mod" id="scbar_mod" value="search" />
<input type="hidden" name="formhash" value="3c5b1a2e" />
<table cellspacing="0" cellpadding="0">
<tr>
<td class="scbar_icon_td"></td>
<td class="scbar_txt_td"><input type="text" name="srchtxt" id="scbar_txt" value="请输入搜索内容" autocomplete="off" x-webkit-speech speech /></td>
<td class="scbar_btn_td"><button type="submit" name="searchsubmit" id="scbar_btn" sc="1" class="pn pnc" value="true"><strong class="xi2">搜索</strong></button></td>
<td class="scbar_hot_td"><div id="scbar_hot"><strong class="xw1">热搜: </strong><a href="{attr(self.SEARCH)}" target="_blank" class="xi2" sc="1">高级搜索</a></div></td>
</tr>
</table>
</form>
</div>
</div>
</div>
<div id="wp" class="wp">
<div id="pt" class="bm cl">
<div class="z">
<a href="./" class="nvhm" title="首页">{SITE_NAME}</a> <em>&raquo;</em><a href="{attr(self.INDEX)}">论坛</a>{trail}
</div>
</div>
{content}
</div>
<div id="ft" class="wp cl">
<div id="flk" class="y">
<p>
<a href="{attr(self.ADMIN)}" >管理中心</a><span class="pipe">|</span><a href="{attr(self.SEARCH)}" >搜索</a><span class="pipe">|</span><a href="javascript:;" >手机版</a><span class="pipe">|</span><strong><a href="{attr(self.INDEX)}" target="_blank">{SITE_NAME}</a></strong>
</p>
<p class="xs0">
GMT+8, {discuz_time(now)}<span id="debuginfo">
, Processed in 0.0{elapsed} second(s), 23 queries
.
</span>
</p>
</div>
<div id="frt">
<p>Powered by <strong><a href="javascript:;" target="_blank">Discuz!</a></strong> <em>X3.4</em></p>
<p class="xs0">&copy; 2001-2024 <a href="javascript:;" target="_blank">Comsenz Inc.</a></p>
</div>
<div class="clear"></div>
</div>
<script src="home.php?mod=misc&amp;ac=sendmail&amp;rand=1709883000" type="text/javascript"></script>
<div id="scrolltop">
<span hidefocus="true"><a title="返回顶部" onclick="window.scrollTo('0','0')" class="scrolltopa" ><b>返回顶部</b></a></span>
</div>
<script type="text/javascript">_attachEvent(window, 'scroll', function () {{ showTopLink(); }});checkBlind();</script>
</body>
</html>
"""

    @staticmethod
    def _pager(hrefs: list[str], current: int) -> str:
        """Discuz's ``div.pg`` pager (nothing for a single page)."""
        total = len(hrefs)
        if total < 2:
            return ""
        parts = ['<div class="pg">']
        if current > 1:
            parts.append(f'<a href="{attr(hrefs[current - 2])}" class="prev">&nbsp;&nbsp;</a>')
        for n, href in enumerate(hrefs, start=1):
            parts.append(f"<strong>{n}</strong>" if n == current
                         else f'<a href="{attr(href)}">{n}</a>')
        parts.append(f'<label><input type="text" name="custompage" class="px" size="2" '
                     f'title="输入页码，按回车快速跳转" value="{current}" /><span title="共 {total} 页"> / '
                     f'{total} 页</span></label>')
        if current < total:
            parts.append(f'<a href="{attr(hrefs[current])}" class="nxt">下一页</a>')
        parts.append("</div>")
        return "".join(parts)

    # -- pages ------------------------------------------------------------------------------------

    def _today(self, board: Board) -> int:
        """Posts made in ``board`` today."""
        return sum(p.time.date() == self.plan.now.date() for t in board.threads for p in t.posts)

    def _day_counts(self) -> tuple[int, int]:
        today = self.plan.now.date()
        posts = self.plan.all_posts
        return (sum(p.time.date() == today for p in posts),
                sum(p.time.date() == today - timedelta(days=1) for p in posts))

    def index(self) -> Page:
        """``forum.php``: statistics, announcement, the board table with each board's last post."""
        plan = self.plan
        today, yesterday = self._day_counts()
        newest = plan.newest_user
        rows = []
        for board in plan.boards:
            posts = sum(len(t.posts) for t in board.threads)
            board_today = self._today(board)
            latest = board.threads[0] if board.threads else None
            last = "<td class=\"fl_by\"><div>从未</div></td>"
            if latest:
                last = (f'<td class="fl_by"><div><a href="{attr(self._lastpost(latest))}#lastpost" '
                        f'class="xi2">{text(latest.title)}</a> <cite>{discuz_time(latest.last.time)} '
                        f'<a href="{attr(self.user_name_href(latest.last.author))}">'
                        f'{text(latest.last.author.name)}</a></cite></div></td>')
            moderator = ""
            if board.moderator:
                moderator = (f'<p>版主: <span class="xi2"><a href="{attr(self.user_name_href(board.moderator))}"'
                             f' class="notabs" c="1">{text(board.moderator.name)}</a></span></p>')
            rows.append(f"""<tr>
<td class="fl_icn" ><a href="{attr(self.board_href(board, 1))}"><img src="static/image/common/forum_new.gif" alt="{attr(board.theme.name)}" /></a></td>
<td>
<h2><a href="{attr(self.board_href(board, 1))}">{text(board.theme.name)}</a><em class="xw0 xi1" title="今日"> ({board_today})</em></h2>
<p class="xg2">{text(board.theme.description)}</p>
{moderator}
</td>
<td class="fl_i"><span class="xi2">{len(board.threads)}</span><span class="xg1"> / {posts}</span></td>
{last}
</tr>""")
        content = f"""<div class="wp">
<!--[diy=diy1]--><div id="diy1" class="area"></div><!--[/diy]-->
</div>
<div id="ct" class="wp cl">
<div id="chart" class="bm bw0 cl">
<p class="chart z">今日: <em>{today}</em><span class="pipe">|</span>昨日: <em>{yesterday}</em><span class="pipe">|</span>帖子: <em>{len(plan.all_posts)}</em><span class="pipe">|</span>会员: <em>{len(plan.users)}</em><span class="pipe">|</span>欢迎新会员: <em><a href="{attr(self.user_href(newest))}" target="_blank" class="xi2">{text(newest.name)}</a></em></p>
<div class="y"><a href="{attr(self.GUIDE)}" title="最新回复" class="xi2">最新回复</a></div>
</div>
<div id="an">
<dl class="cl">
<dt class="z xw1">公告:&nbsp;</dt>
<dd>
<div id="anc"><ul id="ancl"><li><span><a href="{attr(self.ANNOUNCEMENT)}" target="_blank" class="xi2">{text(plan.announcement_title)}</a></span><em>({plan.announcement_time.year}-{plan.announcement_time.month}-{plan.announcement_time.day})</em></li></ul></div>
</dd>
</dl>
</div>
<div class="mn">
<div class="fl bm">
<div class="bm bmw  flg cl">
<div class="bm_h cl">
<span class="o"><img id="category_1_img" src="static/image/common/collapsed_no.gif" title="收起/展开" alt="收起/展开" onclick="toggle_collapse('category_1');" /></span>
<h2>综合讨论区</h2>
</div>
<div id="category_1" class="bm_c">
<table cellspacing="0" cellpadding="0" class="fl_tb">
{chr(10).join(rows)}
</table>
</div>
</div>
</div>
</div>
</div>"""
        return self.page(self.layout(self.INDEX, f"{SITE_NAME} - 论坛", "index", [], content))

    def _thread_row(self, thread: Thread) -> str:
        first, last = thread.posts[0], thread.last
        href = self.thread_href(thread, 1)
        pages = len(thread.pages(self.plan.posts_per_page))
        tps = ""
        if pages > 1:
            links = "".join(f'<a href="{attr(self.thread_href(thread, n))}">{n}</a>'
                            for n in range(2, pages + 1))
            tps = f'<span class="tps">&nbsp;...{links}</span>'
        return f"""<tbody id="normalthread_{thread.tid}">
<tr>
<td class="icn">
<a href="{attr(href)}" title="有新回复 - 新窗口打开" target="_blank">
<img src="static/image/common/folder_new.gif" />
</a>
</td>
<th class="new" >
<a href="javascript:;" id="content_{thread.tid}" class="showcontent y" title="更多操作" onclick="CONTENT_TID='{thread.tid}';CONTENT_ID='normalthread_{thread.tid}';showMenu({{'ctrlid':this.id,'menuid':'content_menu'}})"></a>
<a href="{attr(href)}" onclick="atarget(this)" class="s xst">{text(thread.title)}</a>
{tps}
</th>
<td class="by">
<cite>
<a href="{attr(self.user_href(first.author))}" c="1">{text(first.author.name)}</a></cite>
<em><span>{first.time.year}-{first.time.month}-{first.time.day}</span></em>
</td>
<td class="num"><a href="{attr(href)}" class="xi2">{len(thread.posts) - 1}</a><em>{thread.views}</em></td>
<td class="by">
<cite><a href="{attr(self.user_name_href(last.author))}" c="1">{text(last.author.name)}</a></cite>
<em><a href="{attr(self._lastpost(thread))}#lastpost">{discuz_time(last.time)}</a></em>
</td>
</tr>
</tbody>"""

    def _missing_row(self) -> str:
        """The row of a thread deleted after the list was cached: it leads to a 404."""
        return f"""<tbody id="normalthread_{self.plan.missing_tid}">
<tr>
<td class="icn"><img src="static/image/common/folder_common.gif" /></td>
<th class="common"><a href="{attr(self._missing_href())}" onclick="atarget(this)" class="s xst">求助：旧版固件下载地址汇总</a></th>
<td class="by"><cite>匿名</cite><em><span>{self.plan.now.year}-{self.plan.now.month}-{self.plan.now.day}</span></em></td>
<td class="num"><a href="javascript:;" class="xi2">0</a><em>0</em></td>
<td class="by"><cite>匿名</cite><em>-</em></td>
</tr>
</tbody>"""

    def board(self, board: Board, page: int) -> Page:
        """``forumdisplay``: board header, pager, the thread table."""
        plan = self.plan
        lists = board.list_pages(plan.threads_per_list_page)
        rows = [self._thread_row(t) for t in lists[page - 1]]
        if board is plan.boards[0] and page == 1:
            rows.insert(min(2, len(rows)), self._missing_row())
        pager_hrefs = [f"{self.board_href(board, 1)}&page=1",
                       *(self.board_href(board, n) for n in range(2, len(lists) + 1))]
        pager = self._pager(pager_hrefs, page)
        today = self._today(board)
        moderator = ""
        if board.moderator:
            moderator = (f'<div>版主: <span class="xi2"><a href="{attr(self.user_name_href(board.moderator))}"'
                         f' class="notabs" c="1">{text(board.moderator.name)}</a></span></div>')
        content = f"""<div class="boardnav">
<div id="ct" class="wp cl">
<div class="mn">
<div class="bm bml pbn">
<div class="bm_h cl">
<span class="y"><a href="javascript:;" id="a_favorite" class="fa_fav" title="收藏本版">收藏本版</a></span>
<h1 class="xs2">
<a href="{attr(self.board_href(board, 1))}">{text(board.theme.name)}</a>
<span class="xs1 xw0 i">今日: <strong class="xi1">{today}</strong><span class="pipe">|</span>主题: <strong class="xi1">{len(board.threads)}</strong><span class="pipe">|</span>排名: <strong class="xi1">{plan.boards.index(board) + 1}</strong></span></h1>
</div>
<div class="bm_c cl pbn">
{moderator}
<div class="pbm cl frm_rules"><p class="xg1">{text(board.theme.description)}</p></div>
</div>
</div>
<div id="pgt" class="bm bw0 pgs cl">
<span id="fd_page_top">{pager}</span>
<span class="pgb y"><a href="{attr(self.INDEX)}">返回首页</a></span>
<a href="{attr(self._newthread(board))}" id="newspecial" title="发新帖"><img src="static/image/common/pn_post.png" alt="发新帖" /></a>
</div>
<div id="threadlist" class="tl bm bmw">
<div class="th">
<table cellspacing="0" cellpadding="0">
<tr>
<th colspan="2"><div class="tf"><a id="filter_special" href="javascript:;" class="showmenu xi2">全部主题</a>&nbsp;<a href="javascript:;" class="xi2">最新</a>&nbsp;<a href="javascript:;" class="xi2">热门</a>&nbsp;<a href="javascript:;" class="xi2">精华</a></div></th>
<td class="by">作者</td>
<td class="num">回复/查看</td>
<td class="by">最后发表</td>
</tr>
</table>
</div>
<div class="bm_c">
<form method="post" autocomplete="off" name="moderate" id="moderate" action="forum.php?mod=topicadmin&amp;action=moderate&amp;fid={board.fid}&amp;infloat=yes&amp;nopost=yes">
<table summary="forum_{board.fid}" cellspacing="0" cellpadding="0" id="threadlisttableid">
{chr(10).join(rows)}
</table>
</form>
</div>
</div>
<div class="bm bw0 pgs cl">
<span id="fd_page_bottom">{pager}</span>
<span class="pgb y"><a href="{attr(self.INDEX)}">返回首页</a></span>
</div>
</div>
</div>
</div>"""
        title = f"{board.theme.name} - {SITE_NAME}" + (f" - 第{page}页" if page > 1 else "")
        return self.page(self.layout(self.board_href(board, page), title, "forumdisplay",
                                     [(self.board_href(board, 1), board.theme.name)], content))

    def _body(self, thread: Thread, post: Post) -> str:
        """The inside of ``td.t_f``: edit notice, quote, then the post's own lines."""
        parts = []
        if post.edit:
            parts.append(f'<i class="pstatus"> 本帖最后由 {text(post.edit.editor.name)} 于 '
                         f'{discuz_time(post.edit.time)} 编辑 </i><br />\r\n<br />\r\n')
        if post.quote:
            quoted = post.quote.post
            parts.append(
                f'<div class="quote"><blockquote><font size="2"><a href="'
                f'{attr(self._findpost(thread, quoted))}" target="_blank"><font color="#999999">'
                f"{text(quoted.author.name)} 发表于 {discuz_time(quoted.time)}</font></a></font>"
                f"<br />\r\n{text(post.quote.text)}</blockquote></div><br />\r\n"
            )
        lines = [text(p) for p in post.paragraphs]
        if post.pid % 7 == 0 and not post.short:
            lines[-1] += _SMILEY
        parts.append("<br />\r\n".join(lines))
        return "".join(parts)

    def _post(self, thread: Thread, post: Post, page: int) -> str:
        user = post.author
        sign = (f'<div class="sign" style="max-height:100px;maxHeightIE:100px;">'
                f"{text(post.signature)}</div>") if post.signature else ""
        attachment = ""
        if post.attachment:
            attachment = (f'<div class="pattl"><ignore_js_op><dl class="tattl"><dt><img src="static/'
                          f'image/filetype/image.gif" border="0" class="vm" alt="" /></dt><dd><p class="attnm">'
                          f'<a href="{attr(self._attachment_href(post))}" target="_blank">IMG_{post.attachment}.png'
                          f'</a></p><p>56.3 KB, 下载次数: {post.pid % 40 + 3}</p></dd></dl></ignore_js_op></div>')
        first_links = ""
        if post.floor == 1:
            first_links = ('<span class="pipe show">|</span><a href="javascript:;" class="show">倒序浏览</a>'
                           '<span class="pipe show">|</span><a href="javascript:;" class="show">阅读模式</a>')
        return f"""<div id="post_{post.pid}" >
<table id="pid{post.pid}" class="plhin" summary="pid{post.pid}" cellspacing="0" cellpadding="0">
<tr>
<td class="pls" rowspan="2">
<div id="favatar{post.pid}" class="pls favatar">
<div class="pi">
<div class="authi"><a href="{attr(self.user_href(user))}" target="_blank" class="xw1">{text(user.name)}</a>
</div>
</div>
<div><div class="avatar"><a href="{attr(self.user_href(user))}" class="avtm" target="_blank"><img src="uc_server/avatar.php?uid={user.uid}&amp;size=middle" /></a></div></div>
<div class="tns xg2"><table cellspacing="0" cellpadding="0"><th><p>{user.threads}</p>主题</th><th><p>{user.posts}</p>帖子</th><td><p>{user.credits}</p>积分</td></table></div>
<p><em><a href="{attr(self._group_href(user))}" target="_blank">{text(user.group)}</a></em></p>
<dl class="pil cl">
<dt>积分</dt><dd>{user.credits}</dd>
</dl>
</div>
</td>
<td class="plc">
<div class="pi">
<strong>
<a href="{attr(self._findpost(thread, post))}" id="postnum{post.pid}" onclick="setCopy(this.href, '帖子地址复制成功');return false;">
{floor_label(post.floor)}</a>
</strong>
<div class="pti">
<div class="pdbt">
</div>
<div class="authi">
<img class="authicn vm" id="authicon{post.pid}" src="static/image/common/online_member.gif" />
<em id="authorposton{post.pid}">发表于 {discuz_time(post.time)}</em>
<span class="pipe">|</span><a href="javascript:;" rel="nofollow">只看该作者</a>
{first_links}
</div>
</div>
</div><div class="pct"><style type="text/css">.pcb{{margin-right:0}}</style><div class="pcb">
<div class="t_fsz">
<table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{post.pid}">
{self._body(thread, post)}</td></tr></table>
{attachment}
</div>
<div id="comment_{post.pid}" class="cm">
</div>
<div id="post_rate_div_{post.pid}"></div>
</div>
</div>
</td></tr>
<tr><td class="plc plm">
{sign}
</td>
</tr>
<tr id="_postposition{post.pid}"></tr>
<tr>
<td class="pls"></td>
<td class="plc" style="overflow:visible;">
<div class="po hin">
<div class="pob cl">
<em>
<a class="fastre" href="{attr(self._repquote(thread, post, page))}" onclick="showWindow('reply', this.href)">回复</a>
</em>
<p>
<a href="javascript:;" id="mgc_post_{post.pid}" onmouseover="showMenu(this.id)" class="showmenu">使用道具</a>
<a href="javascript:;" onclick="showWindow('miscreport{post.pid}', 'misc.php?mod=report&rtype=post&rid={post.pid}&tid={thread.tid}&fid={thread.fid}', 'get', -1);return false;">举报</a>
</p>
</div>
</div>
</td>
</tr>
<tr class="ad">
<td class="pls">
</td>
<td class="plc">
</td>
</tr>
</table>
</div>"""

    def thread(self, thread: Thread, page: int) -> Page:
        """``viewthread``: title bar, pager, the posts of one page, pager again."""
        plan = self.plan
        board = plan.board(thread.fid)
        total = len(thread.pages(plan.posts_per_page))
        posts = self.posts_of(thread, plan.posts_per_page, page)
        pager_hrefs = [self._thread_pager_href(thread, 1),
                       *(self.thread_href(thread, n) for n in range(2, total + 1))]
        pager = self._pager(pager_hrefs, page)
        back = self.board_href(board, thread.list_page) if thread.list_page > 1 \
            else f"{self.board_href(board, 1)}&page=1"
        body = "\n".join(self._post(thread, post, page) for post in posts)
        content = f"""<style id="diy_style" type="text/css"></style>
<div class="wp">
<!--[diy=diy1]--><div id="diy1" class="area"></div><!--[/diy]-->
</div>
<div id="ct" class="wp cl">
<div id="pgt" class="pgs mbm cl ">
<div class="pgt">{pager}</div>
<span class="y pgb"><a href="{attr(back)}">返回列表</a></span>
<a id="newspecial" onmouseover="$('newspecial').id = 'newspecialtmp';this.id = 'newspecial';showMenu({{'ctrlid':this.id}})" onclick="showWindow('newthread', 'forum.php?mod=post&action=newthread&fid={board.fid}')" href="javascript:;" title="发新帖"><img src="static/image/common/pn_post.png" alt="发新帖" /></a>
<a id="post_reply" onclick="showWindow('reply', 'forum.php?mod=post&action=reply&fid={board.fid}&tid={thread.tid}')" href="{attr(self._reply(thread))}" title="回复"><img src="static/image/common/pn_reply.png" alt="回复" /></a>
</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0">
<tr>
<td class="pls ptn pbn">
<div class="hm ptn">
<span class="xg1">查看:</span> <span class="xi1">{thread.views}</span>
<span class="pipe">|</span>
<span class="xg1">回复:</span> <span class="xi1">{len(thread.posts) - 1}</span>
</div>
</td>
<td class="plc ptm pbn vwthd">
<h1 class="ts">
<span id="thread_subject">{text(thread.title)}</span>
</h1>
<span class="xg1">
<a href="{attr(self._short_thread_href(thread))}" onclick="return copyThreadUrl(this, '{SITE_NAME}')" >[复制链接]</a>
</span>
</td>
</tr>
</table>
<table cellspacing="0" cellpadding="0" class="ad">
<tr>
<td class="pls">
</td>
<td class="plc">
</td>
</tr>
</table>
{body}
<div id="postlistreply" class="pl"><div id="post_new" class="viewthread_table" style="display: none"></div></div>
</div>
<form method="post" autocomplete="off" name="modactions" id="modactions">
<input type="hidden" name="formhash" value="3c5b1a2e" />
<input type="hidden" name="optgroup" />
<input type="hidden" name="operation" />
<input type="hidden" name="listextra" value="page%3D{thread.list_page}" />
<input type="hidden" name="page" value="{page}" />
</form>
<div class="pgs mtm mbm cl">
{pager}
<span class="pgb y" id="visitedforumstmp" onmouseover="$('visitedforums').id = 'visitedforumstmp';this.id = 'visitedforums';showMenu({{'ctrlid':this.id,'pos':'34'}})"><a href="{attr(back)}">返回列表</a></span>
<a id="newspecialtmp" href="javascript:;" title="发新帖"><img src="static/image/common/pn_post.png" alt="发新帖" /></a>
<a id="post_replytmp" href="{attr(self._reply(thread))}" title="回复"><img src="static/image/common/pn_reply.png" alt="回复" /></a>
</div>
</div>
<script type="text/javascript">var fid = parseInt('{board.fid}'), tid = parseInt('{thread.tid}');</script>"""
        title = f"{thread.title} - {board.theme.name} - {SITE_NAME}"
        crumbs = [(self.board_href(board, 1), board.theme.name),
                  (self._short_thread_href(thread), thread.title)]
        return self.thread_page(thread, self.layout(self.thread_href(thread, page), title,
                                                    "viewthread", crumbs, content))

    def user(self, user: User) -> Page:
        """``home.php?mod=space``: the member's profile and the threads they started."""
        started = [t for t in self.plan.threads.values() if t.posts[0].author is user]
        items = "".join(f'<li><a href="{attr(self.thread_href(t, 1))}" target="_blank">{text(t.title)}</a></li>'
                        for t in started) or "<li>暂无数据</li>"
        sign = f"<table><tr><td>{text(user.signature)}</td></tr></table>" if user.signature else ""
        content = f"""<div id="ct" class="ct2 wp cl">
<div class="mn">
<div class="bm bw0">
<div class="bm_c u_profile">
<div class="pbm mbm bbda cl">
<h2 class="mbn">
{text(user.name)}<span class="xw0">(UID: {user.uid})</span>
</h2>
<ul class="pf_l cl pbm mbm">
<li><em>用户组</em><span style="color:#0099FF"><a href="{attr(self._group_href(user))}" target="_blank">{text(user.group)}</a></span></li>
</ul>
<ul class="cl bbda pbm mbm">
<li><em class="xg2">个人签名</em>{sign}</li>
</ul>
</div>
<div class="pbm mbm bbda cl">
<h2 class="mbn">活跃概况</h2>
<ul id="pbbs" class="pf_l">
<li><em>注册时间</em>{discuz_time(user.joined)}</li>
<li><em>最后访问</em>{discuz_time(user.last_visit)}</li>
</ul>
</div>
<div id="psts" class="cl">
<ul class="pf_l">
<li><em>积分</em>{user.credits}</li>
<li><em>帖子</em>{user.posts}</li>
<li><em>主题</em>{user.threads}</li>
</ul>
</div>
<div class="pbm mbm cl">
<h2 class="mbn">TA 的主题</h2>
<ul class="xl xl1">{items}</ul>
</div>
</div>
</div>
</div>
</div>"""
        title = f"{user.name}的个人资料 - {SITE_NAME}"
        return self.page(self.layout(self.user_href(user), title, "space", [], content))

    def _form_page(self, href: str, title: str, form: str) -> Page:
        content = f"""<div id="ct" class="ptm wp cl">
<div class="mn">
<div class="bm" id="main_messaqge">
<div class="bm_h bbs"><h3 class="xs2">{text(title)}</h3></div>
<div class="bm_c">{form}</div>
</div>
</div>
</div>"""
        return self.page(self.layout(href, f"{title} - {SITE_NAME}", "member", [], content))

    def search(self) -> Page:
        """``search.php?mod=forum``: the search form."""
        return self._form_page(self.SEARCH, "搜索", """<form class="searchform" method="post" autocomplete="off" action="search.php?mod=forum">
<input type="hidden" name="formhash" value="3c5b1a2e" />
<table width="100%" cellspacing="0" cellpadding="0"><tr><td>
<input type="text" id="scform_srchtxt" name="srchtxt" size="45" maxlength="40" value="" tabindex="1" />
<button type="submit" id="scform_submit" class="schbtn"><strong>搜索</strong></button>
</td></tr></table>
<p class="xg1">提示：搜索内容至少为两个字。</p>
</form>""")

    def login(self) -> Page:
        """``member.php?mod=logging&action=login``: the login form."""
        return self._form_page(self.LOGIN, "登录", f"""<form method="post" autocomplete="off" name="login" id="loginform_LmZ7w" class="cl" action="member.php?mod=logging&amp;action=login&amp;loginsubmit=yes">
<div class="rfm"><table><tr><th><label for="username">用户名:</label></th><td><input type="text" name="username" id="username" autocomplete="off" size="30" class="px p_fre" tabindex="1" value="" /></td><td class="tipcol"><a href="{attr(self.REGISTER)}">立即注册</a></td></tr></table></div>
<div class="rfm"><table><tr><th><label for="password">密码:</label></th><td><input type="password" id="password" name="password" size="30" class="px p_fre" tabindex="1" /></td><td class="tipcol"><a href="javascript:;">找回密码</a></td></tr></table></div>
<div class="rfm mbw bw0"><table width="100%"><tr><th>&nbsp;</th><td><button class="pn pnc" type="submit" name="loginsubmit" value="true" tabindex="1"><strong>登录</strong></button></td></tr></table></div>
</form>""")

    def register_page(self) -> Page:
        """``member.php?mod=register``: the registration form."""
        return self._form_page(self.REGISTER, "立即注册", f"""<form method="post" autocomplete="off" name="register" id="registerform" enctype="multipart/form-data" action="member.php?mod=register">
<div class="rfm"><table><tr><th><span class="rq">*</span><label for="reg_username">用户名:</label></th><td><input type="text" id="reg_username" name="username" class="px" tabindex="1" value="" autocomplete="off" size="25" maxlength="15" required /></td><td class="tipcol"><i id="tip_username" class="p_tip">用户名由 3 到 15 个字符组成</i></td></tr></table></div>
<div class="rfm"><table><tr><th><span class="rq">*</span><label for="reg_password">密码:</label></th><td><input type="password" id="reg_password" name="password" size="25" tabindex="1" class="px" required /></td></tr></table></div>
<div class="rfm"><table><tr><th>&nbsp;</th><td><label for="agreebbrule"><input type="checkbox" class="pc" name="agreebbrule" value="1" id="agreebbrule" checked="checked" /> 同意<a href="javascript:;">网站服务条款</a></label></td></tr></table></div>
<div class="rfm mbw bw0"><table width="100%"><tr><th>&nbsp;</th><td><span id="reginfo_a_btn"><em>&nbsp;</em><button class="pn pnc" id="registerformsubmit" type="submit" name="regsubmit" value="true" tabindex="1"><strong>提交</strong></button></span><a href="{attr(self.LOGIN)}">已有帐号？现在登录</a></td></tr></table></div>
</form>""")

    def announcement(self) -> Page:
        """``forum.php?mod=announcement``: the board rules announcement (served truncated)."""
        plan = self.plan
        body = "".join(f"<p>{text(p)}</p>" for p in plan.announcement_text)
        content = f"""<div id="ct" class="wp cl">
<div class="mn">
<div class="bm bw0">
<h1 class="mt">{text(plan.announcement_title)}</h1>
<div class="xg1">{discuz_time(plan.announcement_time)} 作者: 管理员</div>
<div class="bm_c">{body}</div>
</div>
</div>
</div>"""
        return self.page(self.layout(self.ANNOUNCEMENT, f"网站公告 - {SITE_NAME}", "announcement",
                                     [], content))

    def not_found(self) -> Page:
        """Discuz's "thread does not exist" message, with a 404 status."""
        content = """<div id="ct" class="wp cl w">
<div class="nfl">
<div class="f_c altw">
<div id="messagetext" class="alert_error">
<p>抱歉，指定的主题不存在或已被删除或正在被审核</p>
<script type="text/javascript">if(history.length > (BROWSER.ie ? 0 : 1)) document.write('<p class="alert_btnleft"><a href="javascript:history.back()">[ 点击这里返回上一页 ]</a></p>');</script>
</div>
</div>
</div>
</div>"""
        return self.page(self.layout(self._missing_href(), f"提示信息 - {SITE_NAME}", "404", [],
                                     content), status=404)

    def server_error(self) -> Page:
        """A broken plugin: Discuz's database error page, with a 500 status."""
        body = """<html><head><title>Discuz! Database Error</title><meta http-equiv="Content-Type" content="text/html; charset=gbk" /></head>
<body><div id="container"><h1>Discuz! Database Error</h1>
<div class='info'>[1146] - Table 'ultrax.pre_dsu_paulsign' doesn't exist<br />SELECT * FROM pre_dsu_paulsign WHERE uid='0'</div>
</div></body></html>"""
        return self.page(body, status=500)
