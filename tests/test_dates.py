from __future__ import annotations

import functools
import itertools
import re
from datetime import datetime, timedelta, timezone

import pytest

from forumcrawl.extractors import dates
from forumcrawl.extractors.dates import find_time, is_date_line, to_iso
from tests.regex_first import prefixes

NOW = datetime(2024, 3, 8, 9, 0)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("发表于 2024-3-5 14:02", "2024-03-05T14:02:00"),
        ("2024-03-05 14:02:33", "2024-03-05T14:02:33"),
        ("2024年3月5日 14:02", "2024-03-05T14:02:00"),
        ("2024/3/5 下午 2:02", "2024-03-05T14:02:00"),
        ("3 天前", "2024-03-05T09:00:00"),
        ("2 小时前", "2024-03-08T07:00:00"),
        ("半小时前", "2024-03-08T08:30:00"),
        ("刚刚", "2024-03-08T09:00:00"),
        ("昨天 12:30", "2024-03-07T12:30:00"),
        ("前天 08:15", "2024-03-06T08:15:00"),
        ("Tue Mar 05, 2024 2:02 pm", "2024-03-05T14:02:00"),
        ("March 5, 2024", "2024-03-05"),
        ("5 March 2024", "2024-03-05"),
        ("5 days ago", "2024-03-03T09:00:00"),
        ("an hour ago", "2024-03-08T08:00:00"),
        ("yesterday at 3pm", "2024-03-07T15:00:00"),
        ("Jan. 20, 2023, 12:58 a.m.", "2023-01-20T00:58:00"),
        ("Jan. 13, 2023, midnight", "2023-01-13T00:00:00"),
        ("05.03.2024 14:02", "2024-03-05T14:02:00"),
        ("2024-03-05T14:02:33Z", "2024-03-05T14:02:33+00:00"),
        ("2024-03-05 14:02 +08:00", "2024-03-05T14:02:00+08:00"),
        ("1709647320", "2024-03-05T14:02:00+00:00"),  # Unix time: UTC on any machine
        ("1709647320000", "2024-03-05T14:02:00+00:00"),
    ],
)
def test_to_iso_forms(raw: str, expected: str) -> None:
    assert to_iso(raw, now=NOW) == expected


def test_relative_keeps_now_timezone() -> None:
    now = datetime(2024, 3, 8, 9, 0, tzinfo=timezone(timedelta(hours=8)))
    assert to_iso("3 天前", now=now) == "2024-03-05T09:00:00+08:00"


def test_named_date_without_year_is_not_in_the_future() -> None:
    assert to_iso("Dec 24 10:00", now=NOW) == "2023-12-24T10:00:00"


def test_dateparser_fallback_for_other_languages() -> None:
    assert to_iso("il y a 3 jours", now=NOW)[:10] == "2024-03-05"


@pytest.mark.parametrize(
    ("text", "found", "expected"),
    [
        ("Senin, 20 Mei 2024 18:04 WIB", "20 Mei 2024 18:04", "2024-05-20T18:04:00"),
        ("20 Mayıs 2024, 14:05", "20 Mayıs 2024, 14:05", "2024-05-20T14:05:00"),
        ("13 maggio 2024 alle", "13 maggio 2024", "2024-05-13"),
        ("5 maart 2024 14:02", "5 maart 2024 14:02", "2024-03-05T14:02:00"),
        ("Agustus 17, 2023", "Agustus 17, 2023", "2023-08-17"),
        ("14 de outubro de 2023", "14 de outubro de 2023", "2023-10-14"),
    ],
)
def test_month_names_of_more_languages_are_read_without_dateparser(
    text: str, found: str, expected: str
) -> None:
    """Post headers in Indonesian, Turkish, Italian, Dutch, Portuguese: read by the fast path."""
    assert dates.read_time(text, now=NOW) == (found, expected)


@pytest.mark.parametrize("raw", ["99999999天前", "99999999999 hours ago", "99999年前"])
def test_a_relative_time_off_the_calendar_is_no_time(raw: str) -> None:
    assert to_iso(raw, now=NOW) is None
    assert dates.read_time(f"发表于 {raw}", now=NOW) == (f"发表于 {raw}", None)


