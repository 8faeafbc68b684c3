"""How a generated forum prints a post, its author and time, quotes, code, pagers and ads.

Every function follows the forum's :class:`~forumcrawl.mockforum.universe.dimensions.Dimensions`;
what a post block holds besides the post's own words (quote, attribution, code button label,
edit notice, signature, the author's join date) is what an extractor must leave out, and the
truth (:meth:`Markup.post_text`, :meth:`Markup.time_text`) says what it must keep.
"""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta

from forumcrawl.mockforum.family import attr, text
from forumcrawl.mockforum.plan import Post, Thread
from forumcrawl.mockforum.times import (
    discuz_time,
    epoch,
    iso_with_offset,
    phpbb_time,
    relative_zh_time,
)
from forumcrawl.mockforum.universe.dimensions import Dimensions
from forumcrawl.mockforum.universe.urls import Urls

__all__ = ["Markup"]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: Code a post may end with: shell sessions, a config, and tables whose rule is a run of dashes.
_CODE = (
    ("$ sudo apt update", "$ sudo apt install smartmontools", "$ sudo smartctl -a /dev/sda"),
    ("[Unit]", "Description=Backup job", "[Service]", "ExecStart=/usr/local/bin/backup.sh"),
    ("for f in *.jpg; do", "  convert \"$f\" -resize 50% \"small_$f\"", "done"),
)
_TABLES = (
    ("NAME   SIZE  TYPE", "-----  ----  ----", "sda    500G  disk", "sdb    2T    disk"),
    ("Test        Result", "----------  ------", "read MB/s   3480", "write MB/s  2950"),
)
#: Class names of a markup's author and time elements and its post header list.
_CLASSES = {
    "table": ("bigusername", "postdate", "postmeta"),
    "div": ("username", "postdate", "post-buttons"),
    "list": ("username", "date", "postdetails"),
    "classless": ("", "", ""),
    "article": ("username", "u-dt", "message-attribution-main"),
    "microformat": ("p-author h-card", "dt-published", ""),
}
_WORDS = {
    "en": {"wrote": "{name} wrote:", "said": "@{name} said in", "posted_by": "Originally Posted by",
           "edited": "Last edited by {editor} on {when}; edited {count} times in total.",
           "history": "edited", "code": "Code:", "copy": "Copy code", "joined": "Joined:",
           "posts": "Posts:", "sponsored": "Sponsored", "ad": "Save 20% on every {x} this week "
           "at ShopMart. Free delivery over €50."},
    "zh": {"wrote": "{name} 发表于", "said": "@{name} 在", "posted_by": "引用",
           "edited": "本帖最后由 {editor} 于 {when} 编辑（第 {count} 次）", "history": "已编辑",
           "code": "代码:", "copy": "复制代码", "joined": "注册时间:", "posts": "帖子:",
           "sponsored": "推广", "ad": "{x}限时特惠，全场八折，满99包邮。"},
}


def _hash(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode())


