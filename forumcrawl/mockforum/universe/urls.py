"""The URL schemes of a generated forum: thread pages, their other forms, boards, members.

Every link is root-relative and ASCII (slugs percent-encoded as engines print them). The schemes
are those :data:`~forumcrawl.mockforum.universe.dimensions.DIMENSIONS` names; a thread's *short*
form is what an engine also answers for it (the slugless ``/topic/<id>?page=N`` of a slugged
scheme, Discuz's dynamic ``forum.php?mod=viewthread`` behind its rewritten URLs, the explicit
first page of a query scheme).
"""

from __future__ import annotations

from urllib.parse import quote

from forumcrawl.mockforum.family import slugify
from forumcrawl.mockforum.plan import Board, Post, Thread, User
from forumcrawl.mockforum.universe.dimensions import Dimensions

__all__ = ["Urls"]

_PERMALINKS = {"query": "/viewtopic.php?p={pid}", "query_start": "/viewtopic.php?p={pid}",
               "pseudo_static": "/forum.php?mod=redirect&goto=findpost&pid={pid}",
               "slug_dot_id": "/posts/{pid}/", "id_slug": "/post/{pid}", "slug_id": "/p/{pid}",
               "id_dash_slug": "/post/{pid}", "showthread": "/showthread.php?p={pid}"}


def url_slug(value: str, style: str, number: int) -> str:
    """``value`` as a URL slug in ``style`` (see the ``slug`` dimension), percent-encoded."""
    if style == "punct":
        words = "-".join(value.lower().split())
        return quote(words, safe="-")
    slug = slugify(value)
    if style == "digits":
        head, _, tail = slug.partition("-")
        slug = f"{head}-{number}-{tail}" if tail else f"{slug}-{number}"
    return quote(slug, safe="-")


