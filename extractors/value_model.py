"""Naive Bayes value filter: is a block or post worth keeping (seed 000, §3.4)?

The paper's classifier: a node's text becomes binary word features (x_i ∈ {0, 1}, formula 4)
after stop-word removal, features are chosen by information gain, and Naive Bayes (formulas 6-7)
calls the text worthless when P(c0 | d) > P(c1 | d). Binary features make it a Bernoulli model,
so the pipeline is ``CountVectorizer(binary=True)`` (jieba words for Chinese, letter runs
otherwise, :func:`forumcrawl.extractors.text.tokenize`) → ``SelectKBest(information_gain)`` →
``BernoulliNB``.

The shipped model is data, not a pickle: ``models/value.json`` holds the selected vocabulary,
the class log priors and the per-class feature log probabilities, with a model card (training
data, date, library versions, held-apart scores). :class:`ValueModel` scores with numpy alone.
``forumcrawl train value`` rebuilds it (see :mod:`forumcrawl.training.value`).

References
----------
.. [1] 王海艳, 曹攀. 基于节点属性与正文内容的海量 Web 信息抽取方法. 通信学报, 2016, 37(Z1), §3.4.
.. [2] Yang Y., Pedersen J. O. A comparative study on feature selection in text categorization.
   ICML 1997 (information gain for text features).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from forumcrawl.extractors.text import tokenize

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

__all__ = [
    "DEFAULT_K",
    "MODEL_FORMAT",
    "VALUE_POST_MIN_WORTHLESS",
    "ValueModel",
    "information_gain",
    "load_value_model",
    "make_value_classifier",
    "value_tokens",
]

#: Features kept by information gain. On the held-apart split of the shipped training set (see
#: the model card), F1 of the worthless class: 0.789 with 500, 0.800 with 2000, 0.806 with 10000
#: (MultinomialNB: 0.778-0.782); 2000 keeps the shipped JSON small.
DEFAULT_K = 2000
#: Version of the JSON layout written by :meth:`ValueModel.to_dict`.
MODEL_FORMAT = 1
#: Label of worthless text (the paper's c0); valuable text is 1 (c1).
WORTHLESS = 0
#: A reply is worthless when P(c0 | d) is at least this. The blocks' threshold
#: (:data:`forumcrawl.extractors.dom_density.VALUE_MIN_WORTHLESS`, 0.99) calls no contentless
#: reply of the shipped model worthless: a text with none of the model's words scores 0.988, and
#: "顶", "沙发", "bump" have none. At 0.98, on the 4,995 posts of mock forums the model never saw
#: (seeds 4-7 of the three families): precision 1.00, recall 0.72 for the contentless replies
#: (0.80 at 0.95, 0.98 at 0.5, precision 1.00 throughout); on harvest-forum-posts' 655 gold posts
#: (en/de/fr/es): 3.8 % called worthless (about half "."/"Sweet"-like, half short French or German
#: posts, whose words the model mostly lacks), 4.7 % at 0.95, 11 % at 0.5. Ads are caught only
#: when they share no word with the vocabulary or have boilerplate words (no labelled spam in
#: the training data). A thread's opening post is judged at the blocks' threshold instead: on
#: non-forum pages, single-page extraction makes fragments ("", "Posts", a byline) the first post.
VALUE_POST_MIN_WORTHLESS = 0.98


def value_tokens(text: str) -> list[str]:
    """Words of ``text`` without stop words: the paper's feature items before selection."""
    return tokenize(text, drop_stop_words=True)


