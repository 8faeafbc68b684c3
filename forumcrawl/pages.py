"""The page layer: a :class:`~forumcrawl.document.Document` (plus the site's learned model) in,
an item out, through the extraction cascade.

With a site's learned rules the cascade tries its stages in order and keeps the first result
with enough text, as the ``FORUMCRAWL_EXTRACT_CASCADE`` setting lists them, so each method can
also run alone. Without them (a single page, or a site not learned yet) it *arbitrates*: the
page's kind is read first (:mod:`forumcrawl.extractors.kinds`); single-page KSF runs only on a
page that may be a thread, and wins when it splits the page into posts that ``dom`` or ``cx``
find as well (an article's comments, which KSF takes for posts, they do not); otherwise ``dom``
and ``cx`` both propose a text and :mod:`forumcrawl.extractors.arbiter` keeps the one the page's
evidence backs. ``cx``, the cheap one, runs first, and ``dom`` not at all when ``cx``'s text is
the body the page marks (:func:`~forumcrawl.extractors.arbiter.marks_body`) or KSF's posts
already agree with it enough to win; KSF not at all when ``cx``'s text lies in the body the page
names an article's (:func:`~forumcrawl.extractors.arbiter.within_body`). A stage that raises is recorded and the next one runs:
one bad page never stops a crawl. The Naive Bayes value filter, when on, judges what the
winning stage found (:class:`ValueFilter`). No Scrapy here: the spiders and ``forumcrawl
extract`` call exactly this code.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from forumcrawl.defaults import FORUMCRAWL_EXTRACT_CASCADE
from forumcrawl.document import Document
from forumcrawl.extractors import fields
from forumcrawl.extractors.arbiter import (
    Arbiter,
    Evidence,
    candidate_features,
    comment_blocks,
    dated_list_beyond,
    load_arbiter,
    marks_body,
    opening_held,
    overlay_lines,
    page_chars,
    page_evidence,
    page_tokens,
    thread_agreement,
    thread_lines,
    visible_chars,
    with_body_regions,
    with_hidden_body,
    within_body,
    without_aux,
    without_lines,
    without_parts,
)
from forumcrawl.extractors.cx import CXResult, LineBlockExtractor, document_lines, known_lines, visible_text
from forumcrawl.extractors.dom_density import VALUE_MIN_WORTHLESS, DomDensityExtractor
from forumcrawl.extractors.dates import to_iso
from forumcrawl.extractors.kinds import CONTENT_KINDS, KindClassifier, declares_thread, load_kinds, page_signals
from forumcrawl.extractors.ksf import KsfRule, apply_rule, single_posts
from forumcrawl.extractors.ksf_apply import RepeatedPosts, later_page
from forumcrawl.extractors.listing import ListGroup, ListItem, list_items
from forumcrawl.extractors.metadata import article_metadata, marked_article, without_labels
from forumcrawl.extractors.navigation import ThreadIdentity
from forumcrawl.extractors.text import language
from forumcrawl.items import Article, ForumThread, Post
from forumcrawl.sitemodel import SiteModel

__all__ = [
    "STAGES",
    "Cascade",
    "CascadeOutcome",
    "Extraction",
    "ValueFilter",
    "ValueVerdict",
    "article_item",
    "bare_sections",
    "likelier_list",
    "own_words",
    "thread_item",
    "thread_text",
]

logger = logging.getLogger(__name__)

#: Single-page KSF (no site rule) gives way when its text is under this share of what the
#: line-block method finds on the page: it then holds one block of a longer body. Checked on all
#: six evaluation folders (benchmarks/accuracy.py); 0.2-0.3 give the same figures.
SINGLE_PAGE_MIN_SHARE = 0.25
#: A page is reported as a non-content kind (listing, product, ...) only when the kind model
#: gives article and forum together less than this probability. A news crawl drops such pages,
#: so the floor is set for few lost articles: on wcxb-dev (five folds grouped by site,
#: ``benchmarks/holdout.py``) 0.1 withholds 6 of 413 content pages and catches 66 of 240
#: non-content ones; 0.2: 31 and 116; 0.3: 81 and 164.
CONTENT_FLOOR = 0.1
#: When an article's comments (found by single-page KSF) hold more than this share of the text
#: ``dom`` or ``cx`` found, the stage read the comments, not the article, and reads the page
#: again without them. Chosen on dragnet's even-numbered pages: 0.3 to 0.7 give 0.9145 (0.9017
#: never reading again, 0.9077 at 0.9); held apart on its odd ones 0.8773 -> 0.8803. The other
#: folders (aeb-articles-en, readability-pages, wcxb-dev, fundus, magic-articles) did not move
#: at any value tried.
REREAD_COMMENTED_SHARE = 0.5
#: Single-page KSF's "posts" are no thread when none of them names an author or a time and at
#: least this share of them (one at least) holds no text: the rule took a page's sections (its
#: article, a sidebar's widgets, empty slots) for posts. Read off the pages of all nine folders
#: where KSF won: the lowest share that turns no harvest-forum-posts thread into an article
#: (without the empty posts, magic-forums loses 0.02: its threads' posts often name no one).
#: Not held apart; the figures are in :func:`bare_sections`.
BARE_EMPTY_SHARE = 0.3
#: The stages the arbiter chooses between, when the cascade lists them.
_ARBITRATED = ("dom", "cx")
#: Kinds whose content is a list of items (links by nature): the arbitrating cascade gives such
#: a page, when it reports that kind, the page's whole visible text (the ``page`` stage), since
#: ``dom`` and ``cx`` leave link lists out as navigation. Held apart on wcxb-dev (kind models of
#: five folds grouped by site) this lifts that folder's F1 by 0.008, its collections' from 0.43
#: to 0.52 (product, service and documentation pages keep the arbiter's text: the whole text
#: loses on product pages).
LIST_KINDS = frozenset({"listing", "collection"})
#: A page the kind model does not report as a list is one still when the model finds it this
#: many times likelier a list than an article or a thread and its list (the largest group of
#: siblings built alike, each with a link: :func:`~forumcrawl.extractors.listing.list_items`)
#: has at least :data:`LIST_MIN_ITEMS` items holding :data:`LIST_MIN_SHARE` of its visible
#: text. Chosen on the even-numbered wcxb-dev pages, in the middle of the plateau of odds
#: 2, 5-8 items and shares 0.2-0.5: 25 of their 57 listings and collections found, against 10
#: by the kind model alone, and 1 of their 206 articles and threads taken for a list.
LIST_ODDS = 2.0
LIST_MIN_ITEMS = 6
LIST_MIN_SHARE = 0.3
#: ... but not when its entries are bare links (their own text outside the links is less than
#: :data:`LIST_BARE_PROSE` of the page's prose) and the page has an article's worth of prose
#: outside them (:data:`LIST_OUTSIDE_PROSE` characters): a blog post beside its blogroll. Set by
#: reading a dragnet blog page (a post and a 153-link blogroll); of the lists the rules above
#: find on wcxb-dev's pages, one collection is refused by it.
LIST_BARE_PROSE = 0.05
LIST_OUTSIDE_PROSE = 2000


def likelier_list(proba: Mapping[str, float]) -> bool:
    """The kind model's ``proba`` puts more on the list kinds (:data:`LIST_KINDS`) than on the
    content kinds: a region the arbiter chose there may be one item of the list."""
    return sum(proba.get(k, 0.0) for k in LIST_KINDS) > sum(proba.get(k, 0.0) for k in CONTENT_KINDS)


def thread_text(posts: Sequence[Post]) -> str:
    """A thread page's text as a reader sees it: every post in order, each with the quotes it
    holds where they stood (:attr:`Post.quote_at`; before its own words when not known), blank
    lines between posts. A post's ``text`` keeps its own words apart; the page's text is what
    the page shows, as ``dom`` and ``cx`` read it, so that a page keeps or loses its quotes
    whichever stage reads it."""
    return "\n\n".join(filter(None, map(_shown_text, posts)))


def _shown_text(post: Post) -> str:
    """One post as the page shows it: its own words with its quotes back in place."""
    if not post.quotes:
        return post.text
    places = [*post.quote_at, *[0] * len(post.quotes)]  # a quote of unknown place goes first
    pieces: list[str] = []
    done = 0
    for place, quote in sorted(zip(places, post.quotes), key=lambda pair: pair[0]):
        pieces += (post.text[done:place], quote)
        done = place
    pieces.append(post.text[done:])
    return "\n".join(filter(None, (piece.strip("\n") for piece in pieces)))


def bare_sections(posts: Sequence[Post]) -> bool:
    """Whether single-page KSF's ``posts`` are a page's sections rather than a thread's posts:
    none names an author or a time, and :data:`BARE_EMPTY_SHARE` of them (one at least) hold no
    text. A forum's posts are signed or dated, or all hold text; a rule that took an article,
    a sidebar's widgets and empty slots for posts read neither (dragnet +0.0006, cwced-zh
    +0.0005, aeb-articles-en and wcxb-dev +0.0001, the others unchanged)."""
    if any(post.author or post.published for post in posts):
        return False
    empty = sum(not post.text.strip() for post in posts)
    return empty >= max(1.0, BARE_EMPTY_SHARE * len(posts))


def own_words(posts: Sequence[Post]) -> str:
    """The posts' own words, quotes left out: what tells a thread from other repeated blocks
    (a quote repeats another post, or text from elsewhere)."""
    return "\n\n".join(p.text for p in posts if p.text)


def _chars(texts: Iterable[str]) -> int:
    return sum(map(visible_chars, texts))


@dataclass
class Extraction:
    """What one cascade stage found on a page."""

    method: str
    text: str
    posts: list[Post] = field(default_factory=list)
    rule_id: str | None = None
    #: The text's blocks, when the stage has them and there are no posts (``dom``); the value
    #: filter judges them one by one (a block may span several lines).
    blocks: list[str] = field(default_factory=list)
    #: What the site adds around its titles (learned with its KSF rule), for the page's title.
    title_affixes: list[str] = field(default_factory=list)
    #: The page's kind when the kind model read it (see :mod:`forumcrawl.extractors.kinds`):
    #: ``article``, ``forum``, or a non-content kind such as ``listing``; None when not read.
    page_kind: str | None = None
    #: A list page's entries (see :data:`LIST_KINDS`): each item's link and text.
    items: list[ListItem] = field(default_factory=list)
    #: Single-page KSF: the posts are an article with its readers' comments
    #: (:func:`~forumcrawl.extractors.ksf.comments_on_first`), or its comments alone.
    commented: bool = False
    #: Single-page KSF: the elements that hold an article's comments and comment form, when
    #: the posts are those comments (:attr:`~forumcrawl.extractors.ksf.SinglePage.comments`).
    comments: list[Any] = field(default_factory=list)


@dataclass
class ValueVerdict:
    """What the value filter decided on one page, for logs and stats."""

    #: ``post`` when posts were judged, ``block`` for the text of a page without posts.
    unit: str
    #: The thread's opening post (or the first block) is worthless, so the page gives no item.
    page_worthless: bool = False
    #: Later posts or blocks judged worthless and kept (posts carry ``worthless=True``).
    flagged: int = 0
    #: Later posts or blocks judged worthless and removed.
    dropped: int = 0


class ValueFilter:
    """The Naive Bayes value filter (seed 000 §3.4) on what a cascade stage extracted.

    Posts are judged when the stage found posts, else the blocks of the text (``dom`` blocks, or
    the lines of ``cx`` text). A worthless opening post or first block means the page itself is
    worthless; on later pages of a thread the first post is a reply like the others. Later
    worthless posts are flagged (``Post.worthless``) and later worthless blocks kept, or, with
    ``drop``, both are removed and the text is rebuilt from what is kept.

    Later posts are worthless at :data:`VALUE_POST_MIN_WORTHLESS`; the opening post and every
    block at :data:`VALUE_MIN_WORTHLESS`, the stricter one, because calling the opening unit
    worthless loses the whole page (docs: How extraction works, "The value filter").
    """

    def __init__(self, *, drop: bool = False, model_path: str | None = None) -> None:
        # Imported here: the model needs numpy, which a cascade without the filter (the default)
        # does not load.
        from forumcrawl.extractors.value_model import VALUE_POST_MIN_WORTHLESS, WORTHLESS, load_value_model

        self.drop = drop
        # Loaded here, so a bad FORUMCRAWL_VALUE_MODEL fails before the first page.
        self.model = load_value_model(model_path)
        self._worthless = self.model.classes.index(WORTHLESS)
        self._post_cut = VALUE_POST_MIN_WORTHLESS

    def _p_worthless(self, texts: Sequence[str]) -> list[float]:
        """P(worthless | words) of each text, scored once whatever thresholds apply."""
        if not texts:
            return []
        return self.model.predict_proba(list(texts))[:, self._worthless].tolist()

    def apply(
        self, doc: Document, extraction: Extraction
    ) -> tuple[Extraction | None, ValueVerdict]:
        """``extraction`` with its verdicts applied (None: the page is worthless), and counts."""
        posts = extraction.posts
        opens = fields.page_number(doc.url) == 1
        if posts:
            verdict = ValueVerdict("post")
            texts = [p.text for p in posts]
            cut = self._post_cut
            opens = opens and (posts[0].floor or 1) <= 1
        else:
            verdict = ValueVerdict("block")
            texts = extraction.blocks or [line for line in extraction.text.split("\n") if line.strip()]
            cut = VALUE_MIN_WORTHLESS
        scores = self._p_worthless(texts)
        worthless = [score >= cut for score in scores]
        if opens and texts:
            worthless[0] = scores[0] >= VALUE_MIN_WORTHLESS
            if worthless[0]:
                verdict.page_worthless = True
                return None, verdict
        if self.drop:
            verdict.dropped = sum(worthless)
        else:
            verdict.flagged = sum(worthless)
        if posts:
            judged = [dataclasses.replace(p, worthless=bad) for p, bad in zip(posts, worthless)]
            kept = [p for p in judged if not (self.drop and p.worthless)]
            text = thread_text(kept) if self.drop else extraction.text
            return dataclasses.replace(extraction, text=text, posts=kept), verdict
        kept_blocks = [b for b, bad in zip(texts, worthless) if not (self.drop and bad)]
        text = "\n".join(kept_blocks) if self.drop else extraction.text
        return dataclasses.replace(extraction, text=text, blocks=kept_blocks), verdict


@dataclass
class CascadeOutcome:
    """The cascade's result and its trail, for logs and stats."""

    extraction: Extraction | None
    #: Stages that ran and returned too little text, in order.
    misses: list[str] = field(default_factory=list)
    #: Stages that raised, as ``"stage: error"``.
    errors: list[str] = field(default_factory=list)
    #: The value filter's verdict on the extraction (None: filter off or nothing extracted); when
    #: it found the page worthless, ``extraction`` is None.
    value: ValueVerdict | None = None


