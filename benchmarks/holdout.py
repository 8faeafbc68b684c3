"""Leave-one-folder-out figures of every choice the single-page cascade learns from the folders.

Seven things are fit on the evaluation folders: the kind model (``extractors/kinds.py``), the
KSF gate (the forum probability under which single-page KSF does not run), the arbiter between
``dom`` and ``cx`` (``extractors/arbiter.py``), the agreement with them KSF's posts need to
win (``thread_min``), the agreement of ``cx`` with the page's marked body at which ``dom``
does not run (nor KSF, when the page marks that body as an article's and that share of
``cx``'s words lie in it, though they hold only part of it), the share of ``cx``'s words
under which ``dom``'s text is apart from it and ``cx``'s is taken (``apart_share``) and the
share of a page's prose under which the arbiter's text gives way to the whole page's on a page
likelier a list and not an Open Graph article (``list_share``; wcxb-dev's own is chosen on
its other site folds). For each
folder this fits all seven on the *other* folders and scores the folder
with them (held-apart), and prints that beside the
figure of the same choices fit on every folder (tuned-on), each stage alone, the cascade as it
was (first stage with enough text: ``ksf`` > ``dom`` > ``cx``) and trafilatura when its
predictions are in ``--work``. Non-content kinds occur in wcxb-dev only: they are reported by five
folds grouped by site, and the same folds decide which of its pages are list pages (whose whole
text the cascade takes) in its held-apart figure. ``--write-models`` saves the models fit on every folder where the
cascade loads them::

    python benchmarks/holdout.py --work /tmp/acc            # candidates cached in /tmp/acc
    python benchmarks/holdout.py --work /tmp/acc --write-models
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from forumcrawl.defaults import FORUMCRAWL_EXTRACT_MIN_CHARS
from forumcrawl.document import Document, DocumentError
from forumcrawl.evaluation import text_prf
from forumcrawl.extractors.arbiter import DEFAULT_MODEL as ARBITER_MODEL
from forumcrawl.extractors.arbiter import (
    FEATURES,
    MARKED_BODY_AGREEMENT,
    Arbiter,
    candidate_features,
    dated_list_beyond,
    opening_held,
    page_evidence,
    text_tokens,
    thread_agreement,
    thread_lines,
    with_body_regions,
    with_hidden_body,
    without_aux,
)
from forumcrawl.extractors.cx import LineBlockExtractor, document_lines, visible_text
from forumcrawl.extractors.kinds import DEFAULT_MODEL as KINDS_MODEL
from forumcrawl.extractors.kinds import CONTENT_KINDS, KindClassifier, declares_thread, page_signals
from forumcrawl.pages import CONTENT_FLOOR, LIST_KINDS, SINGLE_PAGE_MIN_SHARE, likelier_list, without_comment_blocks

sys.path.insert(0, str(Path(__file__).resolve().parent))
import candidates as cand  # noqa: E402  (sibling scripts, not a package)
import peers  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
ARBITRATED = ("dom", "cx")
MIN_CHARS = FORUMCRAWL_EXTRACT_MIN_CHARS
#: The KSF gate is stored rounded down to this fraction (see :func:`forum_gate`).
GATE_PRECISION = 1_000_000
#: A candidate within this F1 of the page's best counts as a best one when fitting the arbiter.
BEST_MARGIN = 0.005
_SPACE = re.compile(r"\s+")


def _chars(text: str) -> int:
    return len(_SPACE.sub("", text or ""))


@dataclass
class Page:
    """One gold page with its stages' candidates, their F1 and the arbiter's inputs."""

    folder: str
    id: str
    kind: str
    site: str
    texts: dict[str, str]
    ksf_posts: int
    f1: dict[str, float]
    features: dict[str, list[float]] = field(default_factory=dict)
    signals: list[float] = field(default_factory=list)
    trafilatura: float | None = None
    readability: float | None = None
    #: :func:`thread_agreement` of KSF's text with the arbitrated candidates (1 without any),
    #: and with ``cx`` alone (when ``dom`` did not run).
    agreement: float = 1.0
    agreement_cx: float = 1.0
    #: The most of the opening of an arbitrated candidate's text that KSF's lines hold
    #: (:func:`~forumcrawl.extractors.arbiter.opening_held`; 1 without any), and of ``cx``'s.
    lead: float = 1.0
    lead_cx: float = 1.0
    #: The page marks its body as an article's (:attr:`~forumcrawl.extractors.arbiter.Evidence.
    #: article_body`): KSF does not run when ``cx`` is that body.
    article_marked: bool = False
    #: F1 of an arbitrated candidate completed by the parts of the article CX left out as small
    #: though the page names them its article's and those the page hides but declares
    #: (:func:`~forumcrawl.extractors.arbiter.with_body_regions`, ``with_hidden_body``), where
    #: the cascade completes it once the arbiter chose it.
    completed: dict[str, float] = field(default_factory=dict)
    #: The same, once the comment section goes (``pages.without_comment_blocks``), which the
    #: cascade does on a page its kind model finds likelier an article than a thread.
    uncommented: dict[str, float] = field(default_factory=dict)
    #: The gold gives the page a text. A page without one (seven of wcxb-dev's product, listing,
    #: collection and forum pages) counts for the kind model only: like
    #: :func:`forumcrawl.evaluation.evaluate` (``accuracy.py``), no text F1 is taken of it.
    scored: bool = True
    #: KSF's posts are an article with its readers' comments
    #: (:func:`~forumcrawl.extractors.ksf.comments_on_first`).
    commented: bool = False
    #: KSF's posts are an article's comments, all of them (``ksf_comments``): once KSF ran,
    #: the cascade reads ``dom`` and ``cx`` without them, as this page (their texts ``cx_cut``
    #: and ``dom_cut`` in the candidates) does.
    comments: bool = False
    cut: Page | None = None
    #: The page says it is an article in Open Graph terms
    #: (:attr:`~forumcrawl.extractors.arbiter.Evidence.og_article`): no list item.
    og_article: bool = False

    @cached_property
    def chars(self) -> dict[str, int]:
        """Each candidate's characters, whitespace excluded (fitting asks them many times)."""
        return {name: _chars(text) for name, text in self.texts.items()}

    @property
    def ksf_thread(self) -> bool:
        """Single-page KSF splits the page into posts that are no article with its comments, and
        holds enough of its text."""
        ksf = self.chars.get("ksf", 0)
        return (
            self.ksf_posts >= 2
            and not self.commented
            and ksf >= MIN_CHARS
            and ksf >= SINGLE_PAGE_MIN_SHARE * self.chars.get("cx", 0)
        )

    def cascade_before(self) -> str | None:
        """The stage the first-with-enough-text cascade took."""
        ksf = self.chars.get("ksf", 0)
        if ksf >= MIN_CHARS and ksf >= SINGLE_PAGE_MIN_SHARE * self.chars.get("cx", 0):
            return "ksf"
        for name in ARBITRATED:
            if self.chars.get(name, 0) >= MIN_CHARS:
                return name
        return None


