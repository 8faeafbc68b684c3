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
from forumcrawl.extractors.cx import document_lines

__all__ = ["CONTENT_KINDS", "KINDS", "NON_CONTENT_KINDS", "SIGNALS", "KindClassifier", "load_kinds", "page_signals"]

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
# Shop, service, documentation and reply words, counted in one pass of the text (a fifth less
# than two passes on the 1,869 evaluation pages). No word of one list starts or ends inside a
# phrase of another but "quote" in "get a quote": that phrase counts for services up to
# "quote", which then counts as a reply word, so the counts are those of separate passes over
# each list (tests/test_single_page.py checks this). The look-ahead holds the words' first
# characters; the Chinese reply words need no word boundary.
_WORDS = re.compile(
    r"(?=[abcdefgijmopqrstvw回楼帖发注积])(?:\b(?:"
    r"(?P<shop>add to (?:cart|bag|basket)|buy now|in stock|out of stock|free shipping|sku|"
    r"quantity|reviews?|ratings?|wishlist)|"
    r"(?P<service>contact us|get (?:a|your) (?:(?=quote\b)|started)|book (?:a|an|now)|schedule|"
    r"pricing|our services|free consultation|request|call us|appointment|plans?)|"
    r"(?P<docs>documentation|api|reference|parameters?|returns?|example|install(?:ation)?|"
    r"configuration|tutorial|guide|version|deprecated)|"
    r"(?P<reply>repl(?:y|ies|ied)|quote|posts?:|joined|member|registered|thread|answer(?:s|ed)?|"
    r"votes?|permalink|report))\b"
    r"|(?P<reply_zh>回复|楼|帖|发表于|注册|积分))"
)
_TYPES = re.compile(r'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"')
#: Words of a link to a member's page: a thread links each post's author, an article its byline
#: at most. Counted in all the page's link targets at once (lower-cased), not link by link.
_PROFILE_LINK = re.compile(r"user|member|profile|space|uid=|u=\d|author|people|/u/|home\.php")
#: The tags whose numbers the signals read (gathered by the CX lines' walk).
_COUNTED = ("pre", "code", "input", "select", "textarea", "li", "img", "h2", "h3", "meta", "script")
_ARTICLE_TYPES = frozenset({"Article", "NewsArticle", "BlogPosting", "Report", "ReportageNewsArticle"})
_FORUM_TYPES = frozenset({"DiscussionForumPosting", "QAPage", "Question", "Comment", "SocialMediaPosting"})
_PRODUCT_TYPES = frozenset({"Product", "Offer", "AggregateOffer", "AggregateRating"})
_LIST_TYPES = frozenset({"ItemList", "CollectionPage", "SearchResultsPage", "BreadcrumbList"})
_SERVICE_TYPES = frozenset({"Service", "LocalBusiness", "ProfessionalService", "Organization"})
_DOC_TYPES = frozenset({"TechArticle", "APIReference", "HowTo", "FAQPage"})

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
    types: set[str] = set()
    for script in found["script"]:
        if script.get("type") == "application/ld+json":
            types.update(_TYPES.findall(script.text or ""))
    og_type = ""
    for meta in found["meta"]:
        if not og_type and meta.get("property") == "og:type":
            og_type = meta.get("content") or ""
    counts = {tag: len(found[tag]) for tag in _COUNTED}
    words = max(len(text.split()), 1)
    topics = Counter(match.lastgroup for match in _WORDS.finditer(text))
    return [
        math.log1p(n),
        evidence.link_chars / total if total else 0.0,
        _per(len(_DATE.findall("\n".join(filter(_DIGIT.search, text.split("\n"))))), n),
        _per(topics["reply"] + topics["reply_zh"], n),
        _per(len(_PRICE.findall(text)) if any(c in text for c in _CURRENCIES) else 0, n),
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
        math.log1p(len(_PROFILE_LINK.findall("\n".join(document_lines(doc).hrefs).lower()))),
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