Stage = Callable[["Cascade", Document, "SiteModel | None", datetime], "Extraction | None"]


def _ksf_stage(cascade: Cascade, doc: Document, model: SiteModel | None, now: datetime) -> Extraction | None:
    """The site's learned KSF rule, or single-page scoring when the site has none yet."""
    rule_data = model.rules.get("ksf") if model is not None else None
    if rule_data is None:
        # The arbiter takes KSF's posts only as a thread (two or more): learn no further on a
        # page that cannot give two.
        single = single_posts(doc, now=now, min_posts=2 if cascade.arbitrates(model) else 1)
        posts, commented, comments = single.posts, single.commented, single.comments
        rule_id = None
        # A thread's posts are compared with the line-block text quotes included (a reply that
        # is mostly a quote is still a post); one body alone is an article, its quotes its own.
        found = _chars(t for p in posts for t in (p.text, *(p.quotes if len(posts) > 1 else ())))
        if posts and found < SINGLE_PAGE_MIN_SHARE * page_chars(doc, cascade.cx_text(doc)):
            return None
    else:
        rule = cascade.ksf_rule(rule_data)
        posts = apply_rule(rule, doc, now=now)
        identity = cascade.identity(model.rules.get("nav")) if model is not None else None
        key = identity.key(doc.url) if identity is not None else None
        if key is not None and key.thread is not None:  # pages of one thread can be told apart
            later = key.page > 1 if key.page is not None else later_page(doc.tree, doc.url)
            posts = cascade.repeated.filter(doc.url, f"{doc.site} {key.thread}", later, posts, key.page)
        rule_id = rule.rule_id
        commented, comments = False, []
    if not posts:
        return None
    return Extraction("ksf", thread_text(posts), posts, rule_id, commented=commented, comments=comments)


