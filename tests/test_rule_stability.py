"""The topic rule and thread identity do not depend on which pages were sampled, nor in what
order (issue #16): five shuffled samples of a forum give one rule."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from forumcrawl.document import Document, DocumentError, site_of
from forumcrawl.extractors.fields import page_links
from forumcrawl.extractors.navigation import ThreadIdentity, canonical_url
from forumcrawl.extractors.url_rules import UrlResolver
from forumcrawl.learning import NullRuleStore, SiteLearner
from forumcrawl.mockforum import ForumSite
from forumcrawl.sitemodel import SiteModel

BASE = "http://127.0.0.1:9/"


def learned(site: ForumSite, seed: int, pages: int = 60) -> SiteModel:
    """The model learned from ``pages`` pages reached from the front page in a random order."""
    learner = SiteLearner(NullRuleStore(), random_state=seed)
    rng = random.Random(seed)
    frontier, seen, fetched = [BASE], {BASE}, 0
    while frontier and fetched < pages:
        url = frontier.pop(rng.randrange(len(frontier)))
        response = site.render(url[len(BASE) - 1 :])
        if response.status != 200 or "xml" in response.headers.get("Content-Type", ""):
            continue  # the spider reads no feed as a page (page/skipped/xml)
        try:
            doc = Document.from_bytes(response.body, url, response.headers.get("Content-Type"))
        except DocumentError:
            continue
        if doc.tree is None:
            continue
        fetched += 1
        links = [canonical_url(u) for u in page_links(doc.tree, url)]
        learner.observe(doc, links, datetime.now(timezone.utc))
        for link in links:
            if link.startswith(BASE) and link not in seen:
                seen.add(link)
                frontier.append(link)
    return learner.learn(site_of(BASE))


@pytest.mark.parametrize("family", ["xenforo", "vbulletin", "discourse", "modern", "phpbb", "discuz", "static", "qa"])
def test_five_shuffled_samples_give_one_rule(family: str) -> None:
    site = ForumSite(family)
    truth = site.truth(BASE)
    models = [learned(site, seed) for seed in range(1, 6)]
    patterns = {m.rules["usc"]["pattern"] for m in models}
    assert len(patterns) == 1, patterns
    identities = {
        (tuple(m.rules["nav"]["id_position"]), tuple(m.rules["nav"]["page_position"] or ()))
        for m in models
    }
    assert len(identities) == 1, identities
    # And the rules are right: every thread page is taken as one page of one thread, and no
    # other page of the site is (a print view the rule takes is a variant, never exported).
    resolver = UrlResolver.from_dict(models[0].rules["usc"])
    identity = ThreadIdentity.from_dict(models[0].rules["nav"])
    assert all(resolver.match(canonical_url(u)) for u in truth.topic_urls)
    keys = {identity.key(u) for u in truth.topic_urls}
    assert all(key.canonical for key in keys) and len(keys) == len(truth.topic_urls)
    taken = [u for u in truth.non_topic_urls if resolver.match(canonical_url(u))]
    assert not [u for u in taken if identity.key(u).canonical]
