"""Settings: the project settings load from anywhere (tests/test_docs.py checks they are documented)."""

from __future__ import annotations

from forumcrawl import defaults
from forumcrawl.runner import project_settings


def test_project_settings_carry_our_defaults_and_overrides():
    settings = project_settings({"FORUMCRAWL_EXTRACT_MIN_CHARS": 5})
    assert settings.getlist("FORUMCRAWL_EXTRACT_CASCADE") == defaults.FORUMCRAWL_EXTRACT_CASCADE
    assert settings.getint("FORUMCRAWL_EXTRACT_MIN_CHARS") == 5
    assert settings.get("FEED_EXPORT_ENCODING") == "utf-8"
    assert settings.getbool("ROBOTSTXT_OBEY")
