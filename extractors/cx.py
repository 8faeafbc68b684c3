"""CX: main-text extraction by the line-block distribution function.

Method of Chen Xin (陈鑫), 《基于行块分布函数的通用网页正文抽取》 ("Universal web-page main-text
extraction by the line-block distribution function"), HIT-SCIR, 2009 (the cx-extractor project). The page is
reduced to tag-free text lines; a *block* is K consecutive lines (K = 3) and its *length* the
number of non-whitespace characters in it. Over the line numbers the block lengths form a curve,
and the main text is the stretch of that curve holding its maximum, from a sharp rise above a
threshold (followed by K non-empty blocks) to where it falls to zero (the paper's conditions 1-4).
Everything is linear in the size of the page.

Where this module departs from the paper, and why. Figures are mean text F1 on the six folders of
``../shared/data`` (aeb-articles-en, cwced-zh, harvest-forum-posts, magic-articles,
magic-forums, wcxb-dev), averaged over folders; every constant below was checked on all six.

* Lines come from one walk over the parsed tree, not from the source's line breaks: a line ends
  at the end of a block element or a ``<br>``. Minified pages (one source line) then read like
  pretty-printed ones, and a deeply nested boundary between page parts (``</p></div></div>``)
  leaves empty lines, the gaps the curve falls to zero in. With the rest of this module equal,
  source lines score 0.74 and tree lines 0.77 (better on five folders, equal on cwced-zh).
  Script, style, template, form controls and the like are skipped; ``nav``, ``aside``,
  ``footer``, ``figcaption``, ``noscript`` and hidden elements are muted (see page_lines).
* Anchor text does not count: a line's length is its non-link characters, and a line that is
  mostly link text counts zero (the paper notes link groups are easy to remove): +0.05.
* The threshold adapts to short pages: the paper's 86 characters, or 30 % of the curve's maximum
  when that is lower, so that a short article still has a sharp rise: +0.01.
* A run of the curve whose peak is a single long line (a paragraph between deep markup, or a page
  whose text is one line) is a region too, though it cannot have K non-empty blocks after its
  rise: +0.02.
* Besides the region holding the maximum, every other region whose mass (total length) is at
  least a fifth of it, and which is not mostly links, is kept: articles cut by figures and
  advertisements, and forum threads whose posts are separated by author panels, are several
  regions, not one. The paper's single region scores 0.65, all kept regions 0.85.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

import lxml.etree

from forumcrawl.document import Document
from forumcrawl.extractors.compiled import compiled_module

__all__ = [
    "COMPILED",
    "DEFAULT_K",
    "PAPER_THRESHOLD",
    "CXResult",
    "LineBlockExtractor",
    "PageLines",
    "block_curve",
    "cx_extract",
    "document_lines",
    "document_steps",
    "filled_events",
    "finish_lines",
    "known_lines",
    "page_lines",
    "plot_blocks",
    "visible_text",
]

#: Block thickness K: the paper takes K = 3 lines (it requires K < 5).
DEFAULT_K = 3
#: The paper's threshold for a sharp rise, in non-whitespace characters per block (the default of
#: the published cx-extractor, set on Chinese news pages).
PAPER_THRESHOLD = 86.0
#: With no threshold given, the rise threshold is min(PAPER_THRESHOLD, this share of the highest
#: block). Tuned on the six folders of ../shared/data: 0.2-0.4 are within 0.002 of each other.
ADAPTIVE_SHARE = 0.3
#: A line whose anchor text is more than this share of its characters is a link, not text.
#: Tuned on the six folders of ../shared/data: 0.4-0.6 are within 0.003.
LINK_LINE_SHARE = 0.5
#: Regions besides the main one are kept when their mass is at least this share of the main
#: region's. Tuned on the six folders of ../shared/data: lower keeps article comments
#: (aeb-articles-en and magic-articles lose), higher drops forum replies (the forum folders lose).
SECONDARY_MASS_SHARE = 0.2
#: ... and when at most this share of their characters is anchor text (teaser and link lists).
#: Tuned on the six folders of ../shared/data; it matters for cwced-zh (+0.02), not elsewhere.
SECONDARY_LINK_SHARE = 0.3
#: Muted text is read after all when it is at least this many times the rest of the page's text.
#: Tuned on the six folders of ../shared/data: 1 and 3 lose 0.02 and 0.004 on aeb-articles-en
#: (big menus beside short articles); 10 gains 0.01 on wcxb-dev over never.
MUTED_RESTORE_RATIO = 10

# Elements whose end ends a line. Only the end leaves an empty line: the start of a block ends
# the current line only when it holds text, so "</p><p>" is no gap and "</p></div></div>" is one.
_BLOCK_TAGS = frozenset(
    """address article blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html legend li
    main menu noscript ol p pre section summary table tbody td tfoot th thead tr ul""".split()
)
# A void element has no text to end: ``<br>`` breaks the line once, at its end.
_BLOCK_STARTS = _BLOCK_TAGS - {"br", "hr"}
# Elements whose content is never running text.
_SKIP_TAGS = frozenset(
    """head title script style template select option textarea button label svg math iframe
    object embed canvas audio video map""".split()
)
# Elements whose text is not the page's main text unless it is nearly all the page has: see
# page_lines().
_MUTED_TAGS = frozenset({"noscript", "nav", "aside", "footer", "figcaption"})
_PHRASING_ONLY = frozenset({"button", "label"})
#: The attributes that may hide an element: one listing of an element's attribute names
#: (empty for most) costs less than asking for each of them.
_HIDING = frozenset({"hidden", "aria-hidden", "style"})
#: Elements the kind signals, the arbiter's evidence and the page's fields read (counts,
#: JSON-LD scripts, meta tags, ``<article>``, headings, ``<title>``): gathered by the lines'
#: walk, so that no other scan of the tree is needed (see :class:`PageLines`).
FACT_TAGS = (
    "pre", "code", "input", "select", "textarea", "li", "img", "h2", "h3", "meta", "script",
    "article", "h1", "title", "form", "iframe",
)
#: The headings, also kept together in document order (a page's title is read from them).
_HEADINGS = ("h1", "h2", "h3")
#: Attributes that mark an element as the page's metadata: microdata, ``rel`` links and
#: machine-readable times (see :attr:`PageLines.marked`).
_MARKS = frozenset({"itemprop", "rel", "datetime"})
#: What a class names a writer's block with, and a link's target a writer's page with (see
#: :attr:`PageLines.writers`).
WRITER_CLASSES = ("author", "byline")
WRITER_PATHS = ("/author/", "/authors/")


def names_writer(element: lxml.etree._Element) -> bool:
    """Whether an element may name a page's writer: a link to a writer's page (``/author/…``)
    or an element classed ``author`` or ``byline`` (either word inside a class name too)."""
    names = element.get("class")
    if names is not None and any(word in names for word in WRITER_CLASSES):
        return True
    if element.tag != "a":
        return False
    href = element.get("href")
    return href is not None and any(path in href for path in WRITER_PATHS)


def _hidden_style(style: str) -> bool:
    """An inline style that hides the element."""
    style = "".join(style.split()).lower()
    return "display:none" in style or "visibility:hidden" in style


def _gather(
    skipped: lxml.etree._Element,
    found: dict[str, list[lxml.etree._Element]] | None,
    marked: list[lxml.etree._Element],
    hrefs: list[str],
    writers: list[lxml.etree._Element],
) -> None:
    """The facts of :class:`PageLines` in an element the walk skips and below it (a page's
    ``<head>``, its scripts and SVG icons: few elements); without ``found``, only the marked
    elements, the writers' and the links."""
    for element in skipped.iter():
        tag = element.tag
        if tag.__class__ is not str:
            continue
        facts = found.get(tag) if found is not None else None
        if facts is not None:
            facts.append(element)
        if not _MARKS.isdisjoint(element.keys()):
            marked.append(element)
        if names_writer(element):
            writers.append(element)
        if tag == "a":
            href = element.get("href")
            if href is not None:
                hrefs.append(href)