def _template_stage(cascade: Cascade, doc: Document, model: SiteModel | None, now: datetime) -> Extraction | None:
    """Page-cluster templates (seed 001 §2.5–2.6, seed 002 §2): needs the site's learned model."""
    rule = model.rules.get("template") if model is not None else None
    if not rule:
        return None
    # Imported here: the wrapper's numpy and tree distances serve only sites with templates.
    from forumcrawl.extractors.wrapper import template_stage

    found = template_stage(rule, doc, now)
    if found is None:
        return None
    return Extraction("template", found[0], found[1], rule.get("rule_id"))


def _dom_stage(cascade: Cascade, doc: Document, model: SiteModel | None, now: datetime) -> Extraction | None:
    """DOM node density and position (seed 000); its blocks go to the value filter if it is on."""
    result = DomDensityExtractor().extract(doc)
    if not result.text:
        return None
    return Extraction("dom", result.text, blocks=[b.text for b in result.blocks])


def _cx_stage(cascade: Cascade, doc: Document, model: SiteModel | None, now: datetime) -> Extraction | None:
    """Line-block distribution (seed 004): needs no learning, works on any page."""
    text = cascade.cx_text(doc)
    return Extraction("cx", text) if text else None


def _page_stage(cascade: Cascade, doc: Document, model: SiteModel | None, now: datetime) -> Extraction | None:
    """The page's whole visible text (:func:`visible_text`): a list page's content (see
    :data:`LIST_KINDS`)."""
    text = visible_text(doc)
    return Extraction("page", text) if text else None


