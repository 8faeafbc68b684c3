"""USC structure vectors: describe a URL by the shape of its path and query (seed 003 §3.1.1).

Pages of one kind on a forum (thread pages, board pages, profiles) come from one URL template, so
their URLs share literal words and differ in ids and slugs at the same places. The paper splits
a URL (after scheme and host) into *structure blocks* on separators, numbers each block's *type*
(empty, letters, digits, …) and *value* in order of first appearance over the set (empty = 0),
pads every vector to the longest one (``N`` blocks), and compares two URLs by the first
position ``Ns`` where they differ: ``D = ⌊N! / Ns!⌋``, so a difference near the root of the path
outweighs any number of differences after it.

Two choices go beyond the paper and are documented where they are made:

- *Alignment* (:class:`Layout`). The paper pads at the end, so a slug with one more word shifts
  every later block; we pad each path segment and each query parameter to its widest occurrence
  in the set (``align="segments"``, the default), which keeps ``topic`` of
  ``/forum/<board-slug>/topic/<title-slug>/`` at one position. ``align="flat"`` is the paper's
  padding. Both give the paper's vectors on its worked example.
- *Scaling* (:func:`distance_table`). ``N!`` overflows a float from ``N = 171`` and
  ``exp(−D)`` (the density of KNN-DPC) is 0 for every ``D ≥ 746``, so clustering works on
  ``log(1 + D)`` divided by ``log(1 + N!)``: a distance in ``[0, 1]`` (0 for identical vectors, 1
  for a difference in the first block) whose order is exactly the order of ``D``, and
  ``exp(−d) ∈ [1/e, 1]`` stays informative for any ``N``. Exact integers are available from
  :func:`usc_dissimilarity`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import unquote, urlsplit

import numpy as np

from forumcrawl.document import site_of
from forumcrawl.extractors.navigation import PATH_SESSION, bare_query, is_session_param

__all__ = [
    "ALIGNMENTS",
    "BLOCK_TYPES",
    "SCALINGS",
    "SEPARATORS",
    "Layout",
    "Segment",
    "SplitUrl",
    "StructureVectors",
    "Vocabulary",
    "block_type",
    "distance_table",
    "first_difference",
    "split_url",
    "structure_vector",
    "structure_vectors",
    "usc_dissimilarity",
    "usc_distance",
    "usc_distance_matrix",
]

#: Characters that end a structure block. ``/``, ``?`` and ``&`` also end a path segment or a
#: query parameter (the unit :class:`Layout` aligns); the others split inside one.
SEPARATORS = "/?&=.-_;,+:~!|"
_INNER_SPLIT = re.compile(r"([=.\-_;,+:~!|])")

#: Block types, by the characters of the decoded block. The paper names two (letters, digits);
#: ids are still numbered in order of first appearance over a set (:class:`Vocabulary`).
BLOCK_TYPES = ("", "letters", "digits", "alnum", "text", "other")
ALIGNMENTS = ("segments", "flat")
SCALINGS = ("normalized", "log")

Alignment = Literal["segments", "flat"]
Scaling = Literal["normalized", "log"]
Vector = tuple[tuple[int, int], ...]


def block_type(block: str) -> str:
    """The type of a decoded block: ``letters``/``digits``/``alnum`` (ASCII), ``text``, ``other``.

    ``text`` is any run of letters and digits with a non-ASCII letter (a Chinese word, an
    accented slug word); ``other`` holds anything with punctuation, spaces or symbols left in it.

    Examples
    --------
    >>> [block_type(b) for b in ("", "php", "001", "mp3", "软件包", "a b")]
    ['', 'letters', 'digits', 'alnum', 'text', 'other']
    """
    if not block:
        return ""
    if block.isascii():
        if block.isdigit():
            return "digits"
        if block.isalpha():
            return "letters"
        return "alnum" if block.isalnum() else "other"
    return "text" if block.isalnum() else "other"


@dataclass(frozen=True)
class Segment:
    """One path segment or query parameter: its decoded blocks and the separator before each.

    ``seps[0]`` is what opens the segment (``/`` for a path segment, ``?`` or ``&`` for a query
    parameter); the others are the separators inside it (``=``, ``-``, ``.`` …).
    """

    blocks: tuple[str, ...]
    seps: tuple[str, ...]


@dataclass(frozen=True)
class SplitUrl:
    """A URL as structure blocks: its path segments, then its query parameters."""

    path: tuple[Segment, ...]
    query: tuple[Segment, ...]

    def blocks(self) -> tuple[str, ...]:
        """All blocks in reading order (the paper's unaligned block list)."""
        return tuple(b for seg in (*self.path, *self.query) for b in seg.blocks)


def _segment(raw: str, lead: str) -> Segment:
    parts = _INNER_SPLIT.split(raw)
    blocks = tuple(unquote(p, errors="replace") for p in parts[0::2])
    return Segment(blocks=blocks, seps=(lead, *parts[1::2]))


def split_url(url: str, *, site: str | None = None, drop_sessions: bool = False) -> SplitUrl:
    """Split ``url`` after its scheme and host into path segments and query parameters.

    Each part is split on :data:`SEPARATORS` *before* percent-decoding, so an encoded ``%2F``
    or ``%3D`` stays inside its block, and then each block is decoded (UTF-8, undecodable bytes
    replaced): ``/forum/%E6%B1%82`` and ``/forum/求`` give the same blocks. The fragment is
    dropped (it does not name another page). An empty path counts as ``/``. A bare query (no
    ``=``: vBulletin 4's ``showthread.php?<id>-<slug>/page2``) is more path segments.

    Parameters
    ----------
    url : an absolute ``http``/``https`` URL.
    site : when given, the ``host[:port]`` every URL must belong to
        (:func:`forumcrawl.document.site_of`).
    drop_sessions : leave out session ids (``sid=<32 hex>``, ``s=…``, ``;jsessionid=…``): they
        differ between visits of one page and shift every later query parameter.

    Raises
    ------
    ValueError
        When ``url`` is not an absolute http(s) URL, or belongs to another site than ``site``.

    Examples
    --------
    >>> split_url("http://example.com/query.php?id=001&grade=100").blocks()
    ('query', 'php', 'id', '001', 'grade', '100')
    """
    if not isinstance(url, str):
        raise TypeError(f"a URL must be a str, not {type(url).__name__}")
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError as exc:
        raise ValueError(f"not a URL: {url!r} ({exc})") from None
    if parts.scheme.lower() not in {"http", "https"} or not host:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    if site is not None and site_of(url) != site.lower():
        raise ValueError(f"URL of another site than {site!r}: {url!r}")
    path = parts.path or "/"
    params = parts.query.split("&") if parts.query else []
    if drop_sessions:
        path = PATH_SESSION.sub("", path)
        params = [p for p in params if not is_session_param(p)]
    path_segments = tuple(_segment(raw, "/") for raw in path[1:].split("/"))
    if bare_query(parts.query):
        # More of the path (``showthread.php?<id>-<slug>/page2``): segments, not one parameter.
        path_segments += tuple(_segment(raw, "?" if i == 0 else "/") for i, raw in enumerate(parts.query.split("/")))
        params = []
    query_segments = tuple(_segment(raw, "?" if i == 0 else "&") for i, raw in enumerate(params))
    return SplitUrl(path=path_segments, query=query_segments)


@dataclass(frozen=True)
class Layout:
    """Where each block of a URL goes in a padded vector.

    ``align="segments"``: one slot per path segment and per query parameter, each as wide as
    its widest occurrence in the set, path slots first. ``align="flat"``: the paper's layout,
    blocks in reading order padded at the end (``flat`` holds ``N``).
    """

    path: tuple[int, ...] = ()
    query: tuple[int, ...] = ()
    flat: int | None = None

    @property
    def n_blocks(self) -> int:
        """``N``, the length of every padded vector."""
        if self.flat is not None:
            return self.flat
        return sum(self.path) + sum(self.query)

    @classmethod
    def fit(cls, splits: Sequence[SplitUrl], align: Alignment = "segments") -> Layout:
        """The smallest layout that holds every URL of ``splits``."""
        if align == "flat":
            return cls(flat=max((len(s.blocks()) for s in splits), default=0))
        if align != "segments":
            raise ValueError(f"align must be one of {ALIGNMENTS}, got {align!r}")
        return cls(path=_widths(s.path for s in splits), query=_widths(s.query for s in splits))

    def place(self, split: SplitUrl) -> list[str] | None:
        """The blocks of ``split`` padded to this layout (``""`` = padding), or ``None`` if it does
        not fit (more segments, or a wider segment, than the layout has room for)."""
        if self.flat is not None:
            blocks = list(split.blocks())
            if len(blocks) > self.flat:
                return None
            return blocks + [""] * (self.flat - len(blocks))
        if len(split.path) > len(self.path) or len(split.query) > len(self.query):
            return None
        out: list[str] = []
        for widths, segments in ((self.path, split.path), (self.query, split.query)):
            for i, width in enumerate(widths):
                blocks = segments[i].blocks if i < len(segments) else ()
                if len(blocks) > width:
                    return None
                out.extend(blocks)
                out.extend([""] * (width - len(blocks)))
        return out


def _widths(segment_lists: Iterable[tuple[Segment, ...]]) -> tuple[int, ...]:
    widths: list[int] = []
    for segments in segment_lists:
        for i, seg in enumerate(segments):
            if i == len(widths):
                widths.append(0)
            widths[i] = max(widths[i], len(seg.blocks))
    return tuple(widths)


@dataclass
class Vocabulary:
    """Type ids and value ids, numbered in order of first appearance (empty = 0, paper Tables 1–2).

    A value determines its type, so two blocks are equal exactly when their value ids are.
    """

    types: dict[str, int] = field(default_factory=lambda: {"": 0})
    values: dict[str, int] = field(default_factory=lambda: {"": 0})

    def encode(self, block: str) -> tuple[int, int]:
        """``(type id, value id)`` of ``block``, numbering it if it is new."""
        kind = block_type(block)
        t = self.types.setdefault(kind, len(self.types))
        v = self.values.setdefault(block, len(self.values))
        return t, v


def structure_vector(
    url: str,
    *,
    vocabulary: Vocabulary,
    layout: Layout | None = None,
    site: str | None = None,
) -> Vector:
    """``S(u)``, the structure vector of one URL (formulas 1–2), numbering new blocks in
    ``vocabulary``.

    Without ``layout`` the vector is unpadded (the paper pads once ``N`` is known for the set);
    with it, blocks are placed and padded with ``(0, 0)``.

    Raises
    ------
    ValueError
        For a bad URL (see :func:`split_url`) or one that does not fit ``layout``.
    """
    split = split_url(url, site=site)
    blocks: Sequence[str] | None = split.blocks() if layout is None else layout.place(split)
    if blocks is None:
        raise ValueError(f"URL does not fit the layout of the set: {url!r}")
    # Number blocks in reading order, so padding never takes an id.
    ids = {b: vocabulary.encode(b) for b in split.blocks()}
    return tuple(ids[b] if b else (0, 0) for b in blocks)


@dataclass(frozen=True)
class StructureVectors:
    """The structure vectors of a set of URLs (one site), ready for distances.

    ``vectors[i, k]`` is ``(type id, value id)`` of block ``k`` of URL ``i``; every row is
    padded to ``N = layout.n_blocks``.
    """

    urls: tuple[str, ...]
    vectors: np.ndarray
    vocabulary: Vocabulary
    layout: Layout

    @property
    def n_blocks(self) -> int:
        """``N``."""
        return self.layout.n_blocks

    def row(self, i: int) -> Vector:
        """``S(u_i)`` as a tuple of ``(type id, value id)`` pairs."""
        return tuple((int(t), int(v)) for t, v in self.vectors[i])


def structure_vectors(
    urls: Sequence[str],
    *,
    align: Alignment = "segments",
    site: str | None = None,
    drop_sessions: bool = False,
) -> StructureVectors:
    """Structure vectors of ``urls`` with ids numbered over the set and rows padded to ``N``.

    Parameters
    ----------
    urls : absolute URLs of one site, in the order ids are numbered.
    align : ``"segments"`` (pad each path segment and query parameter) or ``"flat"`` (paper).
    site : ``host[:port]`` the URLs must belong to; ``None`` ignores the host (the paper drops
        it for URLs of one forum).
    drop_sessions : leave session ids out (see :func:`split_url`).

    Examples
    --------
    >>> sv = structure_vectors(["http://example.com/query.php?id=001&grade=100",
    ...                         "http://example.com/query.php?id=003"])
    >>> sv.row(1)
    ((1, 1), (1, 2), (1, 3), (2, 7), (0, 0), (0, 0))
    """
    if isinstance(urls, str):
        raise TypeError("urls must be a sequence of URLs, not one string")
    splits = [split_url(u, site=site, drop_sessions=drop_sessions) for u in urls]
    layout = Layout.fit(splits, align)
    vocabulary = Vocabulary()
    vectors = np.zeros((len(splits), layout.n_blocks, 2), dtype=np.int64)
    for i, split in enumerate(splits):
        ids = {b: vocabulary.encode(b) for b in split.blocks()}
        placed = layout.place(split)
        assert placed is not None  # the layout was fitted on these URLs
        for k, block in enumerate(placed):
            if block:
                vectors[i, k] = ids[block]
    return StructureVectors(
        urls=tuple(urls), vectors=vectors, vocabulary=vocabulary, layout=layout
    )


def _pad(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]], n: int | None) -> tuple[
    list[tuple[int, int]], list[tuple[int, int]], int
]:
    size = max(len(a), len(b)) if n is None else n
    if size < max(len(a), len(b)):
        raise ValueError(f"N = {size} is shorter than a vector ({max(len(a), len(b))} blocks)")
    pad = [(0, 0)]
    return list(a) + pad * (size - len(a)), list(b) + pad * (size - len(b)), size


