"""Wrapper induction on the mock forum over HTTP: templates, extraction, JSON round-trip."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from datetime import datetime

import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from forumcrawl.document import Document
from forumcrawl.extractors.wrapper import (
    WrapperInducer,
    extract_with_templates,
    learn_templates,
    template_stage,
)
from forumcrawl.mockforum import MockForumServer, serve


def fetch(url: str) -> Document:
    with urllib.request.urlopen(url, timeout=10) as response:
        return Document.from_bytes(response.read(), url, response.headers.get("Content-Type"))


@pytest.fixture(scope="module")
def phpbb() -> Iterator[MockForumServer]:
    with serve("phpbb", preset="small") as server:
        yield server


@pytest.fixture(scope="module")
def pages(phpbb: MockForumServer) -> dict[str, Document]:
    truth = phpbb.truth
    urls = [u for u in truth.topic_urls + truth.non_topic_urls if u not in truth.broken]
    return {u: fetch(u) for u in urls}


@pytest.fixture(scope="module")
def threads(phpbb: MockForumServer, pages: dict[str, Document]) -> list[str]:
    """Healthy thread pages (the broken ones are the other stages' business)."""
    return [u for u in phpbb.truth.topic_urls if u in pages]


def check_thread(result, truth, url: str) -> None:
    gold = truth.posts_for(url)
    assert result is not None
    assert result.page_type == "thread"
    assert result.title == truth.thread_for(url).title
    assert [p.author for p in result.posts] == [g.author for g in gold]
    assert [p.published for p in result.posts] == [g.published for g in gold]
    assert [p.text for p in result.posts] == [g.text for g in gold]


def test_inducer_on_one_cluster(
    phpbb: MockForumServer, pages: dict[str, Document], threads: list[str]
) -> None:
    truth = phpbb.truth
    model = WrapperInducer(lam=0.5).fit([pages[u] for u in threads[:6]])
    assert model.page_type_ == "thread"
    now = datetime.fromisoformat(truth.now)
    for url in threads[6:]:  # pages not seen while learning
        check_thread(model.extract(pages[url], now=now), truth, url)


def test_inducer_contract(pages: dict[str, Document], threads: list[str]) -> None:
    docs = [pages[u] for u in threads[:4]]
    model = WrapperInducer(lam=0.6)
    assert clone(model).get_params() == {"lam": 0.6}
    with pytest.raises(NotFittedError):
        model.extract(docs[0])
    assert model.fit(docs) is model
    first = json.dumps(model.to_dict(), sort_keys=True)
    assert json.dumps(model.fit(docs).to_dict(), sort_keys=True) == first
    restored = WrapperInducer.from_dict(json.loads(first))
    assert json.dumps(restored.to_dict(), sort_keys=True) == first
    assert restored.extract(docs[0]) == model.extract(docs[0])
    with pytest.raises(ValueError, match="lam"):
        WrapperInducer(lam=0).fit(docs)
    with pytest.raises(ValueError, match="2 pages"):
        WrapperInducer().fit(docs[:1])


def test_learn_templates_and_stage(
    phpbb: MockForumServer, pages: dict[str, Document], threads: list[str]
) -> None:
    truth = phpbb.truth
    rule = json.loads(json.dumps(learn_templates(list(pages.values()))))  # JSON-ready
    assert "thread" in rule["page_types"]
    assert rule["rule_id"].startswith("template-")
    now = datetime.fromisoformat(truth.now)
    for url in threads:
        check_thread(extract_with_templates(rule, pages[url], now=now), truth, url)
    text, posts = template_stage(rule, pages[threads[0]], now)
    assert [p.floor for p in posts] == list(range(1, len(posts) + 1))
    assert text == "\n\n".join(p.text for p in posts)
    profile = next(u for u in truth.non_topic_urls if "viewprofile" in u)
    assert template_stage(rule, pages[profile], now) is None


def test_page_that_fits_no_template(pages: dict[str, Document], threads: list[str]) -> None:
    rule = learn_templates([pages[u] for u in threads])
    other = Document.from_text("<html><body><p>hello</p></body></html>", "http://other.test/")
    assert extract_with_templates(rule, other) is None
    assert template_stage(rule, other, datetime(2024, 1, 1)) is None


def hand_page(i: int, *, nav: int = 20, author: bool = True) -> Document:
    """A thread page: a navigation of ``nav`` links, a title, and three posts."""
    links = "".join(f"<li>n{k}</li>" for k in range(nav))
    posts = "".join(
        f"<div class=p>{f'<b>user{i}{k}</b>' if author else ''}<span>2024-01-0{k + 1} 10:0{i}</span><p>post {k} of page {i}: {'words ' * (i + k)}</p></div>"
        for k in range(3)
    )
    html = f"<html><head><title>Topic {i}</title></head><body><ul>{links}</ul><h1>Topic {i}</h1><div id=posts>{posts}</div></body></html>"
    return Document.from_text(html, f"http://hand.test/t{i}")


def test_required_nodes_tolerance() -> None:
    """A page may miss a few required nodes outside the post list, none inside it."""
    model = WrapperInducer().fit([hand_page(i) for i in range(1, 5)])
    assert model.page_type_ == "thread"
    one_link_short = model.extract(hand_page(6, nav=19))  # 1 of ~24 page-level nodes missing
    assert one_link_short is not None
    assert [p.author for p in one_link_short.posts] == ["user60", "user61", "user62"]
    assert model.extract(hand_page(6, nav=14)) is None  # a quarter of them missing
    assert model.extract(hand_page(6, author=False)) is None  # a post-list node missing
