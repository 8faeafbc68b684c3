"""CX: main-text extraction by the line-block distribution function.

Method of Chen Xin (陈鑫), 《基于行块分布函数的通用网页正文抽取》 ("Universal extraction of the main
text of web pages by the line-block distribution function"), HIT-SCIR, 2009 (cx-extractor). The
page is reduced to tag-free text lines; a *block* is K consecutive lines (K = 3) and its *length*
the number of non-whitespace characters in it. Over the line numbers the block lengths form a
curve, and the main text is the stretch of that curve that holds its maximum, from a sharp rise
above a threshold (followed by non-empty blocks) to where it falls to zero (the paper's
conditions 1–4, §5). Everything is linear in the size of the page.

Where this module departs from the paper, and why (figures measured with the data sets of
``../shared/data``, mean text F1 over the six folders):

* Lines come from one walk over the parsed tree, not from the source's line breaks: a line ends
  at the end of a block element or a ``<br>``. Minified pages (one source line) then read like
  pretty-printed ones, and a deeply nested boundary between page parts (``</p></div></div>``)
  leaves several empty lines, the gaps the curve falls to zero in. Script, style, template, form
  controls, hidden elements and HTML5 ``nav``/``aside``/``footer`` are skipped. On the paper's
  own algorithm this reads 0.64 where source lines read 0.59.
* Anchor text does not count: a line's length is its non-link characters, and a line that is
  mostly link text counts zero (the paper's own remark that link groups are easy to remove).
* The threshold adapts to short pages: it is the paper's 86 characters, or 30 % of the curve's
  maximum when that is lower, so a short article still has a "sharp rise".
* A run of the curve whose peak is a single long line (a paragraph between deep markup) is a
  region too, although it cannot have K non-empty blocks after its rise.
* Besides the region holding the maximum, every other region whose mass (total length) is at
  least a fifth of it is kept: articles cut by figures and advertisements, and forum threads
  whose posts are separated by author panels, are several regions, not one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import lxml.etree

from forumcrawl.document import Document

__all__ = [
    "DEFAULT_K",
    "PAPER_THRESHOLD",
    "CXResult",
    "LineBlockExtractor",
    "PageLines",
    "block_curve",
    "cx_extract",
    "page_lines",
    "plot_blocks",
]

#: Block thickness K: the paper takes K = 3 lines (it requires K < 5).
DEFAULT_K = 3
#: The paper's threshold for a sharp rise, in non-whitespace characters per block (the default of
#: the published cx-extractor, set on Chinese news pages).
PAPER_THRESHOLD = 86.0
#: With no threshold given, the rise threshold is min(PAPER_THRESHOLD, this share of the highest
#: block). Tuned on all six folders of ../shared/data; anything from 0.2 to 0.4 is within 0.002.
ADAPTIVE_SHARE = 0.3
#: A line whose anchor text is more than this share of its characters is a link, not text.
#: Tuned on all six folders of ../shared/data (0.4-0.6 are within 0.003).
LINK_LINE_SHARE = 0.5
#: Regions besides the main one are kept when their mass is at least this share of the main
#: region's. Tuned on all six folders of ../shared/data: lower keeps article comments (aeb-articles
#: -en, magic-articles lose), higher drops forum replies (harvest-forum-posts, magic-forums lose).
SECONDARY_MASS_SHARE = 0.2
#: ... and when at most this share of their characters is anchor text (teaser and link lists).
#: Tuned on all six folders of ../shared/data; it mostly matters for cwced-zh (+0.02).
SECONDARY_LINK_SHARE = 0.3

# Elements whose end ends a line. Only the end leaves an empty line: the start of a block ends
# the current line only when it holds text, so "</p><p>" is no gap and "</p></div></div>" is one.
_BLOCK_TAGS = frozenset(
    """address article blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html legend li
    main menu noscript ol p pre section summary table tbody td tfoot th thead tr ul""".split()
)
# A void element has no text to end: ``<br>`` breaks the line once, at its end.
_BLOCK_STARTS = _BLOCK_TAGS - {"br", "hr"}
# Elements whose content no reader sees as running text of the page.
_SKIP_TAGS = frozenset(
    """head title script style template select option textarea button svg math iframe object
    embed canvas audio video map nav aside footer""".split()
)
_HIDDEN_STYLES = ("display:none", "visibility:hidden")


def _hidden(element: lxml.etree._Element) -> bool:
    """Hidden by the ``hidden`` attribute, ``aria-hidden`` or an inline style."""
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    style = element.get("style")
    if not style:
        return False
    style = "".join(style.split()).lower()
    return any(hidden in style for hidden in _HIDDEN_STYLES)


@dataclass(frozen=True)
class PageLines:
    """A page's tag-free lines; per line, its non-whitespace length and how much of it is links."""

    texts: list[str]
    lengths: list[int]
    link_lengths: list[int]


