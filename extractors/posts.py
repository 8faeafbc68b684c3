"""Post fields: selectors, a post's own text (no quotes, signatures, edit notices), floors.

These are the cheap per-page operations a learned KSF rule is applied with: compiled XPath over
the already-parsed tree and one pass over the text nodes of each post body. Nothing here learns;
:mod:`forumcrawl.extractors.ksf` decides which selectors to use.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import lxml.etree
from cssselect import GenericTranslator, SelectorError

from forumcrawl.extractors.text import trie_pattern

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from lxml.html import HtmlElement

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_EXCLUDE",
    "NOISE_TOKENS",
    "ATTRIBUTION_LINE",
    "QUOTE_HEAD",
    "compile_selector",
    "element_text",
    "element_texts",
    "is_quote",
    "own_text",
    "own_texts",
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
NOISE_TOKENS = (
    "quote", "bbcode_quote", "bbcodequote", "bbcode-quote", "quotecontent", "quote-content",
    "signature", "sign", "sig", "post-signature", "pstatus", "edit-info", "editinfo", "editnote",
    "edited", "lastedit", "last-edit", "notice",
)
#: Generic exclusions applied with every rule (the learned ones are added to these).
DEFAULT_EXCLUDE = ("blockquote", *(f"*.{t}" for t in NOISE_TOKENS))

_EDIT_NOTICE_RE = re.compile(
    r"^\s*(?:本帖最后由|本帖最後由|最后编辑|最後編輯|最后修改|last edited by|last edited|edited by"
    r"|edited \d+ times?|this post was edited|modifié par|zuletzt bearbeitet|editado por)",
    re.IGNORECASE,
)
_SIGNATURE_DELIMITER_RE = re.compile(r"^(?:--|-- |——|_{5,}|-{5,})\s*$")
# How every line the two patterns drop begins, after a line break: one scan of a text (a
# thread's posts joined) finds the texts with a line that needs the per-line test. Blanks are
# read up to the line's end only, and case only in the words, so most line breaks cost one test.
# On a text cleaned by _lines the same lines still start a line (without their blanks).
_NOTICE_LINE_RE = re.compile(
    r"\n[^\S\n]*(?:--|——|_{5,}|(?i:" + _EDIT_NOTICE_RE.pattern.removeprefix(r"^\s*") + "))"
)
# The first characters a line (stripped) can have for these two patterns to match it, in every
# case IGNORECASE matches (tests/test_ksf.py derives them from the patterns): the patterns are
# tried only on such lines, since a regex call per line is most of the cost of the line loop.
_DELIMITER_STARTS = frozenset("-—_")
_EDIT_NOTICE_STARTS = frozenset("本最ELMTZelmtz")

_FLOOR_WORDS = {"楼主": 1, "樓主": 1, "沙发": 2, "沙發": 2, "板凳": 3, "地板": 4}
_FLOOR_WORD_TUPLE = tuple(_FLOOR_WORDS)  # one startswith() call for the common miss
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
    if label.startswith(_FLOOR_WORD_TUPLE):
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
        # lxml registers the EXSLT regexp functions on every call unless told they are unused.
        return lxml.etree.XPath(expression, regexp="re:" in expression)
    except lxml.etree.XPathSyntaxError as exc:
        raise ValueError(f"invalid XPath {expression!r}: {exc}") from exc


_SIMPLE_CSS_RE = re.compile(r"^(\*|[A-Za-z][\w-]*)?((?:\.-?[A-Za-z_][\w-]*)*)$")


@dataclass(frozen=True, slots=True)
class _Exclusion:
    """An exclusion list split into what plain Python tests cheaply and what needs XPath.

    ``tag`` and ``tag.class`` selectors (all the defaults and most learned ones) are matched on
    each descendant's tag and class tokens; an XPath call per post body costs more than the walk.
    """

    tags: frozenset[str]
    #: The ``tag.class`` entries ``(tag or None, classes needed)``, filed under one class each
    #: needs (its first in sorted order): an element can only match the entries filed under one
    #: of its own classes, not all eighteen defaults.
    by_class: Mapping[str, tuple[tuple[str | None, frozenset[str]], ...]]
    xpath: lxml.etree.XPath | None
    #: ``<tag`` for each of ``tags``: how their start tags begin in serialised markup.
    marks: tuple[str, ...] = ()
    #: Words one of which a body's lower-cased markup holds when anything can be excluded in
    #: it (``None``: cannot tell, always look), see :func:`_hints`.
    hints: tuple[str, ...] | None = None
    #: The marks whose tag holds a hint word: with one of them in the markup, so is the word.
    hinted_marks: tuple[str, ...] = ()

    def may_find(self, markup: str, inner_class: bool) -> bool:
        """A necessary condition for :meth:`find` to find anything in a serialised element:
        the start tag of an excluded tag, or a ``class`` attribute below the element (see
        :func:`_inner_class`). Most post bodies have neither; this costs a few substring
        searches where the word hints cost a lower-casing and a dozen searches."""
        if self.xpath is not None or (inner_class and self.by_class):
            return True
        return any(map(markup.__contains__, self.marks))

    def may_hold(self, element: HtmlElement, markup: str) -> bool:
        """Whether :meth:`find` may find anything in ``element`` (serialised as ``markup``):
        :meth:`may_find`, then the word hints (see :func:`_hints`)."""
        if self.hints is None:
            return True
        if not self.may_find(markup, _inner_class(element, markup)):
            return False
        if any(map(markup.__contains__, self.hinted_marks)):
            return True
        lower = markup.lower()
        return any(w in lower for w in self.hints)

    def find(self, element: HtmlElement, *, inner_class: bool = True) -> list[HtmlElement]:
        """Outermost excluded elements below ``element``, in document order.

        ``inner_class=False`` says no element below carries a class attribute: only the
        excluded tags can match then, and lxml filters them without a Python test per element.
        """
        if not inner_class and self.xpath is None:
            return _outermost(list(element.iterdescendants(*self.tags))) if self.tags else []
        others = set(self.xpath(element)) if self.xpath is not None else ()
        by_class = self.by_class
        found = []
        for el in element.iterdescendants():
            tag = el.tag
            if not isinstance(tag, str):
                continue
            if tag in self.tags or el in others:
                found.append(el)
                continue
            classes = el.get("class")
            if classes and by_class:
                tokens = set(classes.split())
                if any(
                    (t is None or t == tag) and need <= tokens
                    for token in tokens
                    for t, need in by_class.get(token, ())
                ):
                    found.append(el)
        return _outermost(found)


@lru_cache(maxsize=512)
def _exclusion(exclude: tuple[str, ...]) -> _Exclusion:
    tags: set[str] = set()
    by_class: dict[str, list[tuple[str | None, frozenset[str]]]] = {}
    conditions: list[str] = []
    for selector in exclude:
        m = None if is_xpath(selector) else _SIMPLE_CSS_RE.match(selector)
        if m and (m.group(1) or m.group(2)):
            tag = None if m.group(1) in {None, "*"} else m.group(1).lower()
            need = frozenset(m.group(2).split(".")[1:])
            if need:
                by_class.setdefault(min(need), []).append((tag, need))
            elif tag:
                tags.add(tag)
        elif is_xpath(selector):
            conditions.append(f"({selector})")
        else:
            conditions.append(f"({_translator.css_to_xpath(selector, prefix='self::')})")
    expression = f"descendant::*[{' or '.join(conditions)}]"
    xpath = lxml.etree.XPath(expression, regexp="re:" in expression) if conditions else None
    hints = _hints(exclude)
    hinted = [
        tag for tag in sorted(tags) if tag.isascii() and hints and any(w in tag for w in hints)
    ]
    return _Exclusion(
        frozenset(tags),
        {token: tuple(entries) for token, entries in by_class.items()},
        xpath,
        marks=tuple(f"<{tag}" for tag in sorted(tags)),
        hints=hints,
        hinted_marks=tuple(f"<{tag}" for tag in hinted),
    )


def _inner_class(element: HtmlElement, markup: str) -> bool:
    """Whether an element below ``element`` may carry a (non-empty) class attribute, read off
    the element's serialised ``markup``: each such attribute is written ``class=`` with a
    quoted value, so the markup holds that text more often than the element's own class does.
    Text or other attributes that contain it only make the answer a safe yes."""
    if not element.get("class"):
        return "class=" in markup
    first = markup.find("class=")
    return first >= 0 and markup.find("class=", first + 1) >= 0


def _outermost(elements: list[HtmlElement]) -> list[HtmlElement]:
    """Drop elements nested in another element of the list (document order kept)."""
    if len(elements) < 2:
        return elements
    chosen = set(elements)
    return [el for el in elements if not any(a in chosen for a in el.iterancestors())]


# Serialised markup of a tree parsed as HTML has lower-case tag names (libxml2's HTML parser
# lower-cases them), so the tag patterns need no IGNORECASE, which costs a third of a scan.
_BLOCK_TAG_RE = re.compile(
    r"<(?:/?" + trie_pattern(set(BLOCK_TAGS - {"br"})) + r"\b[^>]*|br\b[^>]*)>"
)
_HIDDEN_RE = re.compile(r"<(script|style|noscript|button)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]*>")


def _markup(element: HtmlElement) -> str:
    return lxml.etree.tostring(element, method="html", encoding="unicode", with_tail=False)


#: Put before a line of a code block that looks like a signature delimiter (``-----`` in a
#: diff, a table rule, a command's output), so that :func:`strip_notices` does not cut the post
#: there; :func:`_lines` removes it with the other invisible characters. A private-use
#: character, which no page text holds.
_CODE_MARK = "\ue001"
_CODE_BLOCK_RE = re.compile(r"<(pre|code)\b.*?</\1\s*>", re.DOTALL)
_CODE_DELIMITER_RE = re.compile(r"(^|\n|<br\b[^>]*>)([^\S\n]*)(?=--|——|__)")
#: A copy button's label in or beside a code block (Discuz's ``<em onclick="copycode(…)">``,
#: a blog's "Copy code" span): a control, not the post's words. ``<button>`` is dropped anyway.
_COPY_LABEL_RE = re.compile(
    r"<(em|span|a|div|small|i|b|p)\b[^>]*>[^\S\n]*(?:copy(?: code| to clipboard)?|copied!?|复制代码|複製代碼"
    r"|code kopieren|copier le code|copiar c[oó]digo)[^\S\n]*</\1\s*>",
    re.IGNORECASE,
)


#: A code block's caption, an element of its own before the code: "Code:" (vBulletin, XenForo,
#: a generated forum's "代码:"), phpBB's "Code: <a>Select all</a>". The engine's, not the post's.
_CODE_CAPTION_RE = re.compile(
    r"<(span|div|dt|p|strong|b|em|small|h4)\b[^>]*>[^\S\n]*(?:code|代码|代碼|quellcode|c[oó]digo)[^\S\n]*[:：]"
    r"[^\S\n]*(?:<a\b[^>]*>[^<]{0,20}</a>[^\S\n]*)?</\1\s*>",
    re.IGNORECASE,
)


def _code_blocks(markup: str) -> str:
    """``markup`` with its code blocks' delimiter-like lines marked (:data:`_CODE_MARK`) and
    its copy buttons' labels and code captions taken out, when it holds code (else as it is)."""
    if "<pre" not in markup and "<code" not in markup and "copy" not in markup and "复制" not in markup:
        return markup
    if "<pre" in markup or "<code" in markup:
        markup = _CODE_CAPTION_RE.sub("", _CODE_BLOCK_RE.sub(
            lambda block: _CODE_DELIMITER_RE.sub(rf"\1\2{_CODE_MARK}", block.group()), markup
        ))
    return _COPY_LABEL_RE.sub("", markup)


