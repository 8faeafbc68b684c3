"""Choosing among the single-page stages' candidates on evidence, not on their order.

The cascade's stages each propose the page's main text. Which proposal is right shows in the
page itself: a publisher that marks its article (JSON-LD ``articleBody``, ``itemprop=
"articleBody"``, one ``<article>``) names the body; the body follows the headline; the stages
agree with each other when the page is easy; a proposal that is mostly link text or a sliver of
the page's prose is a menu or a caption. :func:`page_evidence` reads those markers once per page,
:func:`candidate_features` turns one proposal into numbers, and :class:`Arbiter` (a logistic
model, scikit-learn shaped) scores how likely each proposal is the better one.

The arbiter is fit by ``benchmarks/accuracy.py --fit-arbiter`` on the evaluation folders and
reported leave-one-folder-out (fit on all folders but one, scored on that one), so its figures
say how it does on pages of sources it never saw.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import lxml.etree

from forumcrawl.document import Document
from forumcrawl.extractors.compiled import compiled_module
from forumcrawl.extractors.cx import CXResult, PageLines, document_lines
from forumcrawl.extractors.dates import is_date_line
from forumcrawl.extractors.dom_density import AUX_MAX_SHARE, aux_name, related_heading
from forumcrawl.extractors.metadata import json_ld_data

__all__ = [
    "FEATURES",
    "MARKED_BODY_AGREEMENT",
    "OPENING_SHARE",
    "Arbiter",
    "Evidence",
    "candidate_features",
    "comment_blocks",
    "comment_forms",
    "common_ancestor",
    "dated_list_beyond",
    "load_arbiter",
    "marks_body",
    "numbered_comments",
    "opening_held",
    "overlay_lines",
    "page_chars",
    "page_evidence",
    "page_tokens",
    "text_tokens",
    "thread_agreement",
    "thread_lines",
    "token_agreement",
    "visible_chars",
    "with_body_regions",
    "with_hidden_body",
    "within_body",
    "without_aux",
    "without_lines",
    "without_parts",
]

DEFAULT_MODEL = Path(__file__).with_name("models") / "arbiter.json"
_WORD = re.compile(r"[^\W_]+")
_scan = compiled_module("_scan")
_CJK_RANGES = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
_CJK = re.compile(f"[{_CJK_RANGES}]")
#: A word of a text holding CJK: one CJK word character, or a run of other word characters. One
#: pass finds the words that spacing out every CJK character and splitting at non-word
#: characters finds (five times faster on Chinese pages).
_CJK_WORD = re.compile(rf"(?=[^\W_])[{_CJK_RANGES}]|[^\W_{_CJK_RANGES}]+")
#: ASCII bytes to :data:`_WORD`'s words: letters lower-cased, digits kept, all else a blank.
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else 32 for c in range(256)
)
#: A character beyond ASCII that is part of a word (the class opens the pattern, so that the
#: engine skips ASCII in C and stops only at the few others, curly quotes and dashes mostly).
_WIDE_WORD_CHAR = re.compile(r"[^\x00-\x7f](?<=[^\W_])")
_BODY_PROPS = frozenset({"articleBody", "text", "reviewBody"})
#: A candidate that holds this share of the page's marked body and is this share marked body
#: (both ways) is that body: another stage cannot do better than find it too. Chosen by
#: ``benchmarks/holdout.py`` as the lowest of 0.8-0.95 that costs no folder it is chosen on more
#: than 0.001 F1 and no page more than 0.1: 0.9 on all nine folders and leaving any one out
#: (without the page bound, 0.85 when magic-articles is left out: one Japanese blog page whose
#: header and follower count ``cx`` keeps lost 0.14 F1 to the skip).
MARKED_BODY_AGREEMENT = 0.9
#: The opening of a candidate's text that :func:`opening_held` reads: its first lines up to
#: this share of its characters. Held apart (``benchmarks/holdout.py``), any share from a tenth
#: to a third gives every folder the same F1 within 0.004; from a half up, the opening reaches
#: into an article's comments and most of dragnet's gain is lost.
OPENING_SHARE = 0.25


def text_tokens(text: str) -> Counter[str]:
    """A bag of the text's words: lower-cased letter/digit runs, each CJK character alone."""
    return Counter(_words(text))


def _words(text: str) -> list[str]:
    # Most lines, and most English texts whose only other characters are punctuation (curly
    # quotes, dashes, no-break spaces, each a word break as "?" is): the words split out of the
    # bytes, a quarter to a half faster than the regex.
    if text.isascii() or _WIDE_WORD_CHAR.search(text) is None:
        return text.encode("ascii", "replace").translate(_ASCII_WORDS).decode("ascii").split()
    if _scan is not None:  # one C scan instead of a regex pass (a German page's marker text)
        return _scan.words(text)  # type: ignore[no-any-return]
    text = text.lower()
    if _CJK.search(text) is None:
        return _WORD.findall(text)
    return _CJK_WORD.findall(text)


def page_tokens(doc: Document, text: str) -> Counter[str]:
    """:func:`text_tokens` of a text taken from ``doc``, its lines' words kept for the page: the
    stages' candidates share most of their lines (no word spans a line break, so the bag is
    the same)."""
    known: dict[str, list[str]] = doc.derived("arbiter.line_words", dict)
    found = []
    for line in text.split("\n"):
        words = known.get(line)
        if words is None:
            words = known[line] = _words(line)
        found.append(words)
    return Counter(chain.from_iterable(found))