#: Every stage the cascade knows, by the name used in ``FORUMCRAWL_EXTRACT_CASCADE``.
STAGES: dict[str, Stage] = {
    "ksf": _ksf_stage,
    "template": _template_stage,
    "dom": _dom_stage,
    "cx": _cx_stage,
    "page": _page_stage,
}


class Cascade:
    """Runs extraction stages in order until one yields at least ``min_chars`` characters.

    Parameters
    ----------
    stages : names from :data:`STAGES`, tried in this order.
    min_chars : characters (whitespace excluded) a stage must return to count as a hit, unless
        it read posts by the site's learned rule.
    value_filter : judge the winning stage's posts or blocks with the Naive Bayes value filter
        (:class:`ValueFilter`).
    value_drop : remove worthless later posts and blocks instead of flagging or keeping them.
    value_model : path of a value model JSON (``forumcrawl train value``); None: the shipped one.
    arbiter : on a page without site rules, when ``dom`` and ``cx`` are both listed, choose
        between them on evidence and gate ``ksf`` by the page's kind (see the module notes);
        False: first stage with enough text, in order, always.
    """

    def __init__(
        self,
        stages: Sequence[str] = tuple(FORUMCRAWL_EXTRACT_CASCADE),
        *,
        min_chars: int = 20,
        value_filter: bool = False,
        value_drop: bool = False,
        value_model: str | None = None,
        arbiter: bool = True,
    ) -> None:
        unknown = [s for s in stages if s not in STAGES]
        if unknown or not stages:
            raise ValueError(
                f"unknown cascade stage(s) {unknown or list(stages)}; known: {sorted(STAGES)}"
            )
        self.stages = tuple(stages)
        self.min_chars = min_chars
        self.value = ValueFilter(drop=value_drop, model_path=value_model) if value_filter else None
        self.cx = LineBlockExtractor()
        self._rules: dict[str, KsfRule] = {}
        #: Posts read so far, to tell a post a later page repeats (see :class:`RepeatedPosts`).
        self.repeated = RepeatedPosts()
        self._identities: dict[str, ThreadIdentity] = {}
        self.arbiter: Arbiter | None = load_arbiter() if arbiter else None
        self.kinds: KindClassifier | None = load_kinds() if arbiter else None
        self.forum_gate = self.kinds.forum_gate if self.kinds is not None else 0.0
        self.list_share = self.kinds.list_share if self.kinds is not None else 0.0

    def cx_result(self, doc: Document) -> CXResult:
        """CX on ``doc``, computed once per page (two stages and the arbiter may ask)."""
        return doc.derived("cx.result", lambda: self.cx.extract(doc))

    def cx_text(self, doc: Document) -> str:
        """The line-block text of ``doc``."""
        return self.cx_result(doc).text

    def identity(self, data: dict[str, Any] | None) -> ThreadIdentity | None:
        """The site's thread identity (the ``nav`` rule) for ``data``, built once per rule."""
        if data is None:
            return None
        key = repr(sorted(data.items()))
        identity = self._identities.get(key)
        if identity is None:
            try:
                identity = ThreadIdentity.from_dict(data)
            except (KeyError, TypeError, ValueError):
                return None
            self._identities[key] = identity
        return identity

    def ksf_rule(self, data: dict[str, Any]) -> KsfRule:
        """The rule object for ``data``, built once per rule id (rules are applied per page)."""
        key = str(data.get("rule_id")) or repr(sorted(data.items()))
        rule = self._rules.get(key)
        if rule is None:
            rule = self._rules[key] = KsfRule.from_dict(data)
        return rule

    def _hit(self, doc: Document, found: Extraction) -> bool:
        """Whether a stage's result counts: enough text, or posts a site's learned rule read
        from the site's post template (a one-word reply is a post by its place on the page, not
        by its length; ``min_chars`` guards the stages that guess a region on any page)."""
        chars = page_chars(doc, found.text)
        return chars >= self.min_chars or (chars > 0 and bool(found.posts) and found.rule_id is not None)

    def run(self, doc: Document, model: SiteModel | None = None, *, now: datetime | None = None) -> CascadeOutcome:
        """Try each stage on ``doc``; never raises for a bad page."""
        now = now or datetime.now(timezone.utc)
        outcome = CascadeOutcome(extraction=None)
        if doc.tree is None:
            outcome.misses.extend(self.stages)
            return outcome
        if self.arbitrates(model):
            found = self._arbitrate(doc, model, now, outcome)
        else:
            found = None
            for name in self.stages:
                candidate = self._try(name, doc, model, now, outcome)
                if candidate is not None:
                    found = candidate
                    break
                outcome.misses.append(name)
        if found is not None:
            rule = model.rules.get("ksf") if model is not None else None
            if rule and rule.get("title_affixes"):
                found.title_affixes = list(rule["title_affixes"])
            if self.value is not None:
                found, outcome.value = self.value.apply(doc, found)
            outcome.extraction = found
        return outcome

    def _try(
        self, name: str, doc: Document, model: SiteModel | None, now: datetime, outcome: CascadeOutcome
    ) -> Extraction | None:
        """Stage ``name`` on ``doc``: its extraction when it has enough text, else None."""
        try:
            found = STAGES[name](self, doc, model, now)
        except Exception as exc:  # the cascade boundary: a failing stage must not stop the page
            logger.warning("stage %s failed on %s: %r", name, doc.url, exc, exc_info=True)
            outcome.errors.append(f"{name}: {exc!r}")
            return None
        return found if found is not None and self._hit(doc, found) else None

    def arbitrates(self, model: SiteModel | None) -> bool:
        """Whether this page goes to the arbiter: no site rule, both arbitrated stages listed."""
        if self.arbiter is None or self.kinds is None:
            return False
        if model is not None and ("ksf" in model.rules or "template" in model.rules):
            return False
        return all(name in self.stages for name in _ARBITRATED)

    def kind_proba(self, doc: Document) -> dict[str, float]:
        """The kind model's probabilities for ``doc`` (computed once per page)."""
        if self.kinds is None:
            return {}
        kinds = self.kinds
        return doc.derived("kinds.proba", lambda: kinds.predict_proba(page_signals(doc)))

    def page_kind(self, doc: Document) -> str | None:
        """The kind of ``doc`` to report: a non-content kind (``listing``, ``product``...) only
        when article and forum together are below :data:`CONTENT_FLOOR`; None without a model."""
        proba = self.kind_proba(doc)
        if not proba:
            return None
        kind = max(proba, key=proba.__getitem__)
        if kind not in CONTENT_KINDS and sum(proba.get(k, 0.0) for k in CONTENT_KINDS) >= CONTENT_FLOOR:
            kind = "forum" if proba.get("forum", 0.0) > proba.get("article", 0.0) else "article"
        return kind

    def _list_item(self, doc: Document, proba: dict[str, float], text: str, evidence: Evidence) -> bool:
        """Whether ``text`` is one item of a list page: the kind model finds the page likelier
        a listing or collection than an article or forum thread, and ``text`` holds less than
        the model's ``list_share`` of the page's prose (a teaser or a product tile the region
        finders took for the main text); the page's whole text is the list. Not on a page that
        says it is an article (:attr:`Evidence.og_article`): a story whose page also lists
        many others' teasers is still the story."""
        if self.list_share <= 0 or not evidence.text_chars or evidence.og_article or not likelier_list(proba):
            return False
        return page_chars(doc, text) / evidence.text_chars < self.list_share

    def _whole_page(
        self,
        doc: Document,
        model: SiteModel | None,
        now: datetime,
        outcome: CascadeOutcome,
        kind: str | None,
        group: ListGroup | None = None,
    ) -> Extraction | None:
        """A list page's whole visible text (the ``page`` stage) with the page's ``kind`` and
        its list's items; None, recorded as a miss, when the page has too little."""
        listed = self._try("page", doc, model, now, outcome)
        if listed is None:
            outcome.misses.append("page")
        else:
            listed.page_kind = kind
            listed.items = group.items if group is not None else []
        return listed

    def _found_list(self, doc: Document, proba: dict[str, float]) -> ListGroup | None:
        """The list of a page the kind model does not report as one: the model finds it
        :data:`LIST_ODDS` times likelier a list than content, the page does not say it is an
        article (``og:type``: a story that lists others' teasers is the story), its list
        (:func:`list_items`) holds :data:`LIST_MIN_SHARE` of its visible text, and it is no
        list of bare links beside an article's prose (:data:`LIST_BARE_PROSE`). The search for
        the list runs only on pages the model finds so likely a list."""
        listed = sum(proba.get(k, 0.0) for k in LIST_KINDS)
        evidence = page_evidence(doc)
        if listed <= LIST_ODDS * sum(proba.get(k, 0.0) for k in CONTENT_KINDS) or evidence.og_article:
            return None
        group = list_items(doc.tree, doc.url, LIST_MIN_ITEMS)
        if group is None or group.chars < LIST_MIN_SHARE * len(visible_text(doc)):
            return None
        bare = group.prose < LIST_BARE_PROSE * evidence.text_chars
        return None if bare and evidence.text_chars - group.prose >= LIST_OUTSIDE_PROSE else group

    def _thread_wins(
        self, lines: frozenset[str], bag: Counter[str], others: Sequence[tuple[Extraction, Counter[str]]]
    ) -> bool:
        """Whether KSF's posts (the :func:`thread_lines` and words of their own words) agree with
        one of the other candidates enough to be taken, and hold some of the opening of one's
        text (a thread's first post opens the page's main text; an article's comments follow
        it, see :func:`opening_held`)."""
        assert self.arbiter is not None
        if thread_agreement(bag, [other_bag for _, other_bag in others]) < self.arbiter.thread_min:
            return False
        return any(opening_held(lines, other.text) > 0 for other, _ in others)

    def _short_page(self, doc: Document, kind: str | None) -> Extraction | None:
        """The whole visible text of a page that has less than ``min_chars`` of it (a note, a
        stub; None for an empty page): no stage finds enough text there because the page holds
        no more, and all it says is its main text. A longer page where no stage finds enough
        gives nothing, as before: its text is not all content."""
        text = visible_text(doc)
        if not text or page_chars(doc, text) >= self.min_chars:
            return None
        return Extraction("page", text, page_kind=kind)

    def _without_parts(self, doc: Document, found: Extraction, parts: Sequence[Any]) -> Extraction | None:
        """``found`` without the lines in ``parts`` (an article's comments and comment form, see
        :func:`~forumcrawl.extractors.arbiter.without_parts`); None when too little is left."""
        return self._cut(doc, found, without_parts(found.text, document_lines(doc), parts))

    def _uncommented(
        self,
        doc: Document,
        name: str,
        found: Extraction,
        comments: Sequence[Any],
        model: SiteModel | None,
        now: datetime,
        outcome: CascadeOutcome,
    ) -> Extraction | None:
        """``found`` (stage ``name``'s) without an article's comments (``comments``); when they
        held more than :data:`REREAD_COMMENTED_SHARE` of its text, the stage locked onto the
        comments rather than the article: it reads the page again without them
        (:meth:`Document.without`, made once per page) and that reading is taken, though it
        is shorter than what the cut left: the rest of a reading that locked onto comments is
        the region they made it take (a trackback box, the comments KSF did not list), not
        the article (dragnet +0.0020: even pages +0.0007, odd +0.0033; no other folder has
        comments read so)."""
        cut = self._without_parts(doc, found, comments)
        kept = page_chars(doc, cut.text) if cut is not None else 0
        if kept >= (1 - REREAD_COMMENTED_SHARE) * page_chars(doc, found.text):
            return cut
        bare = doc.derived("uncommented", lambda: doc.without(comments))
        again = self._try(name, bare, model, now, outcome)
        if again is None:
            return cut
        again = self._without_overlays(doc, again)  # the page's lines: its index is made
        return cut if again is None else again

    def _without_overlays(self, doc: Document, found: Extraction) -> Extraction | None:
        """``found`` without the page's consent banners, dialogs and tickers (see
        :func:`~forumcrawl.extractors.arbiter.overlay_lines`); None when too little is left."""
        return self._cut(doc, found, without_lines(found.text, overlay_lines(found.text, document_lines(doc))))

    def _cut(self, doc: Document, found: Extraction, text: str) -> Extraction | None:
        """``found`` with ``text`` instead of its own (and no blocks); None when that is too little."""
        if text == found.text:
            return found
        cut = dataclasses.replace(found, text=text, blocks=[])
        return cut if self._hit(doc, cut) else None

    def _arbitrate(
        self, doc: Document, model: SiteModel | None, now: datetime, outcome: CascadeOutcome
    ) -> Extraction | None:
        """A list page's whole text (:data:`LIST_KINDS`); KSF when the page may be a thread and
        KSF splits it into posts; else the arbiter's choice between the arbitrated stages (see
        the module notes), with the parts of the article the page hides but declares."""
        assert self.arbiter is not None
        proba = self.kind_proba(doc)
        kind = self.page_kind(doc)
        group = list_items(doc.tree, doc.url) if kind in LIST_KINDS else self._found_list(doc, proba)
        if group is not None and kind not in LIST_KINDS:
            kind = max(LIST_KINDS, key=lambda name: proba.get(name, 0.0))
        if kind in LIST_KINDS:
            listed = self._whole_page(doc, model, now, outcome, kind, group)
            if listed is not None:
                return listed
        evidence = page_evidence(doc)
        candidates: dict[str, Extraction] = {}
        bags: dict[str, Counter[str]] = {}
        thread: Extraction | None = None
        thread_bag: Counter[str] = Counter()
        thread_own: frozenset[str] = frozenset()
        # The cheap stage first. dom is not needed when cx's text is the body the page marks,
        # nor when KSF's posts already agree with cx enough to win; KSF is not needed when cx's
        # text lies in the body the page marks as an article's (a thread's posts are no article
        # body, and posts beside it would be part of cx's text).
        order = sorted(self.stages, key=lambda name: name != "cx")
        cx_marked = cx_in_body = False
        comments: list[Any] = []  # an article's comments KSF found: no part of its text
        for name in order:
            if name == "ksf" and (
                proba.get("forum", 0.0) < self.forum_gate or (cx_in_body and evidence.article_body)
            ):
                continue
            if name == "dom" and "cx" in bags and (
                cx_marked
                or (thread is not None and self._thread_wins(thread_own, thread_bag, [(candidates["cx"], bags["cx"])]))
            ):
                continue
            found = self._try(name, doc, model, now, outcome)
            if found is not None and name in _ARBITRATED:
                found = self._without_overlays(doc, found)
            if found is not None and name in _ARBITRATED and comments:
                found = self._uncommented(doc, name, found, comments, model, now, outcome)
            if found is None or (
                name == "ksf" and (len(found.posts) < 2 or found.commented or bare_sections(found.posts))
            ):
                # One KSF post is one block of a longer body, and an article with its comments
                # is no thread: the arbiter decides, without the comments.
                outcome.misses.append(name)
                if found is not None and found.comments:
                    comments = found.comments
                    for other in list(candidates):
                        cut = self._uncommented(doc, other, candidates.pop(other), comments, model, now, outcome)
                        bags.pop(other)
                        if cut is not None:
                            candidates[other], bags[other] = cut, page_tokens(doc, cut.text)
                    if "cx" in bags:
                        cx_marked = marks_body(bags["cx"], evidence)
            elif name == "ksf":
                own = own_words(found.posts)  # a thread is told by its own words, not its quotes
                thread, thread_bag, thread_own = found, page_tokens(doc, own), thread_lines(own)
            elif name in _ARBITRATED:
                candidates[name] = found
                bags[name] = page_tokens(doc, found.text)
                if name == "cx":
                    cx_marked = marks_body(bags["cx"], evidence)
                    cx_in_body = cx_marked or within_body(bags["cx"], evidence)
        if thread is not None and (
            not candidates
            or self._thread_wins(thread_own, thread_bag, [(candidates[name], bags[name]) for name in candidates])
        ):
            thread.page_kind = kind
            return thread
        if not candidates:
            return self._short_page(doc, kind)
        best = max(
            candidates,
            key=lambda name: self.arbiter.score(  # type: ignore[union-attr]
                candidate_features(
                    candidates[name].text,
                    bags[name],
                    evidence,
                    [bag for other, bag in bags.items() if other != name],
                    page_chars(doc, candidates[name].text),
                ),
                name,
            ),
        )
        if "cx" in candidates and "dom" in candidates:
            if self.arbiter.apart(bags["cx"], bags["dom"]):
                best = "cx"  # dom found other text than most of cx's: it locked onto another block
            if best == "cx" and dated_list_beyond(candidates["cx"].text, candidates["dom"].text):
                best = "dom"  # cx ran on past the article into a list of dated teasers or comments
            elif best == "dom" and dated_list_beyond(candidates["dom"].text, candidates["cx"].text):
                best = "cx"  # dom ran on past the article into such a list where cx stopped
        chosen = candidates[best]
        if self._list_item(doc, proba, chosen.text, evidence):
            listed = self._whole_page(doc, model, now, outcome, kind)
            if listed is not None:
                return listed
        # The parts of the article CX left out as small though the page names them its
        # article's, without the blocks its names say are around the article, and those the
        # page hides but declares (a paywall's): see with_body_regions, without_aux and
        # with_hidden_body; a stage's blocks no longer cover the text, its lines do.
        text, bag = chosen.text, bags[best]
        if best == "cx":
            whole = with_body_regions(self.cx_result(doc), bag, evidence)
            if whole is not None:
                text, bag = whole, page_tokens(doc, whole)
            kept = without_aux(text, document_lines(doc))
            if kept is not None:
                text, bag = kept, page_tokens(doc, kept)
        text = with_hidden_body(text, bag, evidence, document_lines(doc)) or text
        if comments:
            text = without_parts(text, document_lines(doc), comments)
        elif (
            # A page that says it is an article (Open Graph) is one, though its comments make
            # the kind model find it likelier a thread (dragnet +0.0012, aeb-articles-en
            # +0.0001, the other folders unchanged).
            evidence.og_article
            or proba.get("article", 0.0) > proba.get("forum", 0.0)
            or proba.get("forum", 0.0) < self.forum_gate
        ) and not declares_thread(doc):
            text = without_comment_blocks(text, doc)
        if text != chosen.text:
            chosen = dataclasses.replace(chosen, text=text, blocks=[])
        chosen.page_kind = kind
        return chosen


