"""SiteLearner: sample, learn once, store, reuse; relearn the extraction rule after drift."""

from __future__ import annotations

import urllib.request
from datetime import datetime, timezone

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.ksf import apply_rule, KsfRule
from forumcrawl.learning import SiteLearner, _listed_forms, _own_forms
from forumcrawl.mockforum.universe import UniverseSite
from forumcrawl.mockforum.universe.probe import WALK_BASE, learned, rule_fault
from forumcrawl.sitemodel import FileRuleStore

NOW = datetime(2024, 3, 8, 15, 30, tzinfo=timezone.utc)


def fetch(url: str) -> Document:
    with urllib.request.urlopen(url, timeout=30) as response:
        return Document.from_bytes(response.read(), url, response.headers.get("Content-Type"))


def crawl_documents(server, limit: int = 80) -> list[Document]:
    """A small breadth-first crawl of a mock site with urllib (robots-disallowed paths skipped)."""
    truth = server.truth
    seen, queue, docs = {server.url}, [server.url], []
    while queue and len(docs) < limit:
        url = queue.pop(0)
        if url in truth.broken:
            continue
        doc = fetch(url)
        docs.append(doc)
        for link in page_links(doc.tree, url):
            if link.startswith(server.url) and link not in seen and link not in truth.disallowed_urls:
                seen.add(link)
                queue.append(link)
    return docs


@pytest.fixture(scope="module")
def phpbb_docs(forum_servers):
    return crawl_documents(forum_servers["phpbb"])


def observe_all(learner: SiteLearner, docs: list[Document]) -> None:
    for doc in docs:
        learner.observe(doc, page_links(doc.tree, doc.url), NOW)


def test_learns_topic_and_extraction_rules_and_stores_them(tmp_path, forum_servers, phpbb_docs):
    truth = forum_servers["phpbb"].truth
    store = FileRuleStore(tmp_path)
    learner = SiteLearner(store, url_sample=200, min_pages=20)
    observe_all(learner, phpbb_docs)
    site = phpbb_docs[0].site
    assert learner.ready(site)
    model = learner.learn(site)
    assert set(model.rules) == {"usc", "nav", "ksf", "template"}
    assert store.get(site) == model
    held = learner.take_held(site)
    assert len(held) == len(phpbb_docs) and learner.take_held(site) == []
    for doc in phpbb_docs:
        assert learner.is_topic(model, doc.url) == truth.is_topic(doc.url), doc.url
    assert learner.pending_sites() == []
    reused = SiteLearner(store)
    assert reused.model(site) == model


def test_pages_borrowed_from_other_workers_are_handed_over_once_the_rules_exist(tmp_path, phpbb_docs):
    """Learned or adopted, a worker gets the cluster's sample back for its navigation's budgets."""
    half = len(phpbb_docs) // 2
    site = phpbb_docs[0].site
    published = None
    for name in ("learns", "adopts"):
        learner = SiteLearner(FileRuleStore(tmp_path / name), url_sample=200, min_pages=20)
        observe_all(learner, phpbb_docs[:half])
        for doc in phpbb_docs[half:]:
            learner.borrow(doc, page_links(doc.tree, doc.url))
        assert learner.take_borrowed(site) == [], "kept while the site is sampled"
        assert learner.ready(site), "the cluster's pages fill the sample"
        if published is not None:  # another worker learned the site first
            learner.store.put(published)
        published = learner.learn(site)
        assert [d.url for d in learner.take_borrowed(site)] == [d.url for d in phpbb_docs[half:]]
        assert learner.take_borrowed(site) == []
        assert len(learner.take_held(site)) == half


def test_template_drift_triggers_one_relearn(tmp_path, forum_servers, phpbb_docs):
    learner = SiteLearner(FileRuleStore(tmp_path), url_sample=200, min_pages=20, relearn_after=3)
    observe_all(learner, phpbb_docs)
    site = phpbb_docs[0].site
    old = learner.learn(site)
    static_truth = forum_servers["static"].truth
    drifted = [fetch(u) for u in static_truth.topic_urls[:6] if u not in static_truth.broken][:4]
    for doc in drifted:
        doc.url = doc.url.replace(forum_servers["static"].url, forum_servers["phpbb"].url)
    old_rule = KsfRule.from_dict(old.rules["ksf"])
    assert apply_rule(old_rule, drifted[0], now=NOW) == []
    assert [learner.record_miss(d) for d in drifted[:3]] == [False, False, True]
    assert learner.record_miss(drifted[3]) is False
    new = learner.relearn_extraction(site)
    assert new is not None and new.rules["usc"] == old.rules["usc"]
    new_rule = KsfRule.from_dict(new.rules["ksf"])
    assert new_rule.rule_id != old_rule.rule_id
    assert apply_rule(new_rule, drifted[0], now=NOW)
    assert learner.model(site) == new


def test_page_flips_in_the_forms_a_threads_own_pager_uses() -> None:
    """List rows' mini pagers link a slugless short form of several threads; a thread page's
    pager links its own pages' canonical form: the identity is learned from the latter, and from
    rows' links only in the forms thread pagers use (a "load more" pager shows few links)."""
    base = "http://v.test/showthread.php"
    thread = [(f"{base}?250-laptop-vs-ssd/page2", 2), (f"{base}?250-laptop-vs-ssd/page3", 3)]
    rows = [(f"{base}?t={t}&page={n}", n) for t in (250, 251, 252) for n in (2, 3)]
    assert _own_forms([thread], [rows], "v.test") == thread
    query = "http://q.test/viewtopic.php"
    loaded = [(f"{query}?t=5&start=6", 2)]
    listed = [(f"{query}?t={t}&start={6 * (n - 1)}", n) for t in (5, 6) for n in (2, 3)]
    assert _own_forms([loaded], [listed], "q.test") == loaded + listed
    assert _own_forms([], [listed, [("http://elsewhere.test/t?page=2", 2)]], "q.test") == listed


def test_page_flips_under_the_scripts_lists_link_threads_under() -> None:
    """A mobile or archive copy's pager names pages of the copy; the lists link the threads
    themselves, so the identity is learned from the pagers under the lists' thread scripts."""
    flips = [("http://m.test/t/a-b/744?page=2", 2), ("http://m.test/m/thread/744?page=2", 2),
             ("http://m.test/m/thread/745?page=3", 3)]
    assert _listed_forms(flips, ["http://m.test/t/c-d/745", "http://m.test/t/a-b/744"]) == flips[:1]
    assert _listed_forms(flips, ["http://m.test/latest"]) == flips


@pytest.mark.parametrize("seed", [
    35,  # member post lists headed by their threads' titles, archive copies of every thread
    1,  # member post lists, mobile copies, post permalinks
])
def test_five_walks_of_a_generated_forum_learn_one_rule(seed: int) -> None:
    """Which member post lists and thread copies a walk happens to fetch does not change the
    topic rule or the thread identity (issue #46: three rules from five walks of each)."""
    site = UniverseSite(seed, faults=False)
    truth = site.truth(WALK_BASE)
    models = [learned(site, walk) for walk in range(1, 6)]
    rules = {(m.rules["usc"]["pattern"], tuple(m.rules["nav"]["id_position"]),
              tuple(m.rules["nav"]["page_position"] or ())) for m in models}
    assert len(rules) == 1, rules
    assert rule_fault(models[0], truth) is None
