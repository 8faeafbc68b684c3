"""A forum that changes between two crawls: replies, new threads, edits and deletions.

Tests of incremental recrawls (issue #18) crawl a served site, change it, and crawl it again.
:class:`Growth` changes a :class:`~forumcrawl.mockforum.site.ForumSite`'s plan the way use of a
forum does — the site's clock moves on, a reply goes at the end of its thread, a new thread
opens, a post's text is edited, a post is removed — and rebuilds the site's pages and truth, so
the running server answers with the new forum at once. What was added is returned, so a test
knows exactly which posts are new.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import TYPE_CHECKING

from forumcrawl.mockforum.plan import Post, Thread
from forumcrawl.mockforum.text import Writer

if TYPE_CHECKING:
    from forumcrawl.mockforum.site import ForumSite

__all__ = ["Growth"]


class Growth:
    """Changes to one site; each method changes the plan, :meth:`apply` serves the result."""

    def __init__(self, site: ForumSite, seed: int = 1) -> None:
        self.site = site
        self.plan = site.plan
        self.rng = random.Random(f"growth:{site.family}:{seed}")
        self.writer = Writer(self.plan.lang, self.rng)

    def _tick(self) -> None:
        """The site's clock moves on an hour; new posts are made in that hour."""
        self.plan.now += timedelta(hours=1)

    def _post(self, thread: Thread, moment_minutes: int) -> Post:
        board = self.plan.board(thread.fid)
        author = self.rng.choice(self.plan.users)
        pid = max(p.pid for t in self.plan.threads.values() for p in t.posts) + 1
        moment = self.plan.now.replace(second=0) - timedelta(minutes=moment_minutes)
        body = self.writer.paragraphs(board.theme, first=not thread.posts)
        post = Post(len(thread.posts) + 1, author, moment, body, False, pid=pid, use_sig=False)
        author.posts += 1
        return post

    def reply(self, tid: int, count: int = 1) -> list[Post]:
        """Add ``count`` replies at the end of thread ``tid``."""
        self._tick()
        thread = self.plan.threads[tid]
        added = []
        for n in range(count):
            post = self._post(thread, 50 - n)
            thread.posts.append(post)
            added.append(post)
        return added

    def new_thread(self, fid: int, replies: int = 0) -> Thread:
        """Open a thread in board ``fid`` (with ``replies`` replies)."""
        self._tick()
        board = self.plan.board(fid)
        titles = {t.title for t in self.plan.threads.values()}
        tid = max(self.plan.threads) + self.rng.randint(1, 6)
        thread = Thread(tid, fid, self.writer.title(board.theme, titles), [], views=1)
        for n in range(replies + 1):
            thread.posts.append(self._post(thread, 50 - n))
        thread.posts[0].author.threads += 1
        self.plan.threads[tid] = thread
        board.threads.append(thread)
        return thread

    def edit(self, tid: int, floor: int) -> Post:
        """Change the text of a post (its author and time stay)."""
        thread = self.plan.threads[tid]
        post = thread.posts[floor - 1]
        post.paragraphs = self.writer.paragraphs(self.plan.board(thread.fid).theme, first=floor == 1)
        post.short = False
        return post

    def delete(self, tid: int, floor: int) -> Post:
        """Remove a reply; the later posts move up one place (floors are renumbered, as in an
        engine that numbers by position)."""
        thread = self.plan.threads[tid]
        if floor == 1:
            raise ValueError("deleting a thread's first post deletes the thread")
        post = thread.posts.pop(floor - 1)
        for n, later in enumerate(thread.posts, start=1):
            later.floor = n
        return post

    def apply(self, by: str = "last") -> None:
        """Serve the changed forum: boards re-sorted by last activity (``by="first"``: by when
        their threads were opened, as some lists are), pages and truth rebuilt."""
        if by not in ("last", "first"):
            raise ValueError(f"boards are sorted by 'last' or 'first' post, not {by!r}")
        per_page = self.plan.threads_per_list_page
        for board in self.plan.boards:
            board.threads.sort(key=lambda t: (t.last.time if by == "last" else t.posts[0].time, t.tid),
                               reverse=True)
            for n, thread in enumerate(board.threads):
                thread.list_page = n // per_page + 1
        self.site.rebuild()