def load_pages(folder: Path, work: Path, jobs: int) -> list[Page]:
    """The folder's pages with candidates (computed into ``work`` once, then reused)."""
    cached = work / folder.name / "candidates.jsonl"
    if not cached.is_file():
        cand.write_candidates(folder, cached, jobs)
    records = {r["id"]: r for r in map(json.loads, cached.open(encoding="utf-8"))}
    peer_texts: dict[str, dict[str, str]] = {}
    for peer in ("trafilatura", "readability"):
        peer_file = work / folder.name / f"{peer}.jsonl"
        if peer_file.is_file():
            peer_texts[peer] = {r["id"]: r.get("text") or "" for r in map(json.loads, peer_file.open(encoding="utf-8"))}
    pages = []
    for line in (folder / "gold.jsonl").open(encoding="utf-8"):
        gold = json.loads(line)
        record = records.get(gold["id"])
        if record is None:
            continue
        texts = {name: record.get(name) or "" for name in cand.STAGE_NAMES}
        # The cascade exports a thread with its quotes (``ksf_quoted``) and tests whether it is
        # a thread on its posts' own words (``ksf``); a cache written before has only those.
        own = texts["ksf"]
        texts["ksf"] = record.get("ksf_quoted") or own
        gold_text = gold.get("text") if isinstance(gold.get("text"), str) else ""
        page = Page(
            folder=folder.name,
            id=gold["id"],
            kind=gold["kind"],
            site=urlsplit(gold.get("url") or "").hostname or gold["id"],
            texts=texts,
            ksf_posts=int(record.get("ksf_posts") or 0),
            commented=bool(record.get("ksf_commented")),
            comments=bool(record.get("ksf_comments")),
            f1={name: text_prf(text, gold_text).f1 for name, text in texts.items()},
            scored=isinstance(gold.get("text"), str),
        )
        for peer, texts_of in peer_texts.items():
            if gold["id"] in texts_of:
                setattr(page, peer, text_prf(texts_of[gold["id"]], gold_text).f1)
        _page_inputs(page, folder, gold_text, own)
        if page.comments:
            cut_texts = {**texts, **{name: record.get(f"{name}_cut") or "" for name in ("cx", "dom")}}
            page.cut = dataclasses.replace(
                page, texts=cut_texts, f1={name: text_prf(t, gold_text).f1 for name, t in cut_texts.items()},
                features={}, completed={}, uncommented={}, cut=None,
            )
            page.cut.__dict__.pop("chars", None)  # a cached property of the texts
            _page_inputs(page.cut, folder, gold_text, own)
        pages.append(page)
    return pages


