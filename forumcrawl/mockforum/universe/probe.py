"""How the site learning fares on a forum of the universe, without HTTP: the rules it learns
from a walk of the forum, what is wrong with them against the truth, and the fields it extracts
from the thread pages. ``benchmarks/universe.py`` and ``tests/test_universe.py`` use these."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timezone
from typing import Any

from forumcrawl.document import Document
from forumcrawl.evaluation import match_posts, normalise_name
from forumcrawl.extractors.navigation import ThreadIdentity, canonical_url
from forumcrawl.extractors.url_rules import UrlResolver
from forumcrawl.learning import Fetched, NullRuleStore, SiteLearner, learn_from_walk
from forumcrawl.mockforum.truth import SiteTruth
from forumcrawl.mockforum.universe.site import UniverseSite
from forumcrawl.pages import Cascade, thread_item
from forumcrawl.sitemodel import SiteModel

__all__ = ["FIELD_METRICS", "SAMPLE_PAGES", "WALK_BASE", "decisions", "field_scores", "learned",
           "rule_fault", "url_path"]

#: Where a forum is taken to live during a walk (nothing is served there: pages are rendered).
WALK_BASE = "http://127.0.0.1:9/"
#: Pages a walk fetches before learning (as ``benchmarks/rule_stability.py``).
SAMPLE_PAGES = 60
#: The field metrics of :func:`field_scores`.
FIELD_METRICS = ("posts_f1", "post_author", "post_date", "title")


def url_path(url: str) -> str:
    """``url`` without scheme and host, as examples print it."""
    return "/" + url.split("/", 3)[3] if url.count("/") >= 3 else url


def learned(site: UniverseSite, sample: int) -> SiteModel:
    """The model learned from scratch on :data:`SAMPLE_PAGES` pages of ``site`` reached from its
    front page in the order ``sample`` draws (no HTTP, no faults)."""

    def fetch(url: str) -> Fetched:
        response = site.render(url[len(WALK_BASE) - 1 :])
        return response.status, response.headers.get("Content-Type", ""), response.body, url

    return learn_from_walk(fetch, WALK_BASE, seed=sample, pages=SAMPLE_PAGES)


def rule_fault(model: SiteModel, truth: SiteTruth) -> str | None:
    """What is wrong with a learned topic rule and thread identity, or None when they are right:
    every thread page taken, as one page of one thread; no other page taken as a thread page;
    another form of a thread page taken as a thread page only as that page."""
    if "usc" not in model.rules or "nav" not in model.rules:
        return "no rule learned"
    resolver = UrlResolver.from_dict(model.rules["usc"])
    identity = ThreadIdentity.from_dict(model.rules["nav"])
    left = [u for u in truth.topic_urls if not resolver.match(canonical_url(u))]
    if left:
        return f"thread pages left out: {len(left)} of {len(truth.topic_urls)}, e.g. {url_path(left[0])}"
    keys = [identity.key(u) for u in truth.topic_urls]
    if not all(k.canonical for k in keys) or len(set(keys)) != len(keys):
        odd = next(u for u, k in zip(truth.topic_urls, keys) if not k.canonical or keys.count(k) > 1)
        return f"thread pages without their own identity, e.g. {url_path(odd)} -> {identity.key(odd)}"
    taken = [u for u in truth.non_topic_urls
             if resolver.match(canonical_url(u)) and identity.key(u).canonical]
    if taken:
        return f"other pages taken as thread pages: {len(taken)}, e.g. {url_path(taken[0])}"
    wrong = [a for a, t in truth.url_aliases.items() if t in truth.topic_urls
             and resolver.match(canonical_url(a)) and identity.key(a).canonical
             and identity.key(a) != identity.key(t)]
    if wrong:
        return (f"another form taken as another page: {len(wrong)}, e.g. {url_path(wrong[0])} for "
                f"{url_path(truth.url_aliases[wrong[0]])}")
    return None


def decisions(model: SiteModel, truth: SiteTruth) -> tuple[tuple[bool, Any, Any], ...]:
    """What a learned rule decides for every URL of the truth: taken as a thread page, and as
    which (thread, page); two rules that decide alike differ only in how they are written."""
    if "usc" not in model.rules or "nav" not in model.rules:
        return ()
    resolver = UrlResolver.from_dict(model.rules["usc"])
    identity = ThreadIdentity.from_dict(model.rules["nav"])
    urls = sorted({*truth.topic_urls, *truth.non_topic_urls, *truth.url_aliases})
    out = []
    for url in urls:
        key = identity.key(url)
        out.append((resolver.match(canonical_url(url)), key.thread, key.page))
    return tuple(out)


def field_scores(site: UniverseSite, now: datetime) -> dict[str, float]:
    """Extraction alone on every readable thread page of ``site`` (served without HTTP), the
    rules learned from them as ``crawl_eval.py --pages`` learns them: mean post F1 (posts found
    at token F1 >= 0.8), post author, post date (by day) and title over the pages."""
    truth = site.truth(WALK_BASE)
    urls = [u for u in truth.topic_urls if truth.broken.get(u, "wrong-charset") == "wrong-charset"]
    docs = []
    for url in urls:
        response = site.render(url[len(WALK_BASE) - 1 :])
        docs.append(Document.from_bytes(response.body, url, response.headers["Content-Type"]))
    learner = SiteLearner(NullRuleStore())
    model = learner._learn_templates(learner._learn_extraction(SiteModel(site=docs[0].site), docs), docs)
    cascade = Cascade()
    sums = dict.fromkeys(FIELD_METRICS, 0.0)
    aware = now.replace(tzinfo=timezone.utc)
    for url, doc in zip(urls, docs):
        outcome = cascade.run(doc, model, now=aware)
        item = {} if outcome.extraction is None else dataclasses.asdict(thread_item(doc, outcome.extraction, now=aware))
        gold = truth.posts_for(url)
        posts = item.get("posts") or []
        matches = match_posts([str(p.get("text") or "") for p in posts], [g.text for g in gold])
        pairs = [(g, posts[m]) for g, m in zip(gold, matches) if m is not None]
        sums["posts_f1"] += 2 * len(pairs) / (len(posts) + len(gold))
        sums["post_author"] += sum(normalise_name(p.get("author")) == normalise_name(g.author) for g, p in pairs) / max(len(pairs), 1)
        sums["post_date"] += sum(g.published[:10] in str(p.get("published") or "") for g, p in pairs) / max(len(pairs), 1)
        sums["title"] += normalise_name(item.get("title")) == normalise_name(truth.thread_for(url).title)
    return {name: round(total / len(urls), 4) for name, total in sums.items()}