def _swallowed(element: lxml.etree._Element) -> bool:
    """A button or label holding blocks: an unclosed tag that swallowed the page after it
    (their content model is phrasing content only), to be read, not skipped."""
    return element.tag in _PHRASING_ONLY and any(child.tag in _BLOCK_TAGS for child in element)


@dataclass(frozen=True)
class PageLines:
    """A page's tag-free lines; per line, its non-whitespace length and how much of it is links.

    The same walk gathers what other readers of the page need, each in document order: the
    elements of each tag of :data:`FACT_TAGS` in the tree (skipped parts included), its
    ``h1``-``h3`` together, and in the whole document (top-level elements beside the root too)
    the elements with an ``itemprop``, ``rel`` or ``datetime`` attribute and the ``href`` of
    every ``<a>``.

    ``events`` is the walk itself, so that the other readers of every element (``dom``'s
    simple tree, single-page KSF's lines) do not walk the tree again: three items a step, in
    document order, ``tag, element, text`` where an element starts and ``None, element, tail``
    where it ends (reading them from lxml again was a third of KSF's walk, a tenth of
    ``dom``'s). An element whose
    content the walk skipped (see :data:`_SKIP_TAGS`; also a comment) has no text and nothing
    between its start and its end; ``skipped`` lists where the skipped elements start (see
    :func:`filled_events`).
    """

    texts: list[str]
    lengths: list[int]
    link_lengths: list[int]
    elements: dict[str, list[lxml.etree._Element]] = field(default_factory=dict)
    marked: list[lxml.etree._Element] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    headings: list[lxml.etree._Element] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    #: The text of each line blanked as muted, by line number: a page may send part of its
    #: article hidden (a paywall, a "read more") and say so in its marked body.
    muted: dict[int, str] = field(default_factory=dict)
    #: By line number, an element that holds the whole line (the block it ends with, or the
    #: parent of the block whose start ends it), for a reader that asks what a line is part of
    #: (see :func:`~forumcrawl.extractors.arbiter.without_aux`); lines without text have none.
    containers: dict[int, lxml.etree._Element] = field(default_factory=dict)
    #: False when the compiled walk cut the lines: ``events`` and ``skipped`` are then empty
    #: (see :func:`document_steps`).
    stepped: bool = True
    #: In the whole document, the elements that may name the page's writer (:func:`names_writer`),
    #: for an article's author box: gathered by the walk, as a search of the document cost half
    #: a parse.
    writers: list[lxml.etree._Element] = field(default_factory=list)

    @property
    def itemprops(self) -> list[lxml.etree._Element]:
        """The marked elements with an ``itemprop`` attribute."""
        return [element for element in self.marked if element.get("itemprop") is not None]


