"""The topic rule and thread identity do not depend on which pages were sampled, nor in what
order (issue #16): five shuffled samples of a forum give one rule."""

from __future__ import annotations

import pytest

from forumcrawl.extractors.navigation import ThreadIdentity, canonical_url
from forumcrawl.extractors.url_rules import UrlResolver
from forumcrawl.learning import Fetched, learn_from_walk
from forumcrawl.mockforum import ForumSite
from forumcrawl.sitemodel import SiteModel

BASE = "http://127.0.0.1:9/"


def learned(site: ForumSite, seed: int) -> SiteModel:
    """The model learned from 60 pages of the mock ``site`` reached from its front page in the
    order ``seed`` draws."""

    def fetch(url: str) -> Fetched:
        response = site.render(url[len(BASE) - 1 :])
        return response.status, response.headers.get("Content-Type", ""), response.body, url

    return learn_from_walk(fetch, BASE, seed=seed)


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
