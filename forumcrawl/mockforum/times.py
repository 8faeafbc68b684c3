"""How the families write a post's time, and what that text means relative to "now".

A page can only tell a reader what it shows: "3 天前" says nothing about the hour. The truth
therefore records the time a careful parser *can* recover from the text, and the generator
picks the page text from the real time the way Discuz does (minutes, half an hour, hours today,
yesterday, the day before, days within a week, then the absolute date).
"""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta

__all__ = ["DEFAULT_NOW", "discourse_time", "discuz_time", "epoch", "iso", "iso_with_offset",
           "phpbb_time", "relative_zh_time", "vbulletin_time", "xenforo_time"]

#: The site's clock when none is given: fixed, so relative times and their truth never drift.
DEFAULT_NOW = datetime(2024, 3, 8, 15, 30)

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_FULL_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")
_FULL_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def iso(moment: datetime) -> str:
    """ISO 8601 to the second, the form every truth time uses."""
    return moment.isoformat(timespec="seconds")


def iso_with_offset(moment: datetime, offset: str = "+00:00") -> str:
    """ISO 8601 with a UTC offset, as machine-readable attributes carry it: a naive time is the
    site's local time, ``offset`` from UTC (``"Z"``, ``"+08:00"``, or ``"+0000"``, which also
    drops the colon from an aware time's own offset)."""
    text = moment.isoformat(timespec="seconds")
    if moment.tzinfo is None:
        return text + offset
    return text[:-3] + text[-2:] if len(offset) == 5 else text


def epoch(moment: datetime) -> int:
    """Unix seconds of ``moment`` (a naive time counts as UTC)."""
    if moment.tzinfo is not None:
        return int(moment.timestamp())
    return calendar.timegm(moment.timetuple())


def _clock(moment: datetime, *, pad: bool, space: bool = True) -> str:
    hour = moment.hour % 12 or 12
    suffix = "AM" if moment.hour < 12 else "PM"
    hours = f"{hour:02d}" if pad else str(hour)
    return f"{hours}:{moment.minute:02d}{' ' if space else ''}{suffix}"


def xenforo_time(moment: datetime, now: datetime) -> tuple[str, str]:
    """XenForo 2's visible text and title for ``moment``: "3 minutes ago", "Today at 2:02 PM",
    "Yesterday at …", "Sunday at …" within a week, then "Mar 5, 2024"."""
    clock = _clock(moment, pad=False)
    title = f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year} at {clock}"
    diff = now - moment
    days = (now.date() - moment.date()).days
    if timedelta(0) <= diff < timedelta(hours=1):
        minutes = int(diff.total_seconds() // 60)
        return ("A moment ago" if minutes < 1 else
                f"{minutes} minute{'s' if minutes > 1 else ''} ago"), title
    if days == 0:
        return f"Today at {clock}", title
    if days == 1:
        return f"Yesterday at {clock}", title
    if 1 < days < 7:
        return f"{_FULL_WEEKDAYS[moment.weekday()]} at {clock}", title
    return f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year}", title


def vbulletin_time(moment: datetime, now: datetime) -> str:
    """vBulletin's ``11-03-2026, 09:15 PM`` (US date order), "Today" and "Yesterday" for the
    last two days; the clock time is always there, so the text denotes ``moment`` exactly."""
    days = (now.date() - moment.date()).days
    day = {0: "Today", 1: "Yesterday"}.get(days, f"{moment:%m-%d-%Y}")
    return f"{day}, {_clock(moment, pad=True)}"


def discourse_time(moment: datetime) -> str:
    """Discourse's long form ``March 5, 2024, 2:02pm``."""
    return (f"{_FULL_MONTHS[moment.month - 1]} {moment.day}, {moment.year}, "
            f"{_clock(moment, pad=False, space=False).lower()}")


def discuz_time(moment: datetime) -> str:
    """Discuz's absolute form ``2024-3-5 14:02`` (month and day unpadded, hour padded)."""
    return f"{moment.year}-{moment.month}-{moment.day} {moment:%H:%M}"


def phpbb_time(moment: datetime) -> str:
    """phpBB's default English form ``Tue Mar 05, 2024 2:02 pm``, independent of the locale."""
    hour = moment.hour % 12 or 12
    suffix = "am" if moment.hour < 12 else "pm"
    return (
        f"{_WEEKDAYS[moment.weekday()]} {_MONTHS[moment.month - 1]} {moment.day:02d}, "
        f"{moment.year} {hour}:{moment.minute:02d} {suffix}"
    )


def relative_zh_time(moment: datetime, now: datetime) -> tuple[str, datetime]:
    """The Discuz-style relative text for ``moment`` and the time that text denotes.

    ``N 分钟前`` / ``半小时前`` / ``N 小时前`` (same day) and ``N 天前`` (3–7 calendar days ago)
    count back from ``now``; ``昨天 HH:MM`` / ``前天 HH:MM`` keep the clock time; anything older
    is written absolutely.
    """
    diff = now - moment
    if moment.date() == now.date() and diff >= timedelta(0):
        minutes = int(diff.total_seconds() // 60)
        if minutes < 30:
            minutes = max(minutes, 1)
            return f"{minutes} 分钟前", now - timedelta(minutes=minutes)
        if minutes < 60:
            return "半小时前", now - timedelta(minutes=30)
        return f"{minutes // 60} 小时前", now - timedelta(hours=minutes // 60)
    days = (now.date() - moment.date()).days
    if days == 1:
        return f"昨天 {moment:%H:%M}", moment
    if days == 2:
        return f"前天 {moment:%H:%M}", moment
    if 2 < days <= 7:
        return f"{days} 天前", now - timedelta(days=days)
    return discuz_time(moment), moment
