"""How the three families write a post's time, and what that text means relative to "now".

A page can only tell a reader what it shows: "3 天前" says nothing about the hour. The truth
therefore records the time a careful parser *can* recover from the text, and the generator
picks the page text from the real time the way Discuz does (minutes, half an hour, hours today,
yesterday, the day before, days within a week, then the absolute date).
"""

from __future__ import annotations

from datetime import datetime, timedelta

__all__ = ["DEFAULT_NOW", "discuz_time", "iso", "phpbb_time", "relative_zh_time"]

#: The site's clock when none is given: fixed, so relative times and their truth never drift.
DEFAULT_NOW = datetime(2024, 3, 8, 15, 30)

_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def iso(moment: datetime) -> str:
    """ISO 8601 to the second, the form every truth time uses."""
    return moment.isoformat(timespec="seconds")


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