def page_lines(tree: lxml.etree._Element | None) -> PageLines:
    """Cut the visible text of ``tree`` into lines, in a single walk over the tree.

    ``<noscript>`` text is what a crawler without JavaScript is served, and some sites (Discourse
    forums) put the whole page there. It is kept only when it outweighs the rest of the page;
    otherwise its lines stay, empty, so that line numbers do not depend on it.
    """
    texts: list[str] = []
    lengths: list[int] = []
    links: list[int] = []
    if tree is None:
        return PageLines(texts, lengths, links)
    noscript_lines: list[int] = []
    parts: list[str] = []
    has_text = False  # the current line holds more than whitespace
    link = 0  # anchor characters in the current line
    line_in_noscript = False
    in_anchor = in_noscript = 0
    skipping = False
    walker = lxml.etree.iterwalk(tree, events=("start", "end"))
    for event, element in walker:
        tag = element.tag
        if skipping:  # after skip_subtree() the next event is the skipped element's own end
            skipping = False
            text, breaks = element.tail, False
        elif not isinstance(tag, str):  # a comment or processing instruction
            if event == "start":
                continue
            text, breaks = element.tail, False
        elif event == "start":
            if tag in _SKIP_TAGS or _hidden(element):
                walker.skip_subtree()
                skipping = True
                continue
            text, breaks = element.text, has_text and tag in _BLOCK_STARTS
            if tag == "a":
                in_anchor += 1
            elif tag == "noscript":
                in_noscript += 1
        else:
            text, breaks = element.tail, tag in _BLOCK_TAGS
            if tag == "a":
                in_anchor -= 1
            elif tag == "noscript":
                in_noscript -= 1
        if breaks:
            line = " ".join("".join(parts).split()) if has_text else ""
            if line_in_noscript:
                noscript_lines.append(len(texts))
            texts.append(line)
            lengths.append(len(line) - line.count(" "))
            links.append(link)
            parts.clear()
            has_text = line_in_noscript = False
            link = 0
        if text:
            parts.append(text)
            if not text.isspace():
                has_text = True
                if in_anchor:
                    link += len("".join(text.split()))
                if in_noscript:
                    line_in_noscript = True
    if has_text:
        line = " ".join("".join(parts).split())
        if line_in_noscript:
            noscript_lines.append(len(texts))
        texts.append(line)
        lengths.append(len(line) - line.count(" "))
        links.append(link)
    noscript = sum(lengths[i] for i in noscript_lines)
    if noscript and 2 * noscript <= sum(lengths):
        for i in noscript_lines:
            texts[i], lengths[i], links[i] = "", 0, 0
    return PageLines(texts, lengths, links)


@dataclass(frozen=True)
class CXResult:
    """CX on one page: its lines, the block curve and the chosen regions.

    ``blocks[i]`` is the length of the block whose axis is line ``i`` (lines ``i`` to ``i+k-1``,
    fewer at the end of the page), counted as the curve counts it (links discounted). The main
    region, the one holding the curve's maximum, is lines ``start`` to ``end - 1``; ``regions``
    lists every kept region, the main one included, in page order. ``text`` is "" when the page
    has no text.
    """

    text: str
    lines: list[str]
    blocks: list[int]
    start: int
    end: int
    regions: list[tuple[int, int]]
    k: int
    threshold: float


def block_curve(lengths: Sequence[int], k: int = DEFAULT_K) -> list[int]:
    """The line-block distribution function: ``blocks[i] = lengths[i] + … + lengths[i+k-1]``.

    A sliding sum, so linear whatever ``k``. The paper stops at line ``n - k``; the last blocks are
    kept here, shorter, so that a page of fewer than ``k`` lines still has a curve.
    """
    if k < 1:
        raise ValueError(f"block thickness k must be at least 1, got {k}")
    n = len(lengths)
    blocks = [0] * n
    total = sum(lengths[:k])
    for i in range(n):
        blocks[i] = total
        total -= lengths[i]
        if i + k < n:
            total += lengths[i + k]
    return blocks


def _runs(blocks: Sequence[int]) -> list[tuple[int, int]]:
    """Stretches of the curve between falls to zero (two empty blocks in a row, the paper's
    condition 3), as ``(start, end)`` with ``end`` exclusive."""
    n = len(blocks)
    runs = []
    i = 0
    while i < n:
        if not blocks[i]:
            i += 1
            continue
        end = i + 1
        while end < n and (blocks[end] or (end + 1 < n and blocks[end + 1])):
            end += 1
        runs.append((i, end))
        i = end
    return runs


def _rise(blocks: Sequence[int], start: int, peak: int, k: int, threshold: float) -> int:
    """Where a run's region starts: the first block above ``threshold`` followed by ``k``
    non-empty blocks (conditions 1 and 2), but never after the run's peak (condition 4)."""
    zeros_ahead = 0  # empty blocks among the k after position i, kept while scanning
    n = len(blocks)
    for i in range(start + 1, min(start + k + 1, n)):
        zeros_ahead += not blocks[i]
    for i in range(start, peak):
        if blocks[i] > threshold and not zeros_ahead:
            return i
        if i + 1 < n:
            zeros_ahead -= not blocks[i + 1]
        if i + k + 1 < n:
            zeros_ahead += not blocks[i + k + 1]
    return peak


