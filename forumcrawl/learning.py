"""Per-site learning during a crawl: collect a sample, learn the site's rules once, reuse them.

For each site the learner keeps the distinct URLs it has seen (fetched or linked) and holds the
fetched pages until the site's model exists. When the sample is large enough (or the crawl runs
out of pages first), it clusters the URLs (USC, seed 003 §3.1) into a topic-URL rule, learns the
extraction rule (KSF, seed 003 §3.2) from a few of the held thread pages, and stores the model.
Held pages are then exported under the model, so no page is lost to learning. No Scrapy here:
the spider decides when to call :meth:`SiteLearner.learn` and runs it off the reactor thread.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Protocol
from urllib.parse import urlsplit

from forumcrawl.document import Document, DocumentError, site_of
from forumcrawl.extractors.fields import page_links, title_affixes
from forumcrawl.extractors.ksf import KeywordScoringExtractor, with_site_pages
from forumcrawl.extractors.navigation import (
    ListingOrders,
    ThreadIdentity,
    canonical_url,
    listing_order,
    page_flips,
    pattern_key,
)
from forumcrawl.extractors.text import preload_segmenter
from forumcrawl.extractors.topic import check_rule, learn_topic_rule
from forumcrawl.extractors.url_rules import UrlResolver
from forumcrawl.extractors.wrapper import learn_templates
from forumcrawl.sitemodel import SiteModel

__all__ = ["Fetched", "HeldPage", "NullRuleStore", "RuleStore", "SiteLearner", "learn_from_walk"]

logger = logging.getLogger(__name__)

#: Pages of a site parsed under its stored rules before they are checked (see
#: :meth:`SiteLearner.check`): enough for a few boards and thread pages; a check that cannot tell
#: is tried again after as many more, up to three times, then the rules are kept.
VERIFY_PAGES = 10
VERIFY_TRIES = 3


def _canonical_pages(model: SiteModel, documents: list[Document]) -> list[Document]:
    """The canonical thread pages among ``documents`` by the model's thread identity (``nav``
    rule), lite copies left out (:func:`_without_lite_copies`); all of them when there is no
    identity or no canonical page."""
    data = model.rules.get("nav")
    if data is None:
        return documents
    try:
        identity = ThreadIdentity.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return documents
    canonical = [doc for doc in documents if identity.key(doc.url).canonical]
    return _without_lite_copies(identity, canonical) or documents


def _form(url: str) -> str:
    """The path form of a URL (:func:`pattern_key` without its query): ``/m/*/#`` of a mobile
    copy, ``/t/*/#`` of the thread page."""
    return pattern_key(url).partition("?")[0]


def _without_lite_copies(identity: ThreadIdentity, documents: list[Document]) -> list[Document]:
    """``documents`` without the pages of a URL form whose pages are lite copies of others.

    A topic rule may take in a thread's mobile or archive copies, which the identity numbers as
    the same thread pages. Their markup is the page's in short (no user panels, no floors), and
    an extraction rule learned on them misses every full page. Where two forms show the same
    page, the copy is the one with less markup; a form whose pages are more often the copy than
    not is left out, also its pages whose full page was not fetched.
    """
    by_page: dict[object, list[Document]] = defaultdict(list)
    for doc in documents:
        by_page[identity.key(doc.url)].append(doc)
    fuller: Counter[str] = Counter()
    lighter: Counter[str] = Counter()
    for copies in by_page.values():
        if len({_form(doc.url) for doc in copies}) < 2:
            continue
        fullest = max(copies, key=lambda doc: len(doc.html))
        for doc in copies:
            (fuller if doc is fullest else lighter)[_form(doc.url)] += 1
    lite = {form for form, n in lighter.items() if n > fuller[form]}
    return [doc for doc in documents if _form(doc.url) not in lite]


def _one_thread(flips: list[tuple[str, int]]) -> bool:
    """Whether a page's page-flip links are one pager: one URL per page number. The rows of a
    list (``/latest``) carry a mini pager each, several URLs for page 2."""
    targets: dict[int, set[str]] = defaultdict(set)
    for url, number in flips:
        targets[number].add(url)
    return all(len(urls) == 1 for urls in targets.values())