def visible_chars(text: str) -> int:
    """Characters of ``text`` that are not whitespace (a split and join: a regex substitution
    costs about three times as much on a page's text; the compiled count, a sixth of the split)."""
    if _scan is not None:
        return _scan.visible(text)  # type: ignore[no-any-return]
    return len("".join(text.split()))


def page_chars(doc: Document, text: str) -> int:
    """:func:`visible_chars` of a text taken from ``doc``, counted once per page: the cascade
    asks it of each candidate two or three times (whether it is a hit, against KSF's posts,
    for the arbiter), a tenth of a millisecond each on an article."""
    known: dict[str, int] = doc.derived("arbiter.chars", dict)
    chars = known.get(text)
    if chars is None:
        chars = known[text] = visible_chars(text)
    return chars


def token_agreement(a: Counter[str], b: Counter[str]) -> tuple[float, float]:
    """``(share of a found in b, share of b found in a)`` of two bags (0 for an empty bag)."""
    if _scan is not None:  # the same sum, one C loop over the smaller bag
        overlap = _scan.bag_overlap(a, b)
    else:
        # The shared words' smaller counts, summed by C-level set and map calls (``a & b`` builds
        # a Counter word by word in Python).
        shared = a.keys() & b.keys()
        overlap = sum(map(min, map(a.__getitem__, shared), map(b.__getitem__, shared)))
    return (overlap / a.total() if a else 0.0, overlap / b.total() if b else 0.0)


def thread_agreement(thread: Counter[str], others: Sequence[Counter[str]]) -> float:
    """How far a thread's text and the best-matching other candidate hold each other (the
    smaller of the two shares). A forum thread's posts are the page's main text, which ``dom``
    and ``cx`` find too; the "posts" KSF finds on an article with comments are the comments,
    which they do not."""
    best = 0.0
    for other in others:
        best = max(best, min(token_agreement(thread, other)))
    return best


def thread_lines(text: str) -> frozenset[str]:
    """A thread's text as the set of its lines, each with its whitespace normalised (the
    stages write a line's blanks alike, but not always)."""
    return frozenset(" ".join(line.split()) for line in text.split("\n"))


def dated_list_beyond(text: str, other: str) -> bool:
    """Whether what ``text`` adds to ``other`` is a list of dated items: two or more of the
    lines it holds beyond ``other`` are mostly a date or time (the time written takes half the
    line or more, :func:`~forumcrawl.extractors.dates.is_date_line`).

    A region that runs on past the article into the teasers of other stories, an archive or
    readers' comments carries a date per item ("November 12", "强图打榜 2024-05-23 09:41"); an
    article's own body has one dateline at most, at its top. When the arbiter prefers ``cx``'s
    longer text for such an addition, ``dom``'s is the article, and the other way round (read
    the other way on no folder first: dragnet +0.0005, magic-forums +0.0012, fundus-articles
    +0.0002, wcxb-dev -0.00003, the others unchanged)."""
    # A line written alike in both is held without normalising it, and ``other``'s normalised
    # lines are built only once a date line is found (the two candidates' shared lines are most
    # often written alike, and most added lines are no date).
    written = frozenset(other.split("\n"))
    known: frozenset[str] | None = None
    dated = 0
    for raw in text.split("\n"):
        if raw in written:
            continue
        line = " ".join(raw.split())
        if not line or not is_date_line(line):
            continue
        if known is None:
            known = thread_lines(other)
        if line not in known:
            dated += 1
            if dated == 2:
                return True
    return False


def opening_held(thread: frozenset[str], text: str) -> float:
    """The share of the opening of ``text`` (its first lines, up to :data:`OPENING_SHARE` of
    its characters) that is lines of the thread (see :func:`thread_lines`), by characters.

    A thread's posts begin where the page's main text begins: the first post opens the text
    ``dom`` and ``cx`` find. Repeated blocks that begin after it (an article's comments) or
    elsewhere (teasers of other articles, a sidebar's widgets) hold none of its opening, though
    they may share as many words with it as a thread does (function words). The cascade takes
    KSF's posts only when they hold some of it (above 0, no constant to fit): asking for more
    loses threads whose ``dom``/``cx`` text opens with a post's header (author, rank, join
    date) or a cookie notice, which post bodies leave out."""
    lines = [" ".join(line.split()) for line in text.split("\n")]
    wanted = OPENING_SHARE * sum(map(len, lines))
    read = held = 0
    for line in lines:
        if not line:
            continue
        read += len(line)
        if line in thread:
            held += len(line)
        if read >= wanted:
            break
    return held / read if read else 0.0


def _json_ld_bodies(node: Any) -> Iterable[str]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in {"articleBody", "reviewBody"} and isinstance(value, str):
                yield value
            else:
                yield from _json_ld_bodies(value)
    elif isinstance(node, list):
        for item in node:
            yield from _json_ld_bodies(item)


def _text(element: lxml.etree._Element) -> str:
    try:
        return " ".join((element.text_content() or "").split())
    except ValueError:
        return ""


