"""The dimensions a generated forum varies along, and the draw of one forum's values from a seed.

Each dimension is a small independent choice copied from real engines. A seed draws every
dimension from its own ``random.Random`` (seeded with the seed and the dimension's name), so
adding a dimension or a value to one leaves the others of every seed as they were, and 200 seeds
cover the combinations. Where a value cannot apply to the rest of a forum (a slug style on a URL
scheme without slugs, an encoding a language cannot be written in) :func:`draw` resolves it to
what the forum really does, so a forum's :class:`Dimensions` always describe its pages.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, fields

__all__ = ["DIMENSIONS", "SLUG_SCHEMES", "Dimensions", "Sizes", "draw", "parse_seeds", "resolve", "sizes_for"]

#: Every dimension with its values and what each value makes the forum do.
DIMENSIONS: dict[str, dict[str, str]] = {
    "lang": {"en": "English content", "zh": "Chinese content"},
    "encoding": {"utf-8": "UTF-8", "gbk": "GBK (Chinese only)", "big5": "Big5 (Chinese only; "
                 "characters Big5 lacks as character references)",
                 "windows-1252": "Windows-1252 (English only)"},
    "thread_url": {
        "query": "viewtopic.php?t=<id>&page=N",
        "query_start": "viewtopic.php?t=<id>&start=<offset>",
        "pseudo_static": "thread-<id>-<N>-1.html (Discuz rewrite)",
        "slug_dot_id": "/threads/<slug>.<id>/page-N (XenForo)",
        "id_slug": "/topic/<id>/<slug>?page=N (NodeBB)",
        "slug_id": "/t/<slug>/<id>?page=N (Discourse)",
        "id_dash_slug": "/topic/<id>-<slug>/page/N (Flarum, machina)",
        "showthread": "showthread.php?<id>-<slug>/pageN (vBulletin 4)",
    },
    "slug": {"words": "title words (Unicode kept, percent-encoded)",
             "digits": "a number inside the slug (arnolds-laws-1-...)",
             "punct": "punctuation kept, percent-encoded (%3A, %3F)",
             "none": "the scheme has no slug"},
    "board_url": {"query": "forumdisplay.php?f=<id>&page=N",
                  "query_start": "viewforum.php?f=<id>&start=<offset>",
                  "pseudo_static": "forum-<id>-<N>.html",
                  "slug_zero": "/c/<slug>/<id>?page=<N-1> (lists count from 0)",
                  "slug_dot_id": "/forums/<slug>.<id>/page-N"},
    "member_url": {"query": "member.php?u=<uid>", "name_path": "/user/<name>",
                   "pseudo_static": "space-uid-<uid>.html", "slug_dot_id": "/members/<name>.<uid>/"},
    "member_posts": {"none": "no list of a member's posts",
                     "post_list": "each member's posts as a paginated list built like a thread"},
    "post_link": {"none": "posts carry no link",
                  "permalink": "a per-post permalink serving the page that holds the post",
                  "redirect": "a per-post permalink answering 302 to that page",
                  "post_number": "<thread>/<k>: the page around post k (path schemes)"},
    "thread_alias": {"none": "every link to a thread page has one form",
                     "mini_pager": "list rows carry a pager of the thread's short URL form "
                                   "(slugless /topic/<id>?page=N, the dynamic Discuz form ...)",
                     "page_one": "later pages link page 1 with an explicit page number"},
    "lite_copy": {"none": "no other copy of a thread",
                  "archiver": "archiver/?tid-<id>.html lite copies (Discuz)",
                  "print": "printthread.php?t=<id>: the whole thread on one page",
                  "mobile": "/m/thread/<id>?page=N copies in lite markup",
                  "who_posted": "misc.php?do=whoposted&t=<id> pop-ups"},
    "pager": {"numbered": "page numbers and Next", "next_only": "Prev / Next only",
              "chevrons": "« ‹ n / m › » without numbers",
              "noscript": "a JavaScript 'load more' with the link in <noscript>",
              "rel_next": "no visible pager, <link rel=next/prev> only"},
    "sub_boards": {"no": "the index lists every board",
                   "yes": "the index lists the first board, which lists the others as sub-boards"},
    "latest": {"no": "no site-wide list", "yes": "/latest: every thread by last activity"},
    "post_markup": {"table": "a table per post (vBulletin 3, Discuz)",
                    "div": "classed divs (phpBB)", "list": "<ol><li> posts (vBulletin 4)",
                    "classless": "<li component=post class=\"\" data-*> (NodeBB)",
                    "article": "<article class=message> (XenForo)",
                    "microformat": "h-entry / p-author / dt-published, no other class"},
    "author_at": {"text": "link text", "title": "the avatar link's title attribute only",
                  "data": "the post's data-author attribute and plain bold text",
                  "itemprop": "itemprop=author > itemprop=name"},
    "time_at": {"text": "absolute text", "title": "relative text, absolute in title",
                "datetime": "<time datetime> around absolute text",
                "epoch": "relative text, epoch milliseconds in data-timestamp",
                "meta": "relative text, <meta itemprop=datePublished content>",
                "relative": "relative text only ('3 days ago', '3 天前')"},
    "time_format": {"discuz": "2024-3-5 14:02", "phpbb": "Tue Mar 05, 2024 2:02 pm",
                    "vbulletin": "03-05-2024, 02:02 PM", "iso": "2024-03-05 14:02:00",
                    "european": "05.03.2024, 14:02", "chinese": "2024年3月5日 14:02"},
    "title_at": {"h1": "<h1>", "h2_link": "<h2><a href=page 1>", "crumb": "the last breadcrumb "
                 "and <title> only"},
    "quote": {"none": "no quotes", "inside": "<blockquote><cite>X wrote:</cite>",
              "outside": "<p>@X said in <a>T</a>:</p> before the blockquote (NodeBB)",
              "header_div": "vBulletin's 'Originally Posted by' box of divs"},
    "signature": {"none": "no signatures", "div": "<div class=signature>",
                  "rule": "a ____ line, then the signature, inside the post's cell"},
    "edit": {"none": "no edit marks", "notice": "'Last edited by X on DATE' under the post",
             "history_link": "an edit-history link with the edit time in title, before the time"},
    "code": {"none": "no code", "pre": "<pre><code>", "button": "a 'Copy code' button beside it",
             "dashes": "a ----- line inside the code, and the button"},
    "ads": {"none": "no ads", "banner": "a banner between posts",
            "postlike": "an ad after the first post in the post markup"},
    "login": {"none": "a plain login page", "private_board": "a listed board whose page is a "
              "login form (200)", "action_redirect": "reply links answer 302 to /login?return=..."},
    "canonical_tag": {"no": "no rel=canonical", "yes": "thread pages declare rel=canonical"},
    "faults": {"none": "always answers", "burst_503": "a burst of 503s with Retry-After",
               "flaky_500": "some pages answer 500 the first time", "slow": "some pages take 1 s"},
    "broken": {"none": "every linked page works",
               "some": "a 404 thread row, a 500 page, a truncated and an empty page, a thread "
                       "whose bytes are not in its declared charset"},
}

#: Thread URL schemes whose URLs hold a slug.
SLUG_SCHEMES = frozenset({"slug_dot_id", "id_slug", "slug_id", "id_dash_slug", "showthread"})
#: Schemes where ``<thread>/<k>`` can address post k (a path to add a segment to).
_POST_NUMBER_SCHEMES = frozenset({"slug_dot_id", "id_slug", "slug_id", "id_dash_slug"})
_LEGACY = {"en": ("windows-1252",), "zh": ("gbk", "big5")}


@dataclass(frozen=True)
class Dimensions:
    """One forum's value of every dimension (the field names are :data:`DIMENSIONS`' keys)."""

    lang: str
    encoding: str
    thread_url: str
    slug: str
    board_url: str
    member_url: str
    member_posts: str
    post_link: str
    thread_alias: str
    lite_copy: str
    pager: str
    sub_boards: str
    latest: str
    post_markup: str
    author_at: str
    time_at: str
    time_format: str
    title_at: str
    quote: str
    signature: str
    edit: str
    code: str
    ads: str
    login: str
    canonical_tag: str
    faults: str
    broken: str

    def as_dict(self) -> dict[str, str]:
        """Dimension name → value."""
        return asdict(self)


@dataclass(frozen=True)
class Sizes:
    """How big the forum is: a few boards, 20-40 threads, so one crawl takes seconds."""

    boards: int
    threads_per_board: int
    posts_per_page: int
    max_thread_pages: int
    threads_per_list_page: int
    users: int


def _choice(seed: int, name: str, values: list[str]) -> str:
    return random.Random(f"universe:{seed}:{name}").choice(values)


def draw(seed: int) -> Dimensions:
    """The dimensions of forum ``seed`` (any int; the same seed, the same forum)."""
    picked = {f.name: _choice(seed, f.name, [v for v in DIMENSIONS[f.name] if v != "none"]
                              if f.name == "slug" else list(DIMENSIONS[f.name]))
              for f in fields(Dimensions)}
    if picked["encoding"] != "utf-8" and picked["encoding"] not in _LEGACY[picked["lang"]]:
        picked["encoding"] = _choice(seed, "encoding-" + picked["lang"], ["utf-8", *_LEGACY[picked["lang"]]])
    return resolve(Dimensions(**picked))


def resolve(dims: Dimensions, **changes: str) -> Dimensions:
    """``dims`` with ``changes``, and the values that cannot apply to the rest of the forum
    resolved to what it does: no slug without a slugged scheme (and words where one comes in),
    a post-number URL only on path schemes (a permalink elsewhere), the Chinese date format and
    legacy encodings only where the language is written in them."""
    picked = {**dims.as_dict(), **changes}
    for name, value in picked.items():
        if value not in DIMENSIONS[name]:
            raise ValueError(f"{name} has no value {value!r}; choose from {', '.join(DIMENSIONS[name])}")
    if picked["thread_url"] not in SLUG_SCHEMES:
        picked["slug"] = "none"
    elif picked["slug"] == "none":
        picked["slug"] = "words"
    if picked["post_link"] == "post_number" and picked["thread_url"] not in _POST_NUMBER_SCHEMES:
        picked["post_link"] = "permalink"
    if picked["time_format"] == "chinese" and picked["lang"] == "en":
        picked["time_format"] = "iso"
    if picked["encoding"] not in ("utf-8", *_LEGACY[picked["lang"]]):
        picked["encoding"] = "utf-8"
    return Dimensions(**picked)


def sizes_for(seed: int) -> Sizes:
    """Sizes of forum ``seed``: 3-4 boards of 6-10 threads, 5-10 posts a page, up to 4 pages."""
    rng = random.Random(f"universe:{seed}:sizes")
    return Sizes(boards=rng.randint(3, 4), threads_per_board=rng.randint(6, 10),
                 posts_per_page=rng.choice((5, 6, 8, 10)), max_thread_pages=rng.randint(3, 4),
                 threads_per_list_page=rng.choice((5, 8, 10)), users=rng.randint(12, 20))


def parse_seeds(text: str) -> list[int]:
    """``100-199`` or ``3,7,100-104`` as a list of seeds (for command lines)."""
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds += range(int(low), int(high or low) + 1)
    return seeds