def _page_inputs(page: Page, folder: Path, gold_text: str, own_words: str) -> None:
    """The arbiter's features of each arbitrated candidate, the page's kind signals, its
    whole text (the ``page`` stage, which a list page gets) and how far KSF's posts (their
    ``own_words``) agree with the arbitrated candidates."""
    try:
        doc = Document.from_bytes(peers.read_page(folder / "pages" / f"{page.id}{peers.PAGE_SUFFIX}"))
    except (DocumentError, OSError):
        return
    page.texts["page"] = visible_text(doc)
    page.f1["page"] = text_prf(page.texts["page"], gold_text).f1
    evidence = page_evidence(doc)
    page.signals = page_signals(doc, evidence)
    page.article_marked = evidence.article_body
    page.og_article = evidence.og_article
    present = [n for n in ARBITRATED if page.chars[n] >= MIN_CHARS]
    bags = {n: text_tokens(page.texts[n]) for n in present}
    for name in present:
        others = [bag for other, bag in bags.items() if other != name]
        page.features[name] = candidate_features(page.texts[name], bags[name], evidence, others)
        text, bag = page.texts[name], bags[name]
        if name == "cx":
            whole = with_body_regions(LineBlockExtractor().extract(doc), bag, evidence)
            if whole is not None:
                text, bag = whole, text_tokens(whole)
            kept = without_aux(text, document_lines(doc))
            if kept is not None:
                text, bag = kept, text_tokens(kept)
        completed = with_hidden_body(text, bag, evidence, document_lines(doc)) or text
        if completed != page.texts[name]:
            page.completed[name] = text_prf(completed, gold_text).f1
        if not page.comments and not declares_thread(doc):  # as the cascade on an article page
            uncommented = without_comment_blocks(completed, doc)
            if uncommented != completed:
                page.uncommented[name] = text_prf(uncommented, gold_text).f1
    if bags:
        thread = text_tokens(own_words)
        page.agreement = thread_agreement(thread, list(bags.values()))
        lines = thread_lines(own_words)
        page.lead = max(opening_held(lines, page.texts[n]) for n in present)
        if "cx" in bags:
            page.agreement_cx = thread_agreement(thread, [bags["cx"]])
            page.lead_cx = opening_held(lines, page.texts["cx"])
        else:
            page.agreement_cx, page.lead_cx = page.agreement, page.lead


def _balanced(labels: Sequence[str]) -> list[float]:
    counts = Counter(labels)
    return [1.0 / counts[label] for label in labels]


def fit_kinds(pages: Sequence[Page]) -> KindClassifier:
    """The kind model, every kind weighing the same in total."""
    usable = [p for p in pages if p.signals]
    kinds = [p.kind for p in usable]
    return KindClassifier().fit([p.signals for p in usable], kinds, _balanced(kinds))


def forum_gate(model: KindClassifier, arbiter: Arbiter, pages: Sequence[Page]) -> float:
    """The highest gate that lets every forum page of ``pages`` whose posts the cascade would
    take (KSF splits it into posts that :func:`thread_agreement` lets win) reach KSF. A forum
    page whose posts KSF does not find, or that lose to ``dom``/``cx``, gives the gate nothing:
    its text comes from the arbiter whether KSF runs or not. Rounded down to a millionth: the
    cascade computes the lowest page's probability again from its JSON model, and a last digit
    that differs would keep the page that sets the gate from passing it."""
    forum = [
        forum_proba(model, p)
        for p in pages
        if p.kind == "forum" and p.signals and p.ksf_thread and (not p.features or thread_wins(arbiter, p))
    ]
    return math.floor(min(forum) * GATE_PRECISION) / GATE_PRECISION if forum else 0.0


def thread_wins(arbiter: Arbiter, page: Page, cx_only: bool = False) -> bool:
    """KSF's posts agree with the arbitrated candidates (``cx`` alone: ``cx_only``) enough to
    be taken, and hold some of the opening of one of their texts."""
    if cx_only:
        return page.agreement_cx >= arbiter.thread_min and page.lead_cx > 0
    return page.agreement >= arbiter.thread_min and page.lead > 0


