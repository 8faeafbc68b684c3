"""The seeded content plan of one generated forum: boards, users, threads, posts and times.

The plan is independent of markup: each family renders the same kind of plan its own way and
derives the truth from it. It is built once per site from a ``random.Random`` seeded with the
family and the seed, so every run (and every process) sees the same forum.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from forumcrawl.mockforum.text import Theme, Writer

__all__ = ["Board", "Edit", "Plan", "Post", "Quote", "Thread", "User", "build_plan"]

_MINUTE = timedelta(minutes=1)
_ANNOUNCEMENT = {"zh": "关于论坛版规更新的公告", "en": "Board rules updated – please read"}


@dataclass(eq=False)
class User:
    """A forum member; only members who posted are kept in the plan."""

    uid: int
    name: str
    weight: float
    credits: int = 0
    posts: int = 0
    threads: int = 0
    joined: datetime = datetime.min
    last_visit: datetime = datetime.min
    signature: str | None = None
    location: str = ""
    group: str = ""


@dataclass(eq=False)
class Edit:
    """The "last edited by" notice of a post."""

    editor: User
    time: datetime
    count: int


@dataclass(eq=False)
class Quote:
    """A quotation of an earlier post of the same thread, as the replying post shows it."""

    post: Post
    text: str


@dataclass(eq=False)
class Post:
    """One floor of a thread."""

    floor: int
    author: User
    time: datetime
    paragraphs: tuple[str, ...]
    short: bool
    pid: int = 0
    quote: Quote | None = None
    use_sig: bool = True
    edit: Edit | None = None
    attachment: int | None = None

    @property
    def signature(self) -> str | None:
        """The signature shown under this post, if any."""
        return self.author.signature if self.use_sig else None


@dataclass(eq=False)
class Thread:
    """A thread: its posts in floor order and where it sits in its board's list."""

    tid: int
    fid: int
    title: str
    posts: list[Post]
    views: int
    wrong_charset: bool = False
    list_page: int = 1

    def pages(self, per_page: int) -> list[list[Post]]:
        """The posts cut into thread pages."""
        return [self.posts[i : i + per_page] for i in range(0, len(self.posts), per_page)]

    @property
    def last(self) -> Post:
        """The latest post."""
        return self.posts[-1]


@dataclass(eq=False)
class Board:
    """A board: its subject, moderator and threads, most recently active first."""

    fid: int
    theme: Theme
    threads: list[Thread] = field(default_factory=list)
    moderator: User | None = None

    def list_pages(self, per_page: int) -> list[list[Thread]]:
        """The thread list cut into list pages (at least one, possibly empty)."""
        threads = self.threads
        return [threads[i : i + per_page] for i in range(0, len(threads), per_page)] or [[]]


@dataclass(eq=False)
class Plan:
    """Everything one generated forum contains."""

    lang: str
    now: datetime
    posts_per_page: int
    threads_per_list_page: int
    boards: list[Board]
    users: list[User]
    threads: dict[int, Thread]
    missing_tid: int
    announcement_title: str
    announcement_time: datetime
    announcement_text: tuple[str, ...]

    @property
    def all_posts(self) -> list[Post]:
        """Every post of the forum."""
        return [post for thread in self.threads.values() for post in thread.posts]

    @property
    def newest_user(self) -> User:
        """The most recently registered member (the index greets them)."""
        return max(self.users, key=lambda user: (user.joined, user.uid))

    def board(self, fid: int) -> Board:
        """The board with id ``fid``."""
        return next(board for board in self.boards if board.fid == fid)


def _minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def _spread(rng: random.Random, start: datetime, end: datetime, count: int) -> list[datetime]:
    """``count`` sorted times in ``[start, end]``, to the minute."""
    span = max((end - start).total_seconds(), 0.0)
    return sorted(_minute(start + timedelta(seconds=rng.uniform(0, span))) for _ in range(count))


def _showcase_times(now: datetime) -> list[datetime]:
    """Times that make one thread show every relative form (days, 前天, 昨天, hours, minutes)."""
    day = datetime.combine(now.date(), datetime.min.time(), tzinfo=now.tzinfo)
    candidates = [
        _minute(now - timedelta(days=3, hours=1)),
        day - timedelta(days=2) + timedelta(hours=8, minutes=15),
        day - timedelta(days=1) + timedelta(hours=12, minutes=30),
        _minute(now - timedelta(hours=2, minutes=10)),
        _minute(now - timedelta(minutes=40)),
        _minute(now - timedelta(minutes=12)),
    ]
    return sorted(t for t in candidates if t < now)