def document_lines(document: Document) -> PageLines:
    """:func:`page_lines` of ``document``'s tree, cut once per page (CX and the arbiter's
    evidence read the same lines).

    Where the compiled walk is built (see :data:`COMPILED`), it cuts the same lines and, in the
    same walk, ``dom``'s simple tree, kept under ``dom.simple`` for
    :func:`~forumcrawl.extractors.dom_density.simplify_tree`; its lines record no steps (see
    :func:`document_steps`).
    """
    return document.derived("cx.lines", lambda: _cut_lines(document))


def _cut_lines(document: Document) -> PageLines:
    tree = document.tree
    if _compiled_walk is None or tree is None:
        return page_lines(tree)
    lines, simple = _compiled_walk(tree)
    document.derived("dom.simple", lambda: simple)
    return lines


def document_steps(document: Document) -> PageLines:
    """``document``'s lines with their recorded steps (:attr:`PageLines.events`), for the
    readers of every element (single-page KSF, ``dom`` on a page it reads twice). The compiled
    walk records none, because making a step per element is most of what it saves: on a page it
    cut, the steps come from :func:`page_lines`, once per page."""
    lines = document_lines(document)
    if lines.stepped:
        return lines
    return document.derived("cx.steps", lambda: page_lines(document.tree))


def known_lines(document: Document) -> PageLines | None:
    """``document``'s lines when they were cut (see :func:`document_lines`), else None."""
    return document.known("cx.lines")  # type: ignore[no-any-return]