def fit_arbiter(pages: Sequence[Page]) -> Arbiter:
    """The arbiter, fit on pages where the choice matters, each folder weighing the same."""
    sizes = Counter(p.folder for p in pages)
    X: list[list[float]] = []
    y: list[int] = []
    stages: list[str] = []
    weights: list[float] = []
    for page in pages:
        if len(page.features) < 2 or not page.scored:
            continue
        scores = [page.f1[n] for n in page.features]
        best, spread = max(scores), max(scores) - min(scores)
        for name, features in page.features.items():
            X.append(features)
            y.append(int(page.f1[name] >= best - BEST_MARGIN))
            stages.append(name)
            weights.append(1000.0 * spread / sizes[page.folder])
    return Arbiter().fit(X, y, stages, weights)


@dataclass
class Models:
    kinds: KindClassifier
    gate: float
    arbiter: Arbiter
    #: ``dom`` does not run when ``cx`` and the page's marked body agree this far both ways
    #: (:data:`~forumcrawl.extractors.arbiter.MARKED_BODY_AGREEMENT`); above 1: always runs.
    marked: float = 2.0
    #: Per page (by id), the kind model that decides whether it is a list page, where it is
    #: not ``kinds``: the kinds only one folder has (wcxb-dev's) are held apart by site.
    list_kinds: dict[int, KindClassifier] = field(default_factory=dict)
    #: On a page the kind model finds likelier a list than content, the arbiter's text gives way
    #: to the whole page's when it holds less than this share of the page's prose (0: never).
    list_share: float = 0.0


#: The values tried for the arbiter's ``thread_min``.
THREAD_MIN_GRID = tuple(i / 10 for i in range(10))


def thread_min(arbiter: Arbiter, pages: Sequence[Page]) -> float:
    """The highest agreement asked of KSF's posts that overrules no thread of a forum page of
    ``pages`` where KSF scored at least as well as the arbiter's choice (its posts are right)."""
    kept = [
        p.agreement
        for p in pages
        if p.kind == "forum" and p.ksf_thread and p.features and p.scored
        and p.f1["ksf"] >= p.f1[_arbitrated(arbiter, p)]
    ]
    floor = min(kept, default=1.0)
    return max(v for v in THREAD_MIN_GRID if v <= floor)


#: The index of ``agree_precision`` (the share of a candidate's words the others hold) in the
#: arbiter's features.
_HELD_BY_OTHERS = FEATURES.index("agree_precision")


def _arbitrated(arbiter: Arbiter, page: Page) -> str:
    """The arbiter's choice: ``cx`` when ``dom`` holds less than ``apart_share`` of its words
    (:meth:`~forumcrawl.extractors.arbiter.Arbiter.apart`; with ``dom`` the only other
    candidate, ``cx``'s ``agree_precision``), else the best score."""
    if "dom" in page.features and "cx" in page.features:
        if page.features["cx"][_HELD_BY_OTHERS] < arbiter.apart_share:
            return "cx"
    return max(page.features, key=lambda n: arbiter.score(page.features[n], n))


#: The values tried for the marked-body agreement under which ``dom`` still runs.
MARKED_GRID = (0.8, 0.85, 0.9, 0.95)
#: ... the lowest of them that costs no folder it is chosen on more than this mean F1,
MARKED_MAX_LOSS = 0.001
#: ... and no page of those folders more than this F1. The skip says ``dom`` cannot do better
#: than ``cx`` there; one page that loses a tenth of its text says the agreement is too low to
#: say so, whatever the folder's mean (among many pages, a folder's mean hides one such page).
MARKED_PAGE_MAX_LOSS = 0.1


def fit_models(pages: Sequence[Page]) -> Models:
    """All five choices, fit on ``pages``."""
    kinds = fit_kinds(pages)
    arbiter = fit_arbiter(pages)
    arbiter.thread_min = thread_min(arbiter, pages)
    models = Models(kinds, forum_gate(kinds, arbiter, pages), arbiter)
    models.marked = marked_agreement(models, pages)
    return models


def marked_agreement(models: Models, pages: Sequence[Page]) -> float:
    """The lowest value of :data:`MARKED_GRID` at which skipping ``dom`` costs no folder of
    ``pages`` more than :data:`MARKED_MAX_LOSS` mean F1 and no page more than
    :data:`MARKED_PAGE_MAX_LOSS` (2.0, never skip, when none does)."""
    scored = [page for page in pages if page.scored]
    by_folder: dict[str, list[int]] = defaultdict(list)
    for i, page in enumerate(scored):
        by_folder[page.folder].append(i)

    def f1s(value: float) -> list[float]:
        trial = Models(models.kinds, models.gate, models.arbiter, value)
        return [page_f1(trial, page) for page in scored]

    base = f1s(2.0)  # dom always runs
    for value in MARKED_GRID:
        trial = f1s(value)
        if all(
            _mean([trial[i] for i in folder]) >= _mean([base[i] for i in folder]) - MARKED_MAX_LOSS
            for folder in by_folder.values()
        ) and all(after >= before - MARKED_PAGE_MAX_LOSS for after, before in zip(trial, base)):
            return value
    return 2.0


