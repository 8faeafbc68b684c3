"""Post fields: selectors, a post's own text (no quotes, signatures, edit notices), floors.

These are the cheap per-page operations a learned KSF rule is applied with: compiled XPath over
the already-parsed tree and one pass over the text nodes of each post body. Nothing here learns;
:mod:`forumcrawl.extractors.ksf` decides which selectors to use.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING

import lxml.etree
from cssselect import GenericTranslator, SelectorError

from forumcrawl.extractors.text import normalise

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lxml.html import HtmlElement

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_EXCLUDE",
    "compile_selector",
    "element_text",
    "own_text",
    "parse_floor",
    "strip_notices",
]

#: Elements that start a new line of text (HTML block and table elements, plus ``br``).
BLOCK_TAGS = frozenset(
    "address article aside blockquote body br center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html li main menu nav ol p pre "
    "section summary table tbody td tfoot th thead tr ul caption".split()
)
#: Elements whose text is never content.
SKIP_TAGS = frozenset("script style noscript template select option textarea button svg".split())

#: Class tokens forum engines give to quoted posts, signatures and edit notices (Discuz
#: ``div.quote``/``i.pstatus``/``div.sign``, phpBB ``div.signature``/``div.notice``, vBulletin
#: ``div.bbcode_quote``, XenForo ``bbCodeQuote``, machina ``div.edit-info``, …).
_NOISE_TOKENS = (
    "quote", "bbcode_quote", "bbcodequote", "bbcode-quote", "quotecontent", "quote-content",
    "signature", "sign", "sig", "post-signature", "pstatus", "edit-info", "editinfo", "editnote",
    "edited", "lastedit", "last-edit", "notice",
)
#: Generic exclusions applied with every rule (the learned ones are added to these).
DEFAULT_EXCLUDE = ("blockquote", *(f"*.{t}" for t in _NOISE_TOKENS))

_EDIT_NOTICE_RE = re.compile(
    r"^\s*(?:本帖最后由|本帖最後由|最后编辑|最後編輯|最后修改|last edited by|last edited|edited by"
    r"|edited \d+ times?|this post was edited|modifié par|zuletzt bearbeitet|editado por)",
    re.IGNORECASE,
)
_NOTICE_HINTS = ("--", "——", "__", "edit", "编辑", "編輯", "最后", "最後", "bearbeitet", "modifi")
_SIGNATURE_DELIMITER_RE = re.compile(r"^(?:--|-- |——|_{5,}|-{5,})\s*$")

_FLOOR_WORDS = {"楼主": 1, "樓主": 1, "沙发": 2, "沙發": 2, "板凳": 3, "地板": 4}
_FLOOR_RE = re.compile(
    r"^(?:#\s*(?P<a>\d{1,6})|(?P<b>\d{1,6})\s*(?:#|楼|樓|f|l)|第\s*(?P<c>\d{1,6})\s*[楼樓]"
    r"|(?:post|reply|floor)\s*#?\s*(?P<d>\d{1,6}))$",
    re.IGNORECASE,
)

_translator = GenericTranslator()


def parse_floor(text: str) -> int | None:
    """Floor number of a short label: ``#12``, ``12#``, ``12楼``, ``第12楼``, ``楼主`` → 1, ``沙发`` → 2.

    Examples
    --------
    >>> [parse_floor(t) for t in ("#12", "12楼", "沙发", "Post #3", "Posts: 64")]
    [12, 12, 2, 3, None]
    """
    label = " ".join(text.split())
    if not label or len(label) > 16:
        return None
    for word, floor in _FLOOR_WORDS.items():
        if label.startswith(word):
            return floor
    m = _FLOOR_RE.match(label)
    if not m:
        return None
    return int(next(g for g in m.groups() if g is not None))


def is_xpath(selector: str) -> bool:
    """Selectors starting with ``/``, ``.`` or ``(`` are XPath; anything else is CSS."""
    return selector[:1] in {"/", ".", "("}


@lru_cache(maxsize=4096)
def compile_selector(selector: str, *, relative: bool = False) -> lxml.etree.XPath:
    """Compile a CSS or XPath selector once; ``relative`` CSS matches below the context node.

    Raises ``ValueError`` for a selector that is neither valid CSS nor valid XPath.
    """
    if is_xpath(selector):
        expression = selector
    else:
        prefix = "descendant::" if relative else "descendant-or-self::"
        try:
            expression = _translator.css_to_xpath(selector, prefix=prefix)
        except SelectorError as exc:
            raise ValueError(f"invalid CSS selector {selector!r}: {exc}") from exc
    try:
        return lxml.etree.XPath(expression)
    except lxml.etree.XPathSyntaxError as exc:
        raise ValueError(f"invalid XPath {expression!r}: {exc}") from exc


@lru_cache(maxsize=512)
def _exclude_xpath(exclude: tuple[str, ...]) -> lxml.etree.XPath:
    """The excluded elements below a post body (outermost ones only)."""
    conditions = []
    for selector in exclude:
        xp = selector if is_xpath(selector) else _translator.css_to_xpath(selector, prefix="self::")
        conditions.append(f"({xp})")
    predicate = " or ".join(conditions) or "false()"
    return lxml.etree.XPath(f"descendant::*[{predicate}][not(ancestor::*[count(ancestor::*) >= $depth][{predicate}])]")


_BLOCK_TAG_RE = re.compile(
    r"<(?:/?(?:" + "|".join(sorted(BLOCK_TAGS - {"br"})) + r")\b[^>]*|br\b[^>]*)>", re.IGNORECASE
)
_HIDDEN_RE = re.compile(r"<(script|style|noscript|button)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]*>")


def _markup(element: HtmlElement) -> str:
    return lxml.etree.tostring(element, method="html", encoding="unicode", with_tail=False)


def _markup_text(markup: str) -> str:
    """Text of serialised markup: one C-level pass instead of a tree walk."""
    if "<script" in markup or "<style" in markup or "<noscript" in markup or "<button" in markup:
        markup = _HIDDEN_RE.sub("", markup)
    return html.unescape(_TAG_RE.sub("", _BLOCK_TAG_RE.sub("\n", markup)))


@lru_cache(maxsize=512)
def _hints(exclude: tuple[str, ...]) -> tuple[str, ...] | None:
    """Words one of which must appear in a body's markup for an exclusion to match in it."""
    words: set[str] = set()
    for selector in exclude:
        if is_xpath(selector):
            return None  # cannot tell: always evaluate
        words.update(w.lower() for w in re.findall(r"[A-Za-z][\w-]*", selector) if w != "id")
    # A word contained in another one is enough on its own ("sig" covers "signature").
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))




