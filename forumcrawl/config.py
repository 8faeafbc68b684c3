"""FORUMCRAWL_* settings given as text (``-s NAME=VALUE``, environment variables), typed once.

Scrapy splits a list setting given as text on commas, so the JSON list the docs show
(``["template","cx"]``) became the stages ``["template"`` and ``"cx"]``, and a bad number surfaced
as a traceback from deep inside a component. Here each text value takes the type of its default in
:mod:`forumcrawl.defaults` (a list from JSON or from a comma list), and a value that does not fit
is a :class:`SettingError` whose message is one line naming the setting.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from forumcrawl import defaults

__all__ = ["SettingError", "environment_settings", "parse_setting", "type_settings"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class SettingError(ValueError):
    """A FORUMCRAWL_* value that does not fit its setting; the message is one line for users."""


def _names() -> list[str]:
    return [name for name in vars(defaults) if name.startswith("FORUMCRAWL_")]


def _list(name: str, text: str) -> list[str]:
    if not text.startswith("["):
        return [part.strip() for part in text.split(",") if part.strip()]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingError(f"{name}: not a JSON list ({exc.msg}): {text!r}") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingError(f"{name}: expected a list of strings, got {text!r}")
    return value


#: Numeric settings that need more than 0 (a sample, a batch, a lease, a poll of nothing is no
#: crawl); every other number must be 0 or more, and a probability at most 1.
_POSITIVE = frozenset({
    "FORUMCRAWL_MAX_PAGE_BYTES", "FORUMCRAWL_LEARN_URL_SAMPLE", "FORUMCRAWL_LEARN_PAGE_SAMPLE",
    "FORUMCRAWL_LEARN_RELEARN_AFTER", "FORUMCRAWL_REDIS_BATCH", "FORUMCRAWL_REDIS_LEASE_SECONDS",
    "FORUMCRAWL_REDIS_LOCK_SECONDS", "FORUMCRAWL_REDIS_POLL_SECONDS",
})
_PROBABILITIES = frozenset({"FORUMCRAWL_LINK_MIN_PROBABILITY"})


def _in_range(name: str, value: Any) -> Any:
    """``value`` if it is in the range of the numeric setting ``name``, else a SettingError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if name in _POSITIVE and not value > 0:
        raise SettingError(f"{name}: expected a number above 0, got {value!r}")
    if not value >= 0:
        raise SettingError(f"{name}: expected 0 or more, got {value!r}")
    if name in _PROBABILITIES and value > 1:
        raise SettingError(f"{name}: expected a probability from 0 to 1, got {value!r}")
    return value


def parse_setting(name: str, value: Any) -> Any:
    """``value`` of the FORUMCRAWL_* setting ``name`` in its default's type (text is parsed),
    checked against the setting's range."""
    return _in_range(name, _typed(name, value))


def _typed(name: str, value: Any) -> Any:
    """``value`` of the FORUMCRAWL_* setting ``name`` in its default's type (text is parsed).

    Lists take JSON (``["template","cx"]``) or comma lists (``template,cx``), booleans
    ``1/0/true/false/yes/no/on/off``. Values that are not text must already have the right type.
    (Scrapy's own dict settings already read JSON text; ours have no dict.)
    """
    default = getattr(defaults, name)
    kind = type(default)
    if not isinstance(value, str):
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, tuple) and isinstance(default, list):
            return list(value)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise SettingError(f"{name}: expected {kind.__name__}, got {value!r}")
        return value
    text = value.strip()
    if isinstance(default, bool):
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise SettingError(f"{name}: expected true or false, got {value!r}")
    if isinstance(default, (int, float)):
        try:
            return kind(text)
        except ValueError:
            noun = "an integer" if kind is int else "a number"
            raise SettingError(f"{name}: expected {noun}, got {value!r}") from None
    if isinstance(default, list):
        return _list(name, text)
    return value


def type_settings(settings: Any) -> None:
    """Give every FORUMCRAWL_* value of a Scrapy ``settings`` object its type, at its priority."""
    for name in _names():
        if name in settings:
            typed = parse_setting(name, settings[name])
            if typed is not settings[name]:
                settings.set(name, typed, priority=settings.getpriority(name))


def environment_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The FORUMCRAWL_* settings set as environment variables of the same name (text, untyped)."""
    return {name: environ[name] for name in _names() if name in environ}