@dataclass
class Evidence:
    """What a page says about its own main text, read once per page."""

    #: The longest JSON-LD ``articleBody`` the page declares ("" when none).
    json_ld: str = ""
    #: Text of the element marked ``itemprop="articleBody"`` (or ``text``/``reviewBody``), longest.
    itemprop: str = ""
    #: Text of the page's ``<article>`` elements; how many there are.
    article: str = ""
    articles: int = 0
    #: The first ``<h1>``'s text.
    headline: str = ""
    #: Visible text lines of the page (as CX reads them) and their non-link characters in total.
    lines: list[str] = field(default_factory=list)
    text_chars: int = 0
    link_chars: int = 0
    #: The marker text is an article's (or a review's) body by its name: JSON-LD ``articleBody``
    #: or ``reviewBody``, ``itemprop="articleBody"`` or ``"reviewBody"``; not a forum post's
    #: ``itemprop="text"`` nor a bare ``<article>``.
    article_body: bool = False
    #: The bag of the marker text (JSON-LD, itemprop, or a single <article>, first found).
    marker_bag: Counter[str] = field(default_factory=Counter)
    #: Line index where the headline is (-1 when not found among the lines).
    headline_line: int = -1
    #: Lines whose characters are mostly link text.
    link_lines: frozenset[str] = frozenset()
    #: The page says it is an article in Open Graph terms: its ``og:type`` names one, or it has
    #: that type's properties (``article:published_time``...), which a site whose ``og:type``
    #: is "news" sends too.
    og_article: bool = False


def page_evidence(doc: Document) -> Evidence:
    """The page's own markers of its main text (see :class:`Evidence`), computed once per page."""
    return doc.derived("arbiter.evidence", lambda: _evidence(doc))


def _evidence(doc: Document) -> Evidence:
    tree = doc.tree
    evidence = Evidence()
    if tree is None:
        return evidence
    # JSON-LD scripts, <article>s, <h1>s and itemprop elements as the lines' walk found them
    # (no scan of the tree of its own).
    lines = document_lines(doc)
    articles = lines.elements["article"]
    headings = lines.elements["h1"]
    for data in json_ld_data(lines.elements["script"]):
        for body in _json_ld_bodies(data):
            body = " ".join(body.split())
            if len(body) > len(evidence.json_ld):
                evidence.json_ld = body
    itemprop_kind = None
    for element in lines.marked:
        kind = element.get("itemprop")
        if kind not in _BODY_PROPS:
            continue
        text = _text(element)
        if len(text) > len(evidence.itemprop):
            evidence.itemprop, itemprop_kind = text, kind
    evidence.articles = len(articles)
    if len(articles) == 1:
        evidence.article = _text(articles[0])
    if headings:
        evidence.headline = _text(headings[0])
    evidence.lines = lines.texts
    # Per line, its characters less its link characters (never below 0), summed by C calls.
    evidence.text_chars = sum(
        map(max, map(operator.sub, lines.lengths, lines.link_lengths), repeat(0, len(lines.lengths)))
    )
    evidence.link_chars = sum(lines.link_lengths)
    evidence.link_lines = frozenset(
        text for text, length, link in zip(lines.texts, lines.lengths, lines.link_lengths) if link * 2 > length
    )
    for meta in lines.elements["meta"]:
        prop = meta.get("property")
        if prop and (
            prop.startswith("article:") or prop == "og:type" and "article" in (meta.get("content") or "").lower()
        ):
            evidence.og_article = True
            break
    marker = evidence.json_ld or evidence.itemprop or evidence.article
    evidence.article_body = bool(evidence.json_ld) or (bool(evidence.itemprop) and itemprop_kind != "text")
    evidence.marker_bag = text_tokens(marker)
    if evidence.headline:
        for i, line in enumerate(lines.texts):
            if line and line == evidence.headline:
                evidence.headline_line = i
                break
    return evidence


def marks_body(bag: Counter[str], evidence: Evidence) -> bool:
    """Whether a candidate's words are the body the page marks (JSON-LD ``articleBody``,
    ``itemprop``, a single ``<article>``), both ways at :data:`MARKED_BODY_AGREEMENT`; the
    cascade then does without its costlier stage."""
    if not evidence.marker_bag:
        return False
    return min(token_agreement(evidence.marker_bag, bag)) >= MARKED_BODY_AGREEMENT


def within_body(bag: Counter[str], evidence: Evidence) -> bool:
    """Whether a candidate's words lie in the body the page marks, :data:`MARKED_BODY_AGREEMENT`
    of them, though they may hold only part of it (a teaser, a body cut by figures): on a page
    that names that body an article's, the main text has no thread beside it, and KSF need not
    run (comments or posts outside the body would be a share of ``cx``'s text)."""
    if not evidence.marker_bag:
        return False
    return token_agreement(evidence.marker_bag, bag)[1] >= MARKED_BODY_AGREEMENT


def with_body_regions(result: CXResult, bag: Counter[str], evidence: Evidence) -> str | None:
    """CX's text with the regions it left out as small (:attr:`~forumcrawl.extractors.cx.
    CXResult.small`) whose words lie in the body the page names an article's (JSON-LD or
    ``itemprop`` ``articleBody``: :attr:`Evidence.article_body`), :data:`MARKED_BODY_AGREEMENT`
    of them, in page order; None when CX's own text (bag ``bag``) does not lie in that body
    (:func:`within_body`) or no small region does.

    A related-links box or a figure inside an article cuts its text into regions, and CX keeps
    a region under a fifth of the main one's mass only when it knows no better: its last
    paragraphs after the box, or one between two figures, are lost. The page's own naming of
    its article body says they belong to it. A bare ``<article>`` says less: it often holds the
    author's box and the comments (completing from it cost aeb-articles-en 0.56 F1 over 27
    pages)."""
    if not result.small or not evidence.article_body or not within_body(bag, evidence):
        return None
    taken = [
        region
        for region in result.small
        if (region_bag := text_tokens(result.text_of([region])))
        and token_agreement(region_bag, evidence.marker_bag)[0] >= MARKED_BODY_AGREEMENT
    ]
    return result.text_of(sorted([*result.regions, *taken])) if taken else None