class Urls:
    """Link builder of one forum (``per_page``: posts a thread page; ``per_list``: threads a list
    page, for the ``start=`` offsets)."""

    def __init__(self, dims: Dimensions, per_page: int, per_list: int) -> None:
        self.dims = dims
        self.per_page = per_page
        self.per_list = per_list

    # -- threads ----------------------------------------------------------------------------------

    def slug(self, thread: Thread) -> str:
        """The thread's slug (empty for schemes without one)."""
        if self.dims.slug == "none":
            return ""
        return url_slug(thread.title, self.dims.slug, thread.tid % 9 + 1)

    def thread(self, tid: int, slug: str, page: int) -> str:
        """Canonical URL of page ``page`` of thread ``tid``."""
        scheme, first = self.dims.thread_url, page == 1
        if scheme == "query":
            return f"/viewtopic.php?t={tid}" + ("" if first else f"&page={page}")
        if scheme == "query_start":
            return f"/viewtopic.php?t={tid}" + ("" if first else f"&start={(page - 1) * self.per_page}")
        if scheme == "pseudo_static":
            return f"/thread-{tid}-{page}-1.html"
        if scheme == "slug_dot_id":
            return f"/threads/{slug}.{tid}/" + ("" if first else f"page-{page}")
        if scheme == "id_slug":
            return f"/topic/{tid}/{slug}" + ("" if first else f"?page={page}")
        if scheme == "slug_id":
            return f"/t/{slug}/{tid}" + ("" if first else f"?page={page}")
        if scheme == "id_dash_slug":
            return f"/topic/{tid}-{slug}/" + ("" if first else f"page/{page}/")
        return f"/showthread.php?{tid}-{slug}" + ("" if first else f"/page{page}")

    def thread_href(self, thread: Thread, page: int) -> str:
        """Canonical URL of a page of ``thread``."""
        return self.thread(thread.tid, self.slug(thread), page)

    def page_one(self, thread: Thread) -> str:
        """Page 1 with its number written out (``&page=1``, ``page-1``), another form of it."""
        scheme, tid, slug = self.dims.thread_url, thread.tid, self.slug(thread)
        return {
            "query": f"/viewtopic.php?t={tid}&page=1",
            "query_start": f"/viewtopic.php?t={tid}&start=0",
            "pseudo_static": f"/forum.php?mod=viewthread&tid={tid}&page=1",
            "slug_dot_id": f"/threads/{slug}.{tid}/page-1",
            "id_slug": f"/topic/{tid}/{slug}?page=1",
            "slug_id": f"/t/{slug}/{tid}?page=1",
            "id_dash_slug": f"/topic/{tid}-{slug}/page/1/",
            "showthread": f"/showthread.php?{tid}-{slug}/page1",
        }[scheme]

    def short(self, thread: Thread, page: int) -> str:
        """The short form of a thread page that list rows' mini pagers link."""
        scheme, tid = self.dims.thread_url, thread.tid
        if scheme in ("query", "query_start"):
            return self.page_one(thread) if page == 1 else self.thread_href(thread, page)
        return {
            "pseudo_static": f"/forum.php?mod=viewthread&tid={tid}&page={page}",
            "slug_dot_id": f"/threads/{tid}/page-{page}",
            "id_slug": f"/topic/{tid}?page={page}",
            "slug_id": f"/t/{tid}?page={page}",
            "id_dash_slug": f"/topic/{tid}/page/{page}/",
            "showthread": f"/showthread.php?t={tid}&page={page}",
        }[scheme]

    def post_number(self, thread: Thread, floor: int) -> str:
        """``<thread>/<k>``: the page around post ``k`` (path schemes only)."""
        base = self.thread_href(thread, 1)
        if self.dims.thread_url == "slug_dot_id":
            return f"{base}post-{floor}"
        return f"{base.rstrip('/')}/{floor}" + ("/" if base.endswith("/") else "")

    def permalink(self, post: Post) -> str:
        """The per-post permalink (``post_link`` permalink or redirect)."""
        return _PERMALINKS[self.dims.thread_url].format(pid=post.pid)

    def reply(self, thread: Thread) -> str:
        """The reply action (a redirect to the login page under ``login=action_redirect``)."""
        return f"/reply?t={thread.tid}"

    @staticmethod
    def history(post: Post) -> str:
        """A post's edit history (robots-forbidden)."""
        return f"/history/{post.pid}"

    # -- lite copies ------------------------------------------------------------------------------

    @staticmethod
    def archive(thread: Thread, page: int) -> str:
        """Discuz's archiver copy of a thread page."""
        return f"/archiver/?tid-{thread.tid}.html" + ("" if page == 1 else f"&page={page}")

    @staticmethod
    def archive_board(board: Board) -> str:
        """The archiver's list of a board."""
        return f"/archiver/?fid-{board.fid}.html"

    @staticmethod
    def print_view(thread: Thread) -> str:
        """The whole thread on one printable page."""
        return f"/printthread.php?t={thread.tid}"

    @staticmethod
    def mobile(thread: Thread, page: int) -> str:
        """The mobile copy of a thread page."""
        return f"/m/thread/{thread.tid}" + ("" if page == 1 else f"?page={page}")

    @staticmethod
    def who_posted(thread: Thread) -> str:
        """The "who posted?" pop-up of a thread."""
        return f"/misc.php?do=whoposted&t={thread.tid}"

    # -- boards and members ----------------------------------------------------------------------

    def board(self, fid: int, name: str, page: int) -> str:
        """Page ``page`` of the thread list of board ``fid``."""
        scheme, first, slug = self.dims.board_url, page == 1, quote(slugify(name), safe="-")
        if scheme == "query":
            return f"/forumdisplay.php?f={fid}" + ("" if first else f"&page={page}")
        if scheme == "query_start":
            return f"/viewforum.php?f={fid}" + ("" if first else f"&start={(page - 1) * self.per_list}")
        if scheme == "pseudo_static":
            return f"/forum-{fid}-{page}.html"
        if scheme == "slug_zero":
            return f"/c/{slug}/{fid}" + ("" if first else f"?page={page - 1}")
        return f"/forums/{slug}.{fid}/" + ("" if first else f"page-{page}")

    def board_href(self, board: Board, page: int) -> str:
        """A page of ``board``'s thread list."""
        return self.board(board.fid, board.theme.name, page)

    def user_href(self, user: User) -> str:
        """A member's profile."""
        name = quote(slugify(user.name), safe="-")
        return {"query": f"/member.php?u={user.uid}", "name_path": f"/user/{name}",
                "pseudo_static": f"/space-uid-{user.uid}.html",
                "slug_dot_id": f"/members/{name}.{user.uid}/"}[self.dims.member_url]

    def user_posts(self, user: User, page: int) -> str:
        """A page of the list of a member's posts (``member_posts=post_list``)."""
        name, first = quote(slugify(user.name), safe="-"), page == 1
        scheme = self.dims.member_url
        if scheme == "query":
            return f"/search.php?do=finduser&u={user.uid}" + ("" if first else f"&page={page}")
        if scheme == "name_path":
            return f"/user/{name}/posts" + ("" if first else f"?page={page}")
        if scheme == "pseudo_static":
            return f"/home.php?mod=space&uid={user.uid}&do=thread&view=me" + ("" if first else f"&page={page}")
        return f"/search/member?user_id={user.uid}" + ("" if first else f"&page={page}")

    @staticmethod
    def latest(page: int) -> str:
        """A page of the site-wide list of threads by last activity."""
        return "/latest" + ("" if page == 1 else f"?page={page}")