def _markup_text(markup: str) -> str:
    """Text of serialised markup: one C-level pass instead of a tree walk."""
    if "<script" in markup or "<style" in markup or "<noscript" in markup or "<button" in markup:
        markup = _HIDDEN_RE.sub("", markup)
    return html.unescape(_TAG_RE.sub("", _BLOCK_TAG_RE.sub("\n", _code_blocks(markup))))


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
    return element_texts([element], exclude)[0]


# Between the texts of a batch read in one pass. Tree text holds no NUL (the HTML parser turns
# it into U+FFFD, lxml refuses it in text set by hand), and no tag, entity or line of text spans
# a line break, so the batch splits back exactly.
_SEPARATOR = "\n\x00\n"
#: The line left where a quote was taken out of a body (a private-use character, which no page
#: text holds and the line clean-up keeps), read back as the quote's place and then removed.
_QUOTE_MARK = "\ue000"


_QUOTE_XPATH = lxml.etree.XPath(
    "boolean(descendant-or-self::*[self::blockquote or self::q"
    " or contains(translate(@class, 'QUOTE', 'quote'), 'quote')])",
    regexp=False,
)


#: How a quote's attribution opens it, in the words of common engines and languages.
QUOTE_HEAD = re.compile(
    r"(?:quote:|originally posted by|quote from|quoting|zitat(?: von)?|citation|cita de|引用"
    r"|[^:\n]{1,40}?\b(?:wrote|said|schrieb|a écrit|escribió)\s*:|[^:\n]{1,40}?(?:写道|發表於|发表于))",
    re.IGNORECASE,
)


