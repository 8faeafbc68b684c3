"""Score extraction results against the gold files of ``../shared/data`` (see its README).

One scorer for our output and for the peers' (``benchmarks/peers.py`` writes theirs in our
format), so that every figure is computed the same way:

- text: bag-of-tokens precision, recall and F1 per page; tokens are single CJK characters (kana
  and hangul too) and lower-cased runs of letters/digits;
- posts: a gold post is found when an unused predicted post has token F1 >= 0.8 with it; post
  precision = found / predicted, recall = found / gold; author, date and floor (exact number,
  where the gold has one) of every matched post;
- fields: title and author exact after whitespace/case normalisation, typographic quotes and
  dashes read as the ASCII ones (a page's ``’`` is the gold's ``'``, for every system alike) and
  characters that show nothing (soft hyphens, zero-width spaces) dropped;
  date: the gold's ``YYYY-MM-DD`` appears in the predicted ``published``;
- ``kind``: how many non-content pages (listings, products …) the predictions export as content;
- snippets (``with`` / ``without``, as trafilatura's own evaluation gives them): a ``with``
  snippet is found, and a ``without`` snippet leaks, when it occurs in the predicted text (case
  kept, runs of whitespace read as one space: a snippet may span two of our lines; typographic
  quotes read as straight ones, as the gold writes them). Per page, the
  share of ``with`` snippets found and of ``without`` snippets kept out; over the folder, pooled
  as trafilatura reports them: precision = found / (found + leaked), recall = found / ``with``.

A metric is only scored on pages whose gold has the field; per-page values are summarised by mean
and median, overall, per ``kind`` and per ``lang``.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "CONTENT_KINDS",
    "GOLD_KINDS",
    "METRICS",
    "NON_CONTENT_KINDS",
    "POST_MATCH_THRESHOLD",
    "PRF",
    "EvalReport",
    "GroupSummary",
    "MetricSummary",
    "PageScore",
    "evaluate",
    "format_report",
    "gold_day",
    "is_exported",
    "load_gold",
    "load_predictions",
    "match_posts",
    "normalise_name",
    "read_jsonl",
    "score_page",
    "snippet_counts",
    "text_prf",
    "tokens",
]

#: Gold kinds whose main content the crawler should export (as an article or a thread).
CONTENT_KINDS = frozenset({"article", "forum"})
#: Gold kinds the crawler should not export as articles or threads.
NON_CONTENT_KINDS = frozenset({"listing", "collection", "product", "service", "documentation"})
GOLD_KINDS = CONTENT_KINDS | NON_CONTENT_KINDS
#: A gold post is found by a predicted post with at least this token F1.
POST_MATCH_THRESHOLD = 0.8
#: Per-page metrics, in report order; a page has a value only where its gold has the field.
METRICS = (
    "text_precision",
    "text_recall",
    "text_f1",
    "title",
    "author",
    "date",
    "posts_precision",
    "posts_recall",
    "posts_f1",
    "post_author",
    "post_date",
    "post_floor",
    "snippets_found",
    "snippets_kept_out",
)

# Characters scored one by one: CJK ideographs (with 々〆〇), kana (full and half width) and hangul,
# since these scripts do not separate words with spaces.
_SINGLE_CHARS = (
    "\u1100-\u11ff\u3005-\u3007\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
_WORD_RUN_RE = re.compile(r"[^\W_]+")
_SPLIT_RUN_RE = re.compile(f"[{_SINGLE_CHARS}]|[^{_SINGLE_CHARS}]+")
_ISO_DAY_RE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_UNKNOWN_LANG = "unknown"
_NOT_EXPORTED_KINDS = frozenset({"other"}) | NON_CONTENT_KINDS
#: Typographic quotes read as straight ones in snippets: a page's ’ is the gold's ' (wcxb-dev's
#: snippets are written with straight quotes).
_STRAIGHT_QUOTES = str.maketrans("‘’‚‛′“”„‟″", "\'\'\'\'\'\"\"\"\"\"")
#: The same, and dashes read as hyphens, in titles and authors (``str.split`` folds the spaces);
#: characters that show nothing (soft hyphen, zero-width space, word joiner, byte-order mark)
#: dropped: a title that ends in a zero-width space reads as the same title without it.
_ASCII_PUNCTUATION = str.maketrans("‘’‚‛′“”„‟″‐‑‒–—", "\'\'\'\'\'\"\"\"\"\"-----", "\xad\u200b\u2060\ufeff")


def tokens(text: str) -> list[str]:
    """Scoring tokens: each CJK/kana/hangul character alone, other letter/digit runs lower-cased.

    Text is NFC-normalised first so that decomposed accents do not split words.
    """
    out: list[str] = []
    for run in _WORD_RUN_RE.findall(unicodedata.normalize("NFC", text)):
        run = run.lower()
        if run.isascii():
            out.append(run)
        else:
            out.extend(_SPLIT_RUN_RE.findall(run))
    return out


@dataclass(frozen=True, slots=True)
class PRF:
    """Precision, recall and F1 of one comparison."""

    precision: float
    recall: float
    f1: float


def _prf(overlap: int, n_pred: int, n_gold: int) -> PRF:
    """P/R/F1 from counts. Both sides empty is a perfect answer (1, 1, 1); one side empty is
    a complete miss (0, 0, 0): an empty prediction has no precision worth crediting."""
    if n_pred == 0 and n_gold == 0:
        return PRF(1.0, 1.0, 1.0)
    if n_pred == 0 or n_gold == 0:
        return PRF(0.0, 0.0, 0.0)
    # 2PR/(P+R) written on counts, so that e.g. 4 of 5 against 5 is exactly 0.8.
    return PRF(overlap / n_pred, overlap / n_gold, 2 * overlap / (n_pred + n_gold))


def _bag_prf(pred: Counter[str], gold: Counter[str]) -> PRF:
    overlap = sum((pred & gold).values())
    return _prf(overlap, pred.total(), gold.total())


def text_prf(pred: str, gold: str) -> PRF:
    """Bag-of-tokens P/R/F1 of ``pred`` against ``gold`` (empty cases as in :class:`PRF` docs:
    no tokens on both sides → 1, 1, 1; no tokens on one side → 0, 0, 0)."""
    return _bag_prf(Counter(tokens(pred)), Counter(tokens(gold)))


def match_posts(pred_texts: list[str], gold_texts: list[str]) -> list[int | None]:
    """For each gold post, the index of the predicted post that finds it, or ``None``.

    Greedy in gold order: each gold post takes the unused predicted post with the highest token
    F1 (the earliest one on ties) if that F1 is at least :data:`POST_MATCH_THRESHOLD`.
    """
    pred_bags = [Counter(tokens(t)) for t in pred_texts]
    used = [False] * len(pred_bags)
    matches: list[int | None] = []
    for gold_text in gold_texts:
        gold_bag = Counter(tokens(gold_text))
        best, best_f1 = None, -1.0
        for i, bag in enumerate(pred_bags):
            if not used[i]:
                f1 = _bag_prf(bag, gold_bag).f1
                if f1 > best_f1:
                    best, best_f1 = i, f1
        if best is not None and best_f1 >= POST_MATCH_THRESHOLD:
            used[best] = True
            matches.append(best)
        else:
            matches.append(None)
    return matches


def normalise_name(value: Any) -> str:
    """Title/author comparison form: whitespace collapsed, case folded, typographic quotes and
    dashes read as the ASCII ones (the gold files write ``'`` where the page shows ``’``; 6 of
    the 147 even-numbered wcxb-dev article titles differed by that alone), characters that show
    nothing dropped (a fundus-articles gold title ends in a zero-width space)."""
    return " ".join(str(value).translate(_ASCII_PUNCTUATION).split()).casefold() if value else ""


@lru_cache(maxsize=4096)
def gold_day(value: str) -> str | None:
    """The ``YYYY-MM-DD`` day of a gold date, or ``None`` when it names no full day.

    The README rule takes the first 10 characters of an ISO date; the gold files also hold
    unpadded ISO dates (``2005-5-7 21:23``) and, for posts, dates as the forum wrote them
    (``5. Januar 2019 um 20:38``, ``17.11.2019, 12:07``). Those are read with dateparser, numeric
    ones day first (the forums in the data are European); partial dates (``2018``, ``March 4``)
    and placeholders (``UNKNOWN``) are not scored.
    """
    m = _ISO_DAY_RE.match(value)
    if m:
        year, month, day = (int(g) for g in m.groups())
        return f"{year:04d}-{month:02d}-{day:02d}" if 1 <= month <= 12 and 1 <= day <= 31 else None
    import dateparser  # slow to import; only non-ISO gold dates need it

    parsed = dateparser.parse(
        value, settings={"REQUIRE_PARTS": ["day", "month", "year"], "DATE_ORDER": "DMY"}
    )
    return parsed.date().isoformat() if parsed else None


def _date_score(pred: Any, gold: Any) -> float | None:
    day = gold_day(str(gold)) if gold else None
    if day is None:
        return None
    return float(bool(pred) and day in str(pred))


def _name_score(pred: Any, gold: Any) -> float | None:
    expected = normalise_name(gold)
    if not expected:
        return None
    return float(normalise_name(pred) == expected)


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def is_exported(pred: Mapping[str, Any]) -> bool:
    """Whether a prediction exports the page as content (an article or a thread).

    Yes when it has some text (its own or a post's) and is neither marked ``skipped`` (any true
    value) nor given a ``kind`` of ``other`` or of a non-content gold kind.
    """
    if pred.get("skipped") or pred.get("kind") in _NOT_EXPORTED_KINDS:
        return False
    if tokens(_text_of(pred.get("text"))):
        return True
    return any(
        isinstance(p, Mapping) and tokens(_text_of(p.get("text"))) for p in pred.get("posts") or ()
    )


@dataclass(slots=True)
class PageScore:
    """Scores of one gold page; ``metrics[name]`` is ``None`` where the gold lacks the field."""

    id: str
    kind: str
    lang: str
    #: No prediction had this id (it was scored as an empty prediction).
    missing: bool
    #: See :func:`is_exported`.
    exported: bool
    metrics: dict[str, float | None]
    posts_found: int | None = None
    posts_predicted: int | None = None
    posts_gold: int | None = None
    #: ``(found, missed, leaked, kept out)`` of the gold's ``with`` and ``without`` snippets,
    #: None when it has neither (see :func:`snippet_counts`).
    snippets: tuple[int, int, int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (one line of ``--per-page``)."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "lang": self.lang,
            "missing": self.missing,
            "exported": self.exported,
            **self.metrics,
        }
        if self.posts_gold is not None:
            out.update(
                posts_found=self.posts_found,
                posts_predicted=self.posts_predicted,
                posts_gold=self.posts_gold,
            )
        if self.snippets is not None:
            out["snippets"] = dict(zip(_SNIPPET_COUNTS, self.snippets))
        return out


_SNIPPET_COUNTS = ("found", "missed", "leaked", "kept_out")




def _flat(text: str) -> str:
    return " ".join(text.translate(_STRAIGHT_QUOTES).split())


def snippet_counts(gold: Mapping[str, Any], pred: Mapping[str, Any]) -> tuple[int, int, int, int] | None:
    """``(found, missed, leaked, kept out)``: the gold's ``with`` snippets that occur in the
    predicted text (its ``text``, else its posts' texts) and those that do not, then its
    ``without`` snippets that occur and those that do not; None when the gold has neither list.
    Case is kept; runs of whitespace count as one space and typographic quotes as straight ones."""
    wanted = [_flat(s) for s in gold.get("with") or () if isinstance(s, str) and s.strip()]
    unwanted = [_flat(s) for s in gold.get("without") or () if isinstance(s, str) and s.strip()]
    if not wanted and not unwanted:
        return None
    text = _text_of(pred.get("text")) or "\n".join(_text_of(p.get("text")) for p in _posts_of(pred))
    flat = _flat(text)
    found = sum(s in flat for s in wanted)
    leaked = sum(s in flat for s in unwanted)
    return found, len(wanted) - found, leaked, len(unwanted) - leaked


def _posts_of(pred: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [p for p in pred.get("posts") or () if isinstance(p, Mapping)]


def score_page(
    gold: Mapping[str, Any], pred: Mapping[str, Any] | None, *, with_quotes: bool = False
) -> PageScore:
    """Score one prediction (``None``: no prediction, scored as empty) against its gold object.

    ``with_quotes``: the gold posts keep the quotes they hold (Harvest's annotation), so each
    predicted post is scored with its ``quotes`` added to its text."""
    missing = pred is None
    pred = pred or {}
    metrics: dict[str, float | None] = dict.fromkeys(METRICS)
    if isinstance(gold.get("text"), str):
        prf = text_prf(_text_of(pred.get("text")), gold["text"])
        metrics.update(text_precision=prf.precision, text_recall=prf.recall, text_f1=prf.f1)
    metrics["title"] = _name_score(pred.get("title"), gold.get("title"))
    metrics["author"] = _name_score(pred.get("author"), gold.get("author"))
    metrics["date"] = _date_score(pred.get("published"), gold.get("published"))
    snippets = snippet_counts(gold, pred)
    if snippets is not None:
        found, missed, leaked, kept_out = snippets
        metrics["snippets_found"] = found / (found + missed) if found + missed else None
        metrics["snippets_kept_out"] = kept_out / (leaked + kept_out) if leaked + kept_out else None
    score = PageScore(
        id=str(gold["id"]),
        kind=str(gold["kind"]),
        lang=str(gold.get("lang") or _UNKNOWN_LANG),
        missing=missing,
        exported=is_exported(pred),
        metrics=metrics,
        snippets=snippets,
    )
    gold_posts = gold.get("posts")
    if isinstance(gold_posts, list):
        _score_posts(score, _posts_of(pred), gold_posts, with_quotes)
    return score


def _post_text(post: Mapping[str, Any], with_quotes: bool) -> str:
    quotes = post.get("quotes") if with_quotes else None
    parts = [_text_of(q) for q in quotes] if isinstance(quotes, list) else []
    return "\n".join([*parts, _text_of(post.get("text"))])


def _score_posts(
    score: PageScore,
    pred_posts: list[Mapping[str, Any]],
    gold_posts: list[Mapping[str, Any]],
    with_quotes: bool = False,
) -> None:
    matches = match_posts(
        [_post_text(p, with_quotes) for p in pred_posts],
        [_text_of(g.get("text")) for g in gold_posts],
    )
    found = sum(m is not None for m in matches)
    prf = _prf(found, len(pred_posts), len(gold_posts))
    authors: list[float] = []
    dates: list[float] = []
    floors: list[float] = []
    for gold_post, index in zip(gold_posts, matches):
        if index is None:
            continue
        pred_post = pred_posts[index]
        author = _name_score(pred_post.get("author"), gold_post.get("author"))
        date = _date_score(pred_post.get("published"), gold_post.get("published"))
        if author is not None:
            authors.append(author)
        if date is not None:
            dates.append(date)
        if gold_post.get("floor") is not None:
            floors.append(float(pred_post.get("floor") == gold_post["floor"]))
    score.metrics.update(
        posts_precision=prf.precision,
        posts_recall=prf.recall,
        posts_f1=prf.f1,
        post_author=statistics.fmean(authors) if authors else None,
        post_date=statistics.fmean(dates) if dates else None,
        post_floor=statistics.fmean(floors) if floors else None,
    )
    score.posts_found, score.posts_predicted, score.posts_gold = (
        found,
        len(pred_posts),
        len(gold_posts),
    )


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """One metric over the pages that have it."""

    n: int
    mean: float | None
    median: float | None

    @classmethod
    def of(cls, values: list[float]) -> MetricSummary:
        if not values:
            return cls(0, None, None)
        return cls(len(values), statistics.fmean(values), statistics.median(values))


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """Every metric over one group of pages (all, one kind, one language)."""

    pages: int
    missing: int
    exported: int
    metrics: dict[str, MetricSummary]

    @classmethod
    def of(cls, pages: list[PageScore]) -> GroupSummary:
        return cls(
            pages=len(pages),
            missing=sum(p.missing for p in pages),
            exported=sum(p.exported for p in pages),
            metrics={
                name: MetricSummary.of([v for p in pages if (v := p.metrics[name]) is not None])
                for name in METRICS
            },
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "missing": self.missing,
            "exported": self.exported,
            "metrics": {
                name: {"n": s.n, "mean": s.mean, "median": s.median}
                for name, s in self.metrics.items()
            },
        }


@dataclass(slots=True)
class EvalReport:
    """Scores of one gold folder: per page and summarised."""

    gold_dir: str
    pages: list[PageScore]
    #: Prediction ids that are not in the gold file (ignored).
    unknown_ids: list[str] = field(default_factory=list)

    def summary(self, pages: list[PageScore] | None = None) -> GroupSummary:
        """Summary of ``pages`` (default: all pages)."""
        return GroupSummary.of(self.pages if pages is None else pages)

    def by(self, attribute: str) -> dict[str, GroupSummary]:
        """Summaries per value of a page attribute (``kind`` or ``lang``), sorted by value."""
        groups: dict[str, list[PageScore]] = {}
        for page in self.pages:
            groups.setdefault(getattr(page, attribute), []).append(page)
        return {key: GroupSummary.of(groups[key]) for key in sorted(groups)}

    @property
    def missing_ids(self) -> list[str]:
        return [p.id for p in self.pages if p.missing]

    @property
    def non_content_exported(self) -> list[str]:
        """Ids of non-content gold pages that the predictions export as content."""
        return [p.id for p in self.pages if p.kind in NON_CONTENT_KINDS and p.exported]

    @property
    def content_not_exported(self) -> list[str]:
        """Ids of article/forum gold pages that the predictions do not export."""
        return [p.id for p in self.pages if p.kind in CONTENT_KINDS and not p.exported]

    def snippets(self) -> dict[str, Any] | None:
        """The ``with`` / ``without`` snippets of every page pooled (see :func:`snippet_counts`),
        with trafilatura's precision, recall, F1 and accuracy; None when no page has any."""
        counted = [p.snippets for p in self.pages if p.snippets is not None]
        if not counted:
            return None
        found, missed, leaked, kept_out = map(sum, zip(*counted))
        prf = _prf(found, found + leaked, found + missed)
        total = found + missed + leaked + kept_out
        return {
            "pages": len(counted),
            **dict(zip(_SNIPPET_COUNTS, (found, missed, leaked, kept_out))),
            "precision": prf.precision,
            "recall": prf.recall,
            "f1": prf.f1,
            "accuracy": (found + kept_out) / total if total else None,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (per-page scores are left to :meth:`PageScore.to_dict`)."""
        return {
            "snippets": self.snippets(),
            "gold_dir": self.gold_dir,
            "overall": self.summary().to_dict(),
            "by_kind": {k: s.to_dict() for k, s in self.by("kind").items()},
            "by_lang": {k: s.to_dict() for k, s in self.by("lang").items()},
            "missing_ids": self.missing_ids,
            "unknown_ids": self.unknown_ids,
            "non_content": {
                "pages": sum(p.kind in NON_CONTENT_KINDS for p in self.pages),
                "exported": len(self.non_content_exported),
                "exported_ids": self.non_content_exported,
            },
            "content": {
                "pages": sum(p.kind in CONTENT_KINDS for p in self.pages),
                "not_exported": len(self.content_not_exported),
                "not_exported_ids": self.content_not_exported,
            },
        }


def read_jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, object)`` per non-blank line; ``where`` is ``path:line`` for error messages."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: invalid JSON: {exc.msg}") from exc
            if not isinstance(obj, dict):
                raise ValueError(f"{where}: expected a JSON object")
            yield where, obj


def _id_of(where: str, obj: Mapping[str, Any]) -> str:
    value = obj.get("id")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise ValueError(f"{where}: missing or invalid 'id'")
    return str(value)


def load_gold(gold_dir: Path) -> list[dict[str, Any]]:
    """The gold objects of ``gold_dir/gold.jsonl``, checked for ``id`` and ``kind``."""
    path = Path(gold_dir) / "gold.jsonl"
    if not path.is_file():
        raise ValueError(f"{path}: gold file not found")
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for where, obj in read_jsonl(path):
        page_id = _id_of(where, obj)
        if page_id in seen:
            raise ValueError(f"{where}: duplicate id {page_id!r}")
        if obj.get("kind") not in GOLD_KINDS:
            raise ValueError(f"{where}: 'kind' must be one of {', '.join(sorted(GOLD_KINDS))}")
        if "posts" in obj and not isinstance(obj["posts"], list):
            raise ValueError(f"{where}: 'posts' must be a list")
        seen.add(page_id)
        rows.append({**obj, "id": page_id})
    return rows


def load_predictions(
    predictions: Path | str | os.PathLike[str] | Iterable[Mapping[str, Any]],
) -> dict[str, Mapping[str, Any]]:
    """Predictions by id, from a JSON Lines file or from objects; duplicate ids are an error."""
    if isinstance(predictions, (str, os.PathLike)):
        items: Iterable[tuple[str, Mapping[str, Any]]] = read_jsonl(Path(predictions))
    else:
        items = ((f"prediction #{i}", obj) for i, obj in enumerate(predictions, 1))
    by_id: dict[str, Mapping[str, Any]] = {}
    for where, obj in items:
        if not isinstance(obj, Mapping):
            raise ValueError(f"{where}: expected a JSON object")
        page_id = _id_of(where, obj)
        if page_id in by_id:
            raise ValueError(f"{where}: duplicate id {page_id!r}")
        posts = obj.get("posts")
        if posts is not None and not isinstance(posts, list):
            raise ValueError(f"{where}: 'posts' must be a list")
        by_id[page_id] = obj
    return by_id


def evaluate(
    gold_dir: Path | str,
    predictions: Path | str | os.PathLike[str] | Iterable[Mapping[str, Any]],
    *,
    with_quotes: bool = False,
) -> EvalReport:
    """Score ``predictions`` against ``gold_dir/gold.jsonl``; a gold page without a prediction is
    scored as an empty one and listed in :attr:`EvalReport.missing_ids`. ``with_quotes``: see
    :func:`score_page`."""
    gold = load_gold(Path(gold_dir))
    preds = load_predictions(predictions)
    gold_ids = {g["id"] for g in gold}
    return EvalReport(
        gold_dir=str(gold_dir),
        pages=[score_page(g, preds.get(g["id"]), with_quotes=with_quotes) for g in gold],
        unknown_ids=sorted(set(preds) - gold_ids),
    )


_COLUMNS = (
    ("text P", "text_precision", "mean"),
    ("text R", "text_recall", "mean"),
    ("text F1", "text_f1", "mean"),
    ("F1 med", "text_f1", "median"),
    ("title", "title", "mean"),
    ("author", "author", "mean"),
    ("date", "date", "mean"),
    ("posts P", "posts_precision", "mean"),
    ("posts R", "posts_recall", "mean"),
    ("p.auth", "post_author", "mean"),
    ("p.date", "post_date", "mean"),
    ("p.floor", "post_floor", "mean"),
    ("with", "snippets_found", "mean"),
    ("w/o", "snippets_kept_out", "mean"),
)


def format_report(report: EvalReport) -> str:
    """A compact text table: one row per group, metric means (and the text F1 median).

    ``-`` marks a metric no page of the group has; columns no group has are left out.
    """
    rows = [("all", report.summary())]
    rows += [(f"kind={k}", s) for k, s in report.by("kind").items()]
    rows += [(f"lang={k}", s) for k, s in report.by("lang").items()]
    columns = [c for c in _COLUMNS if any(s.metrics[c[1]].n for _, s in rows)]
    header = ["group", "pages", *(c[0] for c in columns)]
    table = [header]
    for label, summary in rows:
        cells = [label, str(summary.pages)]
        for _, name, stat in columns:
            value = getattr(summary.metrics[name], stat)
            cells.append("-" if value is None else f"{value:.3f}")
        table.append(cells)
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
        for row in table
    ]
    total = len(report.pages)
    lines.append(f"missing predictions: {len(report.missing_ids)} of {total}")
    if report.unknown_ids:
        lines.append(f"predictions not in the gold file (ignored): {len(report.unknown_ids)}")
    non_content = sum(p.kind in NON_CONTENT_KINDS for p in report.pages)
    if non_content:
        lines.append(
            f"non-content pages exported as content: {len(report.non_content_exported)}"
            f" of {non_content}"
        )
    snippets = report.snippets()
    if snippets is not None:
        lines.append(
            f"snippets of {snippets['pages']} pages: {snippets['found']} of"
            f" {snippets['found'] + snippets['missed']} 'with' found, {snippets['leaked']} of"
            f" {snippets['leaked'] + snippets['kept_out']} 'without' leaked; precision"
            f" {snippets['precision']:.3f}, recall {snippets['recall']:.3f}, F1 {snippets['f1']:.3f}"
        )
    content = total - non_content
    if content:
        lines.append(f"content pages not exported: {len(report.content_not_exported)} of {content}")
    return "\n".join(lines)