def with_hidden_body(text: str, bag: Counter[str], evidence: Evidence, lines: PageLines) -> str | None:
    """``text`` with the runs of lines the page hides but declares its article's (their words
    lie in its JSON-LD ``articleBody``, :data:`MARKED_BODY_AGREEMENT` of them), in page order,
    when they make it that body (:func:`marks_body`); None when the page declares no body in
    JSON-LD, ``text`` is that body already, or its hidden parts do not complete it.

    A news site behind a paywall sends the article whole, shows its opening and hides the rest
    (``hidden``, ``display:none``) until the reader pays, and declares the whole text its
    ``articleBody``: the visible stages find the opening alone. The declaration is the
    evidence, so a hidden menu or a hidden copy of text already shown stays out. Only JSON-LD
    declares a text: an element marked ``itemprop="articleBody"`` holds whatever is inside it,
    captions and menus too (held apart, completing from it cost four pages 0.01-0.07 F1)."""
    if not evidence.json_ld or not lines.muted or marks_body(bag, evidence):
        return None
    runs: list[list[int]] = []
    for number in sorted(lines.muted):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    restored: list[tuple[int, str]] = []
    whole = Counter(bag)
    for run in runs:
        run_bag = text_tokens("\n".join(lines.muted[number] for number in run))
        if run_bag and token_agreement(run_bag, evidence.marker_bag)[0] >= MARKED_BODY_AGREEMENT:
            restored += [(number, lines.muted[number]) for number in run]
            whole.update(run_bag)
    if not restored or not marks_body(whole, evidence):
        return None
    return "\n".join(line for _, line in sorted([*_placed(text, lines), *restored], key=operator.itemgetter(0)))


def _placed(text: str, lines: PageLines) -> list[tuple[int, str]]:
    """``text``'s lines, each with the number of the page line it is (a line the page does not
    have stays where it is in ``text``)."""
    placed: list[tuple[int, str]] = []
    at = -1
    for number, line in zip(_line_numbers(text, lines), text.split("\n")):
        if number is not None:
            at = number
        placed.append((at, line))
    return placed


#: The last page's lines, by text the numbers of its lines (:func:`_line_index`), by element
#: the outermost overlay that holds it and by overlay whether it holds the page's main text
#: (:func:`_in_overlay`), and by raw line of a candidate the line it drops as an overlay's or
#: None (:func:`overlay_lines`: ``dom``'s and ``cx``'s texts share most lines).
_LAST_INDEX: list[Any] = [None, {}, {}, {}, {}]


def _line_index(lines: PageLines) -> dict[str, list[int]]:
    """The numbers of the page's lines by their text, made once per page: the cascade places
    several texts of one page (each candidate, its overlays, its comment blocks), and a
    page's lines are read one page at a time. Muted lines (a ``<footer>``'s, an ``<aside>``'s)
    are placed too: ``dom`` reads some of them (an article's comments in its footer)."""
    if _LAST_INDEX[0] is not lines:
        numbers: dict[str, list[int]] = {}
        known = numbers.get  # no empty list made per line, as setdefault makes
        for number, line in enumerate(lines.texts):
            if line:
                placed = known(line)
                if placed is None:
                    numbers[line] = [number]
                else:
                    placed.append(number)
        for number, line in lines.muted.items():
            placed = known(line)
            if placed is None:
                numbers[line] = [number]
            else:
                placed.append(number)
                placed.sort()
        _LAST_INDEX[:] = [lines, numbers, {}, {}, {}]
    return _LAST_INDEX[1]  # type: ignore[no-any-return]


def _line_numbers(text: str, lines: PageLines) -> list[int | None]:
    """For each line of ``text``, the number of the page line it is: the first such line after
    the previous one's, else its first on the page (a stage that read the page's lines in
    another order: a comment line placed after a later one is still the comment's; dragnet
    +0.0015, the other folders unchanged), None for a line the page does not have."""
    numbers = _line_index(lines)
    found: list[int | None] = []
    at = -1
    for line in text.split("\n"):
        places = numbers.get(" ".join(line.split()), ())
        number = next((n for n in places if n > at), None)
        if number is not None:
            at = number
        elif places:
            number = places[0]
        found.append(number)
    return found


#: Elements a form readers comment an article with is made of, by tag, and the attributes
#: that name it so: WordPress ``form#commentform`` posting to ``wp-comments-post.php``, Drupal
#: ``comment-form``, a ``textarea name="comment"``, or the frame a blog engine loads its
#: comment editor in (Blogger's ``iframe#comment-editor``). The page's walk gathers them
#: (:data:`~forumcrawl.extractors.cx.FACT_TAGS`): a search of the tree cost 0.5 ms a page.
_COMMENT_FORM_NAMES = {"form": ("id", "class", "action"), "textarea": ("id", "name"), "iframe": ("id", "name")}

#: "comment" in a name, not "commentary" (an opinion piece's article) nor "commentator".
_COMMENT_WORD = re.compile("comment(?!ar|at)", re.IGNORECASE)