def without_comment_blocks(text: str, doc: Document) -> str:
    """``text`` without the comment section of an article page that KSF did not read (or did
    not run on): the blocks named comments on a page with a comment form, or, on one without
    (comments closed), the numbered comments that close the text (see
    :func:`~forumcrawl.extractors.arbiter.comment_blocks`); a block the text opens in stays."""
    lines = document_lines(doc)
    blocks, closing = comment_blocks(text, lines), False
    if not blocks:
        blocks, closing = comment_blocks(text, lines, formless=True), True
    return without_parts(text, lines, blocks, opening=False, closing=closing)


def _published(raw: str | None, now: datetime) -> str | None:
    return to_iso(raw, now=now) if raw else None


def thread_item(doc: Document, extraction: Extraction, *, now: datetime | None = None) -> ForumThread:
    """A :class:`ForumThread` from a page and what the cascade extracted from it."""
    now = now or datetime.now(timezone.utc)
    tree = doc.tree
    page_title = fields.title(tree, extraction.title_affixes, known_lines(doc)) or doc.title or None
    first = extraction.posts[0] if extraction.posts else None
    author, published, raw_date = (first.author, first.published, first.published_raw) if first else (None, None, None)
    if tree is not None and not extraction.title_affixes and marked_article(tree, document_lines(doc)):
        # A page that says it is an article and reads as posts (an article and its comments
        # taken as a thread): its marks and byline name the headline, the writer and the day.
        meta = article_metadata(tree, document_lines(doc), now=now)
        page_title = meta.title or page_title
        author = author or meta.author
        if published is None and meta.published:
            published, raw_date = _published(meta.published, now), meta.published
    return ForumThread(
        url=doc.url,
        site=doc.site or None,
        title=page_title,
        board=fields.board(tree, page_title),
        page=fields.page_number(doc.url),
        author=author,
        published=published,
        published_raw=raw_date,
        text=extraction.text,
        posts=list(extraction.posts),
        reply_count=max(len(extraction.posts) - 1, 0) if extraction.posts else None,
        language=language(extraction.text),
        method=extraction.method,
        rule_id=extraction.rule_id,
    )


def article_item(doc: Document, extraction: Extraction, *, now: datetime | None = None) -> Article:
    """An :class:`Article` from a page and what the cascade extracted from it: title, author and
    times from what the page marks and shows (:func:`~forumcrawl.extractors.metadata.article_metadata`),
    the first post's where it marks none; a site's learned title affixes, when it has them, still
    cut its ``<title>``."""
    now = now or datetime.now(timezone.utc)
    tree = doc.tree
    first = extraction.posts[0] if extraction.posts else None
    lines = document_lines(doc) if tree is not None else None
    meta = article_metadata(tree, lines, now=now)
    raw_date = meta.published or (first.published_raw if first else None)
    title = fields.title(tree, extraction.title_affixes, lines) if extraction.title_affixes else meta.title
    return Article(
        url=doc.url,
        site=doc.site or None,
        title=title or doc.title or None,
        author=meta.author or (first.author if first else None),
        published=_published(raw_date, now),
        published_raw=raw_date,
        text=without_labels(extraction.text),
        language=language(extraction.text),
        method=extraction.method,
        rule_id=extraction.rule_id,
    )