def _own_forms(
    threads: Iterable[list[tuple[str, int]]], others: Iterable[list[tuple[str, int]]], site: str
) -> list[tuple[str, int]]:
    """The page-flip links ``(URL, page number)`` of ``site`` in the forms a thread's own pager
    uses (the links of thread pages, ``threads``, that are one pager): a thread's pages name its
    canonical URLs, while the mini pagers of list rows may link a short form
    (``showthread.php?t=<id>&page=2`` beside ``showthread.php?<id>-<slug>/page2``) that would
    take their place. The other links in the same forms (by :func:`pattern_key`) count too: some
    pagers show few links (a "load more" button). All links when no thread page shows a pager."""
    own, rest = [], []
    for found in threads:
        (own if _one_thread(found) else rest).extend(found)
    for found in others:
        rest.extend(found)
    forms = {pattern_key(u) for u, _ in own}
    kept = [*own, *((u, n) for u, n in rest if pattern_key(u) in forms)] if own else rest
    return [(u, n) for u, n in kept if site_of(u) == site]


def _script(url: str) -> str:
    """A URL's first path segment with numbers as ``#``: the script or section serving it."""
    return re.sub(r"\d+", "#", urlsplit(url).path.lstrip("/").split("/")[0])


def _listed_forms(flips: list[tuple[str, int]], listed: Iterable[str]) -> list[tuple[str, int]]:
    """The page-flip links under the scripts or sections (:func:`_script`) whose thread URLs the
    site's lists link: a lite or mobile copy's pager names pages of the copy, which only its
    thread links. All of them when none is under such a script."""
    scripts = {_script(url) for url in listed}
    kept = [(url, n) for url, n in flips if _script(url) in scripts]
    return kept or flips


class RuleStore(Protocol):
    """Where site models live: a folder in embedded mode, Redis when distributed."""

    def get(self, site: str) -> SiteModel | None: ...

    def put(self, model: SiteModel) -> object: ...

    def try_lock(self, site: str) -> bool:
        """Take the right to learn ``site`` (False: another worker is learning it)."""
        ...

    def release(self, site: str) -> None:
        """Give the right to learn ``site`` back."""
        ...


class NullRuleStore:
    """A rule store that keeps nothing, so that every sample is learned from scratch: for
    measuring the learning itself (how the rules depend on the sample)."""

    def get(self, site: str) -> SiteModel | None:
        return None

    def put(self, model: SiteModel) -> None:
        return None

    def try_lock(self, site: str) -> bool:
        return True

    def release(self, site: str) -> None:
        return None


#: What a walk's fetch of a URL gives: status, content type, body and the URL it ended at.
Fetched = tuple[int, str, bytes, str]


def learn_from_walk(fetch: Callable[[str], Fetched], base: str, *, seed: int, pages: int = 60) -> SiteModel:
    """The model learned from scratch on ``pages`` pages reached from ``base``, each next one
    drawn (by ``seed``) from the links found so far: how the rules depend on the sample
    (``tests/test_rule_stability.py``, ``benchmarks/rule_stability.py``). Like the crawl, it
    reads no error page and no feed as a page, and a page reached twice once."""
    learner = SiteLearner(NullRuleStore(), random_state=seed)
    rng = random.Random(seed)
    frontier, seen, done, fetched = [base], {base}, set(), 0
    while frontier and fetched < pages:
        status, ctype, body, url = fetch(frontier.pop(rng.randrange(len(frontier))))
        if status != 200 or "xml" in ctype or url in done:
            continue
        done.add(url)
        try:
            doc = Document.from_bytes(body, url, ctype or None)
        except DocumentError:
            continue
        if doc.tree is None:
            continue
        fetched += 1
        links = [canonical_url(u) for u in page_links(doc.tree, url)]
        learner.observe(doc, links, datetime.now(timezone.utc))
        for link in links:
            if link.startswith(base) and link not in seen:
                seen.add(link)
                frontier.append(link)
    return learner.learn(site_of(base))