#: A class or id word that names an overlay, never a page's text: cookie-consent banners and
#: their preference centres (OneTrust, Cookiebot, Didomi, Quantcast, Usercentrics, TrustArc)
#: and news tickers. The name must open with it (a body classed ``has-no-ticker`` or a post
#: tagged ``tag-cookies`` is none).
_OVERLAY_NAME = re.compile(
    r"(?:^|\s)(?:cookie|consent|onetrust|ot-sdk|gdpr|didomi|usercentrics|truste[-_]|qc-cmp|cybotcookiebot|cmp-|ticker)",
    re.IGNORECASE,
)
#: Roles of a modal dialog (report, share, log-in), an overlay too.
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
#: An ``aria-label`` that names a media player: its controls, caption menus and error screens
#: lie over the video, never in the text (a player's font menu kept as list items cost a
#: readability-pages page 0.52 F1).
_PLAYER_LABEL = re.compile(r"\b(?:video|audio|media) player\b", re.IGNORECASE)
_HOLDS_MAIN = lxml.etree.XPath("boolean(descendant-or-self::*[self::h1 or self::article or self::main])")
_PAGE_TAGS = frozenset({"html", "body"})


def _is_overlay(element: lxml.etree._Element) -> bool:
    if element.tag in _PAGE_TAGS:
        return False
    if element.get("role") in _DIALOG_ROLES or element.get("aria-modal") == "true":
        return True
    label = element.get("aria-label")
    if label and _PLAYER_LABEL.search(label):
        return True
    return bool(_OVERLAY_NAME.search(f"{element.get('id') or ''} {element.get('class') or ''}"))


def _is_comment_named(element: lxml.etree._Element) -> bool:
    """Named a comment by class or id, and not in code (a highlighter's ``span.token.comment``
    is the code's)."""
    if not _COMMENT_WORD.search(f"{element.get('id') or ''} {element.get('class') or ''}"):
        return False
    return element.tag not in {"pre", "code"} and next(element.iterancestors("pre", "code"), None) is None


def _outermost_named(
    text: str, lines: PageLines, named: Callable[[lxml.etree._Element], bool]
) -> list[lxml.etree._Element]:
    """The outermost elements ``named`` picks among those that hold a line of ``text`` (lines
    of the page), in the order of the text: read up from each line's container, each element
    once, so a page costs what its text's elements cost, not a search of its whole tree."""
    outermost: dict[lxml.etree._Element, lxml.etree._Element | None] = {}
    found: dict[lxml.etree._Element, None] = {}
    for number in _line_numbers(text, lines):
        if number is not None and (top := _topmost(lines.containers.get(number), named, outermost)) is not None:
            found[top] = None
    return list(found)


def _topmost(
    element: lxml.etree._Element | None,
    named: Callable[[lxml.etree._Element], bool],
    outermost: dict[lxml.etree._Element, lxml.etree._Element | None],
) -> lxml.etree._Element | None:
    """The outermost of ``element`` and its ancestors that ``named`` picks (None: none), each
    answer kept in ``outermost`` for the next line's walk up."""
    chain = []
    answer = None
    while element is not None:
        if element in outermost:
            answer = outermost[element]
            break
        chain.append(element)
        element = element.getparent()
    for step in reversed(chain):  # from the top down: the first named one is the outermost
        if answer is None and named(step):
            answer = step
        outermost[step] = answer
    return answer


def overlay_lines(text: str, lines: PageLines) -> frozenset[str]:
    """The lines of ``text`` (lines of the page, whitespace normalised) that lie in a consent
    banner, a dialog or a ticker (see :data:`_OVERLAY_NAME`; the outermost of each, unless it
    holds an ``<h1>``, ``<article>`` or ``<main>``: a wrapper of the page or of its story named
    so is none) wherever the page shows them: no part of a candidate's text. Read up from each
    line's container, each element once (a search of the whole tree cost seven times the
    parse)."""
    index = _line_index(lines)
    verdicts: dict[str, str | None] = _LAST_INDEX[4]  # by raw line: candidates share most lines
    dropped = set()
    for raw in text.split("\n"):
        if raw in verdicts:
            found = verdicts[raw]
        else:
            line = " ".join(raw.split())
            numbers = index.get(line)
            found = line if numbers and all(_in_overlay(lines.containers.get(n)) for n in numbers) else None
            verdicts[raw] = found
        if found is not None:
            dropped.add(found)
    return frozenset(dropped)


def _in_overlay(element: lxml.etree._Element | None) -> bool:
    """Whether ``element`` (of the page :func:`_line_index` read last) lies in an overlay that
    does not hold the page's main text (see :func:`overlay_lines`), each element's and each
    overlay's answer kept for the page."""
    top = _topmost(element, _is_overlay, _LAST_INDEX[2])
    if top is None:
        return False
    holds: dict[lxml.etree._Element, bool] = _LAST_INDEX[3]
    if top not in holds:
        holds[top] = bool(_HOLDS_MAIN(top))
    return not holds[top]


def without_lines(text: str, dropped: frozenset[str]) -> str:
    """``text`` without its lines whose text (whitespace normalised) is one of ``dropped``."""
    if not dropped:
        return text
    return "\n".join(line for line in text.split("\n") if " ".join(line.split()) not in dropped)


#: An id that anchors a numbered comment, as blog and news engines write them
#: (``comment-24152``, ``div-comment-949868``, Slashdot's ``comment_body_40747335``, Blogger's
#: ``c1368053093029873036``).
_NUMBERED_COMMENT = re.compile(r"comment[\W_]?(?:[a-z]+[\W_])?\d|^c\d{6,}$", re.IGNORECASE)