def _marked_agreement(page: Page) -> tuple[float, float] | None:
    """``(recall, precision)`` of ``cx``'s text against the page's marked body (None without
    a marked body or a ``cx`` candidate)."""
    cx = page.features.get("cx")
    if not cx:
        return None
    marked = dict(zip(FEATURES, cx))
    if marked["has_marker"] <= 0:
        return None
    return marked["marker_recall"], marked["marker_precision"]


def skips_dom(models: Models, page: Page) -> bool:
    """``cx`` holds the page's marked body and is held by it (see ``Models.marked``)."""
    agreement = _marked_agreement(page)
    return agreement is not None and min(agreement) >= models.marked


def in_marked_body(models: Models, page: Page) -> bool:
    """``cx``'s words lie in the page's marked body at ``Models.marked``, though they may hold
    only part of it (:func:`~forumcrawl.extractors.arbiter.within_body`)."""
    agreement = _marked_agreement(page)
    return agreement is not None and agreement[1] >= models.marked


def runs_dom(models: Models, page: Page, ran_ksf: bool) -> bool:
    """Whether the cascade runs ``dom`` on ``page``: not when ``cx`` is the marked body, nor
    when KSF's posts agree with ``cx`` enough to win whatever ``dom`` finds."""
    if skips_dom(models, page):
        return False
    return not (ran_ksf and page.ksf_thread and thread_wins(models.arbiter, page, cx_only=True))


#: :func:`kind_proba`'s answers by model and page, each kept with its model and page (so that
#: no other object reuses their ids while the cache holds them).
_KIND_PROBA: dict[tuple[int, int], tuple[KindClassifier, Page, dict[str, float]]] = {}


def kind_proba(kinds: KindClassifier, page: Page) -> dict[str, float]:
    """The kind model's probabilities for ``page``, computed once per model and page: fitting
    the thresholds scores every page many times."""
    known = _KIND_PROBA.get((id(kinds), id(page)))
    if known is None:
        known = _KIND_PROBA[id(kinds), id(page)] = (kinds, page, kinds.predict_proba(page.signals))
    return known[2]


def forum_proba(kinds: KindClassifier, page: Page) -> float:
    """The kind model's forum probability of ``page`` (1 without signals)."""
    return kind_proba(kinds, page).get("forum", 0.0) if page.signals else 1.0


def lists(models: Models, page: Page) -> bool:
    """The cascade reports ``page`` as a list page (:data:`~forumcrawl.pages.LIST_KINDS`) and
    takes its whole text."""
    if not page.signals or page.chars.get("page", 0) < MIN_CHARS:
        return False
    kinds = models.list_kinds.get(id(page), models.kinds)
    return report_kind(kind_proba(kinds, page)) in LIST_KINDS


def list_region(models: Models, page: Page, stage: str) -> bool:
    """The arbiter's ``stage`` is one item of a list page: the kind model finds ``page``
    likelier a listing or collection than an article or forum thread, and the stage's text
    holds less than ``Models.list_share`` of the page's prose; not on a page that says it is an
    article."""
    if models.list_share <= 0 or page.og_article or not page.signals or stage not in page.features:
        return False
    if page.chars.get("page", 0) < MIN_CHARS:
        return False
    if not likelier_list(kind_proba(models.list_kinds.get(id(page), models.kinds), page)):
        return False
    return dict(zip(FEATURES, page.features[stage]))["page_share"] < models.list_share


def ksf_runs(models: Models, page: Page) -> bool:
    """Whether the cascade runs KSF on ``page`` (the page may be a thread, and ``cx`` does not
    lie in the body it names an article's)."""
    return forum_proba(models.kinds, page) >= models.gate and not (
        in_marked_body(models, page) and page.article_marked
    )


def as_read(models: Models, page: Page) -> Page:
    """``page`` as the cascade reads it: without an article's comments once KSF ran and found
    them (``Page.cut``)."""
    return page.cut if page.cut is not None and ksf_runs(models, page) else page


