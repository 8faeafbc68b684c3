"""FORUMCRAWL_* values given as text take their default's type, or fail with one clear line."""

from __future__ import annotations

import pytest
from scrapy.settings import SETTINGS_PRIORITIES, Settings

from forumcrawl.config import SettingError, environment_settings, parse_setting, type_settings


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("FORUMCRAWL_EXTRACT_CASCADE", '["template", "cx"]', ["template", "cx"]),
        ("FORUMCRAWL_EXTRACT_CASCADE", "template, cx", ["template", "cx"]),
        ("FORUMCRAWL_EXTRACT_CASCADE", " [] ", []),
        ("FORUMCRAWL_EXTRACT_MIN_CHARS", "7", 7),
        ("FORUMCRAWL_LINK_MIN_PROBABILITY", "0.5", 0.5),
        ("FORUMCRAWL_VALUE_FILTER_ENABLED", "True", True),
        ("FORUMCRAWL_VALUE_FILTER_ENABLED", "off", False),
        ("FORUMCRAWL_VALUE_FILTER_ENABLED", "0", False),
        ("FORUMCRAWL_REDIS_URL", "redis://h:6379/0", "redis://h:6379/0"),
    ],
)
def test_text_takes_the_type_of_the_default(name, text, value):
    assert parse_setting(name, text) == value


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("FORUMCRAWL_EXTRACT_CASCADE", '["ksf",', "FORUMCRAWL_EXTRACT_CASCADE: not a JSON list"),
        ("FORUMCRAWL_EXTRACT_CASCADE", '["ksf", 3]', "expected a list of strings"),
        ("FORUMCRAWL_EXTRACT_MIN_CHARS", "20.5", "expected an integer, got '20.5'"),
        ("FORUMCRAWL_LINK_MIN_PROBABILITY", "high", "expected a number"),
        ("FORUMCRAWL_LEARN_ENABLED", "maybe", "expected true or false"),
        ("FORUMCRAWL_LEARN_URL_SAMPLE", True, "expected int, got True"),
        ("FORUMCRAWL_EXTRACT_CASCADE", 3, "expected list"),
    ],
)
def test_bad_values_are_one_line_errors(name, value, message):
    with pytest.raises(SettingError) as info:
        parse_setting(name, value)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_values_are_typed_at_their_priority():
    settings = Settings({"FORUMCRAWL_EXTRACT_CASCADE": ["ksf"]}, priority="project")
    settings.set("FORUMCRAWL_EXTRACT_CASCADE", '["dom","cx"]', priority="cmdline")
    settings.set("FORUMCRAWL_LEARN_URL_SAMPLE", "40", priority="project")
    type_settings(settings)
    assert settings["FORUMCRAWL_EXTRACT_CASCADE"] == ["dom", "cx"]
    assert settings.getpriority("FORUMCRAWL_EXTRACT_CASCADE") == SETTINGS_PRIORITIES["cmdline"]
    assert settings.getpriority("FORUMCRAWL_LEARN_URL_SAMPLE") == SETTINGS_PRIORITIES["project"]
    assert settings["FORUMCRAWL_LEARN_URL_SAMPLE"] == 40


def test_environment_holds_only_our_settings():
    environ = {"FORUMCRAWL_REDIS_URL": "redis://x", "FORUMCRAWL_NOPE": "1", "PATH": "/bin"}
    assert environment_settings(environ) == {"FORUMCRAWL_REDIS_URL": "redis://x"}
