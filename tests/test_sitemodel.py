"""Site models are JSON data and survive a round trip through the file store."""

from __future__ import annotations

import json

import pytest

from forumcrawl.sitemodel import FileRuleStore, SiteModel


def test_with_rule_copies_and_round_trips(tmp_path):
    empty = SiteModel(site="bbs.test:8080")
    model = empty.with_rule("ksf", {"rule_id": "r1", "xpath": "//td[@class='t_f']"}, pages=5)
    assert empty.rules == {}
    assert model.rules["ksf"]["rule_id"] == "r1"
    assert model.info["ksf"] == {"pages": 5}
    store = FileRuleStore(tmp_path / "rules")
    path = store.put(model)
    assert path.name == "bbs.test_8080.json"
    assert json.loads(path.read_text("utf-8"))["site"] == "bbs.test:8080"
    assert store.get("bbs.test:8080") == model
    assert store.get("other.test") is None


def test_unreadable_or_newer_models_fail_clearly(tmp_path):
    store = FileRuleStore(tmp_path)
    (tmp_path / "a.test.json").write_text("{not json", "utf-8")
    with pytest.raises(ValueError, match="unreadable site model"):
        store.get("a.test")
    with pytest.raises(ValueError, match="newer"):
        SiteModel.from_dict({"site": "x", "version": 99})