def cx_extract(
    lines: Sequence[str],
    *,
    k: int = DEFAULT_K,
    threshold: float | None = None,
    lengths: Sequence[int] | None = None,
    link_lengths: Sequence[int] | None = None,
) -> CXResult:
    """Find the main text among tag-free ``lines`` by their block curve.

    ``lengths`` are the lines' non-whitespace lengths (computed when not given) and
    ``link_lengths`` how much of each is anchor text (none when not given). ``threshold`` is the
    sharp-rise threshold; by default min(86, 30 % of the highest block) (see the module notes).
    """
    if lengths is None:
        lengths = [len("".join(line.split())) for line in lines]
    if link_lengths is None:
        link_lengths = [0] * len(lines)
    weights = [
        0 if link > LINK_LINE_SHARE * length else length - link
        for length, link in zip(lengths, link_lengths)
    ]
    blocks = block_curve(weights, k)
    top = max(range(len(blocks)), key=blocks.__getitem__, default=0)
    highest = blocks[top] if blocks else 0
    if threshold is None:
        threshold = min(PAPER_THRESHOLD, ADAPTIVE_SHARE * highest)
    lines = list(lines)
    if not highest:
        return CXResult("", lines, blocks, 0, 0, [], k, threshold)

    regions: list[tuple[int, int]] = []
    main = 0
    for run_start, run_end in _runs(blocks):
        peak = max(range(run_start, run_end), key=blocks.__getitem__)
        if run_start <= top < run_end:
            main = len(regions)
        elif blocks[peak] <= threshold:
            continue
        start = _rise(blocks, run_start, peak, k, threshold)
        while not weights[start]:  # a block's first lines may be empty
            start += 1
        regions.append((start, run_end))
    mass = [sum(weights[start:end]) for start, end in regions]
    kept = [
        region
        for i, region in enumerate(regions)
        if i == main
        or mass[i] >= SECONDARY_MASS_SHARE * mass[main]
        and _link_share(region, weights, lengths, link_lengths) <= SECONDARY_LINK_SHARE
    ]
    text = "\n".join(lines[i] for start, end in kept for i in range(start, end) if weights[i])
    start, end = regions[main]
    return CXResult(text, lines, blocks, start, end, kept, k, threshold)


def _link_share(
    region: tuple[int, int],
    weights: Sequence[int],
    lengths: Sequence[int],
    link_lengths: Sequence[int],
) -> float:
    """Share of anchor text in the lines of ``region`` that count."""
    counted = [i for i in range(*region) if weights[i]]
    return sum(link_lengths[i] for i in counted) / max(1, sum(lengths[i] for i in counted))


class LineBlockExtractor:
    """CX with its parameters: ``LineBlockExtractor(k=3).extract(document).text``."""

    def __init__(self, k: int = DEFAULT_K, threshold: float | None = None) -> None:
        if k < 1:
            raise ValueError(f"block thickness k must be at least 1, got {k}")
        self.k = k
        self.threshold = threshold

    def __repr__(self) -> str:
        return f"LineBlockExtractor(k={self.k}, threshold={self.threshold})"

    def extract(self, document: Document) -> CXResult:
        """Run CX on ``document``'s parsed tree (an empty result for an empty page)."""
        lines = page_lines(document.tree)
        return cx_extract(
            lines.texts,
            k=self.k,
            threshold=self.threshold,
            lengths=lines.lengths,
            link_lengths=lines.link_lengths,
        )


def plot_blocks(result: CXResult, path: str | Path, *, title: str | None = None) -> Path:
    """Draw the block curve with the kept regions shaded, as in the paper's figures 3-9.

    The main region is shaded darker than the other kept regions; the dashed line is the
    threshold used. Needs matplotlib (the ``plot`` extra), imported only here.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError("plotting needs matplotlib: pip install 'forumcrawl[plot]'") from exc
    path = Path(path)
    figure = Figure(figsize=(10, 4), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.plot(range(len(result.blocks)), result.blocks, linewidth=0.8, color="tab:blue")
    for start, end in result.regions:
        main = (start, end) == (result.start, result.end)
        axes.axvspan(start, max(start, end - 1), color="tab:orange", alpha=0.35 if main else 0.15)
    axes.axhline(result.threshold, color="tab:red", linestyle="--", linewidth=0.8)
    axes.set_xlabel("line number")
    axes.set_ylabel(f"block length (K = {result.k})")
    axes.set_title(title or f"line-block distribution; main text lines {result.start}-{result.end - 1}")
    axes.set_xlim(0, max(1, len(result.blocks) - 1))
    axes.set_ylim(bottom=0)
    figure.tight_layout()
    figure.savefig(path, format="png")
    return path