def choose(models: Models, page: Page) -> tuple[str | None, bool]:
    """``(stage, ran_ksf)``: what the arbitrating cascade takes on ``page`` (its text is
    :func:`as_read`'s)."""
    if lists(models, page):
        return "page", False
    ran = ksf_runs(models, page)
    page = as_read(models, page)
    no_dom = skips_dom(models, page)
    if ran and page.ksf_thread and (not page.features or thread_wins(models.arbiter, page, no_dom)):
        return "ksf", ran
    if not page.features:
        # A page whose whole visible text is below the floor gives it (``Cascade._short_page``).
        return ("page" if 0 < page.chars.get("page", 0) < MIN_CHARS else None), ran
    if no_dom:
        best = "cx"
    else:
        best = _arbitrated(models.arbiter, page)
        if best == "cx" and "dom" in page.features and dated_list_beyond(page.texts["cx"], page.texts["dom"]):
            best = "dom"
    return ("page" if list_region(models, page, best) else best), ran


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def page_f1(models: Models, page: Page) -> float:
    """The F1 of the cascade's choice on a scored ``page`` (0 when it takes nothing)."""
    return _taken_f1(models, page, choose(models, page)[0])


def _taken_f1(models: Models, page: Page, stage: str | None) -> float:
    """F1 of ``stage``'s text on ``page`` as the cascade exports it (read as :func:`as_read`,
    completed, see ``Page.completed`` and ``Page.uncommented``; 0 for no stage)."""
    if not stage:
        return 0.0
    page = as_read(models, page)
    if stage in page.uncommented:
        proba = kind_proba(models.kinds, page)
        if page.og_article or proba.get("article", 0.0) > proba.get("forum", 0.0):
            return page.uncommented[stage]
    return page.completed.get(stage, page.f1[stage])


def score(models: Models, pages: Sequence[Page]) -> tuple[float, float, int, float]:
    """``(mean F1 of the scored pages, share of pages that ran KSF, pages whose thread decision
    changed, share of pages that ran dom)``."""
    f1s, ran, changed, dom = [], 0, 0, 0
    for page in pages:
        stage, ksf = choose(models, page)
        if page.scored:
            f1s.append(_taken_f1(models, page, stage))
        ran += ksf
        dom += stage != "page" and runs_dom(models, page, ksf)
        changed += (stage == "ksf") != (page.cascade_before() == "ksf" and page.ksf_posts >= 2)
    return _mean(f1s), ran / len(pages), changed, dom / len(pages)


def alone(page: Page, stage: str) -> float:
    """``stage``'s F1 on ``page`` as the cascade runs it alone (``FORUMCRAWL_EXTRACT_CASCADE``
    naming it only): a text under ``MIN_CHARS`` is no hit, so the page gets none, as it gets
    none from the whole cascade when every stage falls short."""
    return page.f1[stage] if page.chars.get(stage, 0) >= MIN_CHARS else 0.0


#: The values tried for ``Models.list_share`` (0: the arbiter's text is always kept) and for
#: the arbiter's ``apart_share`` (0: the scores always decide).
SHARE_GRID = (0.0, 0.1, 0.2, 0.25, 0.3, 1 / 3, 0.4, 0.5)


def _best_share(models: Models, pages: Sequence[Page], put: Callable[[float], None]) -> float:
    """The value of :data:`SHARE_GRID` with the best mean F1 over the folders of ``pages``,
    each weighing the same (the smaller on a tie), set with ``put``."""
    by_folder: dict[str, list[Page]] = defaultdict(list)
    for page in pages:
        by_folder[page.folder].append(page)
    best = (float("-inf"), 0.0)
    for value in SHARE_GRID:
        put(value)
        mean = _mean([score(models, folder)[0] for folder in by_folder.values()])
        if mean > best[0] + 1e-9:
            best = (mean, value)
    put(best[1])
    return best[1]


def fit_list_share(models: Models, pages: Sequence[Page]) -> float:
    """``Models.list_share`` fit on ``pages`` (:func:`_best_share`). wcxb-dev's pages are read
    by their ``list_kinds`` models, so that their list probabilities are held apart."""
    return _best_share(models, pages, lambda value: setattr(models, "list_share", value))


def fit_apart_share(models: Models, pages: Sequence[Page]) -> float:
    """The arbiter's ``apart_share`` fit on ``pages`` (:func:`_best_share`), the list share
    off: that rule reads the arbiter's choice."""
    list_share, models.list_share = models.list_share, 0.0
    found = _best_share(models, pages, lambda value: setattr(models.arbiter, "apart_share", value))
    models.list_share = list_share
    return found


def _site_folds(pages: Sequence[Page], site_kinds: dict[int, KindClassifier]) -> list[list[Page]]:
    """``pages`` grouped by the :func:`site_fold_kinds` model that holds them apart."""
    folds: dict[int, list[Page]] = defaultdict(list)
    for page in pages:
        folds[id(site_kinds.get(id(page)))].append(page)
    return list(folds.values())