def _excerpt(text: str, lang: str) -> str:
    """The head of a quoted paragraph, cut like forums cut quotes."""
    limit = 40 if lang == "zh" else 120
    if len(text) <= limit:
        return text
    head = text[:limit]
    if lang == "en" and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head + " ..."


def _page_count(rng: random.Random, board: int, index: int, wrong: int, max_pages: int) -> int:
    """Board 0 always has a longest thread, a one-page one and a two-page wrong-charset one."""
    if board == 0 and index == 0:
        return max_pages
    if board == 0 and index == wrong:
        return min(2, max_pages)
    if board == 0 and index == 1 or max_pages == 1 or rng.random() < 0.4:
        return 1
    return rng.randint(2, max_pages)


def build_plan(
    lang: str,
    seed: str,
    *,
    boards: int,
    threads_per_board: int,
    posts_per_page: int,
    max_thread_pages: int,
    threads_per_list_page: int,
    users: int,
    now: datetime,
) -> Plan:
    """Generate a forum's content from ``seed`` (same arguments, same forum)."""
    if min(boards, threads_per_board, posts_per_page, max_thread_pages, threads_per_list_page) < 1:
        raise ValueError("boards, threads, posts per page, pages and list size must be positive")
    if users < 2:
        raise ValueError("a forum needs at least two users")
    rng = random.Random(seed)
    writer = Writer(lang, rng)
    now = now.replace(microsecond=0)
    members = [
        User(uid=uid, name=name, weight=1.0 / (rank + 1) ** 0.7, joined=now,
             last_visit=datetime.min.replace(tzinfo=now.tzinfo))
        for rank, (uid, name) in enumerate(
            zip(sorted(rng.sample(range(2, 30000), users)), writer.names(users))
        )
    ]
    rng.shuffle(members)
    weights = [user.weight for user in members]
    wrong_index = min(2, threads_per_board - 1)
    titles: set[str] = set()
    drafts: list[tuple[int, Thread]] = []
    for b, theme in enumerate(writer.themes(boards)):
        for i in range(threads_per_board):
            pages = _page_count(rng, b, i, wrong_index, max_thread_pages)
            low = min(3, posts_per_page) if pages == 1 else 1
            count = (pages - 1) * posts_per_page + rng.randint(low, posts_per_page)
            showcase = _showcase_times(now) if b == 0 and i == 0 else []
            showcase = showcase[len(showcase) - min(len(showcase), count - 1) :]
            if rng.random() < 0.35:
                start = _minute(now - timedelta(minutes=rng.randint(4 * 60, 3 * 24 * 60)))
            else:
                start = _minute(now - timedelta(minutes=rng.randint(3 * 24 * 60, 45 * 24 * 60)))
            if showcase:
                start = _minute(now - timedelta(days=20, minutes=rng.randint(0, 600)))
            end = showcase[0] if showcase else start + (now - _MINUTE - start) * rng.uniform(0.2, 1)
            times = [start, *_spread(rng, start, end, count - 1 - len(showcase)), *showcase]
            title = writer.title(theme, titles)
            op = rng.choices(members, weights)[0]
            posts: list[Post] = []
            for floor, moment in enumerate(times, start=1):
                own = floor == 1 or rng.random() < 0.15
                author = op if own else rng.choices(members, weights)[0]
                short = floor > 1 and rng.random() < 0.22
                if short:
                    body: tuple[str, ...] = (writer.short_reply(),)
                else:
                    body = writer.paragraphs(theme, first=floor == 1)
                post = Post(floor, author, moment, body, short, use_sig=rng.random() < 0.85)
                if floor > 2 and not short and rng.random() < 0.15:
                    quoted = rng.choice(posts)
                    post.quote = Quote(quoted, _excerpt(quoted.paragraphs[0], lang))
                posts.append(post)
            thread = Thread(0, b, title, posts, views=rng.randint(count * 5 + 20, count * 60 + 300))
            thread.wrong_charset = b == 0 and i == wrong_index
            drafts.append((b, thread))
    threads = _number(rng, drafts)
    drafts[0][1].posts[0].attachment = rng.randint(1000, 90000)
    active = [user for user in members if user.posts]
    _profile(rng, writer, active, now)
    board_list = [Board(fid=fid, theme=theme) for fid, theme in _board_ids(rng, writer, boards)]
    for b, thread in drafts:
        thread.fid = board_list[b].fid
        board_list[b].threads.append(thread)
    for board in board_list:
        board.threads.sort(key=lambda t: (t.last.time, t.tid), reverse=True)
        for n, thread in enumerate(board.threads):
            thread.list_page = n // threads_per_list_page + 1
        posters = sorted({p.author.uid: p.author for t in board.threads for p in t.posts}.values(),
                         key=lambda u: u.uid)
        board.moderator = rng.choice(posters)
    _edits(rng, board_list, now)
    announced = _minute(now - timedelta(days=rng.randint(5, 30), minutes=rng.randint(0, 600)))
    return Plan(
        lang=lang,
        now=now,
        posts_per_page=posts_per_page,
        threads_per_list_page=threads_per_list_page,
        boards=board_list,
        users=sorted(active, key=lambda u: u.uid),
        threads=threads,
        missing_tid=max(threads) + rng.randint(5, 50),
        announcement_title=_ANNOUNCEMENT[lang],
        announcement_time=announced,
        announcement_text=writer.paragraphs(board_list[0].theme, first=True),
    )