@pytest.mark.parametrize("raw", ["", "   ", "hello world", "Posts: 64"])
def test_not_a_time(raw: str) -> None:
    assert to_iso(raw, now=NOW) is None


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("楼主 张三 发表于 2024-3-5 14:02 | 只看该作者", "发表于 2024-3-5 14:02"),
        ("By: alice on Jan. 20, 2023, 12:58 a.m.", "on Jan. 20, 2023, 12:58 a.m."),
        ("李四 3 天前 回复", "3 天前"),
        ("Posted: Tue Mar 05, 2024 2:02 pm Post subject", "Posted: Tue Mar 05, 2024 2:02 pm"),
        ("bob — 5 days ago", "5 days ago"),
        ("沙发 王五 昨天 12:30", "昨天 12:30"),
        ("you may 5 times try", None),
        ("no time here", None),
    ],
)
def test_find_time(text: str, found: str | None) -> None:
    assert find_time(text) == found


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("November 12", True),  # find_time looks past a yearless date; alone on a line it is one
        ("12 Nov", True),
        ("强图打榜 2024-05-23 09:41:17", True),
        ("Posted: Tue Mar 05, 2024 2:02 pm by bob", True),
        ("you may 5 times try", False),
        ("The bridge reopened on November 12 after a long wait.", False),
        ("It opened on November 12, 2012 after a long wait for the town.", False),
        ("", False),
    ],
)
def test_a_date_line_is_mostly_a_date(line: str, expected: bool) -> None:
    assert is_date_line(line) is expected


@pytest.mark.parametrize(
    "text",
    ["刚刚", "剛才", "半个小时前", "三天前", "几分钟前", "前天", "今日", "a few minutes ago", "an hour ago",
     "Just now", "a moment ago", "Yesterday", "today at noon"],
)
def test_times_without_a_digit_pass_the_pre_check(text: str) -> None:
    assert dates._may_hold_time(text) and find_time(text) is not None


def test_time_words_read_in_every_case() -> None:
    """``_TIME_WORD`` (written without IGNORECASE, for speed) accepts each of its words with
    any one letter replaced exactly where the IGNORECASE alternation does: every character
    IGNORECASE reads as an ASCII letter (the capital, the long s, the Kelvin sign) is tried."""
    words = ["前天", "ago", "just now", "today", "yesterday"]
    reference = re.compile("|".join(words), re.IGNORECASE)
    letters = {chr(c) for c in range(0x110000) if re.fullmatch("[a-z]", chr(c), re.IGNORECASE)}
    for word in words:
        for i in range(len(word)):
            for c in letters | set(word):
                text = word[:i] + c + word[i + 1 :]
                assert (dates._TIME_WORD.fullmatch(text) is None) is (reference.fullmatch(text) is None), text


def _chars(item: tuple, constants: object) -> str:
    """Characters standing for one parsed-regex character item: its literals, the ends of its
    ranges, a few members of each category."""
    c = constants
    samples = {c.CATEGORY_DIGIT: "5\u0663", c.CATEGORY_SPACE: " \t\xa0\u3000"}
    op, av = item
    out = ""
    for kind, value in av if op is c.IN else ((op, av),):
        if kind is c.LITERAL:
            out += chr(value)
        elif kind is c.RANGE:
            out += chr(value[0]) + chr(value[1])
        else:
            assert kind is c.CATEGORY, f"unexpected regex item {kind}"
            out += samples[value]
    return out


@functools.cache
def _case_variants(char: str) -> list[str]:
    """The characters of the Basic Multilingual Plane that IGNORECASE reads as ``char``."""
    pattern = re.compile(re.escape(char), re.IGNORECASE)
    return [c for c in map(chr, range(0x10000)) if pattern.fullmatch(c)]


def test_search_lookahead_admits_every_start() -> None:
    """``_START`` only skips positions: every three characters a match can begin with must
    pass it (every two, for a match of two characters); those it lets through only where no
    letter comes before are the starts the pattern asks the same of (the label "on" behind
    ``(?<![a-z])``, the relative words "a", "an", "one" behind ``\\b``). It skips the common
    English pairs and words no time expression begins with."""
    parser = pytest.importorskip("re._parser")
    constants = pytest.importorskip("re._constants")
    pattern = dates._FIND_RE.pattern
    assert pattern.startswith(dates._START)
    rest = pattern[len(dates._START):]
    unguarded = rest.replace("|posted|on)", "|posted)")
    unguarded = unguarded.replace(r"(?P<e_n>\d+|an?|one|a few)", r"(?P<e_n>\d+)")
    assert len(unguarded) == len(rest) - len("|on") - len("|an?|one|a few")
    start = re.compile(dates._START, re.IGNORECASE)
    for text, after_letter in ((rest, False), (unguarded, True)):
        for begin in prefixes(parser.parse(text, re.IGNORECASE).data, constants, k=3):
            assert len(begin) > 1, "a one-character match"
            for first, *rest in itertools.product(*(_chars(item, constants) for item in begin)):
                for cased in _case_variants(first):  # the first letters in every case
                    line = "x" * after_letter + cased + "".join(rest)
                    assert start.match(line, after_letter), line
    assert not any(start.match(word) for word in ("the", "then", "me ", "a b", "seen", "end"))
    assert not any(start.match(word, 1) for word in ("person", "nation", "was ", "plan "))