#: The ids of an element, what it holds, what holds it, and the element before it (Thesis
#: writes each comment as a numbered ``<dt>`` and its body as the ``<dd>`` after it).
_IDS = lxml.etree.XPath("ancestor-or-self::*/@id | descendant::*/@id | preceding-sibling::*[1]/@id")


def numbered_comments(elements: Sequence[lxml.etree._Element]) -> bool:
    """Whether ``elements`` (or what they hold, what holds them, the element before them, see
    :data:`_IDS`) carry an id that anchors a numbered comment (:data:`_NUMBERED_COMMENT`): the
    readers' comments of a blog or news engine, which a forum's replies named comments (a
    Q&A page's, a Chinese forum's ``div.comment``) lack."""
    return any(_NUMBERED_COMMENT.search(i) for element in elements for i in _IDS(element))


def comment_forms(lines: PageLines) -> list[lxml.etree._Element]:
    """The page's forms to comment an article with (each ``<form>``, or a comment
    ``<textarea>`` or editor frame outside one; forms first, each kind in page order), read
    from the elements its walk gathered (``lines``, see :data:`_COMMENT_FORM_NAMES`)."""
    forms: list[lxml.etree._Element] = []
    for tag, names in _COMMENT_FORM_NAMES.items():
        for found in lines.elements.get(tag, ()):
            if "comment" not in " ".join(found.get(name) or "" for name in names).lower():
                continue
            form = found if tag == "form" else next(found.iterancestors("form"), found)
            if form not in forms:
                forms.append(form)
    return forms


def comment_blocks(text: str, lines: PageLines, *, formless: bool = False) -> list[lxml.etree._Element]:
    """The outermost elements named a comment (class or id) that hold lines of ``text``, on a
    page with a comment form: an article's comment section, its list, its form ("Leave a
    reply"); empty without a form. A forum names its replies comments too: the caller asks of
    a page that declares no thread and whose text it does not open (see
    :func:`without_parts`). ``formless``: on any page (one read as an article, whose comments
    may be closed), those that hold comments numbered as blog engines anchor them
    (``id="comment-24152"``); a Q&A page's comment list under its question does not."""
    if not formless and not comment_forms(lines):
        return []
    blocks = _outermost_named(text, lines, _is_comment_named)
    if formless:  # comments each anchored by number (``id="comment-24152"``), as blog engines write
        blocks = [block for block in blocks if numbered_comments([block])]
    return blocks


def without_parts(
    text: str,
    lines: PageLines,
    parts: Sequence[lxml.etree._Element],
    *,
    opening: bool = True,
    closing: bool = False,
) -> str:
    """``text`` (lines of the page) without the lines that lie in one of ``parts`` (an
    article's comments and comment form, see
    :func:`~forumcrawl.extractors.ksf_apply.comment_section`); a line the page does not have
    stays. ``opening=False``: a part that holds the text's first line stays whole (the text
    opens in it: it holds the article, or is the thread). ``closing``: only when the parts
    close the text (no line of it between the first and the last one in them lies outside
    them: comments below an article, not those under each answer of a Q&A page; a log-in
    prompt after the comments may follow: dragnet +0.0009, one page's comments cut, the other
    folders unchanged); else ``text`` as it is. A line the page does not have between them (a
    comment's footer lines a stage joined) goes with them (dragnet even ids +0.0031, odd
    unchanged, the other folders unchanged)."""
    if not parts:
        return text
    numbers = _line_numbers(text, lines)
    inside = set(parts)
    if not opening:
        first = next((lines.containers.get(n) for n in numbers if n is not None), None)
        held = {first, *first.iterancestors()} if first is not None else set()
        inside -= held
        if not inside:
            return text
    known: dict[lxml.etree._Element, lxml.etree._Element | None] = {}
    text_lines = text.split("\n")
    dropped = [
        number is not None and _topmost(lines.containers.get(number), inside.__contains__, known) is not None
        for number in numbers
    ]
    if closing and True in dropped:
        first, last = dropped.index(True), len(dropped) - dropped[::-1].index(True)
        if not all(
            drop or number is None or not line.strip()
            for drop, number, line in zip(dropped[first:last], numbers[first:last], text_lines[first:last])
        ):
            return text
        dropped[first:last] = [True] * (last - first)
    return "\n".join(line for line, drop in zip(text_lines, dropped) if not drop)


#: The auxiliary names :func:`without_aux` leaves in CX's text: a caption or a photo credit
#: describes a picture of the article, and the gold sets disagree on them (dragnet's,
#: readability-pages' and wcxb-dev's keep them, aeb-articles-en's leaves them out).
_CX_KEEPS = frozenset({"caption", "credit", "credits"})


