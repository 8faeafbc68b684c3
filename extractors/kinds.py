"""What kind of page this is: an article, a forum thread, or a page that is not content.

The kinds are those of the evaluation sets (``listing``, ``collection``, ``product``,
``service``, ``documentation`` besides ``article`` and ``forum``). A crawl for articles must not
export a shop's product page or a category listing as an article, and the costly per-post stage
(single-page KSF) is only worth running on a page that looks like a thread. The kind is read from
cheap signals of the page itself, all computed from one parse and the CX lines the cascade reads
anyway: how much of its text is links, how many date stamps and reply words it shows, prices and
cart buttons, code blocks, the schema.org types it declares, how often its links point at
members' pages (a thread links each post's author). A multinomial logistic model
(:class:`KindClassifier`, scikit-learn shaped, weights kept as JSON) weighs them.

It is fit by ``benchmarks/holdout.py --write-models`` on the evaluation folders; forum-or-not
is reported leave-one-folder-out, the non-content kinds (found only in wcxb-dev) by folds
grouped by site.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forumcrawl.document import Document
from forumcrawl.extractors.arbiter import Evidence, page_evidence
from forumcrawl.extractors.compiled import compiled_module
from forumcrawl.extractors.cx import document_lines

__all__ = [
    "CONTENT_KINDS",
    "KINDS",
    "NON_CONTENT_KINDS",
    "SIGNALS",
    "KindClassifier",
    "declared_types",
    "declares_thread",
    "load_kinds",
    "page_signals",
]

DEFAULT_MODEL = Path(__file__).with_name("models") / "kinds.json"
KINDS = ("article", "forum", "listing", "collection", "product", "service", "documentation")
CONTENT_KINDS = frozenset({"article", "forum"})
NON_CONTENT_KINDS = frozenset(KINDS) - CONTENT_KINDS

# The busiest patterns (this one and _WORDS) open with a look-ahead at the first characters they
# can match at, so that the regex engine skips other positions fast (the counts are the same).
_DATE = re.compile(
    r"(?=[\djfmasond])(?:\b(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}|"
    r"\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4}|"
    r"\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago)\b|\d{4}年\d{1,2}月\d{1,2}日)"
)
#: Every date stamp holds a digit and none spans a line: only the lines with a digit (a few)
#: are searched for them.
_DIGIT = re.compile(r"\d")
# It opens with the class of the characters a price starts with (a currency sign or a digit), then
# tells which by looking back: the regex engine then skips the other characters, most of a text,
# in C (the matches are those of ``[$€£¥]\s?\d[\d,.]*|\d[\d,.]*\s?(?:€|usd|eur|gbp)``).
_PRICE = re.compile(r"[$€£¥\d](?:(?<=[$€£¥])\s?\d[\d,.]*|(?<=\d)[\d,.]*\s?(?:€|usd|eur|gbp))")
#: Every price holds one of these: a page with none (most) skips the regex pass.
_CURRENCIES = ("$", "€", "£", "¥", "usd", "eur", "gbp")
#: The shop, service, documentation and reply words the kind signals count in the page's
#: lower-cased text, each as a whole word, all in one pass (a fifth less than a pass per list on
#: the 1,869 evaluation pages). ``"get a |quote"`` is "get a " before the word "quote", which then
#: counts as a reply word: no other word of one list starts or ends inside a phrase of another,
#: so the counts are those of a pass per list (tests/test_single_page.py checks this).
_TOPIC_WORDS: dict[str, tuple[str, ...]] = {
    "shop": (
        "add to cart", "add to bag", "add to basket", "buy now", "in stock", "out of stock",
        "free shipping", "sku", "quantity", "review", "reviews", "rating", "ratings", "wishlist",
    ),
    "service": (
        "contact us", "get a |quote", "get your |quote", "get a started", "get your started",
        "book a", "book an", "book now", "schedule", "pricing", "our services",
        "free consultation", "request", "call us", "appointment", "plan", "plans",
    ),
    "docs": (
        "documentation", "api", "reference", "parameter", "parameters", "return", "returns",
        "example", "install", "installation", "configuration", "tutorial", "guide", "version",
        "deprecated",
    ),
    "reply": (
        "reply", "replies", "replied", "quote", "post:", "posts:", "joined", "member",
        "registered", "thread", "answer", "answers", "answered", "vote", "votes", "permalink",
        "report",
    ),
}
#: Chinese reply words, counted wherever they are (Chinese has no word boundaries).
_ZH_REPLY_WORDS = ("回复", "楼", "帖", "发表于", "注册", "积分")


def _alternatives(words: Sequence[str]) -> str:
    """A regex for ``words`` as a trie (``re`` tries alternatives one by one, so shared openings
    are read once: a third faster than a flat list on the evaluation pages). ``"|next"`` is a
    look-ahead at the whole word ``next``."""
    by_first: dict[str, list[str]] = {}
    branches = []
    for word in words:
        if word.startswith("|"):
            branches.append(rf"(?={re.escape(word[1:])}\b)")
        elif word:
            by_first.setdefault(word[0], []).append(word[1:])
    for first, rests in by_first.items():
        inner = _alternatives(rests)
        branches.append(re.escape(first) + (f"(?:{inner})" if len(rests) > 1 else inner))
    if "" in words:
        branches.append("")
    return "|".join(branches)


def _topic_pattern() -> re.Pattern[str]:
    """One regex for all of :data:`_TOPIC_WORDS` and :data:`_ZH_REPLY_WORDS`, a named group per
    topic. It opens with a look-ahead at the first characters the words can match at, so that
    the regex engine skips other positions fast (the counts are the same)."""
    groups = [f"(?P<{topic}>{_alternatives(words)})" for topic, words in _TOPIC_WORDS.items()]
    firsts = sorted({word[0] for words in _TOPIC_WORDS.values() for word in words})
    firsts += [word[0] for word in _ZH_REPLY_WORDS]
    return re.compile(
        f"(?=[{''.join(firsts)}])(?:\\b(?:{'|'.join(groups)})\\b|(?P<reply_zh>{'|'.join(_ZH_REPLY_WORDS)}))"
    )


_WORDS = _topic_pattern()
_scan = compiled_module("_scan")
_SCANNER = _scan.TopicScanner(_TOPIC_WORDS, "reply_zh", _ZH_REPLY_WORDS) if _scan is not None else None


def topic_counts(text: str) -> Counter[str]:
    """How often the words of each topic of :data:`_TOPIC_WORDS` (``reply_zh``: of
    :data:`_ZH_REPLY_WORDS`) occur in ``text`` (lower-cased): one scan in C where the compiled
    scan is built, else one pass of :data:`_WORDS`."""
    if _SCANNER is not None:
        return Counter(_SCANNER.count(text))
    return Counter(match.lastgroup for match in _WORDS.finditer(text))


_TYPES = re.compile(r'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"')
#: Words of a link to a member's page: a thread links each post's author, an article its byline
#: at most. Counted in all the page's link targets at once (lower-cased), not link by link.
_PROFILE_WORDS = (
    "user", "member", "profile", "space", "uid=", "u=#", "author", "people", "/u/", "home.php",
)
#: :data:`_PROFILE_WORDS` as a regex (``#``: a digit), the reference of the compiled count.
_PROFILE_LINK = re.compile("|".join(re.escape(word).replace("\\#", r"\d") for word in _PROFILE_WORDS))
_PROFILE_COUNTER = _scan.LiteralCounter(_PROFILE_WORDS) if _scan is not None else None
#: The tags whose numbers the signals read (gathered by the CX lines' walk).
_COUNTED = ("pre", "code", "input", "select", "textarea", "li", "img", "h2", "h3", "meta", "script")
_ARTICLE_TYPES = frozenset({"Article", "NewsArticle", "BlogPosting", "Report", "ReportageNewsArticle"})
_FORUM_TYPES = frozenset({"DiscussionForumPosting", "QAPage", "Question", "Comment", "SocialMediaPosting"})
_PRODUCT_TYPES = frozenset({"Product", "Offer", "AggregateOffer", "AggregateRating"})
_LIST_TYPES = frozenset({"ItemList", "CollectionPage", "SearchResultsPage", "BreadcrumbList"})
_SERVICE_TYPES = frozenset({"Service", "LocalBusiness", "ProfessionalService", "Organization"})
_DOC_TYPES = frozenset({"TechArticle", "APIReference", "HowTo", "FAQPage"})

#: The JSON-LD types that say the page is a thread, not an article with comments.
_THREAD_TYPES = _FORUM_TYPES - {"Comment"}


def declared_types(doc: Document) -> frozenset[str]:
    """The schema.org types the page's JSON-LD declares (as the lines' walk found its scripts),
    read once per page (the kind signals and the cascade's comment rules ask)."""
    return doc.derived("kinds.types", lambda: _declared_types(doc))


def _declared_types(doc: Document) -> frozenset[str]:
    types: set[str] = set()
    for script in document_lines(doc).elements["script"]:
        if script.get("type") == "application/ld+json":
            types.update(_TYPES.findall(script.text or ""))
    return frozenset(types)


def declares_thread(doc: Document) -> bool:
    """Whether the page's JSON-LD says it is a thread (``DiscussionForumPosting``, ``QAPage``,
    ``Question``...; a ``Comment`` is also an article's)."""
    return not declared_types(doc).isdisjoint(_THREAD_TYPES)


#: The numbers :func:`page_signals` gives for a page, in order.
SIGNALS = (
    "log_lines",
    "link_share",
    "dates_per_line",
    "replies_per_line",
    "prices_per_line",
    "shop_words",
    "service_words",
    "doc_words",
    "code_share",
    "forms",
    "list_items_per_line",
    "images_per_line",
    "headings_per_line",
    "short_line_share",
    "articles",
    "marker",
    "ld_article",
    "ld_forum",
    "ld_product",
    "ld_list",
    "ld_service",
    "ld_doc",
    "og_article",
    "profile_links",
)


def _per(count: float, lines: int) -> float:
    return count / max(lines, 1)


def _date_count(text: str) -> int:
    """Date stamps (:data:`_DATE`) in the lower-cased ``text``: one C scan where the compiled
    scan is built, else the regex over the lines with a digit."""
    if _scan is not None:
        return _scan.count_dates(text)  # type: ignore[no-any-return]
    return len(_DATE.findall("\n".join(filter(_DIGIT.search, text.split("\n")))))


def _price_count(text: str) -> int:
    """Prices (:data:`_PRICE`) in the lower-cased ``text``."""
    if _scan is not None:
        return _scan.count_prices(text)  # type: ignore[no-any-return]
    return len(_PRICE.findall(text))


def _token_count(text: str) -> int:
    """``len(text.split())``, by a C scan where it is built (no list of words)."""
    if _scan is not None:
        return _scan.count_tokens(text)  # type: ignore[no-any-return]
    return len(text.split())


def _profile_count(hrefs: str) -> int:
    """Words of :data:`_PROFILE_WORDS` in the lower-cased link targets ``hrefs``."""
    if _PROFILE_COUNTER is not None:
        return _PROFILE_COUNTER.count(hrefs)  # type: ignore[no-any-return]
    return len(_PROFILE_LINK.findall(hrefs))


def page_signals(doc: Document, evidence: Evidence | None = None) -> list[float]:
    """The page's kind signals (see :data:`SIGNALS`), from its tree and its CX lines."""
    evidence = evidence or page_evidence(doc)
    tree = doc.tree
    if tree is None:
        return [0.0] * len(SIGNALS)
    lines = [line for line in evidence.lines if line]
    n = len(lines)
    text = "\n".join(lines).lower()  # the word patterns are lower-case: faster than IGNORECASE
    total = evidence.text_chars + evidence.link_chars
    # The tags counted, JSON-LD scripts and meta tags, as the lines' walk found them.
    found = document_lines(doc).elements
    types = declared_types(doc)
    og_type = ""
    for meta in found["meta"]:
        if not og_type and meta.get("property") == "og:type":
            og_type = meta.get("content") or ""
    counts = {tag: len(found[tag]) for tag in _COUNTED}
    words = max(_token_count(text), 1)
    topics = topic_counts(text)
    return [
        math.log1p(n),
        evidence.link_chars / total if total else 0.0,
        _per(_date_count(text), n),
        _per(topics["reply"] + topics["reply_zh"], n),
        _per(_price_count(text) if any(c in text for c in _CURRENCIES) else 0, n),
        math.log1p(topics["shop"]),
        math.log1p(topics["service"]),
        math.log1p(topics["docs"]) - math.log1p(words) / 4,
        math.log1p(counts["pre"] + counts["code"]),
        math.log1p(counts["input"] + counts["select"] + counts["textarea"]),
        _per(counts["li"], n),
        _per(counts["img"], n),
        _per(counts["h2"] + counts["h3"], n),
        sum(map((40).__gt__, map(len, lines))) / max(n, 1),  # short lines, counted in C
        math.log1p(evidence.articles),
        1.0 if evidence.json_ld or evidence.itemprop else 0.0,
        1.0 if types & _ARTICLE_TYPES else 0.0,
        1.0 if types & _FORUM_TYPES else 0.0,
        1.0 if types & _PRODUCT_TYPES else 0.0,
        1.0 if types & _LIST_TYPES else 0.0,
        1.0 if types & _SERVICE_TYPES else 0.0,
        1.0 if types & _DOC_TYPES else 0.0,
        1.0 if "article" in og_type.lower() else 0.0,
        math.log1p(_profile_count("\n".join(document_lines(doc).hrefs).lower())),
    ]


@dataclass
class KindClassifier:
    """Multinomial logistic regression over :data:`SIGNALS`, standardised; JSON weights.

    ``fit(X, y)`` with ``y`` kind names; ``predict_proba(x)`` one page's ``{kind: p}``.
    """

    C: float = 0.5
    classes: list[str] = field(default_factory=list)
    mean: list[float] = field(default_factory=list)
    scale: list[float] = field(default_factory=list)
    coef: list[list[float]] = field(default_factory=list)
    intercept: list[float] = field(default_factory=list)
    #: Without a site rule, single-page KSF (8-40x a parse) runs only on pages whose forum
    #: probability reaches this; ``benchmarks/holdout.py`` sets it to the lowest forum probability
    #: of the forum pages it was fit on whose posts the cascade takes, so that none of them
    #: loses its posts.
    forum_gate: float = 0.0
    #: On a page this model finds likelier a listing or collection than an article or forum
    #: thread, the arbiter's text is one item of the list when it holds less than this share of
    #: the page's prose, and the page's whole text is taken; ``benchmarks/holdout.py`` chooses
    #: it on the evaluation folders (0: never).
    list_share: float = 0.0

    def fit(
        self, X: Sequence[Sequence[float]], y: Sequence[str], sample_weight: Sequence[float] | None = None
    ) -> KindClassifier:
        """Fit on pages' signals ``X`` and their kinds ``y``."""
        import numpy as np
        from sklearn.linear_model import LogisticRegression

        matrix = np.asarray(X, dtype=float)
        mean = matrix.mean(axis=0)
        scale = matrix.std(axis=0)
        scale[scale == 0] = 1.0
        model = LogisticRegression(C=self.C, max_iter=5000)
        model.fit((matrix - mean) / scale, np.asarray(y), sample_weight=sample_weight)
        self.classes = [str(c) for c in model.classes_]
        self.mean, self.scale = mean.tolist(), scale.tolist()
        if len(self.classes) == 2:  # sklearn keeps one row for two classes: make it two
            row = model.coef_[0].tolist()
            self.coef = [[-v for v in row], row]
            self.intercept = [-float(model.intercept_[0]), float(model.intercept_[0])]
        else:
            self.coef = model.coef_.tolist()
            self.intercept = model.intercept_.tolist()
        return self

    def predict_proba(self, x: Sequence[float]) -> dict[str, float]:
        """``{kind: probability}`` for one page's signals."""
        z = [(v - m) / s for v, m, s in zip(x, self.mean, self.scale)]
        logits = [b + sum(w * v for w, v in zip(row, z)) for row, b in zip(self.coef, self.intercept)]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        return {kind: e / total for kind, e in zip(self.classes, exps)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready weights (see :func:`load_kinds`)."""
        return {
            "signals": list(SIGNALS),
            "classes": self.classes,
            "mean": self.mean,
            "scale": self.scale,
            "coef": self.coef,
            "intercept": self.intercept,
            "forum_gate": self.forum_gate,
            "list_share": self.list_share,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KindClassifier:
        """The classifier saved by :meth:`to_dict`; refuses weights fit on other signals."""
        if list(data.get("signals", ())) != list(SIGNALS):
            raise ValueError("kind model was fit on other signals")
        return cls(
            classes=list(data["classes"]),
            mean=list(data["mean"]),
            scale=list(data["scale"]),
            coef=[list(row) for row in data["coef"]],
            intercept=list(data["intercept"]),
            forum_gate=float(data.get("forum_gate", 0.0)),
            list_share=float(data.get("list_share", 0.0)),
        )


def load_kinds(path: str | Path | None = None) -> KindClassifier | None:
    """The shipped kind model (or the one at ``path``); None when there is none."""
    target = Path(path) if path else DEFAULT_MODEL
    if not target.is_file():
        return None
    return KindClassifier.from_dict(json.loads(target.read_text(encoding="utf-8")))