def visible_text(document: Document) -> str:
    """The page's whole visible text: its lines (see :func:`page_lines`) without the blank
    ones, so without ``<nav>``, ``<aside>``, ``<footer>`` and hidden parts. A list page's
    content, which the region finders leave out as links."""
    return "\n".join(line for line in document_lines(document).texts if line)


def filled_events(lines: PageLines, reads: Callable[[str], bool]) -> list[Any]:
    """``lines.events`` with the content of each element the walk skipped and ``reads(tag)``
    accepts read from the tree (a reader that keeps a ``<label>``'s text: few elements), so
    that a reader of the steps sees every element it walks into."""
    events = lines.events
    parts: list[list[Any]] = []
    done = 0  # the steps before this are in parts
    for at in lines.skipped:
        if reads(events[at]):
            parts += (events[done:at], _content_events(events[at + 1]))
            done = at + 3
    if not parts:
        return events
    parts.append(events[done:])
    return list(chain.from_iterable(parts))


def _content_events(element: lxml.etree._Element) -> list[Any]:
    """The steps of ``element`` and of its content, as :func:`page_lines` records them, but
    for ``element``'s own end."""
    found: list[Any] = []
    for event, inner in lxml.etree.iterwalk(element, events=("start", "end")):
        if event == "start":
            tag = inner.tag
            found.extend((tag, inner, inner.text if tag.__class__ is str else None))
        elif inner is not element:
            found.extend((None, inner, inner.tail))
    return found