class Markup:
    """The forum's way of printing posts and pagers."""

    def __init__(self, dims: Dimensions, urls: Urls, now: datetime) -> None:
        self.dims = dims
        self.urls = urls
        self.now = now
        self.words = _WORDS[dims.lang]

    # -- times ------------------------------------------------------------------------------------

    def absolute(self, moment: datetime) -> str:
        """``moment`` in the forum's absolute format (to the minute)."""
        fmt = self.dims.time_format
        hour = moment.hour % 12 or 12
        half = "AM" if moment.hour < 12 else "PM"
        if fmt == "discuz":
            return discuz_time(moment)
        if fmt == "phpbb":
            return phpbb_time(moment)
        if fmt == "vbulletin":
            return f"{moment:%m-%d-%Y}, {hour:02d}:{moment.minute:02d} {half}"
        if fmt == "european":
            return f"{moment:%d.%m.%Y}, {moment:%H:%M}"
        if fmt == "chinese":
            return f"{moment.year}年{moment.month}月{moment.day}日 {moment:%H:%M}"
        return f"{moment:%Y-%m-%d %H:%M}"

    def relative(self, moment: datetime) -> tuple[str, datetime]:
        """The relative text for ``moment`` and the time that text denotes."""
        if self.dims.lang == "zh":
            return relative_zh_time(moment, self.now)
        diff = self.now - moment
        days = (self.now.date() - moment.date()).days
        if days == 0 and diff < timedelta(hours=1):
            minutes = max(int(diff.total_seconds() // 60), 1)
            return f"{minutes} minute{'s' * (minutes > 1)} ago", self.now - timedelta(minutes=minutes)
        if days == 0:
            hours = int(diff.total_seconds() // 3600)
            return f"{hours} hour{'s' * (hours > 1)} ago", self.now - timedelta(hours=hours)
        if days < 7:
            return (f"{days} day{'s' * (days > 1)} ago",
                    (self.now - timedelta(days=days)).replace(hour=0, minute=0, second=0))
        return (f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year}",
                moment.replace(hour=0, minute=0, second=0))

    def time_text(self, moment: datetime) -> tuple[str, datetime]:
        """The visible text of a post's time, and the time the page lets a reader know."""
        if self.dims.time_at in ("text", "datetime"):
            return self.absolute(moment), moment
        shown, denoted = self.relative(moment)
        return shown, denoted if self.dims.time_at == "relative" else moment

    def time_slot(self, moment: datetime) -> str:
        """A post's time as the forum prints it."""
        cls = _CLASSES[self.dims.post_markup][1]
        shown = text(self.time_text(moment)[0])
        where = self.dims.time_at
        if where == "title":
            return f'<span class="{cls}" title="{attr(self.absolute(moment))}">{shown}</span>'
        if where == "datetime":
            return f'<time class="{cls}" datetime="{iso_with_offset(moment, "Z")}">{shown}</time>'
        if where == "epoch":
            return f'<span class="{cls}" data-timestamp="{epoch(moment) * 1000}">{shown}</span>'
        if where == "meta":
            return (f'<meta itemprop="datePublished" content="{iso_with_offset(moment, "Z")}">'
                    f'<span class="{cls}">{shown}</span>')
        return f'<span class="{cls}">{shown}</span>'

    # -- a post -----------------------------------------------------------------------------------

    def code_of(self, post: Post) -> tuple[str, ...]:
        """The code block a post ends with (none for most posts, or where the forum has none)."""
        if self.dims.code == "none" or post.short or _hash("code", post.pid) % 4:
            return ()
        pool = _TABLES if self.dims.code == "dashes" else _CODE
        return pool[post.pid % len(pool)]

    def post_text(self, post: Post) -> str:
        """The post's own words as the truth holds them: paragraphs, then its code lines."""
        return "\n".join((*post.paragraphs, *self.code_of(post)))

    def author_slot(self, post: Post, profile: str) -> str:
        """The author as the forum prints it (``profile``: the link to their page)."""
        name, cls = post.author.name, _CLASSES[self.dims.post_markup][0]
        where = self.dims.author_at
        if where == "title":
            return (f'<a href="{attr(profile)}" class="{cls} avatar" title="{attr(name)}"><img src="'
                    f'/avatars/{post.author.uid}.png" alt="" width="48" height="48"></a>')
        if where == "data":
            return f'<strong class="{cls}">{text(name)}</strong>'
        if where == "itemprop":
            return (f'<span itemprop="author" itemscope itemtype="http://schema.org/Person"><a '
                    f'itemprop="url" href="{attr(profile)}"><span itemprop="name">{text(name)}'
                    f'</span></a></span>')
        return f'<a href="{attr(profile)}" class="{cls}">{text(name)}</a>'

    def quote_html(self, thread: Thread, post: Post) -> str:
        """The quote a post opens with, with its attribution."""
        if post.quote is None or self.dims.quote == "none":
            return ""
        quoted, said = post.quote.post, text(post.quote.text)
        name = text(quoted.author.name)
        source = attr(self.urls.thread_href(thread, (quoted.floor - 1) // self.urls.per_page + 1)
                      + f"#post-{quoted.pid}")
        if self.dims.quote == "inside":
            cite = text(self.words["wrote"].format(name=quoted.author.name))
            return f'<blockquote class="quote"><cite>{cite}</cite><p>{said}</p></blockquote>'
        if self.dims.quote == "outside":
            tail = " 中说：" if self.dims.lang == "zh" else ":"
            return (f'<p>{text(self.words["said"].format(name=quoted.author.name))} <a href="'
                    f'{source}">{text(thread.title)}</a>{tail}</p>\n<blockquote><p>{said}</p></blockquote>')
        return (f'<div class="bbcode_container"><div class="bbcode_quote"><div class="quote_container">'
                f'<div class="bbcode_postedby">{text(self.words["posted_by"])} <strong>{name}</strong> '
                f'<a href="{source}" rel="nofollow">&#8593;</a></div><div class="message">{said}</div>'
                f'</div></div></div>')

    def code_html(self, post: Post) -> str:
        """The post's code block, with the forum's buttons."""
        lines = self.code_of(post)
        if not lines:
            return ""
        pre = f"<pre><code>{text(chr(10).join(lines))}</code></pre>"
        if self.dims.code == "pre":
            return pre
        return (f'<div class="codebox"><div class="code-header"><span>{text(self.words["code"])}</span>'
                f'<button type="button" class="copy-code" title="Copy to clipboard">'
                f'{text(self.words["copy"])}</button></div>{pre}</div>')

    def body(self, thread: Thread, post: Post) -> str:
        """Quote, paragraphs and code of a post."""
        paragraphs = "\n".join(f"<p>{text(p)}</p>" for p in post.paragraphs)
        return "\n".join(filter(None, (self.quote_html(thread, post), paragraphs, self.code_html(post))))

    def extras(self, post: Post) -> str:
        """What follows a post's words: the edit notice and the signature."""
        out = []
        if post.edit is not None and self.dims.edit == "notice":
            notice = self.words["edited"].format(editor=post.edit.editor.name,
                                                 when=self.absolute(post.edit.time),
                                                 count=post.edit.count)
            out.append(f'<div class="notice">{text(notice)}</div>')
        if post.signature and self.dims.signature == "div":
            out.append(f'<div class="signature">{text(post.signature)}</div>')
        elif post.signature and self.dims.signature == "rule":
            out.append(f"<div>__________________<br>\n{text(post.signature)}</div>")
        return "\n".join(out)

    def floor_link(self, thread: Thread, post: Post) -> str:
        """The post's number, linked where the forum links posts."""
        kind = self.dims.post_link
        if kind == "none":
            return f"<span>#{post.floor}</span>"
        href = (self.urls.post_number(thread, post.floor) if kind == "post_number"
                else self.urls.permalink(post))
        return f'<a href="{attr(href)}" rel="nofollow">#{post.floor}</a>'

    def header(self, thread: Thread, post: Post) -> str:
        """The post's header list: edit-history mark, time, number."""
        items = []
        if post.edit is not None and self.dims.edit == "history_link":
            when = attr(self.absolute(post.edit.time))
            items.append(f'<li title="{when}"><a href="{self.urls.history(post)}" title="{when}" '
                         f'rel="nofollow">{text(self.words["history"])}</a></li>')
        items.append(f"<li>{self.time_slot(post.time)}</li>")
        items.append(f"<li>{self.floor_link(thread, post)}</li>")
        return f'<ul class="{_CLASSES[self.dims.post_markup][2]}">{"".join(items)}</ul>'

    def post_block(self, thread: Thread, post: Post, profile: str) -> str:
        """One post in the forum's markup."""
        return self.block(pid=post.pid, floor=post.floor, uid=post.author.uid,
                          name=post.author.name, moment=post.time,
                          author=self.author_slot(post, profile), header=self.header(thread, post),
                          body=self.body(thread, post), extras=self.extras(post),
                          profile=self._profile_lines(post))

    def _profile_lines(self, post: Post) -> str:
        user = post.author
        joined = f"{_MONTHS[user.joined.month - 1]} {user.joined.year}"
        return (f'<div class="userinfo">{text(user.group)}<br>{text(self.words["joined"])} {joined}'
                f'<br>{text(self.words["posts"])} {user.posts}</div>')

    def ad_block(self, thread: Thread) -> str:
        """The ad between the first post and the second (``ads`` banner or postlike)."""
        noun = self._noun(thread)
        words = text(self.words["ad"].format(x=noun))
        link = f'<a href="https://ads.example.net/click?c={thread.tid}" rel="sponsored nofollow">{words}</a>'
        if self.dims.ads == "banner":
            return f'<div class="ad-banner"><span>{text(self.words["sponsored"])}</span> {link}</div>'
        return self.block(pid=0, floor=0, uid=0, name=self.words["sponsored"], moment=None,
                          author=f"<strong>{text(self.words['sponsored'])}</strong>", header="",
                          body=f"<p>{link}</p>", extras="", profile="")

    @staticmethod
    def _noun(thread: Thread) -> str:
        return thread.title.split()[0] if " " in thread.title else thread.title[:4]

    def block(self, *, pid: int, floor: int, uid: int, name: str, moment: datetime | None,
              author: str, header: str, body: str, extras: str, profile: str) -> str:
        """The container of one post (or post-like ad) in the forum's markup."""
        markup = self.dims.post_markup
        data = f' data-author="{attr(name)}"' if self.dims.author_at == "data" else ""
        if markup == "table":
            return f"""<table class="tborder post" id="post{pid}" cellpadding="6" cellspacing="0" width="100%"{data}>
<tr><td class="thead" colspan="2">{header}</td></tr>
<tr><td class="alt2 postauthor" width="175">{author}{profile}</td>
<td class="alt1 postbody"><div id="post_message_{pid}" class="postmessage">{body}</div>{extras}</td></tr>
</table>"""
        if markup == "div":
            return f"""<div id="p{pid}" class="post bg{floor % 2 + 1}"{data}><div class="inner">
<dl class="postprofile"><dt>{author}</dt><dd>{profile}</dd></dl>
<div class="postbody"><div class="author">{header}</div><div class="content">{body}</div>{extras}</div>
</div></div>"""
        if markup == "list":
            return f"""<li class="postbitlegacy postcontainer" id="post_{pid}"{data}>
<div class="posthead">{header}</div>
<div class="postdetails"><div class="userinfo">{author}{profile}</div>
<div class="postbody"><div class="content"><blockquote class="postcontent restore">{body}</blockquote></div>{extras}</div></div>
</li>"""
        if markup == "classless":
            stamp = f' data-timestamp="{epoch(moment) * 1000}"' if moment else ""
            return f"""<li component="post" class="" data-index="{max(floor - 1, 0)}" data-pid="{pid}" data-uid="{uid}" data-username="{attr(name)}"{stamp}{data} itemprop="comment" itemscope itemtype="http://schema.org/Comment">
<div class=""><div class="">{author}</div><div class="">{header}</div></div>
<div class="" component="post/content" itemprop="text">{body}</div>{extras}
</li>"""
        if markup == "article":
            return f"""<article class="message message--post js-post" data-content="post-{pid}" id="js-post-{pid}"{data or f' data-author="{attr(name)}"'}>
<div class="message-inner"><div class="message-cell message-cell--user"><section class="message-user">{author}{profile}</section></div>
<div class="message-cell message-cell--main"><header class="message-attribution">{header}</header>
<div class="message-content"><div class="message-userContent"><article class="message-body"><div class="bbWrapper">{body}</div></article></div>{extras}</div></div></div>
</article>"""
        return f"""<div class="h-entry" id="c{pid}"{data}><div>{author}</div><div>{header}</div>
<div class="e-content">{body}</div>{extras}</div>"""

    def posts_wrapper(self, blocks: list[str]) -> str:
        """The element the posts of a page sit in."""
        inner = "\n".join(blocks)
        markup = self.dims.post_markup
        if markup == "list":
            return f'<ol id="posts" class="posts">\n{inner}\n</ol>'
        if markup == "classless":
            return f'<ul component="topic" class="posts" data-tid="">\n{inner}\n</ul>'
        if markup == "article":
            return f'<div class="block-body js-replyNewMessageContainer">\n{inner}\n</div>'
        return f'<div id="posts">\n{inner}\n</div>'

    # -- pagers -----------------------------------------------------------------------------------

    def pager(self, hrefs: list[str], page: int) -> tuple[str, str]:
        """The visible pager of page ``page`` of ``hrefs`` and the ``<link>`` tags of the head."""
        total = len(hrefs)
        if total < 2:
            return "", ""
        prev = hrefs[page - 2] if page > 1 else None
        nxt = hrefs[page] if page < total else None
        style = self.dims.pager
        if style == "rel_next":
            head = "".join(f'<link rel="{rel}" href="{attr(h)}">\n'
                           for rel, h in (("prev", prev), ("next", nxt)) if h)
            return "", head
        if style == "numbered":
            cells = [f"<strong>{n}</strong>" if n == page else f'<a href="{attr(h)}">{n}</a>'
                     for n, h in enumerate(hrefs, start=1)]
            if nxt:
                cells.append(f'<a href="{attr(nxt)}" rel="next">Next &rsaquo;</a>')
            return f'<div class="pagination">Page {page} of {total} &bull; {" ".join(cells)}</div>', ""
        if style == "next_only":
            cells = [f'<a href="{attr(prev)}" class="prev">&lsaquo; Prev</a>' if prev else "",
                     f'<a href="{attr(nxt)}" class="next">Next &rsaquo;</a>' if nxt else ""]
            return f'<div class="pager">{" ".join(filter(None, cells))}</div>', ""
        if style == "chevrons":
            cells = []
            if prev:
                cells += [f'<a href="{attr(hrefs[0])}" aria-label="First">&laquo;</a>',
                          f'<a href="{attr(prev)}" aria-label="Previous">&lsaquo;</a>']
            cells.append(f"<span>{page} / {total}</span>")
            if nxt:
                cells += [f'<a href="{attr(nxt)}" aria-label="Next">&rsaquo;</a>',
                          f'<a href="{attr(hrefs[-1])}" aria-label="Last">&raquo;</a>']
            return f'<nav class="pagination-chevrons">{"".join(cells)}</nav>', ""
        if nxt is None:
            return "", ""
        return (f'<div class="load-more" data-next="{attr(nxt)}"><button type="button">Load more'
                f'</button></div><noscript><a href="{attr(nxt)}">Next page</a></noscript>'), ""
