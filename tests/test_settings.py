"""Settings: every default is documented, and the project settings load from anywhere."""

from __future__ import annotations

from pathlib import Path

import forumcrawl
from forumcrawl import defaults
from forumcrawl.runner import project_settings

ROOT = Path(forumcrawl.__file__).resolve().parents[1]


def test_every_forumcrawl_setting_is_in_the_readme():
    readme = (ROOT / "README.md").read_text("utf-8")
    names = [n for n in vars(defaults) if n.startswith("FORUMCRAWL_")]
    assert names
    missing = [n for n in names if f"`{n}`" not in readme]
    assert not missing, f"settings not documented in README.md: {missing}"


def test_project_settings_carry_our_defaults_and_overrides():
    settings = project_settings({"FORUMCRAWL_EXTRACT_MIN_CHARS": 5})
    assert settings.getlist("FORUMCRAWL_EXTRACT_CASCADE") == defaults.FORUMCRAWL_EXTRACT_CASCADE
    assert settings.getint("FORUMCRAWL_EXTRACT_MIN_CHARS") == 5
    assert settings.get("FEED_EXPORT_ENCODING") == "utf-8"
    assert settings.getbool("ROBOTSTXT_OBEY")