def without_aux(text: str, lines: PageLines) -> str | None:
    """``text`` (lines of the page) without the lines that lie in a block an auxiliary class or
    id name marks (the author's box, comments, share, newsletter and "related" boxes, tags:
    :func:`~forumcrawl.extractors.dom_density.aux_name`) inside the element that holds all of
    ``text``, each name on its own, when its lines hold less than
    :data:`~forumcrawl.extractors.dom_density.AUX_MAX_SHARE` of the text's characters (a
    thread whose posts are named "comments" keeps them); None when no line goes.

    CX reads lines, not names: an article's container that holds the author's box or a
    newsletter call after the story gives CX one region of both. ``dom`` drops such blocks by
    the same names; this reads them for CX's text, once the arbiter has taken it. The nearest
    named block decides, so a caption inside an author's box is the box's. A related heading
    (:func:`~forumcrawl.extractors.dom_density.related_heading`) and the block after it go
    whatever their share, as ``dom`` drops them: the heading says what they are."""
    numbers = _line_numbers(text, lines)
    held = [lines.containers.get(n) if n is not None else None for n in numbers]
    known = [element for element in held if element is not None]
    top = common_ancestor(known) if len(known) > 1 else None
    if top is None:
        return None
    names: dict[lxml.etree._Element, str] = {top: ""}  # the text's own container names nothing
    kinds = ["" if element is None else _box_name(element, names) for element in held]
    kinds = ["" if kind in _CX_KEEPS else kind for kind in kinds]
    text_lines = text.split("\n")
    _mark_related(text_lines, held, top, kinds)
    if not any(kinds):
        return None
    chars = [visible_chars(line) for line in text_lines]
    named: dict[str, int] = {}
    for kind, count in zip(kinds, chars):
        if kind:
            named[kind] = named.get(kind, 0) + count
    limit = AUX_MAX_SHARE * sum(chars)
    dropped = {kind for kind, count in named.items() if count < limit or kind == _RELATED}
    if not dropped:
        return None
    return "\n".join(line for line, kind in zip(text_lines, kinds) if kind not in dropped)


#: The kind :func:`without_aux` gives a related heading's lines and those of the block it announces.
_RELATED = "related heading"
_LISTS = frozenset({"ul", "ol", "dl"})


def _mark_related(
    text_lines: Sequence[str],
    held: Sequence[lxml.etree._Element | None],
    top: lxml.etree._Element,
    kinds: list[str],
) -> None:
    """Give :data:`_RELATED` in ``kinds`` to each line of ``text_lines`` that is a related
    heading followed by the list it announces, and to the later lines inside that list: the
    block after the heading (its element's next sibling, that of the wrappers that hold the
    heading alone) when it is a list or has an auxiliary name (``promo``, ``related``: see
    :func:`~forumcrawl.extractors.dom_density.aux_name`). A heading followed by plain prose
    ("See also" over a paragraph, a "Read more" button inside a story) announces nothing the
    line can tell apart (held apart: one aeb-articles-en and one wcxb-dev page lost their
    last paragraphs to it). ``held``: each line's element (see
    :class:`~forumcrawl.extractors.cx.PageLines`), under ``top``."""
    for i, line in enumerate(text_lines):
        element = held[i]
        if element is None or not related_heading(line):
            continue
        heading = " ".join(line.split())
        while (parent := element.getparent()) is not None and parent is not top and _text(parent) == heading:
            element = parent
        announced = next((e for e in element.itersiblings() if isinstance(e.tag, str)), None)
        if announced is None or (announced.tag not in _LISTS and not aux_name(announced)):
            continue
        kinds[i] = _RELATED
        for j in range(i + 1, len(text_lines)):
            inner = held[j]
            if inner is not None and (inner is announced or announced in inner.iterancestors()):
                kinds[j] = _RELATED


def _box_name(element: lxml.etree._Element, names: dict[lxml.etree._Element, str]) -> str:
    """The auxiliary name of ``element`` or of its nearest named ancestor below the text's
    container, read from and kept in ``names`` (which holds that container: every element the
    caller asks of lies under it, and each ancestor is read once a text)."""
    walked = []
    while element not in names:
        kind = aux_name(element)
        if kind:
            names[element] = kind
            break
        walked.append(element)
        element = element.getparent()
    kind = names[element]
    for step in walked:
        names[step] = kind
    return kind


def common_ancestor(elements: Sequence[lxml.etree._Element]) -> lxml.etree._Element | None:
    """The deepest element that is or holds each of ``elements`` (None when they have none)."""
    chain = [elements[0], *elements[0].iterancestors()]
    depth = {element: i for i, element in enumerate(chain)}
    deepest = 0
    for element in elements[1:]:
        node: lxml.etree._Element | None = element
        while node is not None and node not in depth:
            node = node.getparent()
        if node is None:
            return None
        deepest = max(deepest, depth[node])
    return chain[deepest]


#: The numbers :func:`candidate_features` gives for one candidate, in order.
FEATURES = (
    "log_chars",
    "page_share",
    "link_share",
    "marker_recall",
    "marker_precision",
    "has_marker",
    "agree_recall",
    "agree_precision",
    "after_headline",
    "lines_share",
    "rel_chars",
)


def candidate_features(
    text: str,
    bag: Counter[str],
    evidence: Evidence,
    others: Sequence[Counter[str]],
    chars: int | None = None,
) -> list[float]:
    """One candidate's numbers (see :data:`FEATURES`); ``others`` are the other candidates' bags.

    ``agree_*``: how much of this candidate the others hold, and of them this one holds (the
    mean over the others); ``marker_*``: the same against the page's marker text; ``link_share``:
    the share of the candidate's lines that are mostly link text on the page; ``after_headline``:
    1 when the candidate's first line comes after the headline, 0 when before, 0.5 unknown.
    ``chars``: the text's :func:`visible_chars` when the caller has counted them.
    """
    if chars is None:
        chars = visible_chars(text)
    page_share = chars / evidence.text_chars if evidence.text_chars else 0.0
    cand_lines = [line for line in text.split("\n") if line.strip()]
    if evidence.marker_bag:
        marker_recall, marker_precision = token_agreement(evidence.marker_bag, bag)
    else:
        marker_recall = marker_precision = 0.0
    recalls, precisions = [], []
    for other in others:
        precision, recall = token_agreement(bag, other)
        precisions.append(precision)
        recalls.append(recall)
    after = 0.5
    if evidence.headline_line >= 0 and cand_lines:
        first = cand_lines[0].strip()
        try:
            where = evidence.lines.index(first)
        except ValueError:
            where = -1
        if where >= 0:
            after = 1.0 if where >= evidence.headline_line else 0.0
    return [
        math.log1p(chars),
        min(page_share, 2.0),
        _link_share(cand_lines, evidence),
        marker_recall,
        marker_precision,
        1.0 if evidence.marker_bag else 0.0,
        sum(recalls) / len(recalls) if recalls else 0.0,
        sum(precisions) / len(precisions) if precisions else 0.0,
        after,
        len(cand_lines) / max(len([x for x in evidence.lines if x]), 1),
        math.log((bag.total() + 1) / (max([o.total() for o in others] + [bag.total()]) + 1)),
    ]


