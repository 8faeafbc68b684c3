"""The URL resolver: a per-position rule that says whether a URL is a thread page (seed 003 §3.1.3).

The paper turns the topic cluster into a resolver ``R = {r(i)}`` (formulas 7–8): for every
position of the structure vector, the set of types and values the topic URLs have there. Any
other URL of the site is then classified by comparing its blocks with the rule, without
clustering, which is what makes USC cheap enough to run on every link of a crawl.

We keep the paper's per-position rule, organised by *slot* (a path segment or a query parameter,
as :class:`forumcrawl.extractors.usc.Layout` aligns them) so that it prints as a readable pattern
such as ``/forum.php?mod=viewthread&tid=<digits>[&page=<digits>]``, and we decide per position
whether it is a *literal* (a few words every topic URL shares: ``viewthread``, ``topic``) or a
*variable* (ids and slugs, kept as their types). Three steps go beyond the paper's formulas:

- **Support.** A value or type seen in fewer than ``min_support`` of the topic URLs is dropped
  (with the URLs that carry it): a board page that the clustering put among the threads does not
  widen the rule to every board page.
- **Siblings.** A slot whose literal value differs, in at least ``min_variants`` variants, between
  topic URLs and unlabelled URLs that match the rule everywhere else is a variable (the board slug
  in ``/forum/<board>/topic/<title>/``, which splits threads into one cluster per board under the
  paper's distance), provided a later slot still requires a literal word (``topic``). A slot is
  never widened if that would admit a URL known *not* to be a topic page (label 0, e.g. a
  fetched page without posts).
- **Pages.** An unlabelled URL that is a topic URL plus a page number (``&page=2``, ``/page-2``,
  ``/2``) is a topic URL: paginated threads belong to their thread, also when the sample holds
  only a later page of a thread that the rule accepts.

The learned rule is plain JSON (:meth:`UrlResolver.to_dict`), meant to be read and edited.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from forumcrawl.document import site_of
from forumcrawl.extractors.usc import BLOCK_TYPES, Segment, SplitUrl, block_type, split_url

__all__ = ["RULE_VERSION", "BlockRule", "SlotRule", "UrlResolver", "UrlRule", "pages_of"]

RULE_VERSION = 1
#: Types a slug word can take: a variable position that shows two of them accepts all four.
WORD_TYPES = frozenset({"letters", "alnum", "text", "digits"})
#: Types a path slug's word can take: a word's, or punctuation a title keeps (``%3F``, ``%2C``,
#: ``–``: ``/topic/665/budget-tripod-recommendations%3F``), which no query value needs.
SLUG_TYPES = WORD_TYPES | {"other"}
_DIGIT_RUN = re.compile(r"\d+")
_PAGE_SEGMENT = re.compile(r"^(?:page|p|pg|post)?[-_]?\d+$", re.IGNORECASE)
_PAGE_WORD = re.compile(r"^(?:page|p|pg)$", re.IGNORECASE)


@dataclass(frozen=True)
class BlockRule:
    """What one block position accepts: literal ``values`` or block ``types`` (exactly one is set).

    ``""`` in either set means the block may be empty or absent.
    """

    values: frozenset[str] | None = None
    types: frozenset[str] | None = None

    def allows(self, block: str) -> bool:
        """Whether ``block`` (decoded, ``""`` when absent) is accepted here."""
        if self.values is not None:
            return block in self.values
        assert self.types is not None
        return block_type(block) in self.types

    def render(self, *, mark_optional: bool = True) -> str:
        """``forum``, ``(page|post)``, ``<digits>``; ``?`` after it when it may be absent."""
        optional = mark_optional and self.allows("")
        if self.values is not None:
            words = sorted(v for v in self.values if v)
            text = words[0] if len(words) == 1 else "(" + "|".join(words) + ")" if words else ""
        else:
            assert self.types is not None
            kinds = [t for t in BLOCK_TYPES if t and t in self.types]
            text = "<" + "|".join(kinds) + ">" if kinds else ""
        return text + "?" if optional and text else text

    def to_dict(self) -> dict[str, list[str]]:
        """``{"values": [...]}`` or ``{"types": [...]}``."""
        if self.values is not None:
            return {"values": sorted(self.values)}
        assert self.types is not None
        return {"types": [t for t in BLOCK_TYPES if t in self.types]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlockRule:
        """Inverse of :meth:`to_dict`."""
        if ("values" in data) == ("types" in data):
            raise ValueError(f"a block rule needs exactly one of 'values' and 'types': {data!r}")
        if "values" in data:
            return cls(values=frozenset(str(v) for v in data["values"]))
        unknown = set(data["types"]) - set(BLOCK_TYPES)
        if unknown:
            raise ValueError(f"unknown block types {sorted(unknown)}; known: {BLOCK_TYPES}")
        return cls(types=frozenset(data["types"]))


@dataclass(frozen=True)
class SlotRule:
    """What one path segment or query parameter accepts, block by block.

    ``more`` (when set) lets the segment run longer than ``blocks``, with extra blocks of these
    types: a slug with more words than any seen while learning.
    """

    blocks: tuple[BlockRule, ...]
    seps: tuple[str, ...]
    more: frozenset[str] | None = None

    def match(self, blocks: Sequence[str]) -> bool:
        """Whether a segment with these blocks (empty for an absent segment) is accepted."""
        if len(blocks) > len(self.blocks):
            if self.more is None:
                return False
            if any(block_type(b) not in self.more for b in blocks[len(self.blocks) :]):
                return False
        for i, rule in enumerate(self.blocks):
            if not rule.allows(blocks[i] if i < len(blocks) else ""):
                return False
        return True

    @property
    def optional(self) -> bool:
        """Whether the whole segment may be absent."""
        return self.match(())

    def render(self) -> str:
        """The segment's pattern without its leading separator: ``<slug>`` for a slug of any
        length (see :meth:`UrlResolver._slot`); an optional segment's blocks are shown without
        their own ``?`` (brackets around the segment say it)."""
        optional = self.optional
        out = []
        slug = self.more is not None and self.more <= SLUG_TYPES
        for i, rule in enumerate(self.blocks):
            if slug and rule.types is not None and rule.types - {""} <= SLUG_TYPES:
                if not out or not out[-1].endswith("<slug>"):
                    out.append((self.seps[i] if i and out else "") + "<slug>")
                continue
            text = rule.render(mark_optional=not optional)
            if not text:
                continue
            out.append((self.seps[i] if i and out else "") + text)
        if self.more and not slug:
            kinds = [t for t in BLOCK_TYPES if t and t in self.more]
            out.append("…<" + "|".join(kinds) + ">")
        return "".join(out)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``blocks``, ``seps`` and, when set, ``more``."""
        data: dict[str, Any] = {
            "blocks": [b.to_dict() for b in self.blocks],
            "seps": list(self.seps),
        }
        if self.more is not None:
            data["more"] = [t for t in BLOCK_TYPES if t in self.more]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SlotRule:
        """Inverse of :meth:`to_dict`."""
        blocks = tuple(BlockRule.from_dict(b) for b in data["blocks"])
        seps = tuple(str(s) for s in data.get("seps", ()))
        seps = seps + ("-",) * (len(blocks) - len(seps))
        more = data.get("more")
        return cls(blocks=blocks, seps=seps, more=None if more is None else frozenset(more))


