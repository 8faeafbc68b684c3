"""Forum times to ISO 8601: absolute, relative (``3 天前``, ``5 days ago``) and day words.

Forum headers use a small set of forms over and over, so the common ones are read by our own
regular expressions (microseconds per call, which matters when every post of every page has a
time). dateparser is the fallback for the long tail of languages and orders; it is imported on
first use only.

Relative forms are resolved against ``now``, the time the page was fetched, and keep ``now``'s
time zone. Absolute times keep no offset unless the text gives one: a forum's local time is not
the crawler's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

from forumcrawl.extractors.text import trie_pattern

__all__ = [
    "find_time",
    "find_times",
    "is_date_line",
    "month_first",
    "read_epoch",
    "read_markup_time",
    "read_time",
    "to_iso",
]

_MONTHS = {
    name: i
    for i, names in enumerate(
        (
            ("jan", "january", "janv", "janvier", "januar", "enero", "ene", "januari", "janeiro",
             "gennaio", "gen", "ocak"),
            ("feb", "february", "févr", "fevr", "février", "februar", "febrero", "februari",
             "fevereiro", "fev", "febbraio", "şubat", "subat"),
            ("mar", "march", "mars", "märz", "maerz", "marzo", "maret", "maart", "março", "marco",
             "mart"),
            ("apr", "april", "avr", "avril", "abril", "abr", "aprile", "nisan"),
            ("may", "mai", "mayo", "mei", "maio", "maggio", "mag", "mayıs", "mayis"),
            ("jun", "june", "juin", "juni", "junio", "junho", "giugno", "giu", "haziran"),
            ("jul", "july", "juil", "juillet", "juli", "julio", "julho", "luglio", "lug",
             "temmuz"),
            ("aug", "august", "août", "aout", "agosto", "ago", "agustus", "agu", "agt", "augustus",
             "ağustos", "agustos"),
            ("sep", "sept", "september", "septembre", "septiembre", "setembro", "set", "settembre",
             "eylül", "eylul"),
            ("oct", "october", "octobre", "oktober", "okt", "octubre", "outubro", "out", "ottobre",
             "ott", "ekim"),
            ("nov", "november", "novembre", "noviembre", "novembro", "kasım", "kasim"),
            ("dec", "december", "déc", "décembre", "dez", "dezember", "diciembre", "dic",
             "desember", "des", "dezembro", "dicembre", "aralık", "aralik"),
        ),
        start=1,
    )
    for name in names
}


_MONTH_ALT = trie_pattern(set(_MONTHS))
_WEEKDAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s*"

# Clock: 14:02, 14:02:33, 2:02 pm, 3pm, 12:58 a.m., 下午 2:02, midnight/noon.
_CLOCK = (
    r"(?:(?P<ampm_pre>上午|下午|晚上|凌晨|中午)\s*)?"
    r"(?:(?P<hh>\d{1,2})(?::(?P<mi>\d{2})(?::(?P<ss>\d{2})(?:\.\d+)?)?)?"
    r"\s*(?P<ampm>[ap]\.?\s?m\.?(?![a-z]))?"
    r"|(?P<word>midnight|noon))"
)
_TZ = r"(?:\s*(?P<tz>Z|UTC|GMT|[+-]\d{2}:?\d{2}|(?:UTC|GMT)\s*[+-]\d{1,2}(?::?\d{2})?))?"

_NUMERIC_DATE = re.compile(
    r"(?P<y>(?:19|20)\d{2})\s*[-/.年]\s*(?P<m>\d{1,2})\s*[-/.月]\s*(?P<d>\d{1,2})(?:\s*[日号號])?"
    r"(?:(?:\s*[T,]\s*|\s+|\s*(?:at|um|à|a las)\s+)" + _CLOCK + r")?" + _TZ,
    re.IGNORECASE,
)
# 05.03.2024 / 03/05/2024 is ambiguous: read day first (most of the world), month first only
# when the second number cannot be a month.
_DMY_DATE = re.compile(
    r"(?<!\d)(?P<a>\d{1,2})[./-](?P<b>\d{1,2})[./-](?P<y>(?:19|20)\d{2})"
    r"(?:(?:\s*,\s*|\s+)" + _CLOCK + r")?",
    re.IGNORECASE,
)
_NAMED_DATE = re.compile(
    r"(?:" + _WEEKDAY + r")?"
    r"(?:(?P<mon1>" + _MONTH_ALT + r")\.?\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?"
    r"|(?P<d2>\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:(?:of|de)\s+)?(?P<mon2>" + _MONTH_ALT + r")\.?,?)"
    r"(?:\s+(?:de\s+)?(?P<y>(?:19|20)\d{2}))?"
    r"(?:(?:\s*,\s*|\s+|\s*(?:at|um|à|a las)\s+)(?:@\s*)?" + _CLOCK + r")?" + _TZ,
    re.IGNORECASE,
)
_UNITS = {
    "秒": "seconds", "秒钟": "seconds", "second": "seconds", "sec": "seconds", "s": "seconds",
    "分": "minutes", "分钟": "minutes", "分鐘": "minutes", "minute": "minutes", "min": "minutes",
    "小时": "hours", "小時": "hours", "个小时": "hours", "個小時": "hours", "hour": "hours",
    "hr": "hours", "h": "hours",
    "天": "days", "日": "days", "day": "days", "d": "days",
    "周": "weeks", "星期": "weeks", "个星期": "weeks", "個星期": "weeks", "礼拜": "weeks",
    "week": "weeks", "wk": "weeks", "w": "weeks",
    "个月": "months", "個月": "months", "月": "months", "month": "months", "mo": "months",
    "年": "years", "year": "years", "yr": "years", "y": "years",
}
_CN_NUMBERS = {"一": 1, "两": 2, "兩": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
               "八": 8, "九": 9, "十": 10, "几": 3, "幾": 3, "a": 1, "an": 1, "one": 1, "a few": 3}
_RELATIVE_ZH = re.compile(
    r"(?P<n>\d+|半|[一两兩二三四五六七八九十几幾])\s*"
    r"(?P<unit>秒钟|秒|分钟|分鐘|分|个小时|個小時|小时|小時|天|日|个星期|個星期|星期|礼拜|周|个月|個月|年)"
    r"\s*(?:之前|以前|前)"
)
_RELATIVE_EN = re.compile(
    r"\b(?P<n>\d+|an?|one|a few)\s*"
    r"(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|wks?|months?|mos?|years?|yrs?"
    r"|[smhdwy])\.?\s+ago\b",
    re.IGNORECASE,
)
_HALF_HOUR = re.compile(r"半\s*(?:个|個)?\s*(?:小时|小時|钟头|鐘頭)\s*(?:之前|以前|前)")
_JUST_NOW = re.compile(r"刚刚|剛剛|刚才|剛才|just now|a moment ago|moments ago|few seconds ago", re.I)
_DAY_WORD = re.compile(
    r"(?P<day>今天|今日|昨天|昨日|前天|大前天|today|yesterday)"
    r"(?:\s*(?:,|at|@)?\s*" + _CLOCK + r")?",
    re.IGNORECASE,
)
_DAY_OFFSETS = {"今天": 0, "今日": 0, "today": 0, "昨天": 1, "昨日": 1, "yesterday": 1,
                "前天": 2, "大前天": 3}
_PREFIX = r"(?:(?:发表于|發表於|发表时间|發表時間|发布于|發佈於|回复于|回覆於|(?<![a-z])(?:posted\s+on|posted|on))\s*[:：]?\s*)?"

# How a time expression can start: a digit, a Chinese numeral or word, or the first three
# characters of a label or of a month, weekday, relative or day word. Without this lookahead
# the search tries the whole alternation at every character of a header (most of a post's time
# reading). With it, two character-class tests skip most positions where none can start, and
# the Latin pairs that pass them ("th", "me", "a ") must go on as such a word does ("thu",
# "mar", "a d"); "on", "a" and "an" must begin a word, as the label's look-behind and the
# relative words' ``\b`` ask ("person", "was"). Each branch opens with its letter in every case
# IGNORECASE reads it in, without IGNORECASE, so that the engine passes over the branches of
# other letters in one set test each. Together a third of the search's instructions on running
# text, the lines :func:`is_date_line` reads. tests/test_dates.py checks it against the pattern.
_START = (
    r"(?=[\d半一两兩二三四五六七八九十几幾今昨前大刚剛发發回]"
    r"|(?=[adefghjklmnopsştwy][abcdeghikmnoprstuvwyéäğ\s])(?:"
    r"(?-i:[aA])(?:(?<![a-z]a)(?:\s[\sdfhmswy]|d[.\sa]|h[.\sor]|m[.\sio]|n[\sdhmswy]|s[.\se]"
    r"|w[.\sek]|y[.\ser])|\sm|[bpv]r|g[otu]|ou|oû|ra|ug|ğu)"
    r"|(?-i:[dD])(?:e[csz]|ic|éc)|(?-i:[eE])(?:ki|ne|yl)|(?-i:[fF])(?:e[bvw]|ri|év)"
    r"|(?-i:[gG])(?:en|iu)|(?-i:[hH])az|(?-i:[jJ])(?:an|u[ilns])|(?-i:[kK\u212a])as|(?-i:[lL])ug"
    r"|(?-i:[mM])(?:a[aegiry]|ei|o[mn]|är)|(?-i:[nN])(?:is|ov)"
    r"|(?-i:[oO])(?:(?<![a-z]o)n|c[at]|[ktu]t)|(?-i:[pP])os|(?-i:[sS\u017f])(?:at|e[pt]|u[bn])"
    r"|(?-i:[tT])(?:em|hu|od|ue)|(?-i:[wW])ed|(?-i:[yY])es|(?-i:[şŞ])ub))"
)

# What every time expression holds: a digit, or a character or word of the branches without
# one (half an hour, Chinese numerals, "ago", "just now", today and yesterday). Text without any
# is refused in one character scan, before the search tries its alternation (a page's short
# plain blocks are read for datelines; most hold none). Two patterns without IGNORECASE, each
# opening with a set of characters, so that the regex engine skips in C to where one may start:
# the characters have no case, and the words are written in every case IGNORECASE reads them in
# (the long s "ſ" as an "s" too; tests/test_dates.py compares them character by character). One
# IGNORECASE alternation tried its words at every position: twice the instructions.
_TIME_CHAR = re.compile(r"[\d半一两兩二三四五六七八九十几幾今昨刚剛]")
_TIME_WORD = re.compile(
    r"[前aAjJtTyY](?:(?<=前)天|(?<=[aA])[gG][oO]|(?<=[jJ])[uU][sSſ][tT] [nN][oO][wW]"
    r"|(?<=[tT])[oO][dD][aA][yY]|(?<=[yY])[eE][sSſ][tT][eE][rR][dD][aA][yY])"
)


def _may_hold_time(text: str, start: int = 0) -> bool:
    """Whether ``text`` from ``start`` holds a digit or a character or word every time
    expression without a digit holds (see :data:`_TIME_CHAR`)."""
    return _TIME_CHAR.search(text, start) is not None or _TIME_WORD.search(text, start) is not None

_FIND_RE = re.compile(
    _START
    + _PREFIX
    + r"(?:"
    + _NUMERIC_DATE.pattern
    + r"|"
    + _NAMED_DATE.pattern.replace("?P<", "?P<n_")
    + r"|"
    + _HALF_HOUR.pattern
    + r"|"
    + _RELATIVE_ZH.pattern.replace("?P<", "?P<z_")
    + r"|"
    + _RELATIVE_EN.pattern.replace("?P<", "?P<e_")
    + r"|"
    + _JUST_NOW.pattern
    + r"|"
    + _DAY_WORD.pattern.replace("?P<", "?P<w_")
    + r"|"
    + _DMY_DATE.pattern.replace("?P<", "?P<x_")
    + r")",
    re.IGNORECASE,
)


# Group names per branch prefix (none in the single patterns, ``n_``/``w_``/``x_`` in
# :data:`_FIND_RE`), so that a match's groups are read in one ``group()`` call.
_CLOCK_GROUPS = {
    p: tuple(p + g for g in ("word", "hh", "mi", "ss", "ampm", "ampm_pre"))
    for p in ("", "n_", "w_", "x_")
}
_NAMED_GROUPS = {p: tuple(p + g for g in ("mon1", "mon2", "d1", "d2", "y", "tz")) for p in ("", "n_")}


def _clock(match: re.Match[str], prefix: str = "") -> tuple[int, int, int] | None:
    """Hour, minute, second of the clock groups of ``match`` (``None`` when absent)."""
    word, hh, mi, ss, ampm, pre = match.group(*_CLOCK_GROUPS[prefix])
    if word:
        return (0, 0, 0) if word.lower() == "midnight" else (12, 0, 0)
    if hh is None:
        return None
    if mi is None and not ampm:
        return None  # a bare number after a date is not a time
    hour = int(hh)
    pm = (ampm and ampm.lower().startswith("p")) or pre in {"下午", "晚上"}
    am = (ampm and ampm.lower().startswith("a")) or pre in {"上午", "凌晨"}
    if pm and hour < 12:
        hour += 12
    elif am and hour == 12:
        hour = 0
    elif pre == "中午" and hour < 11:
        hour += 12
    if hour > 23 or int(mi or 0) > 59 or int(ss or 0) > 59:
        return None
    return hour, int(mi or 0), int(ss or 0)


def _tz(raw: str | None) -> timezone | None:
    if not raw:
        return None
    text = raw.strip().upper()
    if text in {"Z", "UTC", "GMT"}:
        return timezone.utc
    m = re.search(r"([+-])(\d{1,2}):?(\d{2})?", text)
    if not m:
        return None
    delta = timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0))
    return timezone(-delta if m.group(1) == "-" else delta)


def _format(moment: datetime, *, with_time: bool) -> str:
    if not with_time:
        return moment.date().isoformat()
    return moment.replace(microsecond=0).isoformat()


def _build(
    y: int, mo: int, d: int, clock: tuple[int, int, int] | None, tz: timezone | None = None
) -> str | None:
    try:
        moment = datetime(y, mo, d, *(clock or (0, 0, 0)), tzinfo=tz)
    except ValueError:
        return None
    return moment.isoformat() if clock is not None else moment.date().isoformat()


def _relative(n_raw: str, unit_raw: str, now: datetime) -> str | None:
    """``now`` minus the amount; None when the amount leaves the calendar (``99999999天前``)."""
    n_key = n_raw.lower()
    n = 0.5 if n_raw == "半" else (int(n_raw) if n_raw.isdigit() else _CN_NUMBERS.get(n_key, 1))
    unit = _UNITS.get(unit_raw.lower().rstrip("s") if unit_raw.isascii() else unit_raw)
    if unit is None:
        unit = _UNITS.get(unit_raw.lower(), "days")
    try:
        if unit == "months":
            delta = timedelta(days=30 * n)
        elif unit == "years":
            delta = timedelta(days=365 * n)
        else:
            delta = timedelta(**{unit: n})
        moment = now - delta
    except OverflowError:
        return None
    return _format(moment, with_time=unit not in {"months", "years"})


def _named(m: re.Match[str], now: datetime, p: str = "") -> str | None:
    mon1, mon2, d1, d2, y, tz_raw = m.group(*_NAMED_GROUPS[p])
    mon = _MONTHS[(mon1 or mon2).lower().rstrip(".")]
    day = int(d1 or d2)
    year = int(y) if y else now.year
    clock, tz = _clock(m, p), _tz(tz_raw)
    result = _build(year, mon, day, clock, tz)
    if result and not y and result[:10] > now.date().isoformat():
        result = _build(year - 1, mon, day, clock, tz)
    return result


def _day_word(m: re.Match[str], now: datetime, p: str = "") -> str:
    day = (now - timedelta(days=_DAY_OFFSETS[m[p + "day"].lower()])).date()
    clock = _clock(m, p)
    moment = datetime(day.year, day.month, day.day, *(clock or (0, 0, 0)), tzinfo=now.tzinfo)
    return _format(moment, with_time=clock is not None)


def _dmy(m: re.Match[str], p: str = "", month_first: bool = False) -> str | None:
    a, b = int(m[p + "a"]), int(m[p + "b"])
    day, month = (b, a) if b > 12 or (month_first and a <= 12) else (a, b)
    return _build(int(m[p + "y"]), month, day, _clock(m, p))


def _fast(text: str, now: datetime) -> str | None:
    """Our own patterns, most frequent forms first; ``None`` when none matches."""
    m = _NUMERIC_DATE.search(text)
    if m:
        return _build(int(m["y"]), int(m["m"]), int(m["d"]), _clock(m), _tz(m["tz"]))
    m = _NAMED_DATE.search(text)
    if m:
        return _named(m, now)
    if _HALF_HOUR.search(text):
        return _format(now - timedelta(minutes=30), with_time=True)
    m = _RELATIVE_ZH.search(text) or _RELATIVE_EN.search(text)
    if m:
        return _relative(m["n"], m["unit"], now)
    if _JUST_NOW.search(text):
        return _format(now, with_time=True)
    m = _DAY_WORD.search(text)
    if m:
        return _day_word(m, now)
    m = _DMY_DATE.search(text)
    if m:
        return _dmy(m)
    return None


def _found_iso(m: re.Match[str], now: datetime, month_first: bool = False) -> str | None:
    """ISO 8601 of a :data:`_FIND_RE` match, read from the groups of the branch that matched."""
    y, mo, d, tz = m.group("y", "m", "d", "tz")
    if d:
        return _build(int(y), int(mo), int(d), _clock(m), _tz(tz))
    if m["n_mon1"] or m["n_mon2"]:
        return _named(m, now, "n_")
    if m["z_unit"]:
        return _relative(m["z_n"], m["z_unit"], now)
    if m["e_unit"]:
        return _relative(m["e_n"], m["e_unit"], now)
    if m["w_day"]:
        return _day_word(m, now, "w_")
    if m["x_y"]:
        return _dmy(m, "x_", month_first)
    if _HALF_HOUR.search(m.group()):
        return _format(now - timedelta(minutes=30), with_time=True)
    return _format(now, with_time=True)  # the only branch left: "just now"


@lru_cache(maxsize=1)
def _dateparser() -> Any:
    import dateparser

    return dateparser


def to_iso(raw: str, *, now: datetime) -> str | None:
    """Read a forum time and return it as ISO 8601, or ``None`` when it is not a time.

    ``now`` is the fetch time that relative forms (``3 天前``, ``昨天 12:30``, ``5 days ago``)
    are counted from. A date without a time gives ``YYYY-MM-DD``; a time gives
    ``YYYY-MM-DDTHH:MM:SS`` (with an offset only when the text or ``now`` carries one).

    Examples
    --------
    >>> now = datetime(2024, 3, 8, 9, 0)
    >>> to_iso("发表于 2024-3-5 14:02", now=now)
    '2024-03-05T14:02:00'
    >>> to_iso("3 天前", now=now)
    '2024-03-05T09:00:00'
    >>> to_iso("Tue Mar 05, 2024 2:02 pm", now=now)
    '2024-03-05T14:02:00'
    >>> to_iso("1709647320000", now=now)
    '2024-03-05T14:02:00+00:00'
    """
    if not raw or not raw.strip():
        return None
    text = " ".join(raw.split())
    # A Unix time (a page's ``article:published_time`` in milliseconds) is UTC; dateparser read
    # it in the machine's own time zone, after loading itself (0.3 s).
    fast = read_epoch(text) or _fast(text, now)
    if fast is not None:
        return fast
    if not any(c.isdigit() for c in text) and len(text) > 40:
        return None
    settings = {"RELATIVE_BASE": now.replace(tzinfo=None), "PREFER_DATES_FROM": "past"}
    try:
        parsed = _dateparser().parse(text, settings=settings)
    except (ValueError, OverflowError, TypeError):
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None and now.tzinfo is not None and _looks_relative(text):
        parsed = parsed.replace(tzinfo=now.tzinfo)
    return _format(parsed, with_time=True)


def _looks_relative(text: str) -> bool:
    return bool(re.search(r"ago|前|昨|今|yesterday|today", text, re.IGNORECASE))


def find_time(text: str) -> str | None:
    """Locate the first time expression in ``text`` (a post header) and return it as written.

    A leading label such as ``发表于`` or ``Posted on`` is kept, so the result is what a reader
    sees; pass it to :func:`to_iso` to read it.

    Examples
    --------
    >>> find_time("楼主 张三 发表于 2024-3-5 14:02 | 只看该作者")
    '发表于 2024-3-5 14:02'
    >>> find_time("By: alice on Jan. 20, 2023, 12:58 a.m.")
    'on Jan. 20, 2023, 12:58 a.m.'
    """
    m = _find(text)
    return m.group().strip() if m else None


def find_times(text: str) -> list[str]:
    """Every time expression in ``text``, as written (see :func:`find_time`): what an index
    row shows of its thread's last post, whatever form the site writes it in.

    Examples
    --------
    >>> find_times("12 replies · 3 小时前 · last: 2024-3-5 14:02")
    ['3 小时前', '2024-3-5 14:02']
    """
    found = []
    m = _find(text)
    while m is not None:
        found.append(m.group().strip())
        m = _find(text, m.end())
    return found


def is_date_line(line: str) -> bool:
    """Whether a time expression takes half of ``line`` or more: the line is a date.

    A named date without a year or a clock counts here, though :func:`find_time` looks past
    it in running text ("may 5 people"): on a line of its own, "November 12" is the date of an
    archive's or a teaser list's item.

    Examples
    --------
    >>> is_date_line("November 12"), is_date_line("强图打榜 2024-05-23 09:41")
    (True, True)
    >>> is_date_line("We may 5 times a day check the river level")
    False
    """
    if not line or not _may_hold_time(line):
        return False
    found = _FIND_RE.search(line)
    while found is not None:
        if 2 * len(found.group().strip()) >= len(line):
            return True
        if 2 * (len(line) - found.end()) < len(line):
            return False  # what follows is under half the line: no match in it is long enough
        found = _FIND_RE.search(line, found.end())
    return False


def _find(text: str, start: int = 0) -> re.Match[str] | None:
    if not text or not _may_hold_time(text, start):
        return None
    m = _FIND_RE.search(text, start)
    # "May 5" without a year or a clock is too weak on its own ("may 5 people ..."): look on.
    while m is not None and (m["n_mon1"] or m["n_mon2"]) and not (m["n_y"] or m["n_hh"] or m["n_word"]):
        m = _FIND_RE.search(text, m.end())
    return m


def read_time(text: str, *, now: datetime, month_first: bool = False) -> tuple[str, str | None] | None:
    """:func:`find_time` and :func:`to_iso` in one regex pass: ``(raw, iso)`` or ``None``.

    The ISO form is built from the groups of the match itself, so a post header is searched
    once and dateparser is never reached (this runs for every post of every page).
    ``month_first`` reads ``03-05-2024`` as March 5 (a site's learned order, see
    :func:`month_first`); the default reads it day first, as most of the world writes it.

    Examples
    --------
    >>> read_time("By: alice on Jan. 20, 2023, 12:58 a.m.", now=datetime(2024, 3, 8))
    ('on Jan. 20, 2023, 12:58 a.m.', '2023-01-20T00:58:00')
    """
    m = _find(text)
    if m is None:
        return None
    return m.group().strip(), _found_iso(m, now, month_first)


#: Epoch times in markup (``data-time="1708109280"``, ``data-timestamp`` in milliseconds) are
#: read when they fall between these years; other numbers (post ids, counts) are not times.
_EPOCH_YEARS = (1995, 2100)
_EPOCH_RE = re.compile(r"\d{9,10}|\d{12,13}")


def read_epoch(value: str) -> str | None:
    """ISO 8601 (UTC) of a Unix time in seconds or milliseconds, ``None`` for other values.

    Engines that render times with scripts put them in attributes as epoch numbers.

    Examples
    --------
    >>> read_epoch("1708109280"), read_epoch("1708109280000"), read_epoch("2356")
    ('2024-02-16T18:48:00+00:00', '2024-02-16T18:48:00+00:00', None)
    """
    digits = value.strip()
    if not _EPOCH_RE.fullmatch(digits):
        return None
    seconds = int(digits) / (1000 if len(digits) > 10 else 1)
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    if not _EPOCH_YEARS[0] <= moment.year < _EPOCH_YEARS[1]:
        return None
    return _format(moment, with_time=True)


def read_markup_time(value: str, *, now: datetime, month_first: bool = False) -> tuple[str, str | None] | None:
    """``(raw, iso)`` of a time given in markup (an attribute or ``content``): an epoch number,
    else any form :func:`read_time` reads; ``None`` when the value holds no time."""
    epoch = read_epoch(value)
    if epoch is not None:
        return value.strip(), epoch
    return read_time(value, now=now, month_first=month_first)


def month_first(texts: list[str], pages: Sequence[Sequence[str]] = ()) -> bool:
    """Whether a site writes numeric dates month first (``10-30-2026``): some of its dates
    can only be read so, and more of them than can only be read day first. When none can be
    read one way only, ``pages`` (each page's post times, in post order) decide: a page's
    replies come in order and close together, so the reading in which more pages are in order,
    then the one with the shorter gaps between replies, wins (``11-05``, ``11-06``: a day
    apart month first, a month apart day first).

    Examples
    --------
    >>> month_first(["11-05-2026, 04:11 AM", "10-30-2026, 09:03 PM"]), month_first(["05.11.2026"])
    (True, False)
    >>> month_first([], [["11-05-2026 04:11", "11-06-2026 09:03", "11-07-2026 10:00"]])
    True
    """
    votes = 0
    for text in texts:
        m = _DMY_DATE.search(text) if not _NUMERIC_DATE.search(text) else None
        if m:
            a, b = int(m["a"]), int(m["b"])
            votes += (b > 12) - (a > 12)
    if votes or not pages:
        return votes > 0
    return _order(pages, True) < _order(pages, False)


def _order(pages: Sequence[Sequence[str]], month_first: bool) -> tuple[int, float]:
    """How well the pages' times read ``month_first``: pages out of order (negated counts sort
    first), then the seconds between consecutive replies, summed."""
    epoch = datetime(2000, 1, 1)
    unordered, gaps = 0, 0.0
    for texts in pages:
        read = [read_time(t, now=epoch, month_first=month_first) for t in texts]
        times = []
        for found in read:
            try:
                times.append(datetime.fromisoformat(found[1][:19]) if found and found[1] else None)
            except ValueError:
                times.append(None)
        known = [t for t in times if t is not None]
        pairs = list(zip(known, known[1:]))
        unordered += any(b < a for a, b in pairs)
        gaps += sum(abs((b - a).total_seconds()) for a, b in pairs)
    return unordered, gaps