def is_quote(element: HtmlElement, text: str = "") -> bool:
    """Whether an excluded element (of text ``text``) quotes another post: it is or holds a
    ``blockquote``, ``q`` or an element whose class says "quote" (Discuz ``div.quote``,
    vBulletin ``div.bbcode_quote`` in its ``div.bbcode_container``, Discourse ``aside.quote``),
    or its text opens with an attribution (vBulletin 3's "Originally Posted by"), where a
    signature or an edit notice does neither."""
    return bool(_QUOTE_XPATH(element)) or bool(QUOTE_HEAD.match(text.lstrip()))


#: A paragraph that says whose words the quote after it are, written outside the quote
#: (NodeBB's ``<p>@user said in Topic:</p><blockquote>``, a blog's "Bob wrote:").
ATTRIBUTION_LINE = re.compile(
    r"(?:[^\n]{1,80}?\b(?:said|wrote|says|writes|schrieb|a écrit|escribió|ha scritto)\b[^\n]{0,160}"
    r"|[^\n]{1,60}?(?:写道|寫道|發表於|发表于|说)[^\n]{0,80})[:：]",
    re.IGNORECASE,
)


def _without_attribution(text: str, quote: str) -> tuple[str, str]:
    """``text`` without the line right before ``quote`` when that line is the quote's
    attribution (:data:`ATTRIBUTION_LINE`), and that line ("" when there is none): it goes
    with the quote, not with the reply's own words."""
    at = text.find(quote)
    if at <= 0:
        return text, ""
    before = text[:at].rstrip()
    start = before.rfind("\n") + 1
    head = before[start:].strip()
    if not head or ATTRIBUTION_LINE.fullmatch(head) is None:
        return text, ""
    return before[:start] + "\n" + text[at:], head