def _board_ids(rng: random.Random, writer: Writer, count: int) -> list[tuple[int, Theme]]:
    """Board ids start at 2 (Discuz keeps 1 for the category) and leave gaps, as real ones do."""
    fids, fid = [], 2
    for _ in range(count):
        fids.append(fid)
        fid += rng.choice((1, 1, 2, 3))
    return list(zip(fids, writer.themes(count)))


def _number(rng: random.Random, drafts: list[tuple[int, Thread]]) -> dict[int, Thread]:
    """Give threads ids in the order they were started and posts ids in the order they were made."""
    tid = rng.randint(100, 900)
    threads: dict[int, Thread] = {}
    for _, thread in sorted(drafts, key=lambda d: (d[1].posts[0].time, d[1].title)):
        thread.tid = tid
        threads[tid] = thread
        tid += rng.randint(1, 6)
    pid = rng.randint(1000, 5000)
    for post in sorted((p for t in threads.values() for p in t.posts), key=lambda p: p.time):
        post.pid = pid
        pid += rng.randint(1, 4)
    for thread in threads.values():
        thread.posts[0].author.threads += 1
        for post in thread.posts:
            post.author.posts += 1
            post.author.last_visit = max(post.author.last_visit, post.time)
    return dict(sorted(threads.items()))


def _profile(rng: random.Random, writer: Writer, users: list[User], now: datetime) -> None:
    """Fill in the numbers and dates a profile shows, consistent with what the user posted."""
    for user in users:
        user.posts += rng.randint(0, 400)
        user.threads += rng.randint(0, user.posts // 10)
        user.credits = user.posts * rng.randint(1, 4) + rng.randint(0, 200)
        user.group = writer.group(user.credits)
        age = timedelta(days=rng.randint(60, 3000), minutes=rng.randint(0, 1440))
        user.joined = _minute(now - age)
        seen = _minute(now - timedelta(minutes=rng.randint(1, 3 * 24 * 60)))
        user.last_visit = max(user.last_visit, seen)
        user.signature = writer.signature() if rng.random() < 0.55 else None
        user.location = writer.location()


def _edits(rng: random.Random, boards: list[Board], now: datetime) -> None:
    """Mark some posts as edited later, by their author or by the board's moderator."""
    for board in boards:
        for thread in board.threads:
            for post in thread.posts:
                room = (now - post.time) // _MINUTE - 1
                if post.short or room < 2 or rng.random() >= 0.12:
                    continue
                editor = post.author
                if board.moderator is not None and rng.random() >= 0.8:
                    editor = board.moderator
                moment = post.time + timedelta(minutes=rng.randint(1, min(room, 180)))
                post.edit = Edit(editor, moment, rng.randint(1, 3))