def element_text(element: HtmlElement, exclude: Sequence[str] = ()) -> str:
    """Text of ``element`` with line breaks at block boundaries, without ``exclude``d parts.

    Exclusions are CSS selectors (or XPath predicates on ``self::``) for elements *inside*
    ``element``; the element itself is never excluded. Excluded parts are cut out of the text
    of the whole, which serialises both the same way.
    """
    markup = _markup(element)
    text = _markup_text(markup)
    hints = _hints(tuple(exclude)) if exclude else None
    if exclude and (hints is None or any(w in markup.lower() for w in hints)):
        depth = sum(1 for _ in element.iterancestors()) + 1
        for part in _exclude_xpath(tuple(exclude))(element, depth=depth):
            inner = _markup_text(_markup(part))
            if inner.strip():
                text = text.replace(inner, "\n", 1)
    return text


def strip_notices(text: str) -> str:
    """Drop edit-notice lines and everything after a signature delimiter (``--``)."""
    lower = text.lower()
    if not any(h in lower for h in _NOTICE_HINTS):
        return text
    kept: list[str] = []
    for line in text.split("\n"):
        if kept and _SIGNATURE_DELIMITER_RE.match(line.strip()):
            break
        if _EDIT_NOTICE_RE.match(line):
            continue
        kept.append(line)
    return "\n".join(kept)


def own_text(element: HtmlElement, exclude: Sequence[str] = DEFAULT_EXCLUDE) -> str:
    """A post body's own words: no quotes, signatures or edit notices, one line per paragraph.

    Blank lines are left to separate posts in a thread's whole text.
    """
    return normalise(strip_notices(element_text(element, exclude))).replace("\n\n", "\n")