def _link_share(cand_lines: Sequence[str], evidence: Evidence) -> float:
    """Share of the candidate's characters on lines the page shows mostly as links."""
    if not cand_lines or not evidence.link_lines:
        return 0.0
    total = sum(len(line) for line in cand_lines)
    linked = sum(len(line) for line in cand_lines if line.strip() in evidence.link_lines)
    return linked / total if total else 0.0


@dataclass
class Arbiter:
    """Logistic scores of candidates, one weight per feature of :data:`FEATURES` per stage.

    ``fit(X, y, stages)``: rows are candidates, ``y`` 1 for the candidate that scored best on its
    page; ``score`` gives each candidate's log-odds. Weights are kept as JSON (see
    :meth:`to_dict`), so running it needs no scikit-learn model file.
    """

    weights: dict[str, list[float]] = field(default_factory=dict)
    intercepts: dict[str, float] = field(default_factory=dict)
    C: float = 1.0
    #: KSF's posts win only when their :func:`thread_agreement` with ``dom``/``cx`` reaches
    #: this; set by ``benchmarks/holdout.py`` (the highest value that overrules no thread of
    #: the forum pages it was fit on where KSF scored as well as the alternative).
    thread_min: float = 0.0
    #: ``cx``'s text is taken whatever the scores when ``dom``'s holds less than this share of
    #: its words (see :meth:`apart`); set by ``benchmarks/holdout.py`` from a grid, for the best
    #: mean F1 over the folders it is fit on (0: never).
    apart_share: float = 0.0

    def fit(
        self,
        X: Sequence[Sequence[float]],
        y: Sequence[int],
        stages: Sequence[str],
        sample_weight: Sequence[float] | None = None,
    ) -> Arbiter:
        """Fit one logistic model over all candidates with stage-specific intercepts."""
        import numpy as np
        from sklearn.linear_model import LogisticRegression

        names = sorted(set(stages))
        onehot = [[1.0 if s == n else 0.0 for n in names] for s in stages]
        matrix = np.hstack([np.asarray(X, dtype=float), np.asarray(onehot)])
        model = LogisticRegression(C=self.C, max_iter=2000, fit_intercept=False)
        model.fit(matrix, np.asarray(y), sample_weight=sample_weight)
        coef = model.coef_[0]
        shared = [float(c) for c in coef[: len(FEATURES)]]
        self.weights = {name: shared for name in names}
        self.intercepts = {name: float(coef[len(FEATURES) + i]) for i, name in enumerate(names)}
        return self

    def score(self, features: Sequence[float], stage: str) -> float:
        """Log-odds that this candidate is the page's best."""
        weights = self.weights.get(stage)
        if weights is None:
            return float("-inf")
        return self.intercepts.get(stage, 0.0) + sum(w * f for w, f in zip(weights, features))

    def apart(self, cx: Counter[str], dom: Counter[str]) -> bool:
        """Whether ``dom``'s words (bag ``dom``) hold less than :attr:`apart_share` of ``cx``'s:
        the two stages found different text. Where they agree, ``dom``'s tighter region mostly
        wins; where they do not, ``dom`` has mostly locked onto another block (a lead, a teaser,
        a caption, one answer), and ``cx``'s run of text lines is the body. Two region finders
        that disagree is a pattern no weighted sum of each candidate's own numbers expresses:
        the weights are shared, so ``dom``'s share of ``cx`` and ``cx``'s of ``dom`` count the
        same."""
        return bool(cx) and token_agreement(cx, dom)[0] < self.apart_share

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready weights (see :func:`load_arbiter`)."""
        return {
            "features": list(FEATURES),
            "weights": self.weights,
            "intercepts": self.intercepts,
            "thread_min": self.thread_min,
            "apart_share": self.apart_share,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Arbiter:
        """The arbiter saved by :meth:`to_dict`; refuses weights fit on other features."""
        if list(data.get("features", ())) != list(FEATURES):
            raise ValueError("arbiter model was fit on other features")
        return cls(
            weights=dict(data["weights"]),
            intercepts=dict(data["intercepts"]),
            thread_min=float(data.get("thread_min", 0.0)),
            apart_share=float(data.get("apart_share", 0.0)),
        )


def load_arbiter(path: str | Path | None = None) -> Arbiter | None:
    """The shipped arbiter (or the one at ``path``); None when there is none."""
    target = Path(path) if path else DEFAULT_MODEL
    if not target.is_file():
        return None
    return Arbiter.from_dict(json.loads(target.read_text(encoding="utf-8")))