def holdout_rows(
    by_folder: dict[str, list[Page]], site_kinds: dict[int, KindClassifier] | None = None
) -> list[dict[str, Any]]:
    """Per folder: held-apart and tuned-on figures, the stages alone, before, trafilatura.
    ``site_kinds``: the :func:`site_fold_kinds` models that tell the list pages of the folder
    whose kinds no other folder has."""
    everything = [p for pages in by_folder.values() for p in pages]
    full = fit_models(everything)
    full.list_kinds = site_kinds or {}
    fit_apart_share(full, everything)
    fit_list_share(full, everything)
    rows = []
    for name, pages in by_folder.items():
        training = [p for p in everything if p.folder != name]
        held = fit_models(training)
        held.list_kinds = site_kinds or {}
        fit_apart_share(held, training)
        if site_kinds and any(id(p) in site_kinds for p in pages):
            # The list share of a folder whose kinds no other folder has is chosen with its
            # other site folds among the training pages, each fold scored apart.
            folds = _site_folds(pages, site_kinds)
            weighed = []
            for fold in folds:
                chosen = {id(p) for p in fold}
                fit_list_share(held, [*training, *(p for p in pages if id(p) not in chosen)])
                scored_fold = [p for p in fold if p.scored]
                weighed.append((score(held, fold)[0], len(scored_fold)))
            apart = sum(v * n for v, n in weighed if n) / sum(n for _, n in weighed)
            fit_list_share(held, training)
            _, ran, changed, dom = score(held, pages)
        else:
            fit_list_share(held, training)
            apart, ran, changed, dom = score(held, pages)
        tuned = score(full, pages)[0]
        scored = [p for p in pages if p.scored]
        stages = {s: _mean([alone(p, s) for p in scored]) for s in cand.STAGE_NAMES}
        before = _mean([p.f1[s] if (s := p.cascade_before()) else 0.0 for p in scored])
        traf = [p.trafilatura for p in scored if p.trafilatura is not None]
        read = [p.readability for p in scored if p.readability is not None]
        rows.append(
            {
                "folder": name,
                "pages": len(pages),
                "held_apart": apart,
                "tuned_on": tuned,
                "gate_held_apart": held.gate,
                "thread_min_held_apart": held.arbiter.thread_min,
                "apart_share_held_apart": held.arbiter.apart_share,
                "ksf_ran": ran,
                "dom_ran": dom,
                "marked_held_apart": held.marked,
                "list_share_held_apart": held.list_share,
                "thread_changed": changed,
                "before": before,
                **{f"alone_{s}": v for s, v in stages.items()},
                "trafilatura": _mean(traf) if len(traf) == len(scored) else None,
                "readability": _mean(read) if len(read) == len(scored) else None,
            }
        )
    return rows


def site_fold_kinds(pages: Sequence[Page], others: Sequence[Page], folds: int = 5) -> dict[int, KindClassifier]:
    """For each page of ``pages`` (by id), a kind model fit on ``others`` and the pages of the
    other folds, folds grouped by site: how the kinds only this folder has are held apart."""
    from sklearn.model_selection import GroupKFold

    usable = [p for p in pages if p.signals]
    models: dict[int, KindClassifier] = {}
    for train, test in GroupKFold(folds).split(usable, groups=[p.site for p in usable]):
        model = fit_kinds([*others, *(usable[i] for i in train)])
        for i in test:
            models[id(usable[i])] = model
    return models


def kind_folds(pages: Sequence[Page], site_kinds: dict[int, KindClassifier]) -> dict[str, Any]:
    """Kinds of ``pages`` (wcxb-dev) predicted by their :func:`site_fold_kinds` models:
    confusion, non-content pages exported, content withheld."""
    usable = [p for p in pages if p.signals]
    predicted = {i: report_kind(kind_proba(site_kinds[id(p)], p)) for i, p in enumerate(usable)}
    confusion: dict[str, Counter[str]] = defaultdict(Counter)
    for i, page in enumerate(usable):
        confusion[page.kind][predicted[i]] += 1
    non_content = [i for i, p in enumerate(usable) if p.kind not in CONTENT_KINDS]
    content = [i for i, p in enumerate(usable) if p.kind in CONTENT_KINDS]
    return {
        "confusion": {k: dict(v) for k, v in confusion.items()},
        "non_content_exported": sum(predicted[i] in CONTENT_KINDS for i in non_content),
        "non_content": len(non_content),
        "content_withheld": sum(predicted[i] not in CONTENT_KINDS for i in content),
        "content": len(content),
    }