@dataclass
class HeldPage:
    """A fetched page waiting for its site's model, with the time it was fetched."""

    document: Document
    fetched: datetime


@dataclass
class _Sample:
    urls: dict[str, None] = field(default_factory=dict)
    held: list[HeldPage] = field(default_factory=list)
    #: Pages other workers of a cluster fetched and hold (see :meth:`SiteLearner.borrow`).
    borrowed: list[Document] = field(default_factory=list)
    model: SiteModel | None = None
    loaded: bool = False
    missed: list[Document] = field(default_factory=list)
    miss_count: int = 0
    relearning: bool = False
    #: The first pages parsed under a model read from a store that may predate this crawl's
    #: site, kept until the model is checked on them (None: nothing to check; see
    #: :meth:`SiteLearner.check`).
    checking: list[Document] | None = None


class SiteLearner:
    """Samples each site of a crawl and learns its topic-URL and extraction rules once.

    Parameters
    ----------
    store : where models are read from before learning and written to after.
    url_sample : distinct URLs of a site to collect before clustering (USC).
    page_sample : thread pages to learn the extraction rule from (KSF; paper: 5).
    min_pages : fetched pages to hold before learning, so the topic cluster can be chosen from
        page evidence.
    max_held : learn as soon as this many pages are held, whatever the URL count (bounds memory).
    relearn_after : thread pages the extraction rule may miss before it is learned again.
    template_sample : pages of all kinds the page-cluster templates are induced from.
    topic_examples : ``site → thread URL`` given by the user (``-a topic_example=``).
    random_state : seed of the page sample.
    lock_poll : seconds between looks at the store while another worker learns a site: the
        waiting worker crawls nothing of the site meanwhile, so a look (a lock attempt and a
        read, two round trips) every 0.1 s costs less than the 0.25 s a 0.5 s poll loses on
        average.
    """

    def __init__(
        self,
        store: RuleStore,
        *,
        url_sample: int = 300,
        page_sample: int = 5,
        min_pages: int = 30,
        max_held: int = 400,
        relearn_after: int = 20,
        template_sample: int = 20,
        topic_examples: dict[str, str] | None = None,
        random_state: int = 0,
        lock_poll: float = 0.1,
    ) -> None:
        self.store = store
        self.url_sample = url_sample
        self.page_sample = page_sample
        self.min_pages = min_pages
        self.max_held = max_held
        self.relearn_after = relearn_after
        self.template_sample = template_sample
        self.topic_examples = dict(topic_examples or {})
        self.random_state = random_state
        self.lock_poll = lock_poll
        self._samples: dict[str, _Sample] = {}
        self._resolvers: dict[int, UrlResolver] = {}

    def _sample(self, site: str) -> _Sample:
        sample = self._samples.get(site)
        if sample is None:
            sample = self._samples[site] = _Sample()
        return sample

    def model(self, site: str) -> SiteModel | None:
        """The site's model: learned in this crawl, or stored by an earlier one.

        A model from a store whose models may predate the crawl (``store.verify``: a folder of
        rules kept per ``host:port``, where another forum may be served now) is used at once and
        checked on the first pages parsed under it (:meth:`check`).
        """
        sample = self._sample(site)
        if not sample.loaded:
            sample.loaded = True
            try:
                sample.model = sample.model or self.store.get(site)
            except ValueError as exc:
                logger.warning("ignoring the stored model of %s: %s", site, exc)
            if sample.model is not None and "usc" in sample.model.rules:
                checked = getattr(self.store, "verify", False)
                sample.checking = [] if checked else None
                logger.info("using the stored rules of %s (updated %s)%s", site, sample.model.updated,
                            ", checking them on its first pages" if checked else "")
        return sample.model

    def checking(self, site: str) -> bool:
        """Whether ``site``'s model came from a store and is not checked yet (see :meth:`check`)."""
        return self._sample(site).checking is not None

    def check(self, document: Document) -> bool | None:
        """Check the stored model of ``document``'s site on the pages parsed under it so far.

        Returns False when the model's topic rule does not fit them (it takes few of the pages
        that look like thread pages, or mostly pages that clearly are not): the model is then
        dropped, with a WARNING, and the pages checked are handed back by :meth:`take_checked` to
        sample the site afresh. True once it fits; None while the pages cannot tell yet. Stored
        rules that no longer fit exported nothing, silently (#47).
        """
        sample = self._sample(document.site)
        model, pages = sample.model, sample.checking
        if model is None or pages is None:
            return None
        if document.tree is not None:
            pages.append(document)
        if not pages or len(pages) % VERIFY_PAGES:
            return None
        result = check_rule({doc.url: doc for doc in pages}, lambda url: bool(self.is_topic(model, url)))
        if result.fits or (result.fits is None and len(pages) >= VERIFY_PAGES * VERIFY_TRIES):
            sample.checking = None
            logger.info("the stored rules of %s fit its pages: %s", document.site, result.describe())
            return True
        if result.fits is None:
            return None
        logger.warning(
            "the stored rules of %s no longer fit its pages (%s): learning its rules again",
            document.site, result.describe(),
        )
        sample.model = None
        return False

    def take_checked(self, site: str) -> list[Document]:
        """The pages a dropped stored model was checked on (see :meth:`check`), once."""
        sample = self._sample(site)
        pages, sample.checking = sample.checking or [], None
        return pages

    def is_topic(self, model: SiteModel, url: str) -> bool | None:
        """Whether ``url`` is a thread page under ``model``'s URL rule (None: no rule)."""
        rule = model.rules.get("usc")
        if rule is None:
            return None
        resolver = self._resolvers.get(id(rule))
        if resolver is None:
            resolver = self._resolvers[id(rule)] = UrlResolver.from_dict(rule)
        return bool(resolver.predict([url])[0])

    def observe(self, document: Document, links: list[str], fetched: datetime) -> None:
        """Record a fetched page of a site without a model yet, and the site's links on it."""
        sample = self._sample(document.site)
        self._add_urls(sample, document, links)
        sample.held.append(HeldPage(document, fetched))
        if len(sample.held) == 1 and document.tree is not None:
            preload_segmenter(document.tree.text_content()[:2000])

    def borrow(self, document: Document, links: list[str]) -> None:
        """Add a page another worker of a cluster fetched for the same site to the sample: the
        rules are learned from the cluster's pages, as an embedded crawl's would be, not from
        each worker's share of them (that worker holds and exports the page)."""
        sample = self._sample(document.site)
        if sample.model is None:
            self._add_urls(sample, document, links)
            sample.borrowed.append(document)

    def _add_urls(self, sample: _Sample, document: Document, links: list[str]) -> None:
        sample.urls.setdefault(document.url, None)
        for url in links:
            if len(sample.urls) >= self.url_sample:
                break
            if site_of(url) == document.site:
                sample.urls.setdefault(url, None)

    def ready(self, site: str) -> bool:
        """Whether the site's sample is complete (learning would not wait for more pages); only
        a learner holding pages learns."""
        sample = self._sample(site)
        if sample.model is not None or not sample.held:
            return False
        pages = len(sample.held) + len(sample.borrowed)
        if pages >= self.max_held:
            return True
        return len(sample.urls) >= self.url_sample and pages >= self.min_pages

    def sample_pages(self, site: str) -> int:
        """Pages of ``site``'s sample held here: fetched here or borrowed from other workers."""
        sample = self._sample(site)
        return len(sample.held) + len(sample.borrowed)

    def pending_sites(self) -> list[str]:
        """Sites holding pages without a model (to learn when the crawl runs out of pages)."""
        return [site for site, s in self._samples.items() if s.held and s.model is None]

    def sample_documents(self, site: str) -> dict[str, Document]:
        """The pages of ``site``'s sample so far, by URL: held here and borrowed."""
        sample = self._sample(site)
        return {doc.url: doc for doc in [*sample.borrowed, *(held.document for held in sample.held)]}

    def take_held(self, site: str) -> list[HeldPage]:
        """Hand over the held pages of ``site`` (once its model exists) and forget them."""
        sample = self._sample(site)
        held, sample.held = sample.held, []
        return held

    def take_borrowed(self, site: str) -> list[Document]:
        """Hand over the pages of ``site`` other workers sampled (see :meth:`borrow`) once its
        model exists, and forget them: the navigation's budgets start from the cluster's sample,
        as an embedded crawl's start from its whole sample."""
        sample = self._sample(site)
        if sample.model is None:
            return []
        borrowed, sample.borrowed = sample.borrowed, []
        return borrowed

    def learn(self, site: str) -> SiteModel:
        """The model of ``site``: learned here, or adopted from the worker that holds its lock.

        Workers sharing a store learn each site once: while another holds the site's lock this
        waits (in its worker thread) for the published model; a store that cannot lock is learned
        without the lock.
        """
        locked: bool | None
        while True:
            try:
                locked = self.store.try_lock(site)
            except OSError as exc:
                logger.warning("learning %s without the store's lock: %s", site, exc)
                locked = None
            try:
                # a store that keeps earlier crawls' models publishes none of this crawl's other
                # workers: what it holds was checked (and maybe refused) in model()
                published = None if getattr(self.store, "verify", False) else self.store.get(site)
            except ValueError:
                published = None
            if published is not None:
                if locked:
                    self.store.release(site)
                logger.info("adopting the rules of %s published by another worker", site)
                sample = self._sample(site)
                sample.model, sample.loaded = published, True
                return published
            if locked is not False:
                break
            time.sleep(self.lock_poll)
        try:
            return self._learn(site)
        finally:
            if locked:
                try:
                    self.store.release(site)
                except OSError as exc:
                    logger.warning("could not release the learning lock of %s: %s", site, exc)

    def _learn(self, site: str) -> SiteModel:
        """Learn ``site``'s rules from its sample, store and return the model.

        CPU-bound: the crawl runs it in a worker thread. Never raises: a method that fails is
        logged and left out of the model. Without a ``usc`` rule every page counts as content;
        without a ``ksf`` rule pages go through the generic cascade stages.
        """
        sample = self._sample(site)
        model = SiteModel(site=site)
        pages = {doc.url: doc for doc in [*sample.borrowed, *(held.document for held in list(sample.held))]}
        # Page-flip links (a page number as anchor) join the URLs even when the sample filled
        # before they were seen: a thread's later pages must be part of its rule.
        flips_of = {url: page_flips(doc.tree, doc.url) for url, doc in pages.items()}
        flips = [(url, number) for found in flips_of.values() for url, number in found if site_of(url) == site]
        started = time.perf_counter()
        try:
            found = learn_topic_rule(
                list(dict.fromkeys([*sample.urls, *(url for url, _ in flips)])),
                pages,
                topic_example=self.topic_examples.get(site),
                random_state=self.random_state,
            )
        except ValueError as exc:
            logger.warning("no topic rule for %s: %s", site, exc)
        except Exception:  # a learning bug must not leave the site's held pages stranded
            logger.exception("learning the topic rule of %s failed", site)
        else:
            model = model.with_rule(
                "usc",
                found.resolver.to_dict(),
                urls=len(sample.urls),
                pages=len(pages),
                seconds=round(time.perf_counter() - started, 3),
                reason=found.reason,
            )
            logger.info("topic pages of %s: %s (%s)", site, found.resolver, found.reason)
        if "usc" in model.rules:
            threads = [found for page, found in flips_of.items() if self.is_topic(model, page)]
            others = [found for page, found in flips_of.items() if not self.is_topic(model, page)]
            # Thread URLs the site's lists link (pages the topic rule does not take): a copy of
            # a thread (``/m/thread/<id>``, ``archiver/?tid-<id>.html``) is linked from its thread.
            listed = [url for page, doc in pages.items() if doc.tree is not None and not self.is_topic(model, page)
                      for url in page_links(doc.tree, page) if self.is_topic(model, canonical_url(url))]
            model = self._learn_identity(
                model, list(sample.urls), _listed_forms(_own_forms(threads, others, site), listed)
            )
            continued = [u for page, found in flips_of.items() if listing_order(page) is None for u, _ in found]
            model = self._learn_orders(model, list(sample.urls), continued)
        topic_docs = [d for url, d in pages.items() if "usc" not in model.rules or self.is_topic(model, url)]
        model = self._learn_extraction(model, topic_docs)
        model = self._learn_templates(model, list(pages.values()))
        self._publish(sample, model)
        return model

    def _learn_identity(
        self, model: SiteModel, urls: list[str], links: list[tuple[str, int]]
    ) -> SiteModel:
        """``model`` with the thread identity (``nav`` rule): which number of a thread URL is the
        thread and which the page, from the sample's thread URLs and its page-flip links
        (``links``: URL and the page number of its anchor) to thread URLs."""
        topic = [u for u in urls if self.is_topic(model, u)]
        flips = [(url, number) for url, number in links if self.is_topic(model, url)]
        try:
            identity = ThreadIdentity().fit(topic, flips)
        except ValueError as exc:
            logger.warning("no thread identity for %s: %s", model.site, exc)
            return model
        logger.info("thread pages of %s: thread %s, page %s (%d page-flip links)", model.site,
                    identity.id_position_, identity.page_position_, len(flips))
        return model.with_rule("nav", identity.to_dict(), urls=len(topic), flips=len(flips))

    def _learn_orders(self, model: SiteModel, urls: list[str], continued: list[str]) -> SiteModel:
        """``model`` with the order followed of each listing the sample shows sorted in its path
        (``orders`` rule, see :class:`ListingOrders`), from its URLs and ``continued``, the page
        flips of its pages whose URL orders nothing; unchanged when no listing is."""
        orders = ListingOrders().fit(urls, continued)
        if not orders.orders_:
            return model
        logger.info(
            "listing orders of %s followed: %s (walked: %s)", model.site, orders.orders_, orders.walked_
        )
        return model.with_rule("orders", orders.to_dict(), families=len(orders.orders_))

    def _learn_extraction(self, model: SiteModel, topic_docs: list[Document]) -> SiteModel:
        """``model`` with a KSF rule fitted on up to ``page_sample`` of ``topic_docs``: of their
        canonical thread pages when the site's thread identity tells them (a print view or a
        post permalink has a template of its own, and a sample of them misses every page)."""
        if not topic_docs:
            return model
        topic_docs = _canonical_pages(model, topic_docs)
        rng = random.Random(self.random_state)
        chosen = rng.sample(topic_docs, min(self.page_sample, len(topic_docs)))
        started = time.perf_counter()
        try:
            ksf = KeywordScoringExtractor(n_pages=self.page_sample, random_state=self.random_state).fit(chosen)
        except ValueError as exc:
            logger.warning("no extraction rule for %s: %s", model.site, exc)
        except Exception:  # as above: fall back to the generic cascade
            logger.exception("learning the extraction rule of %s failed", model.site)
        else:
            # The site's title affixes from every thread page at hand: in five, one thread's
            # pages could pass for the site.
            # Whether later pages repeat an earlier page's post and how dates are written, from
            # every thread page at hand: a thread's pages are rarely all in five.
            rule = with_site_pages(
                dataclasses.replace(ksf.rule_, title_affixes=title_affixes([d.title for d in topic_docs])),
                topic_docs,
            )
            logger.info("extraction rule of %s: %s", model.site, rule)
            return model.with_rule(
                "ksf",
                rule.to_dict(),
                pages=[d.url for d in chosen],
                seconds=round(time.perf_counter() - started, 3),
            )
        return model

    def _learn_templates(self, model: SiteModel, documents: list[Document]) -> SiteModel:
        """``model`` with page-cluster templates induced from up to ``template_sample`` pages."""
        if len(documents) < 2:
            return model
        rng = random.Random(self.random_state)
        chosen = rng.sample(documents, min(self.template_sample, len(documents)))
        started = time.perf_counter()
        try:
            rule = learn_templates(chosen)
        except ValueError as exc:
            logger.warning("no page templates for %s: %s", model.site, exc)
            return model
        except Exception:  # as above: the other stages still work without templates
            logger.exception("learning the page templates of %s failed", model.site)
            return model
        return model.with_rule("template", rule, pages=len(chosen), seconds=round(time.perf_counter() - started, 3))

    def _publish(self, sample: _Sample, model: SiteModel) -> None:
        sample.model = model
        sample.loaded = True
        self.publish(model)

    def add_pages(self, site: str, page_url: str, flips: list[tuple[str, int]]) -> SiteModel | None:
        """The site's model widened to the page-flip links ``(URL, page number)`` of the thread
        page at ``page_url`` that it does not take for those pages: its topic rule to the later
        pages of its threads (see :meth:`UrlResolver.add_pages
        <forumcrawl.extractors.url_rules.UrlResolver.add_pages>`), its thread identity to their
        page number (:meth:`ThreadIdentity.add_pages`); None when neither changes. The new model
        is kept here; the caller stores it (:meth:`publish`).

        A sample can hold one-page threads only: the rules learned from it then take every later
        page for another kind of page, or for page 1, and the crawl never exports one. The first
        long thread shows the missing part, the same on every worker of a cluster: the widening
        is a function of the rules and the links, not of the sample.
        """
        sample = self._sample(site)
        model = sample.model
        if model is None or "usc" not in model.rules:
            return None
        resolver = UrlResolver.from_dict(model.rules["usc"])
        added = resolver.add_pages([url for url, _ in flips])
        widened = model
        if added:
            widened = widened.with_rule("usc", resolver.to_dict(), **{**model.info.get("usc", {}), "pages_added": added})
        if "nav" in model.rules:
            identity = ThreadIdentity.from_dict(model.rules["nav"])
            if identity.add_pages([(url, n) for url, n in flips if resolver.match(url)], page_url):
                widened = widened.with_rule("nav", identity.to_dict(), **model.info.get("nav", {}))
        if widened is model:
            return None
        logger.info(
            "page flips of %s's threads were not its thread pages: rule now %s, page number %s",
            site, resolver, widened.rules.get("nav", {}).get("page_position"),
        )
        sample.model = widened
        return widened

    def publish(self, model: SiteModel) -> None:
        """Store a model changed after learning (see :meth:`add_pages`); blocking, for a thread."""
        try:
            self.store.put(model)
        except (OSError, ValueError) as exc:
            logger.warning("could not store the model of %s: %s", model.site, exc)

    def record_miss(self, document: Document) -> bool:
        """Note a thread page the site's extraction rule missed (template drift).

        Returns True once ``relearn_after`` pages have been missed since the rule was learned:
        the caller should then run :meth:`relearn_extraction` (once).
        """
        sample = self._sample(document.site)
        sample.missed.append(document)
        del sample.missed[: -self.page_sample * 2]
        sample.miss_count += 1
        due = sample.miss_count >= self.relearn_after and not sample.relearning
        sample.relearning = sample.relearning or due
        return due

    def relearn_extraction(self, site: str) -> SiteModel | None:
        """Fit a new extraction rule on the pages the old one missed; store it if one is found.

        CPU-bound, for a worker thread; never raises. Returns the new model, or None.
        """
        sample = self._sample(site)
        model = sample.model
        locked: bool | None = None
        try:
            if model is None:
                return None
            # Workers sharing a store relearn a drifted site once: the others keep their model.
            try:
                locked = self.store.try_lock(site)
            except OSError as exc:
                logger.warning("relearning %s without the store's lock: %s", site, exc)
            if locked is False:
                return None
            relearned = self._learn_extraction(SiteModel(site=site, rules=dict(model.rules), info=dict(model.info)), list(sample.missed))
            if relearned.rules.get("ksf") == model.rules.get("ksf"):
                return None
            logger.info("relearned the extraction rule of %s after %d misses", site, sample.miss_count)
            self._publish(sample, relearned)
            return relearned
        finally:
            if locked:
                try:
                    self.store.release(site)
                except OSError as exc:
                    logger.warning("could not release the learning lock of %s: %s", site, exc)
            sample.missed.clear()
            sample.miss_count = 0
            sample.relearning = False