def page_lines(tree: lxml.etree._Element | None) -> PageLines:
    """Cut the visible text of ``tree`` into lines, in a single walk over the tree.

    A line ends where a block element ends or a ``<br>`` is, and where a block starts after text.
    Text in ``<nav>``, ``<aside>``, ``<footer>``, ``<figcaption>``, ``<noscript>`` and hidden
    elements is *muted*: its lines are blanked (kept empty, so line numbers stay the page's),
    unless it is nearly all the page has (MUTED_RESTORE_RATIO). Then it is the page: Discourse
    forums serve their posts in ``<noscript>``, streaming React pages in a ``hidden`` block, and
    an unclosed ``<nav>`` can swallow the whole page.
    """
    texts: list[str] = []
    lengths: list[int] = []
    links: list[int] = []
    found: dict[str, list[lxml.etree._Element]] = {tag: [] for tag in FACT_TAGS}
    headings: list[lxml.etree._Element] = []
    for tag in _HEADINGS:  # one list while walking, in document order; split at the end
        found[tag] = headings
    marked: list[lxml.etree._Element] = []
    hrefs: list[str] = []
    events: list[Any] = []
    skipped: list[int] = []
    containers: dict[int, lxml.etree._Element] = {}
    writers: list[lxml.etree._Element] = []
    if tree is None:
        return PageLines(texts, lengths, links, found, marked, hrefs, headings, events, skipped)
    muted_lines: list[int] = []
    muted: list[lxml.etree._Element] = []  # the open muted elements, innermost last
    parts: list[str] = []
    has_text = False  # the current line holds more than whitespace
    line_muted = False  # ... and some of it is muted
    link = 0  # anchor characters in the current line
    in_anchor = 0
    skipping = False
    # Local names: the loop below runs twice per element of the page.
    block_tags, block_starts, skip_tags, muted_tags, hiding, marks = (
        _BLOCK_TAGS,
        _BLOCK_STARTS,
        _SKIP_TAGS,
        _MUTED_TAGS,
        _HIDING,
        _MARKS,
    )

    def end_line(line_muted: bool, anchor_chars: int) -> None:
        line = " ".join("".join(parts).split())
        if line_muted:
            muted_lines.append(len(texts))
        texts.append(line)
        lengths.append(len(line) - line.count(" "))
        links.append(anchor_chars)
        parts.clear()

    record = events.extend
    walker = lxml.etree.iterwalk(tree, events=("start", "end"))
    for event, element in walker:
        tag = element.tag
        if skipping:  # after skip_subtree() the next event is the skipped element's own end
            skipping = False
            text = element.tail
            record((None, element, text))
            breaks = False
        elif event == "start":
            if tag.__class__ is not str:  # a comment or processing instruction
                record((tag, element, None))
                continue
            if tag in skip_tags and not _swallowed(element):
                walker.skip_subtree()
                skipping = True
                skipped.append(len(events))
                record((tag, element, None))
                if len(element):
                    _gather(element, found, marked, hrefs, writers)
                else:  # a script or style: no <a> to read
                    facts = found.get(tag)
                    if facts is not None:
                        facts.append(element)
                    if not marks.isdisjoint(element.keys()):
                        marked.append(element)
                    if names_writer(element):
                        writers.append(element)
                continue
            facts = found.get(tag)
            if facts is not None:
                facts.append(element)
            attributes = element.keys()
            if attributes and not marks.isdisjoint(attributes):
                marked.append(element)
            if attributes and names_writer(element):
                writers.append(element)
            if tag in muted_tags or (
                attributes
                and not hiding.isdisjoint(attributes)
                and (
                    "hidden" in attributes
                    or element.get("aria-hidden") == "true"
                    or ("style" in attributes and _hidden_style(element.get("style")))
                )
            ):
                muted.append(element)
                breaks = has_text
            else:
                breaks = has_text and tag in block_starts
            if tag == "a":
                in_anchor += 1
                href = element.get("href")
                if href is not None:
                    hrefs.append(href)
            text = element.text
            record((tag, element, text))
        else:
            text = element.tail
            record((None, element, text))
            if muted and muted[-1] is element:
                muted.pop()
                breaks = True
            else:
                breaks = tag in block_tags
            if tag == "a":
                in_anchor -= 1
        if breaks:
            if has_text:
                # A block's end closes a line it holds; a block's start, one its parent holds.
                containers[len(texts)] = element if event == "end" else element.getparent()
                end_line(line_muted, link)
                has_text = line_muted = False
                link = 0
            else:
                texts.append("")
                lengths.append(0)
                links.append(0)
                parts.clear()
        if text:
            parts.append(text)
            if not text.isspace():
                has_text = True
                if in_anchor:
                    link += len("".join(text.split()))
                if muted:
                    line_muted = True
    if has_text:
        containers[len(texts)] = tree
        end_line(line_muted, link)
    return finish_lines(
        tree,
        PageLines(
            texts, lengths, links, found, marked, hrefs, headings, events, skipped, {}, containers, writers=writers
        ),
        muted_lines,
    )


def finish_lines(tree: lxml.etree._Element, lines: PageLines, muted_lines: list[int]) -> PageLines:
    """What the lines' walk (this module's or the compiled one) does after its last step: the
    links and marked elements of top-level elements beside the root, the muted lines blanked
    unless they are nearly the whole page, the headings split by tag. Mutates ``lines``."""
    texts, lengths, links = lines.texts, lines.lengths, lines.link_lengths
    marked, hrefs, writers = lines.marked, lines.hrefs, lines.writers
    if tree.getparent() is None:
        # Markup after the end of the page can leave more top-level elements beside the root:
        # their links and marked elements count, as in a search of the whole document.
        marked_before: list[lxml.etree._Element] = []
        hrefs_before: list[str] = []
        writers_before: list[lxml.etree._Element] = []
        for other in reversed(list(tree.itersiblings(preceding=True))):
            _gather(other, None, marked_before, hrefs_before, writers_before)
        marked[:0] = marked_before
        hrefs[:0] = hrefs_before
        writers[:0] = writers_before
        for other in tree.itersiblings():
            _gather(other, None, marked, hrefs, writers)
    muted_length = sum(lengths[i] for i in muted_lines)
    if muted_length < MUTED_RESTORE_RATIO * (sum(lengths) - muted_length):
        for i in muted_lines:  # blanked, not removed: line numbers stay the page's
            lines.muted[i] = texts[i]
            texts[i], lengths[i], links[i] = "", 0, 0
    for tag in _HEADINGS:
        lines.elements[tag] = [heading for heading in lines.headings if heading.tag == tag]
    return lines