def report_kind(proba: dict[str, float]) -> str:
    """The kind the cascade reports for these probabilities (see CONTENT_FLOOR in pages.py)."""
    kind = max(proba, key=proba.__getitem__)
    if kind not in CONTENT_KINDS and sum(proba.get(k, 0.0) for k in CONTENT_KINDS) >= CONTENT_FLOOR:
        return "forum" if proba.get("forum", 0.0) > proba.get("article", 0.0) else "article"
    return kind


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def format_rows(rows: Sequence[dict[str, Any]]) -> str:
    """Markdown table of :func:`holdout_rows`."""
    lines = [
        "| folder | pages | held-apart | tuned-on | before | ksf alone | dom alone | cx alone "
        "| trafilatura | readability-lxml | KSF ran | dom ran | thread decisions changed | gate | thread_min "
        "| marked | apart share | list share |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['folder']} | {row['pages']} | **{_cell(row['held_apart'])}** "
            f"| {_cell(row['tuned_on'])} | {_cell(row['before'])} | {_cell(row['alone_ksf'])} "
            f"| {_cell(row['alone_dom'])} | {_cell(row['alone_cx'])} | {_cell(row['trafilatura'])} "
            f"| {_cell(row['readability'])} | {row['ksf_ran']:.0%} | {row['dom_ran']:.0%} | {row['thread_changed']} "
            f"| {row['gate_held_apart']:.3f} | {row['thread_min_held_apart']:.1f} "
            f"| {row['marked_held_apart']:.2f} | {row['apart_share_held_apart']:.2f} "
            f"| {row['list_share_held_apart']:.2f} |"
        )
    return "\n".join(lines)


def run(
    folders: Sequence[Path], work: Path, *, jobs: int = 1, write_models: bool = False,
    log: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
) -> dict[str, Any]:
    """Load every folder, print the tables, optionally save the models fit on every folder."""
    by_folder: dict[str, list[Page]] = {}
    for folder in folders:
        by_folder[folder.name] = load_pages(folder, work, jobs)
        log(f"{folder.name}: {len(by_folder[folder.name])} pages with candidates")
    site_kinds: dict[int, KindClassifier] = {}
    if "wcxb-dev" in by_folder:
        others = [p for name, pages in by_folder.items() if name != "wcxb-dev" for p in pages]
        site_kinds = site_fold_kinds(by_folder["wcxb-dev"], others)
    rows = holdout_rows(by_folder, site_kinds)
    print(format_rows(rows))
    result: dict[str, Any] = {"folders": rows}
    if "wcxb-dev" in by_folder:
        kinds = kind_folds(by_folder["wcxb-dev"], site_kinds)
        result["kinds"] = kinds
        print(
            f"\nwcxb-dev kinds, 5 folds grouped by site: non-content pages exported "
            f"{kinds['non_content_exported']}/{kinds['non_content']}, content pages withheld "
            f"{kinds['content_withheld']}/{kinds['content']}"
        )
        for kind, row in sorted(kinds["confusion"].items()):
            print(f"  {kind}: {dict(sorted(row.items(), key=lambda kv: -kv[1]))}")
    if write_models:
        everything = [p for pages in by_folder.values() for p in pages]
        models = fit_models(everything)
        models.kinds.forum_gate = models.gate
        models.list_kinds = site_kinds
        fit_apart_share(models, everything)
        models.kinds.list_share = fit_list_share(models, everything)
        KINDS_MODEL.write_text(json.dumps(models.kinds.to_dict(), indent=1) + "\n", encoding="utf-8")
        ARBITER_MODEL.write_text(json.dumps(models.arbiter.to_dict(), indent=1) + "\n", encoding="utf-8")
        log(f"models fit on {len(everything)} pages written to {KINDS_MODEL} and {ARBITER_MODEL}")
        log(f"list share fit on every folder: {models.list_share:.3f}, apart share: {models.arbiter.apart_share:.3f}")
        log(f"marked-body agreement fit on every folder: {models.marked} "
            f"(arbiter.py: {MARKED_BODY_AGREEMENT})")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data root (%(default)s)")
    parser.add_argument("--folders", help="comma-separated folder names (default: all)")
    parser.add_argument("--work", type=Path, required=True, help="candidates cache (and trafilatura.jsonl)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="processes for the candidates")
    parser.add_argument("--write-models", action="store_true", help="save the models fit on every folder")
    parser.add_argument("--json", type=Path, default=Path("holdout.json"), help="%(default)s")
    args = parser.parse_args(argv)
    folders = peers.gold_folders(args.data, args.folders)
    if not folders:
        parser.error(f"no gold folders in {args.data}")
    result = run(folders, args.work, jobs=args.jobs, write_models=args.write_models)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