def information_gain(X: Any, y: Sequence[int]) -> np.ndarray:
    """Information gain of each binary feature about the class (the paper's feature selection).

    ``IG(t) = H(C) - P(t) H(C | t) - P(¬t) H(C | ¬t)`` with ``t`` the feature being present
    (non-zero). A ``score_func`` for :class:`~sklearn.feature_selection.SelectKBest`.
    """
    from scipy import sparse  # training only: scoring a page needs numpy alone

    X = sparse.csr_matrix(X)
    y = np.asarray(y)
    present = (X > 0).astype(np.float64)
    n = X.shape[0]
    classes = np.unique(y)
    with_t = np.asarray(present.sum(axis=0)).ravel()
    without_t = n - with_t
    per_class_t = np.vstack(
        [np.asarray(present[y == c].sum(axis=0)).ravel() for c in classes]
    )
    per_class = np.array([(y == c).sum() for c in classes], dtype=float)[:, None]
    per_class_not_t = per_class - per_class_t

    def entropy(counts: np.ndarray, totals: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(totals > 0, counts / totals, 0.0)
            return -np.sum(np.where(p > 0, p * np.log2(p), 0.0), axis=0)

    prior = entropy(per_class, np.full((1, 1), float(n)))
    return prior - with_t / n * entropy(per_class_t, with_t) - without_t / n * entropy(per_class_not_t, without_t)


def make_value_classifier(k: int = DEFAULT_K, alpha: float = 1.0) -> Pipeline:
    """The §3.4 pipeline: binary words → top-``k`` by information gain → Bernoulli Naive Bayes.

    Fit it on texts with labels 1 (valuable) / 0 (worthless); ``k`` above the vocabulary size
    keeps every word.
    """
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.feature_selection import SelectKBest
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.pipeline import Pipeline

    return Pipeline(
        [
            (
                "words",
                CountVectorizer(
                    tokenizer=value_tokens, lowercase=False, token_pattern=None, binary=True
                ),
            ),
            ("select", SelectKBest(information_gain, k=k)),
            ("nb", BernoulliNB(alpha=alpha)),
        ]
    )


@dataclass
class ValueModel:
    """A fitted Bernoulli NB value filter as plain arrays, scored without scikit-learn.

    ``feature_log_prob[c, i]`` is log P(X_i = 1 | class ``classes[c]``); ``card`` is the model
    card (training data, date, versions, scores).
    """

    vocabulary: list[str]
    classes: list[int]
    class_log_prior: np.ndarray
    feature_log_prob: np.ndarray
    card: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._index = {word: i for i, word in enumerate(self.vocabulary)}
        log_absent = np.log1p(-np.exp(self.feature_log_prob))
        self._present_delta = self.feature_log_prob - log_absent
        self._absent_total = log_absent.sum(axis=1) + self.class_log_prior

    @classmethod
    def from_pipeline(cls, pipeline: Pipeline, card: dict[str, Any] | None = None) -> ValueModel:
        """The arrays of a fitted :func:`make_value_classifier` pipeline."""
        words = pipeline.named_steps["words"].get_feature_names_out()
        chosen = pipeline.named_steps["select"].get_support()
        nb = pipeline.named_steps["nb"]
        return cls(
            vocabulary=[str(w) for w in words[chosen]],
            classes=[int(c) for c in nb.classes_],
            class_log_prior=np.asarray(nb.class_log_prior_, dtype=float),
            feature_log_prob=np.asarray(nb.feature_log_prob_, dtype=float),
            card=dict(card or {}),
        )

    def joint_log_likelihood(self, texts: Sequence[str]) -> np.ndarray:
        """log P(c) + Σ log P(X_i = x_i | c) per text and class (formula 7's numerator)."""
        out = np.tile(self._absent_total, (len(texts), 1))
        for row, text in enumerate(texts):
            present = {self._index[w] for w in value_tokens(text) if w in self._index}
            if present:
                out[row] += self._present_delta[:, sorted(present)].sum(axis=1)
        return out

    def predict_proba(self, texts: Sequence[str]) -> np.ndarray:
        """P(c | d) per text, columns in :attr:`classes` order (formula 7)."""
        jll = self.joint_log_likelihood(texts)
        jll -= jll.max(axis=1, keepdims=True)
        prob = np.exp(jll)
        return prob / prob.sum(axis=1, keepdims=True)

    def predict(self, texts: Sequence[str], *, min_worthless: float = 0.5) -> np.ndarray:
        """True where the text is valuable: P(c0 | d) below ``min_worthless`` (0.5 is the paper's
        rule, P(c0 | d) > P(c1 | d) means worthless)."""
        if not texts:
            return np.zeros(0, dtype=bool)
        proba = self.predict_proba(texts)
        return proba[:, self.classes.index(WORTHLESS)] < min_worthless

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (see :data:`MODEL_FORMAT`)."""
        return {
            "format": MODEL_FORMAT,
            "kind": "bernoulli_nb",
            "card": self.card,
            "classes": self.classes,
            "class_log_prior": self.class_log_prior.tolist(),
            "vocabulary": self.vocabulary,
            "feature_log_prob": self.feature_log_prob.tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValueModel:
        """Inverse of :meth:`to_dict`; refuses other formats."""
        if data.get("format") != MODEL_FORMAT or data.get("kind") != "bernoulli_nb":
            raise ValueError(f"not a value model of format {MODEL_FORMAT}: {data.get('format')!r}")
        return cls(
            vocabulary=list(data["vocabulary"]),
            classes=[int(c) for c in data["classes"]],
            class_log_prior=np.asarray(data["class_log_prior"], dtype=float),
            feature_log_prob=np.asarray(data["feature_log_prob"], dtype=float),
            card=dict(data.get("card") or {}),
        )

    def save(self, path: str | Path) -> Path:
        """Write the model as JSON (UTF-8, words unescaped)."""
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")
        return path


@lru_cache(maxsize=4)
def load_value_model(path: str | None = None) -> ValueModel:
    """The model at ``path``, or the shipped ``models/value.json`` (loaded once per process)."""
    if path is None:
        raw = resources.files("forumcrawl.extractors").joinpath("models/value.json").read_text("utf-8")
    else:
        raw = Path(path).read_text(encoding="utf-8")
    return ValueModel.from_dict(json.loads(raw))