@dataclass(frozen=True)
class UrlRule:
    """A site's topic-URL rule: one :class:`SlotRule` per path segment and query parameter."""

    site: str | None
    path: tuple[SlotRule, ...]
    query: tuple[SlotRule, ...]
    #: Session ids are left out of URLs before matching (see ``split_url(drop_sessions=)``).
    drop_sessions: bool = True

    def match_split(self, split: SplitUrl) -> bool:
        """Whether a split URL is accepted."""
        if len(split.path) > len(self.path) or len(split.query) > len(self.query):
            return False
        for slots, segments in ((self.path, split.path), (self.query, split.query)):
            for i, slot in enumerate(slots):
                if not slot.match(segments[i].blocks if i < len(segments) else ()):
                    return False
        return True

    def match(self, url: str) -> bool:
        """Whether ``url`` is a topic URL; ``False`` for another site or a non-http(s) string."""
        try:
            split = split_url(url, site=self.site, drop_sessions=self.drop_sessions)
        except ValueError:
            return False
        return self.match_split(split)

    def pattern(self) -> str:
        """A readable form: ``/forum.php?mod=viewthread&tid=<digits>[&page=<digits>]``."""
        text = ""
        for i, slot in enumerate(self.path):
            part = "/" + slot.render()
            text += f"[{part}]" if slot.optional and i else part
        for i, slot in enumerate(self.query):
            part = ("?" if i == 0 else "&") + slot.render()
            text += f"[{part}]" if slot.optional else part
        return text or "/"

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``pattern`` is for people and ignored when loading)."""
        return {
            "version": RULE_VERSION,
            "site": self.site,
            "pattern": self.pattern(),
            "drop_sessions": self.drop_sessions,
            "path": [s.to_dict() for s in self.path],
            "query": [s.to_dict() for s in self.query],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UrlRule:
        """Inverse of :meth:`to_dict`; refuses rules of a newer format."""
        version = int(data.get("version", RULE_VERSION))
        if version > RULE_VERSION:
            raise ValueError(f"URL rule version {version} is newer than supported ({RULE_VERSION})")
        site = data.get("site")
        return cls(
            site=None if site is None else str(site),
            path=tuple(SlotRule.from_dict(s) for s in data.get("path", ())),
            query=tuple(SlotRule.from_dict(s) for s in data.get("query", ())),
            drop_sessions=bool(data.get("drop_sessions", True)),
        )


def _segments(split: SplitUrl, kind: str) -> tuple[Segment, ...]:
    return split.path if kind == "path" else split.query


def _blocks_at(split: SplitUrl, kind: str, i: int) -> tuple[str, ...]:
    segments = _segments(split, kind)
    return segments[i].blocks if i < len(segments) else ()


def _alternatives(rule: UrlRule, split: SplitUrl) -> set[tuple[Any, ...]]:
    """The block alternatives of ``rule`` that ``split`` uses: ``(kind, slot, position, "v"|"t",
    value or type)`` for each position of each slot."""
    out: set[tuple[Any, ...]] = set()
    for kind, slots in (("path", rule.path), ("query", rule.query)):
        for k, slot in enumerate(slots):
            blocks = _blocks_at(split, kind, k)
            for i, block_rule in enumerate(slot.blocks):
                b = blocks[i] if i < len(blocks) else ""
                if block_rule.values is not None:
                    out.add((kind, k, i, "v", b))
                else:
                    out.add((kind, k, i, "t", block_type(b)))
    return out


def _title_word(segments: Sequence[Segment | None], i: int, word: str) -> bool:
    """Whether ``word`` at position ``i`` is part of a title rather than of the URL template.

    Every segment with it there must hold a number (an id), and the segments must not differ
    only in their numbers: ``page`` in ``page-2``, ``page-3`` and ``thread`` in
    ``thread-624-1-1.html``, ``thread-624-2-1.html`` are template words; ``hilferuf`` in the one
    segment ``df-hilferuf.416785``, or ``ram`` in ``ram-empfehlung.1940441`` and
    ``ram-upgrade.1940201``, are title words. A word in a segment without a number
    (``viewtopic.php``) is never a title's.
    """
    rests = [
        s.blocks[:i] + s.blocks[i + 1 :]
        for s in segments
        if s is not None and i < len(s.blocks) and s.blocks[i] == word
    ]
    if not rests or not all(any(b.isdigit() for b in rest) for rest in rests):
        return False
    shapes = {tuple("#" if b.isdigit() else b for b in rest) for rest in rests}
    return len(set(rests)) == 1 or len(shapes) > 1


def _after(slot: tuple[str, int], than: tuple[str, int]) -> bool:
    """Whether ``slot`` comes after ``than`` in a URL (query slots follow every path slot)."""
    order = {"path": 0, "query": 1}
    return (order[slot[0]], slot[1]) > (order[than[0]], than[1])


def _anchors(slot: SlotRule) -> bool:
    """Whether the slot requires a word: a literal position that may not be empty."""
    return any(b.values is not None and "" not in b.values for b in slot.blocks)


def _form(split: SplitUrl) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """The blocks of a split URL, without a trailing empty path segment (``/a/`` = ``/a``)."""
    path = [s.blocks for s in split.path]
    if path and path[-1] == ("",):
        path.pop()
    return tuple(path), tuple(s.blocks for s in split.query)


def _split_of(form: tuple[tuple[tuple[str, ...], ...], ...]) -> SplitUrl:
    """A :class:`SplitUrl` with these blocks (separators do not matter for matching)."""
    path, query = form
    return SplitUrl(
        path=tuple(Segment(blocks=b, seps=("/",) + ("-",) * (len(b) - 1)) for b in path),
        query=tuple(Segment(blocks=b, seps=("&",) + ("=",) * (len(b) - 1)) for b in query),
    )


def _page_bases(split: SplitUrl) -> list[tuple[tuple[tuple[str, ...], ...], ...]]:
    """The forms of ``split`` with one, two … trailing page numbers taken off: query parameters
    with a number as value, and path segments like ``2``, ``page-2``, ``p2``, ``page/2``,
    ``post-7`` (a post's permalink shows its thread page)."""
    path, query = (list(part) for part in _form(split))
    bases = []
    while query and len(query[-1]) >= 2 and query[-1][-1].isdigit():
        query.pop()
        bases.append((tuple(path), tuple(query)))
    while not query and path and _PAGE_SEGMENT.match("-".join(path[-1])):
        path.pop()
        if path and _PAGE_WORD.match("-".join(path[-1])):
            path.pop()  # /page/2
        bases.append((tuple(path), ()))
    return bases


def _widen_block(rule: BlockRule, block: str, max_literals: int) -> BlockRule:
    """``rule`` accepting ``block`` too: as one more literal while the words stay few and are
    no numbers, else by the types of all it accepts."""
    if rule.allows(block):
        return rule
    if rule.values is not None:
        values = rule.values | {block}
        if len(values - {""}) <= max_literals and not any(v.isdigit() for v in values):
            return BlockRule(values=frozenset(values))
        return BlockRule(types=frozenset(block_type(v) for v in values))
    assert rule.types is not None
    return BlockRule(types=rule.types | {block_type(block)})


def _new_block(block: str) -> BlockRule:
    """A block of a segment the rule had not (optional: the URLs it accepted lack it)."""
    if block.isdigit():
        return BlockRule(types=frozenset({"digits", ""}))
    return BlockRule(values=frozenset({block, ""}))


def _widen_slots(
    slots: tuple[SlotRule, ...], segments: tuple[Segment, ...], max_literals: int
) -> tuple[SlotRule, ...]:
    """``slots`` widened block by block until ``segments`` fit them (see
    :meth:`UrlResolver.add_pages`)."""
    out = list(slots)
    for i, segment in enumerate(segments):
        if i >= len(out):
            out.append(SlotRule(tuple(_new_block(b) for b in segment.blocks), segment.seps))
            continue
        slot = out[i]
        if slot.match(segment.blocks):
            continue
        blocks = [
            _widen_block(rule, segment.blocks[j] if j < len(segment.blocks) else "", max_literals)
            for j, rule in enumerate(slot.blocks)
        ]
        blocks += [_new_block(b) for b in segment.blocks[len(slot.blocks) :]]
        seps = slot.seps + segment.seps[len(slot.seps) :]
        out[i] = SlotRule(tuple(blocks), seps, slot.more)
    return tuple(out)


def pages_of(splits: Sequence[SplitUrl], base: np.ndarray) -> np.ndarray:
    """Which of ``splits`` are a URL of ``base`` (a mask) plus page numbers (see
    :func:`_page_bases`): later pages of those threads."""
    forms = {_form(splits[i]) for i in np.flatnonzero(base)}
    return np.array([any(f in forms for f in _page_bases(s)) for s in splits], dtype=bool)


class UrlResolver(BaseEstimator):
    """Classify a site's URLs as topic (thread) pages by a per-position rule learned from examples.

    Parameters
    ----------
    max_literals : int, default=3
        A position keeps literal values when the topic URLs show at most this many different
        words there (``page``/``post``); more, numbers, words that differ only in their numbers
        (``page=1``/``page=2``) or title words (see ``_title_word``) make it a variable (its
        types).
    min_support : float, default=0.02
        Share of the topic URLs a value or type needs at a position to stay in the rule
        (at least 2 URLs once there are 10 or more topic URLs); skipped when it would leave
        fewer than half of the topic URLs.
    min_variants : int, default=3
        Different values a literal slot must show among topic and matching unlabelled URLs
        before it becomes a variable (the siblings step); 0 disables the step.
    paginate : bool, default=True
        Count unlabelled URLs that are a topic URL plus a page number as topic URLs.
    drop_sessions : bool, default=True
        Leave session ids (``sid=<32 hex>``, ``s=…``) out of URLs, when learning and matching.

    Attributes
    ----------
    rule_ : UrlRule
        The learned rule (``str(resolver)`` prints its pattern).
    n_topic_ : int
        Topic URLs the final rule was built from (after support, siblings and pages).
    widened_ : list of str
        Slots the siblings step made variable, e.g. ``["path 2"]``.

    Examples
    --------
    >>> urls = ["http://f.example/forum.php?mod=viewthread&tid=1",
    ...         "http://f.example/forum.php?mod=viewthread&tid=7&page=2",
    ...         "http://f.example/forum.php?mod=forumdisplay&fid=2"]
    >>> r = UrlResolver().fit(urls, [1, 1, 0])
    >>> str(r)
    '/forum.php?mod=viewthread&tid=<digits>[&page=<digits>]'
    >>> r.predict(["http://f.example/forum.php?mod=viewthread&tid=99",
    ...            "http://f.example/forum.php?mod=forumdisplay&fid=9"]).tolist()
    [True, False]

    References
    ----------
    .. [1] Seed 003 §3.1.3, definition 4 (formulas 7–8): resolver modules ``r(i) = (t(i), p(i))``.
    """

    def __init__(
        self,
        *,
        max_literals: int = 3,
        min_support: float = 0.02,
        min_variants: int = 3,
        paginate: bool = True,
        drop_sessions: bool = True,
    ) -> None:
        self.max_literals = max_literals
        self.min_support = min_support
        self.min_variants = min_variants
        self.paginate = paginate
        self.drop_sessions = drop_sessions

    # -- learning -----------------------------------------------------------------------------

    def _validate_params(self) -> None:
        if not isinstance(self.max_literals, int) or self.max_literals < 1:
            raise ValueError(f"max_literals must be a positive int, got {self.max_literals!r}")
        if not 0.0 <= float(self.min_support) < 1.0:
            raise ValueError(f"min_support must be in [0, 1), got {self.min_support!r}")
        if not isinstance(self.min_variants, int) or self.min_variants < 0:
            raise ValueError(f"min_variants must be a non-negative int, got {self.min_variants!r}")

    def fit(
        self,
        urls: Sequence[str],
        labels: Sequence[int] | np.ndarray,
        *,
        confirmed: Iterable[str] = (),
    ) -> UrlResolver:
        """Learn the rule from ``urls`` of one site.

        Parameters
        ----------
        urls : absolute URLs, all of one site.
        labels : per URL, ``1``/``True`` for a topic URL, ``0``/``False`` for a URL known not to
            be one, ``-1`` for a URL of unknown kind (only the siblings and pages steps use
            those).
        confirmed : topic URLs whose fetched pages were seen to be thread pages. Negatives
            narrow the rule away from their shape only when they outnumber them there: where
            fewer pages judged no thread share it, those judgements are the ones in doubt (a
            thread of one short post), and the shape of a site's plain thread URLs may be a
            small share of its topic URLs when each thread links its last post, its new posts
            and every post's permalink.

        Raises
        ------
        ValueError
            No topic URL, a bad URL, URLs of several sites, or labels that do not match.
        """
        self._validate_params()
        if isinstance(urls, str):
            raise TypeError("urls must be a sequence of URLs, not one string")
        y = np.asarray(labels).astype(np.int64).ravel()
        if len(urls) != y.shape[0]:
            raise ValueError(f"{len(urls)} URLs but {y.shape[0]} labels")
        if not np.isin(y, (-1, 0, 1)).all():
            raise ValueError("labels must be 1 (topic), 0 (not topic) or -1 (unknown)")
        if not (y == 1).any():
            raise ValueError("no topic URL to learn a rule from")
        site = site_of(next(u for u, lab in zip(urls, y) if lab == 1))
        merged: dict[str, int] = {}
        for url, lab in zip(urls, y):
            previous = merged.get(url)
            if previous is not None and previous != lab and -1 not in (previous, lab):
                raise ValueError(f"conflicting labels for {url!r}")
            merged[url] = max(previous if previous is not None else -1, int(lab))
        drop = bool(self.drop_sessions)
        splits = [split_url(u, site=site, drop_sessions=drop) for u in merged]
        y = np.fromiter(merged.values(), dtype=np.int64, count=len(merged))
        if self.paginate:
            y = self._paginate(splits, y)
        positive = y == 1
        rule = self._induce(site, [splits[i] for i in np.flatnonzero(positive)])
        # Later pages of a kept thread URL are never pruned as rare: a thread's page flips are
        # part of its rule, however many post permalinks outnumber them in the sample.
        kept = np.array([rule.match_split(s) for s in splits]) & positive
        kept |= pages_of(splits, kept) & positive
        # Pruning is for a few strays; when it would drop most topic URLs there is no dominant
        # shape to protect, and the rule keeps them all.
        if 2 * kept.sum() >= positive.sum():
            positive = kept
        rule = self._induce(site, [splits[i] for i in np.flatnonzero(positive)], prune=False)
        sure = {str(u).strip() for u in confirmed}
        confirmed_at = np.array([u.strip() in sure for u in merged], dtype=bool) & (y == 1)
        rule, positive = self._exclude(site, rule, splits, y, positive, confirmed_at)
        self.widened_: list[str] = []
        if self.min_variants:
            rule, positive = self._siblings(site, rule, splits, y, positive)
        if self.paginate:
            # Pages 2, 3 … of threads whose first page the sample does not hold.
            pages = np.array(
                [
                    y[i] == -1 and not positive[i] and not rule.match_split(s)
                    and any(rule.match_split(_split_of(b)) for b in _page_bases(s))
                    for i, s in enumerate(splits)
                ],
                dtype=bool,
            )
            if pages.any():
                positive = positive | pages
                rule = self._induce(site, [splits[i] for i in np.flatnonzero(positive)], prune=False)
                rule, positive = self._exclude(site, rule, splits, y, positive, confirmed_at)
        self.rule_ = rule
        self.n_topic_ = int(positive.sum())
        return self

    def _paginate(self, splits: Sequence[SplitUrl], y: np.ndarray) -> np.ndarray:
        topics = {_form(splits[i]) for i in np.flatnonzero(y == 1)}
        out = y.copy()
        for i in np.flatnonzero(y == -1):
            if any(form in topics for form in _page_bases(splits[i])):
                out[i] = 1
        return out

    def _min_count(self, n: int) -> int:
        if n < 10 or not self.min_support:
            return 1
        return max(2, math.ceil(float(self.min_support) * n))

    def _induce(self, site: str, splits: Sequence[SplitUrl], *, prune: bool = True) -> UrlRule:
        min_count = self._min_count(len(splits)) if prune else 1
        slots: dict[str, list[SlotRule]] = {}
        for kind in ("path", "query"):
            width = max(len(_segments(s, kind)) for s in splits)
            slots[kind] = [
                self._slot(
                    [(_segments(s, kind)[i] if i < len(_segments(s, kind)) else None) for s in splits],
                    min_count=min_count,
                    varying_is_variable=False,
                    query=kind == "query",
                )
                for i in range(width)
            ]
        return UrlRule(
            site=site,
            path=tuple(slots["path"]),
            query=tuple(slots["query"]),
            drop_sessions=bool(self.drop_sessions),
        )

    def _slot(
        self,
        segments: Sequence[Segment | None],
        *,
        min_count: int,
        varying_is_variable: bool,
        query: bool,
    ) -> SlotRule:
        """One slot's rule from the segments the topic URLs have there (``None``: absent).

        A slot whose segments have different numbers of blocks is a slug (words joined by
        ``-``, ``_``, ``.``): every position after the first is variable, optional, takes any
        word type, and the slot accepts more blocks than seen (``more``); its first position
        is variable too when it shows more than one word.
        """
        present = [len(s.blocks) for s in segments if s is not None]
        width = max(present, default=0)
        # A slug may be one word long, whatever lengths the sample happened to show.
        slug_from = 1 if present and min(present) < width else None
        # Three or more words joined by ``-``/``_`` and no number are a name (a board's slug)
        # however alike their lengths in the sample: ``using-debian-shi-yong-debian``.
        if slug_from is None and not query and width >= 3 and all(
            s is None
            or (all(not b.isdigit() and b for b in s.blocks) and set(s.seps[1:]) <= {"-", "_"})
            for s in segments
        ):
            slug_from = 1
        blocks: list[BlockRule] = []
        seps: list[str] = []
        for i in range(width):
            seen = Counter(
                s.blocks[i] if s is not None and i < len(s.blocks) else "" for s in segments
            )
            kept = Counter({v: c for v, c in seen.items() if c >= min_count}) or Counter(
                dict(seen.most_common(1))
            )
            words = [v for v in kept if v]
            # A file name's stem (``showthread`` of ``showthread.php``) names a script, which
            # no number of different scripts makes a variable.
            stem = not query and i == 0 and width >= 2 and all(
                s is None or (len(s.seps) > 1 and s.seps[-1] == "." and s.blocks[-1].isalpha())
                for s in segments
            )
            variable = (
                (len(words) > self.max_literals and not stem)
                or any(v.isdigit() for v in words)
                or len({_DIGIT_RUN.sub("#", v) for v in words}) < len(words)
                or (varying_is_variable and len(kept) > 1)
                or (slug_from is not None and i >= slug_from)
                # The first word of a slug is a name's, not the template's, once it varies
                # (``community-she-qu`` and ``off-topic-guan-shui`` name two boards).
                or (slug_from is not None and not query and len(words) > 1)
                or (bool(words) and not (query and i == 0) and all(
                    _title_word(segments, i, v) for v in words
                ))
            )
            if variable:
                types: Counter[str] = Counter()
                distinct: Counter[str] = Counter()
                for v, c in seen.items():
                    types[block_type(v)] += c
                    distinct[block_type(v)] += 1
                # In a query value, a word type that one word alone gives is that word's, not
                # the parameter's: askbot links ``?page=None`` beside ``?page=<n>``, which made
                # the page any word in one sample of five. Numbers and the main type stand
                # however few their values (a sample's later pages may all be ``page=2``).
                main = types.most_common(1)[0][0]
                kinds = {
                    t for t, c in types.items()
                    if c >= min_count
                    and (not query or distinct[t] >= 2 or t in ("", "digits", main))
                } or {main}
                words_of = WORD_TYPES if query else SLUG_TYPES
                if len(kinds & WORD_TYPES) >= 2 or (slug_from is not None and kinds & words_of):
                    kinds |= words_of
                if slug_from is not None and i >= slug_from:
                    kinds.add("")
                blocks.append(BlockRule(types=frozenset(kinds)))
            else:
                blocks.append(BlockRule(values=frozenset(kept)))
            seps.append(
                Counter(
                    s.seps[i] for s in segments if s is not None and i < len(s.blocks)
                ).most_common(1)[0][0]
                if i
                else ""
            )
        more = None
        if slug_from is not None:
            more = frozenset().union(*(b.types or () for b in blocks[slug_from:])) - {""}
        return SlotRule(blocks=tuple(blocks), seps=tuple(seps), more=more or None)

    def _exclude(
        self,
        site: str,
        rule: UrlRule,
        splits: Sequence[SplitUrl],
        y: np.ndarray,
        positive: np.ndarray,
        confirmed: np.ndarray,
    ) -> tuple[UrlRule, np.ndarray]:
        """Narrow the rule until it rejects the URLs known not to be topic URLs.

        Each round removes the block alternative (a value, or a type, at one position) that the
        accepted non-topic URLs use most for each topic URL using it, with the topic URLs that
        use it: a board page clustered among threads has ``""`` where threads have ``topic``.
        An alternative used by more than a quarter of the topic URLs, or by more confirmed ones
        than negatives, is never removed: then the labels disagree, and the rule keeps the topic
        URLs (one member's post list judged a thread page keeps no ``/users/`` shape against
        the profiles judged no threads). Every round drops topic URLs, so
        the loop ends.
        """
        negatives = np.flatnonzero(y == 0)
        while True:
            accepted = [i for i in negatives if rule.match_split(splits[i])]
            if not accepted:
                return rule, positive
            used_by = {i: _alternatives(rule, splits[i]) for i in np.flatnonzero(positive)}
            neg_count: Counter[tuple[Any, ...]] = Counter()
            for i in accepted:
                neg_count.update(_alternatives(rule, splits[i]))
            pos_count: Counter[tuple[Any, ...]] = Counter()
            for alts in used_by.values():
                pos_count.update(alts)
            limit = 0.25 * positive.sum()
            sure: Counter[tuple[Any, ...]] = Counter()
            for i in np.flatnonzero(positive & confirmed):
                sure.update(used_by[i])
            # Alternatives no topic URL uses come from widening; removing topic URLs cannot drop them.
            choices = [
                a for a in neg_count if 0 < pos_count[a] <= limit and sure[a] <= neg_count[a]
            ]
            if not choices:
                return rule, positive
            worst = max(choices, key=lambda a: (neg_count[a] / (pos_count[a] + 1), repr(a)))
            narrowed = positive.copy()
            narrowed[[i for i, alts in used_by.items() if worst in alts]] = False
            if not narrowed.any():
                return rule, positive
            positive = narrowed
            rule = self._induce(site, [splits[i] for i in np.flatnonzero(positive)], prune=False)

    def _siblings(
        self,
        site: str,
        rule: UrlRule,
        splits: Sequence[SplitUrl],
        y: np.ndarray,
        positive: np.ndarray,
    ) -> tuple[UrlRule, np.ndarray]:
        """Widen slots whose value varies among URLs that match everywhere else.

        Only where a later slot still requires a word (``topic`` in
        ``/forum/<board>/topic/<title>/``), or where the slot is a name of several words
        (``/c/<category-slug>/<board-slug>/<title>/``): otherwise nothing says the variants are
        the same kind of page. ``thread-<digits>.html`` must not become any
        one-segment URL, nor ``/forum/threads/<title>.<id>/`` any ``/forum/members/<name>.<id>/``.
        """
        n_path = max(len(rule.path), max(len(s.path) for s in splits))
        n_query = max(len(rule.query), max(len(s.query) for s in splits))
        keys = [("path", i) for i in range(n_path)] + [("query", i) for i in range(n_query)]
        changed = True
        while changed:
            changed = False
            slot_of = {("path", i): s for i, s in enumerate(rule.path)}
            slot_of.update({("query", i): s for i, s in enumerate(rule.query)})
            ok = np.array(
                [
                    [
                        slot_of[k].match(_blocks_at(sp, *k)) if k in slot_of else not _blocks_at(sp, *k)
                        for k in keys
                    ]
                    for sp in splits
                ]
            )
            misses = (~ok).sum(axis=1)
            for col, key in enumerate(keys):
                slot = slot_of.get(key)
                # A slot can widen in its words (literals) or in its length (a fixed number of
                # typed blocks: one board's ``<letters>-<text>-<digits>`` beside longer names).
                if slot is None or (all(b.values is None for b in slot.blocks) and slot.more):
                    continue
                # A literal of several words joined like a slug is a name (a board's), which a
                # template never has; a single word (``threads`` beside ``members``) or a file
                # name (``showthread.php``) needs a later anchor.
                named = (
                    key[0] == "path"
                    and len(slot.blocks) >= 2
                    and "." not in slot.seps[1:]
                    and (
                        all(b.values is not None and "" not in b.values for b in slot.blocks)
                        # a slug whose first word the sample happened to show one value of
                        or (slot.more is not None and slot.blocks[0].values is not None)
                    )
                )
                if not named and not any(
                    _anchors(other) for k, other in slot_of.items() if _after(k, key)
                ):
                    continue
                near = (misses == 1) & ~ok[:, col] & ~positive
                if not near.any() or (y[near] == 0).any():
                    continue
                members = positive | near
                variants = {_blocks_at(splits[i], *key) for i in np.flatnonzero(members)}
                if len(variants) < self.min_variants:
                    continue
                segments = [
                    _segments(splits[i], key[0])[key[1]]
                    if key[1] < len(_segments(splits[i], key[0]))
                    else None
                    for i in np.flatnonzero(members)
                ]
                widened = self._slot(
                    segments, min_count=1, varying_is_variable=True, query=key[0] == "query"
                )
                slots = list(rule.path if key[0] == "path" else rule.query)
                slots[key[1]] = widened
                candidate = (
                    UrlRule(site, tuple(slots), rule.query, rule.drop_sessions)
                    if key[0] == "path"
                    else UrlRule(site, rule.path, tuple(slots), rule.drop_sessions)
                )
                if any(candidate.match_split(splits[i]) for i in np.flatnonzero(y == 0)):
                    continue
                rule = candidate
                positive = members
                self.widened_.append(f"{key[0]} {key[1] + 1}")
                changed = True
                break
        return rule, positive

    def add_pages(self, urls: Iterable[str]) -> list[str]:
        """Widen the fitted rule to the later pages of its thread URLs among ``urls``: those the
        rule rejects although it accepts them less their trailing page numbers (see
        :func:`_page_bases`), as the pages step of :meth:`fit` would have.

        A sample of one-page threads shows no page flip, so the rule learned from it has no
        page part; the page flips of a long thread met later are its proof. Each slot that such
        a URL does not fit is widened just enough (a word to its literals, a block type, a new
        optional segment or parameter), so every URL accepted before still is. Returns the URLs
        now accepted (none: the rule is unchanged).
        """
        rule = self._check_fitted()
        added: list[str] = []
        for url in urls:
            try:
                split = split_url(url, site=rule.site, drop_sessions=rule.drop_sessions)
            except ValueError:
                continue
            if rule.match_split(split) or not any(rule.match_split(_split_of(b)) for b in _page_bases(split)):
                continue
            widened = UrlRule(
                rule.site,
                _widen_slots(rule.path, split.path, self.max_literals),
                _widen_slots(rule.query, split.query, self.max_literals),
                rule.drop_sessions,
            )
            if widened.match_split(split):
                rule = widened
                added.append(url)
        self.rule_ = rule
        return added

    # -- use ----------------------------------------------------------------------------------

    def _check_fitted(self) -> UrlRule:
        rule = getattr(self, "rule_", None)
        if rule is None:
            raise NotFittedError("this UrlResolver is not fitted yet: call fit() or from_dict()")
        return rule

    def predict(self, urls: Iterable[str]) -> np.ndarray:
        """``True`` for each topic URL; URLs of another site and non-http(s) strings are ``False``.

        No clustering: one split and a few set look-ups per URL (a few microseconds).
        """
        match = self._check_fitted().match
        if isinstance(urls, str):
            raise TypeError("predict takes a sequence of URLs, not one string")
        return np.fromiter((match(u) for u in urls), dtype=bool)

    def match(self, url: str) -> bool:
        """Whether one URL is a topic URL (see :meth:`predict`)."""
        return self._check_fitted().match(url)

    def to_dict(self) -> dict[str, Any]:
        """The learned rule as JSON data (see :class:`UrlRule`)."""
        return self._check_fitted().to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UrlResolver:
        """A fitted resolver from :meth:`to_dict` data (possibly edited by a person)."""
        resolver = cls()
        resolver.rule_ = UrlRule.from_dict(data)
        resolver.n_topic_ = 0
        resolver.widened_ = []
        return resolver

    def __str__(self) -> str:
        rule = getattr(self, "rule_", None)
        return "UrlResolver(unfitted)" if rule is None else rule.pattern()