def element_texts(
    elements: Sequence[HtmlElement],
    exclude: Sequence[str] = (),
    quotes: list[list[str]] | None = None,
) -> list[str]:
    """:func:`element_text` of each of ``elements`` (a page's post bodies). The markup of the
    bodies with nothing to exclude is read in one pass: the regex and str calls per post cost
    more than their scans. With ``quotes``, the text of each body's excluded quotes
    (:func:`is_quote`) is appended to it, one list per body."""
    return [text.replace(_CODE_MARK, "") for text in _marked_texts(elements, exclude, quotes)]


def _marked_texts(
    elements: Sequence[HtmlElement],
    exclude: Sequence[str] = (),
    quotes: list[list[str]] | None = None,
) -> list[str]:
    """:func:`element_texts` with the code blocks' delimiter-like lines marked (see
    :data:`_CODE_MARK`), for :func:`strip_notices`."""
    markups = [_markup(element) for element in elements]
    texts = [""] * len(markups)
    plain = []
    exclusion = _exclusion(tuple(exclude)) if exclude else None
    for i, markup in enumerate(markups):
        quoted: list[str] = []
        if quotes is not None:
            quotes.append(quoted)
        if exclusion is None or not exclusion.may_hold(elements[i], markup):
            plain.append(i)
            continue
        text = _markup_text(markup)
        for part in exclusion.find(elements[i], inner_class=_inner_class(elements[i], markup)):
            inner = _markup_text(_markup(part))
            if inner.strip():
                if quotes is not None and is_quote(part, inner):
                    text, head = _without_attribution(text, inner)
                    text = text.replace(inner, f"\n{_QUOTE_MARK}\n", 1)
                    quoted.append(_lines(f"{head}\n{inner}" if head else inner))
                else:
                    text = text.replace(inner, "\n", 1)
        texts[i] = text
    if len(plain) == 1:
        texts[plain[0]] = _markup_text(markups[plain[0]])
    elif plain:
        joined = _markup_text(_SEPARATOR.join([markups[i] for i in plain]))
        for i, text in zip(plain, joined.split(_SEPARATOR)):
            texts[i] = text
    return texts