@dataclass(frozen=True)
class CXResult:
    """CX on one page: its lines, the block curve and the chosen regions.

    ``blocks[i]`` is the length of the block whose axis is line ``i`` (lines ``i`` to ``i+k-1``,
    fewer at the end of the page), counted as the curve counts it (links discounted). The main
    region, the one holding the curve's maximum, is lines ``start`` to ``end - 1``; ``regions``
    lists every kept region, the main one included, in page order. ``text`` is "" when the page
    has no text. ``small`` lists the regions left out for their mass alone (under
    :data:`SECONDARY_MASS_SHARE` of the main one's, few links), which a caller that knows more of
    the page may take back (:meth:`text_of`); ``weights`` is each line's length as the curve
    counts it (0: a line of links).
    """

    text: str
    lines: list[str]
    blocks: list[int]
    start: int
    end: int
    regions: list[tuple[int, int]]
    k: int
    threshold: float
    small: list[tuple[int, int]] = field(default_factory=list)
    weights: list[int] = field(default_factory=list)

    def text_of(self, regions: Sequence[tuple[int, int]]) -> str:
        """The text of ``regions`` (in the order given), the lines the curve counts."""
        return _text_of(self.lines, self.weights, regions)


def _text_of(lines: Sequence[str], weights: Sequence[int], regions: Sequence[tuple[int, int]]) -> str:
    return "\n".join(lines[i] for start, end in regions for i in range(start, end) if weights[i])


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
        return CXResult("", lines, blocks, 0, 0, [], k, threshold, [], weights)

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
    kept: list[tuple[int, int]] = []
    small: list[tuple[int, int]] = []
    for i, region in enumerate(regions):
        if i == main:
            kept.append(region)
        elif _link_share(region, weights, lengths, link_lengths) <= SECONDARY_LINK_SHARE:
            (kept if mass[i] >= SECONDARY_MASS_SHARE * mass[main] else small).append(region)
    start, end = regions[main]
    text = _text_of(lines, weights, kept)
    return CXResult(text, lines, blocks, start, end, kept, k, threshold, small, weights)


def _link_share(
    region: tuple[int, int],
    weights: Sequence[int],
    lengths: Sequence[int],
    link_lengths: Sequence[int],
) -> float:
    """Share of anchor text in the lines of ``region`` that count."""
    counted = [i for i in range(*region) if weights[i]]
    return sum(link_lengths[i] for i in counted) / max(1, sum(lengths[i] for i in counted))


@dataclass(frozen=True)
class LineBlockExtractor:
    """CX with its parameters: ``LineBlockExtractor(k=3).extract(document).text``.

    ``threshold=None`` (the default) adapts the sharp-rise threshold to the page; a number fixes
    it, as the paper does.
    """

    k: int = DEFAULT_K
    threshold: float | None = None

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"block thickness k must be at least 1, got {self.k}")

    def extract(self, document: Document) -> CXResult:
        """Run CX on ``document``'s parsed tree (an empty result for an empty page)."""
        lines = document_lines(document)
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


_compiled = compiled_module("_walk")
_compiled_walk: Callable[[lxml.etree._Element], tuple[PageLines, Any]] | None = (
    _compiled.walk if _compiled is not None else None
)
#: Whether this process cuts lines with the compiled walk (same lines, same simple tree).
COMPILED = _compiled_walk is not None
