"""Link pre-classification: which links of a home or list page lead to posts and articles.

Before USC has a sample of a new site, the crawler still has to choose which links to follow
first. Every ``<a href>`` becomes a :class:`LinkRecord`; :class:`LinkFeaturizer` turns records into
the paper's features (URL, anchor text and the tag-path structure of the page) and an SVM separates
information links from navigation (seed 002 §1; DESIGN.md §6). Navigation is split in two: links
to list pages (boards and other lists of threads), which lead to posts one fetch later, and the
rest (log in, register, profiles, search), which do not; the paper's two classes scored a board
like "Register". The shipped model is data (``models/links.json``), rebuilt into a pipeline by
:func:`load_link_model`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.calibration import CalibratedClassifierCV, _CalibratedClassifier, _SigmoidCalibration
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted

from forumcrawl.document import Document, site_of
from forumcrawl.extractors.fields import anchors

__all__ = [
    "LIST",
    "OTHER",
    "THREAD",
    "DEFAULT_ACTION_WORDS",
    "DEFAULT_KEYWORDS",
    "DEFAULT_LIST_WORDS",
    "FEATURE_NAMES",
    "LinkFeaturizer",
    "is_action_url",
    "LinkRecord",
    "link_records",
    "load_link_model",
    "make_link_classifier",
    "model_from_dict",
    "model_to_dict",
    "path_similarity",
    "structure_parts",
    "text_width",
    "thread_and_list_probabilities",
    "url_pattern",
]

#: Classes of a link, by its target: a page of none of the others (log in, a profile, search) …
OTHER = 0
#: … a thread page (the paper's information link; 1 as in the paper's two-class models) …
THREAD = 1
#: … or a list page: a board, a board's next page or another page listing threads.
LIST = 2

#: URL words of post and article pages (paper §1.2.1: bbs, thread, blog, club) plus the
#: engine-specific ones of Discuz (viewthread, tid), phpBB (viewtopic, t), vBulletin/IPB
#: (showthread, showtopic) and news sites.
DEFAULT_KEYWORDS = (
    "article",
    "articles",
    "bbs",
    "blog",
    "club",
    "news",
    "showthread",
    "showtopic",
    "story",
    "t",
    "thread",
    "threads",
    "tid",
    "topic",
    "topics",
    "viewthread",
    "viewtopic",
)

#: URL words of navigation and actions (reply, log in, profiles, feeds, redirects): the
#: counterpart of the keywords, so that ``tid=`` in a reply or last-post redirect link does not
#: make it a post. A word that is the key of a numeric id (``?post=3169``) names the object the
#: URL shows, not an action, and does not count.
DEFAULT_ACTION_WORDS = (
    "edit",
    "favorite",
    "feed",
    "feeds",
    "lastpost",
    "login",
    "logout",
    "member",
    "memberlist",
    "newthread",
    "post",
    "print",
    "profile",
    "redirect",
    "register",
    "reply",
    "report",
    "rss",
    "search",
    "space",
    "spacecp",
    "ucp",
    "user",
    "users",
)

#: URL words of list pages: boards and categories of Discuz (forumdisplay, fid), phpBB
#: (viewforum, f), vBulletin, XenForo and Discourse (forums, c), and "latest" lists. A URL with a
#: keyword or an action word is not counted: ``forum.php?mod=viewthread`` is a thread.
DEFAULT_LIST_WORDS = (
    "board",
    "boards",
    "c",
    "categories",
    "category",
    "f",
    "fid",
    "forum",
    "forumdisplay",
    "forums",
    "latest",
    "list",
    "section",
    "subforum",
    "viewforum",
)

#: Column names of :meth:`LinkFeaturizer.transform`, in order.
FEATURE_NAMES = (
    "same_site",
    "url_date",
    "url_keyword",
    "url_action",
    "url_list_word",
    "url_depth",
    "query_params",
    "numeric_id",
    "anchor_length",
    "has_title",
    "pattern_anchor_length",
    "path_similarity",
    "group_share",
)
#: The structural columns, left out by ``LinkFeaturizer(structural=False)``.
STRUCTURAL_FEATURES = ("path_similarity", "group_share")

_DATE_RE = re.compile(
    r"(?<!\d)(?:19|20)\d{2}[-/_.]?(?:0[1-9]|1[0-2])(?:[-/_.]?(?:0[1-9]|[12]\d|3[01]))?(?!\d)"
)
_WORD_RE = re.compile(r"[a-z]+")
_DIGITS_RE = re.compile(r"\d+")
_SPACE_RE = re.compile(r"\s+")
_ACTION_WORDS = frozenset(DEFAULT_ACTION_WORDS)
_LIST_WORDS = frozenset(DEFAULT_LIST_WORDS)
#: A path segment of this many words or more is a title slug (``how-do-i-search-files-292``):
#: its words are the post's, not the URL's, so they say nothing of the link's kind.
_SLUG_WORDS = 4


@dataclass(frozen=True, slots=True)
class LinkRecord:
    """One ``<a href>`` of a page, with what the classifier needs to know about its place.

    ``st`` and ``sp`` are the tag-sequence and position similarities (paper formulas 4 and 5) of
    the link's tag path to the page's largest link group; they are computed once per page by
    :func:`link_records` so that a record can be scored on its own (in a request's meta).
    """

    #: Absolute URL, fragment removed.
    href: str
    #: Anchor text, whitespace collapsed (an image link's ``alt`` when it has no text).
    text: str
    #: The ``title`` attribute, stripped ("" when absent).
    title: str
    #: XPath of the ``<a>`` element in the page (for display).
    xpath: str
    #: Tag names from the root to the ``<a>``, the paper's (t1 … tn).
    tag_path: tuple[str, ...]
    #: 1-based position of the link among the page's links (the paper's s).
    position: int
    #: URL of the page the link is on.
    base_url: str
    #: Tag-sequence similarity to the largest link group (formula 4).
    st: float = 1.0
    #: Position similarity to the largest link group (formula 5).
    sp: float = 1.0
    #: Links of the page sharing this link's tag path (the paper's m).
    group_size: int = 1
    #: Links on the page.
    n_links: int = 1
    #: Widest anchor text (:func:`text_width`) among the page's links with this link's
    #: :func:`url_pattern`, this link included.
    pattern_width: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able values (tag path as a list), e.g. for ``request.meta``."""
        data = asdict(self)
        data["tag_path"] = list(self.tag_path)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LinkRecord:
        """The record :meth:`to_dict` wrote."""
        return cls(**{**data, "tag_path": tuple(data["tag_path"])})


def text_width(text: str) -> int:
    """Display width of ``text``: a Chinese character counts two, whitespace runs one.

    Board links are 2–4 Chinese characters and post titles much longer (paper §1.2.2); measuring
    width keeps a 10-character Chinese title comparable to a 20-letter English one.

    >>> text_width("新闻"), text_width("News"), text_width("天涯 杂谈")
    (4, 4, 9)
    """
    text = _SPACE_RE.sub(" ", text).strip()
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def path_similarity(
    path_i: Sequence[str],
    positions_i: Sequence[int],
    path_j: Sequence[str],
    positions_j: Sequence[int],
    n_leaves: int,
    *,
    w: float = 0.5,
) -> float:
    """sim(Pi, Pj) = w·st + (1 − w)·sp of two tag paths of one page (seed 002 formulas 3–7).

    ``positions_*`` are the 1-based leaf positions where each path occurs (its m and g
    occurrences); ``n_leaves`` is the number of leaves of the page (pn = n_leaves − 1).

    >>> path_similarity(("html", "body", "a"), [1, 2], ("html", "body", "p", "a"), [3], 3)
    0.375
    """
    st, sp = _st_sp(path_i, np.asarray(positions_i), path_j, np.asarray(positions_j), n_leaves)
    return w * st + (1 - w) * sp


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _nearest(positions: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """For each position, the distance to the nearest of the sorted ``targets`` (formula 6)."""
    idx = np.searchsorted(targets, positions)
    left = targets[np.clip(idx - 1, 0, len(targets) - 1)]
    right = targets[np.clip(idx, 0, len(targets) - 1)]
    return np.minimum(np.abs(positions - left), np.abs(positions - right))


def _st_sp(
    path_i: Sequence[str],
    pos_i: np.ndarray,
    path_j: Sequence[str],
    pos_j: np.ndarray,
    n_leaves: int,
) -> tuple[float, float]:
    st = _common_prefix(path_i, path_j) / max(len(path_i), len(path_j), 1)
    m, g = len(pos_i), len(pos_j)
    pn = max(n_leaves - 1, 1)
    spread = (
        _nearest(pos_i, np.sort(pos_j)).sum() / pn
        + _nearest(pos_j, np.sort(pos_i)).sum() / pn
        + abs(m - g)
    )
    return float(st), float(1 - spread / (2 * max(m, g)))


def structure_parts(tag_paths: Sequence[tuple[str, ...]]) -> list[tuple[float, float, int]]:
    """(st, sp, m) of each link of one page against the page's largest link group.

    Links with the same tag path form a group; the largest group (the first in page order on a
    tie) scores st = sp = 1, every other link its group's formulas 4 and 5 against it (§1.2.3).
    """
    groups: dict[tuple[str, ...], list[int]] = {}
    for position, path in enumerate(tag_paths, start=1):
        groups.setdefault(path, []).append(position)
    if not groups:
        return []
    largest = max(groups, key=lambda p: len(groups[p]))
    big = np.asarray(groups[largest])
    parts: dict[tuple[str, ...], tuple[float, float]] = {}
    for path, positions in groups.items():
        parts[path] = (
            (1.0, 1.0)
            if path == largest
            else _st_sp(path, np.asarray(positions), largest, big, len(tag_paths))
        )
    return [(*parts[path], len(groups[path])) for path in tag_paths]


def url_pattern(href: str) -> str:
    """The URL's structure: host, path and query keys, with every part holding a digit as ``*``.

    Links of one kind (a forum's topic links, its post arrows, its profile links) share a
    pattern however their ids and slugs differ; word values such as ``mod=redirect`` stay, since
    they name what the link does.

    >>> url_pattern("http://h/forum/debian-2/topic/how-292/?post=3169")
    'h/forum/*/topic/*/?post=*'
    >>> url_pattern("http://h/forum.php?tid=835&mod=redirect&goto=lastpost")
    'h/forum.php?goto=lastpost&mod=redirect&tid=*'
    """
    parts = urlsplit(href)
    segments = ["*" if _DIGITS_RE.search(s) else s for s in parts.path.split("/")]
    query = sorted(
        f"{k}={'*' if _DIGITS_RE.search(v) else v}"
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    )
    return f"{parts.netloc.lower()}{'/'.join(segments)}" + (f"?{'&'.join(query)}" if query else "")


def _pattern_widths(hrefs: Sequence[str], texts: Sequence[str]) -> list[int]:
    widest: dict[str, int] = {}
    patterns = [url_pattern(h) for h in hrefs]
    for pattern, text in zip(patterns, texts):
        widest[pattern] = max(widest.get(pattern, 0), text_width(text))
    return [widest[p] for p in patterns]


def _anchor_text(element: Any) -> str:
    text = _SPACE_RE.sub(" ", element.text_content()).strip()
    if not text:
        alts = element.xpath(".//img/@alt")
        text = _SPACE_RE.sub(" ", str(alts[0])).strip() if alts else ""
    return text


def link_records(document: Document) -> list[LinkRecord]:
    """Every ``<a href>`` of the page with an http(s) target, in page order (repeats kept).

    Honours ``<base href>``; the page's links are its leaves for the structural feature.
    """
    tree = document.tree
    if tree is None:
        return []
    root = tree.getroottree()
    found: list[tuple[Any, str]] = list(anchors(tree, document.url))
    paths = [
        tuple(str(a.tag) for a in reversed(list(element.iterancestors())) if isinstance(a.tag, str))
        + ("a",)
        for element, _ in found
    ]
    parts = structure_parts(paths)
    texts = [_anchor_text(element) for element, _ in found]
    widths = _pattern_widths([url for _, url in found], texts)
    return [
        LinkRecord(
            href=url,
            text=text,
            title=(element.get("title") or "").strip(),
            xpath=root.getpath(element),
            tag_path=path,
            position=position,
            base_url=document.url,
            st=st,
            sp=sp,
            group_size=m,
            n_links=len(found),
            pattern_width=width,
        )
        for position, ((element, url), path, (st, sp, m), text, width) in enumerate(
            zip(found, paths, parts, texts, widths), start=1
        )
    ]


class LinkFeaturizer(TransformerMixin, BaseEstimator):
    """Turns :class:`LinkRecord` objects into the paper's link features (seed 002 §1.2).

    Beyond the paper: a URL keyword counts only when no action word does (a last-post redirect
    carries ``tid=`` too), and ``pattern_anchor_length`` gives an icon or arrow link with no text
    the anchor width of the widest link sharing its :func:`url_pattern` on the page (a
    ``?post=`` arrow takes that of the "Re: <title>" links of the same pattern), so that empty
    anchors of post links do not read as navigation; ``url_list_word`` marks the URL words of
    boards (:data:`DEFAULT_LIST_WORDS`), which the list class needs.

    Parameters
    ----------
    w : float, default=0.5
        Weight of the tag-sequence part in the path similarity sim = w·st + (1 − w)·sp
        (formula 3); the paper leaves it open in [0, 1].
    structural : bool, default=True
        Include the structural features (path similarity to the largest link group and the
        group's share of the page's links); False measures what they add.
    keywords : tuple of str or None, default=None
        URL words of information links; None means :data:`DEFAULT_KEYWORDS`.

    Attributes
    ----------
    feature_names_out_ : ndarray of str
        Names of the output columns (see :data:`FEATURE_NAMES`).
    n_features_in_ : int
        Always 1: each sample is one record.

    References
    ----------
    .. [1] 彭艳兵, 谢馨庭. 基于单 DOM 树特征预分类的自适应 Web 信息抽取方法. 电子设计工程,
       2017, 25(19): 56–59, §1 (formulas 1–8).
    """

    def __init__(
        self, w: float = 0.5, structural: bool = True, keywords: tuple[str, ...] | None = None
    ) -> None:
        self.w = w
        self.structural = structural
        self.keywords = keywords

    def fit(self, X: Iterable[LinkRecord], y: Any = None) -> LinkFeaturizer:
        """Check the parameters; the features need no fitting."""
        if not 0.0 <= float(self.w) <= 1.0:
            raise ValueError(f"w must be in [0, 1], got {self.w!r}")
        if self.keywords is not None and not all(isinstance(k, str) for k in self.keywords):
            raise TypeError("keywords must be strings")
        names = FEATURE_NAMES if self.structural else tuple(
            n for n in FEATURE_NAMES if n not in STRUCTURAL_FEATURES
        )
        self.feature_names_out_ = np.asarray(names, dtype=object)
        self.n_features_in_ = 1
        return self

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the columns of :meth:`transform`."""
        check_is_fitted(self, "feature_names_out_")
        return self.feature_names_out_.copy()

    def transform(self, X: Iterable[LinkRecord]) -> np.ndarray:
        """One row of features per record."""
        check_is_fitted(self, "feature_names_out_")
        words = frozenset(k.lower() for k in (self.keywords or DEFAULT_KEYWORDS))
        rows = [self._row(_as_record(r), words) for r in X]
        return np.asarray(rows, dtype=float).reshape(len(rows), len(self.feature_names_out_))

    def _row(self, record: LinkRecord, words: frozenset[str]) -> list[float]:
        parts = urlsplit(record.href)
        path = parts.path.lower()
        query = parse_qsl(parts.query, keep_blank_values=True)
        last = path.rstrip("/").rsplit("/", 1)[-1]
        tokens = _url_words(path, query)
        action = _has_action_word(tokens, query)
        keyword = bool(tokens & words) and not action
        row = [
            float(site_of(record.href) == site_of(record.base_url)),
            float(bool(_DATE_RE.search(parts.path + "?" + parts.query))),
            float(keyword),
            float(action),
            float(bool(tokens & _LIST_WORDS) and not keyword and not action),
            float(len([s for s in path.split("/") if s])),
            float(len(query)),
            float(bool(_DIGITS_RE.search(last)) or any(v.isdigit() for _, v in query)),
            float(np.log1p(text_width(record.text))),
            float(bool(record.title)),
            float(np.log1p(record.pattern_width)),
        ]
        if self.structural:
            row += [
                self.w * record.st + (1 - self.w) * record.sp,
                record.group_size / max(record.n_links, 1),
            ]
        return row


def is_action_url(href: str) -> bool:
    """Whether the URL's own words hold an action word (:data:`DEFAULT_ACTION_WORDS`: log in,
    reply, a profile, search …); the key of a numeric id (``?post=3169``) does not count."""
    parts = urlsplit(href)
    query = parse_qsl(parts.query, keep_blank_values=True)
    return _has_action_word(_url_words(parts.path.lower(), query), query)


def _has_action_word(tokens: set[str], query: list[tuple[str, str]]) -> bool:
    id_keys = {k.lower() for k, v in query if v.isdigit()}
    return bool((tokens - id_keys) & _ACTION_WORDS)


def _url_words(path: str, query: list[tuple[str, str]]) -> set[str]:
    """The URL's own words: path segments (not title slugs), query keys and values."""
    words: set[str] = set()
    for segment in path.split("/"):
        found = _WORD_RE.findall(segment)
        if len(found) < _SLUG_WORDS:
            words.update(found)
    for key, value in query:
        words.update(_WORD_RE.findall(f"{key.lower()} {value.lower()}"))
    return words


def _as_record(value: Any) -> LinkRecord:
    if isinstance(value, LinkRecord):
        return value
    if isinstance(value, dict):
        return LinkRecord.from_dict(value)
    raise TypeError(f"expected LinkRecord or its dict, got {type(value).__name__}")


def make_link_classifier(
    *,
    w: float = 0.5,
    structural: bool = True,
    kernel: str = "linear",
    C: float = 1.0,
    random_state: int | None = 0,
) -> Pipeline:
    """Features → standardisation → SVM with Platt-scaled probabilities (paper §1.3).

    The SVM is calibrated by ``CalibratedClassifierCV(method="sigmoid", ensemble=False)``, the
    replacement scikit-learn 1.9 gives for the deprecated ``SVC(probability=True)`` (the same
    Platt scaling). The kernel is linear by default: in leave-one-site-out runs an RBF kernel
    fitted on three forums put a fourth forum's URL depths outside anything it had seen and
    missed most of its topic links (see ``benchmarks/bench_links.py``).
    """
    return Pipeline(
        [
            ("features", LinkFeaturizer(w=w, structural=structural)),
            ("scale", StandardScaler()),
            (
                "svm",
                CalibratedClassifierCV(
                    SVC(kernel=kernel, C=C, random_state=random_state),
                    method="sigmoid",
                    ensemble=False,
                ),
            ),
        ]
    )


#: What :func:`model_to_dict` stores of the fitted SVC: the libsvm arrays ``decision_function``
#: reads, some private (sklearn has no public constructor from arrays).
_SVC_ARRAYS = (
    "support_",
    "support_vectors_",
    "_n_support",
    "dual_coef_",
    "_dual_coef_",
    "intercept_",
    "_intercept_",
    "_probA",
    "_probB",
    "classes_",
    "class_weight_",
    "shape_fit_",
)
_INT_ARRAYS = frozenset({"support_", "_n_support"})


def thread_and_list_probabilities(model: Pipeline, records: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Per record, the probabilities that its link leads to a thread page and to a list page
    (0 from a model trained on two classes, as ``make_link_classifier`` allows)."""
    proba = model.predict_proba(list(records))
    classes = list(model.classes_)
    lists = proba[:, classes.index(LIST)] if LIST in classes else np.zeros(len(proba))
    return proba[:, classes.index(THREAD)], lists


def model_to_dict(pipeline: Pipeline) -> dict[str, Any]:
    """The fitted pipeline as JSON-able data: parameters, scaler, SVC arrays and Platt sigmoids
    (one for two classes, one per class otherwise)."""
    features, scale, calibrated = (pipeline.named_steps[k] for k in ("features", "scale", "svm"))
    check_is_fitted(calibrated)
    (fitted,) = calibrated.calibrated_classifiers_
    svm = fitted.estimator
    return {
        "features": {**features.get_params(), "names": list(features.feature_names_out_)},
        "scale": {"mean": scale.mean_.tolist(), "scale": scale.scale_.tolist()},
        "svm": {
            "params": {k: v for k, v in svm.get_params().items() if k != "class_weight"},
            "gamma": float(svm._gamma),
            "fit_status": int(svm.fit_status_),
            **{name.strip("_"): np.asarray(getattr(svm, name)).tolist() for name in _SVC_ARRAYS},
        },
        "sigmoids": [{"a": float(c.a_), "b": float(c.b_)} for c in fitted.calibrators],
    }


def _svc_from_dict(stored: dict[str, Any]) -> SVC:
    svm = SVC(**stored["params"])
    for name in _SVC_ARRAYS:
        dtype = np.int32 if name in _INT_ARRAYS else np.float64
        setattr(svm, name, np.ascontiguousarray(stored[name.strip("_")], dtype=dtype))
    svm.classes_ = np.asarray(stored["classes"])
    svm.shape_fit_ = tuple(int(v) for v in stored["shape_fit"])
    svm._gamma = stored["gamma"]
    svm._sparse = False
    svm.fit_status_ = stored["fit_status"]
    svm.n_features_in_ = svm.support_vectors_.shape[1]
    svm.n_iter_ = np.zeros(1, dtype=np.int32)
    return svm


def model_from_dict(data: dict[str, Any]) -> Pipeline:
    """The pipeline :func:`model_to_dict` described, ready to score (no refit)."""
    spec = data["features"]
    keywords = tuple(spec["keywords"]) if spec.get("keywords") else None
    features = LinkFeaturizer(w=spec["w"], structural=spec["structural"], keywords=keywords).fit([])
    if list(features.feature_names_out_) != spec["names"]:
        raise ValueError("model features do not match this version of LinkFeaturizer")
    scale = StandardScaler()
    scale.mean_ = np.asarray(data["scale"]["mean"], dtype=float)
    scale.scale_ = np.asarray(data["scale"]["scale"], dtype=float)
    scale.var_ = scale.scale_**2
    scale.n_features_in_ = len(scale.mean_)
    scale.n_samples_seen_ = 1
    svm = _svc_from_dict(data["svm"])
    sigmoids = []
    for stored in data["sigmoids"]:
        sigmoid = _SigmoidCalibration()
        sigmoid.a_, sigmoid.b_ = stored["a"], stored["b"]
        sigmoids.append(sigmoid)
    calibrated = CalibratedClassifierCV(
        SVC(**data["svm"]["params"]), method="sigmoid", ensemble=False
    )
    calibrated.calibrated_classifiers_ = [
        _CalibratedClassifier(svm, sigmoids, classes=svm.classes_, method="sigmoid")
    ]
    calibrated.classes_ = svm.classes_
    calibrated.n_features_in_ = svm.n_features_in_
    return Pipeline([("features", features), ("scale", scale), ("svm", calibrated)])


#: The shipped model: fitted parameters plus its model card.
MODEL_FILE = "links.json"


def load_link_model(path: str | Path | None = None) -> Pipeline:
    """The shipped link classifier (``extractors/models/links.json``) or the one at ``path``."""
    if path is None:
        text = resources.files("forumcrawl.extractors").joinpath("models", MODEL_FILE).read_text(
            "utf-8"
        )
    else:
        text = Path(path).read_text("utf-8")
    return model_from_dict(json.loads(text))