def strip_notices(text: str) -> str:
    """Drop edit-notice lines and everything after a signature delimiter (``--``)."""
    if _NOTICE_LINE_RE.search("\n" + text) is None:
        return text
    kept: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        first = stripped[:1]
        if kept and first in _DELIMITER_STARTS and _SIGNATURE_DELIMITER_RE.match(stripped):
            break
        if first in _EDIT_NOTICE_STARTS and _EDIT_NOTICE_RE.match(line):
            continue
        kept.append(line)
    return "\n".join(kept)


def own_text(element: HtmlElement, exclude: Sequence[str] = DEFAULT_EXCLUDE) -> str:
    """A post body's own words: no quotes, signatures or edit notices, one line per paragraph.

    Blank lines are left to separate posts in a thread's whole text.
    """
    return own_texts([element], exclude)[0]


def own_texts(
    elements: Sequence[HtmlElement],
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    quotes: list[list[str]] | None = None,
    quote_at: list[list[int]] | None = None,
) -> list[str]:
    """:func:`own_text` of each of ``elements``, the line clean-up done in one pass (see
    :func:`element_texts`, also for ``quotes``). With ``quotes`` and ``quote_at``, where each
    quote stood in its body's own text: the offset of the line it came before (the text's
    length after the last), one list per body, so that the page's text can show it there."""
    first = len(quotes) if quotes is not None else 0  # the lists element_texts adds
    texts = _marked_texts(elements, exclude, quotes)
    if len(texts) < 2:
        parts = [_lines(strip_notices(text)) for text in texts]
    else:
        cleaned = _lines(_SEPARATOR.join(texts))
        parts = [part.strip("\n") for part in cleaned.split("\x00")]
        # A line strip_notices drops starts a line of the cleaned text too: only the texts with
        # such a line start are read again, one by one.
        for i in {cleaned.count("\x00", 0, m.start()) for m in _NOTICE_LINE_RE.finditer("\n" + cleaned)}:
            parts[i] = _lines(strip_notices(texts[i]))
    if quotes is None:
        return parts
    own = []
    for part, quoted in zip(parts, quotes[first:]):
        text, places = _unmarked(part)
        # A quote whose place did not survive (cut with a signature, or not found in the body's
        # text) goes first: where replies put their quotes.
        places += [0] * (len(quoted) - len(places))
        if quote_at is not None:
            quote_at.append(places[: len(quoted)])
        own.append(text)
    return own


def _unmarked(text: str) -> tuple[str, list[int]]:
    """``text`` without its quote marks, and the offset in it of the line after each mark."""
    if _QUOTE_MARK not in text:
        return text, []
    kept: list[str] = []
    places: list[int] = []
    at = 0
    for line in text.split("\n"):
        if line.strip() == _QUOTE_MARK:
            places.append(at)
            continue
        line = line.replace(_QUOTE_MARK, "").strip()
        if line:
            kept.append(line)
            at += len(line) + 1
    own = "\n".join(kept)
    return own, [min(place, len(own)) for place in places]


_INVISIBLE_RE = re.compile(f"[\u200b\u200c\u200d\u2060\ufeff\u00ad{_CODE_MARK}]")


def _lines(text: str) -> str:
    """``normalise(text)`` with paragraph breaks as single newlines, in str methods only.

    Equal to ``normalise(text).replace("\\n\\n", "\\n")``: its blank-collapsing regex tests every
    character's Unicode class and costs more than all the rest of a post's text extraction.
    """
    if not text:
        return ""
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():  # composition and the invisible characters concern no ASCII text
        text = _INVISIBLE_RE.sub("", unicodedata.normalize("NFC", text))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(filter(None, map(" ".join, map(str.split, text.split("\n")))))