def first_difference(
    a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]], n: int | None = None
) -> int | None:
    """``Ns(a, b)`` (formula 3): the 1-based position of the first differing block, ``None`` when
    the padded vectors are identical."""
    pa, pb, _ = _pad(a, b, n)
    for i, (x, y) in enumerate(zip(pa, pb), start=1):
        if tuple(x) != tuple(y):
            return i
    return None


def usc_dissimilarity(
    a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]], n: int | None = None
) -> int:
    """``D(a, b) = ⌊N! / Ns!⌋`` (formula 4) as an exact integer, 0 for identical vectors.

    ``n`` is ``N`` (the longest vector of the set); by default the longer of the two.

    Examples
    --------
    >>> u1 = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]
    >>> u2 = [(1, 1), (1, 2), (1, 3), (1, 1), (1, 2)]
    >>> usc_dissimilarity(u1, u2)
    5
    """
    _, _, size = _pad(a, b, n)
    ns = first_difference(a, b, size)
    if ns is None:
        return 0
    return math.prod(range(ns + 1, size + 1))  # N!/Ns! is a whole number: no floor needed


def distance_table(n_blocks: int, scaling: Scaling = "normalized") -> np.ndarray:
    """Distance by common-prefix length: ``table[l]`` for vectors equal on their first ``l``
    blocks (``Ns = l + 1``); ``table[N] = 0`` (identical).

    ``"log"`` is ``log(1 + D)``; ``"normalized"`` divides it by ``log(1 + N!)`` (the distance of
    a difference in the first block), giving ``[0, 1]``. Both are computed from sums of
    logarithms, never from ``N!``, and decrease strictly with ``l``: the order of ``D`` is kept.
    ``log(1 + D)`` rather than ``log D`` keeps a last-block difference (``D = 1``) apart from
    identity (``D = 0``).
    """
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {SCALINGS}, got {scaling!r}")
    n = int(n_blocks)
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])
    ns = np.arange(1, n + 1)  # Ns for common prefixes 0 .. N-1
    log_d = log_fact[n] - log_fact[ns]
    table = np.append(np.logaddexp(0.0, log_d), 0.0)
    if scaling == "normalized" and n > 0:
        table /= table[0]
    return table


def usc_distance(
    a: Sequence[tuple[int, int]],
    b: Sequence[tuple[int, int]],
    n: int | None = None,
    *,
    scaling: Scaling = "normalized",
) -> float:
    """The scaled USC distance of two vectors (see :func:`distance_table`).

    Examples
    --------
    >>> u1 = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]
    >>> u3 = [(1, 1), (2, 2), (1, 3), (1, 4), (1, 5)]
    >>> round(usc_distance(u1, u3, scaling="log"), 6) == round(math.log(61), 6)
    True
    """
    _, _, size = _pad(a, b, n)
    ns = first_difference(a, b, size)
    common = size if ns is None else ns - 1
    return float(distance_table(size, scaling)[common])


def _codes(
    data: Sequence[str] | StructureVectors, align: Alignment, site: str | None, drop_sessions: bool
) -> np.ndarray:
    if isinstance(data, StructureVectors):
        return data.vectors[..., 1]
    vectors = structure_vectors(data, align=align, site=site, drop_sessions=drop_sessions)
    return vectors.vectors[..., 1]


def usc_distance_matrix(
    data: Sequence[str] | StructureVectors,
    *,
    scaling: Scaling = "normalized",
    align: Alignment = "segments",
    site: str | None = None,
    drop_sessions: bool = False,
) -> np.ndarray:
    """Pairwise scaled USC distances, an ``(n, n)`` float matrix for ``metric="precomputed"``.

    The first differing position of two vectors is one more than their common prefix, and the
    common prefix of two rows of the lexicographically sorted set is the minimum of the adjacent
    common prefixes between them; so one sort and a running minimum per row give all pairs in
    ``O(n² + n N log n)`` time without comparing blocks pair by pair.

    Parameters
    ----------
    data : URLs (vectorised with ``align``, ``site`` and ``drop_sessions``) or
        :class:`StructureVectors`.
    scaling : see :func:`distance_table`.
    """
    codes = _codes(data, align, site, drop_sessions)
    n, n_blocks = codes.shape
    out = np.zeros((n, n), dtype=np.float64)
    if n < 2:
        return out
    order = np.lexsort(codes.T[::-1])
    ranked = codes[order]
    neq = ranked[1:] != ranked[:-1]
    adjacent = np.where(neq.any(axis=1), neq.argmax(axis=1), n_blocks)
    table = distance_table(n_blocks, scaling)
    row = np.empty(n, dtype=np.intp)
    for p in range(n):
        row[p] = n_blocks
        if p + 1 < n:
            row[p + 1 :] = np.minimum.accumulate(adjacent[p:])
        if p > 0:
            row[:p] = np.minimum.accumulate(adjacent[:p][::-1])[::-1]
        out[order[p], order] = table[row]
    return out
