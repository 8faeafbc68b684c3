"""One page, decoded and parsed once, shared by every extractor.

Decoding follows the order browsers use (BOM, HTTP header, ``<meta>``), then checks the result
statistically, because forum pages often declare one charset and are served in another (a GB2312
header on UTF-8 bytes, no declaration at all on Big5 pages). GB2312 and GBK are read as GB18030,
their superset. Parsing is lazy: an extractor that only needs text lines pays for no DOM.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from copy import deepcopy as copy_tree
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar
from urllib.parse import urlsplit

import lxml.etree
import lxml.html
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
)

T = TypeVar("T")

__all__ = ["DEFAULT_MAX_BYTES", "Document", "DocumentError", "decode_html", "site_of"]

#: Pages larger than this are refused before decoding (a forum page is rarely above 2 MB; 20 MB
#: leaves room for huge single-page threads while keeping one page's parse under a second).
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

_BINARY_MAGIC = (
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"%PDF",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BZh",
    b"\x7fELF",
    b"RIFF",
    b"OggS",
    b"ID3",
    b"\x00\x00\x01\x00",
)
# The most frequent Chinese characters, simplified and traditional: text decoded with the right
# codec is full of them, text decoded with a wrong CJK codec almost never is.
_COMMON_HANZI = frozenset(
    "的一是不了在人有我他这這个個们們中来來上大为為和国國地到以说說时時要就出也得里裏后後自会會"
    "可下而过過天去能对對小多然于於心学學么麼之都好看起发發当當没沒成只如事把还還用第样樣道想作"
    "种種开開美总總从從无無情己面最女但现現前些所同日手又行意动動方期它头頭经經长長儿兒回位分爱愛"
    "老因很给給名法间間斯知世什两兩次使身者被高已亲親其进進此话話常与與活正感見见明問问力理尔爾"
    "点點文几幾定本公特做外孩相西果走将將月十实實向声聲车車全信重三机機工物气氣每并並别別真打太新"
    "比才便夫再书書部水像眼等体體却卻加电電主界门門利海受听聽表德少克代员員许許稜先口由死安写寫性"
    "马馬光白或住难難望教命花结結乐樂色更拉东東神记記处處让讓母父应應直字场場平报報友关關放至张張"
    "认認接告入笑内英军軍候民岁歲往何度山觉覺路带帶万萬男边邊风風解叫任金快原吃妈媽变變通师師立象"
    "数數四失满滿战戰远遠格士音轻輕目条條呢帖回覆楼樓贴貼论論坛壇"
)
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_CJK_CODECS = ("gb18030", "big5hkscs")
#: Share of common characters below which a CJK decoding is taken for mojibake. Chinese prose has
#: 40-70 % of its characters in the list above; Latin-1 bytes read as GB18030 or Big5 under 5 %.
_MIN_PLAUSIBILITY = 0.2
_XML_DECL_RE = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
#: Every element is an ``HtmlElement`` (all of lxml.html's methods), chosen by lxml in C. The
#: parser's default lookup is a Python method run for each element an extractor touches (about
#: 0.5 µs each, 10-15 % of DOM density's time); its tag-specific classes (form, input, select)
#: offer form-filling helpers no extractor uses.
_ELEMENT_CLASSES = lxml.etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)
_CONTROL_BYTES = bytes((*range(9), *range(14, 32)))
#: Each thread's parsers (for text, and for UTF-8 bytes), reused: a new one costs a new libxml2
#: parser context, 2-3 % of a parse. Per thread, as lxml serialises the threads sharing a parser.
_PARSERS = threading.local()


class DocumentError(ValueError):
    """The bytes are not an HTML page we can read (binary, too large, undecodable)."""


def _codec(name: str | None) -> str | None:
    """Map a declared charset to the Python codec we read it with (GB2312/GBK → GB18030)."""
    if not name:
        return None
    resolved = resolve_encoding(name)
    if resolved is None:
        return None
    if resolved in {"gb2312", "gbk", "gb18030", "euc_cn", "hz"}:
        return "gb18030"
    if resolved in {"big5", "big5hkscs", "cp950"}:
        return "big5hkscs"
    return resolved


def _strict(body: bytes, codec: str) -> str | None:
    try:
        return body.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _cjk_plausibility(text: str) -> float:
    """Share of CJK characters in ``text`` that are among the most common ones."""
    cjk = _CJK_RE.findall(text)
    if not cjk:
        return 0.0
    return sum(ch in _COMMON_HANZI for ch in cjk) / len(cjk)


def _looks_binary(head: bytes) -> bool:
    if head.startswith(_BINARY_MAGIC):
        return True
    if b"\x00" in head:
        # UTF-16 pages carry NULs too, but they start with a BOM, checked before this.
        return True
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))  # one pass, not one per byte
    return controls > len(head) // 10


def decode_html(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """Decode page bytes, returning ``(text, codec)``.

    Bytes that are valid UTF-8 with non-ASCII content are UTF-8 whatever the declaration says
    (false positives are vanishingly rare). A declared non-CJK charset is trusted when the bytes
    decode cleanly with it. Otherwise GB18030 and Big5 compete on how many of the decoded
    characters are common Chinese characters; when neither reads as Chinese, a declared CJK
    charset that decodes cleanly is kept, else the bytes are Windows-1252 (the web's default).
    """
    text, codec, _ = _decode(body, content_type)
    return text, codec


def _decode(body: bytes, content_type: str | None) -> tuple[str, str, bool]:
    """:func:`decode_html`, and whether the text is ``body`` read as UTF-8 as it is (ASCII or
    strict UTF-8, no BOM): then libxml2 can parse the bytes themselves."""
    bom_codec, bom = read_bom(body)
    if bom_codec:
        codec = _codec(bom_codec) or bom_codec
        return body[len(bom) :].decode(codec, errors="replace"), codec, False
    if _looks_binary(body[:2048]):
        raise DocumentError("binary body (not HTML)")
    is_ascii = body.isascii()
    if not is_ascii:  # before reading the declaration, which UTF-8 overrides
        utf8 = _strict(body, "utf-8")
        if utf8 is not None:
            return utf8, "utf-8", True
    declared = _codec(http_content_type_encoding(content_type)) if content_type else None
    declared = declared or _codec(html_body_declared_encoding(body))
    if is_ascii:
        return body.decode("ascii"), declared or "ascii", True
    if declared and declared not in _CJK_CODECS:
        text = _strict(body, declared)
        if text is not None:
            return text, declared, False
    clean = {c: t for c in _CJK_CODECS if (t := _strict(body, c)) is not None}
    if clean:
        # Once per codec: each is a pass over the page's CJK characters.
        plausible = {c: _cjk_plausibility(t) for c, t in clean.items()}
        best = max(clean, key=lambda c: (plausible[c], c == declared))
        if plausible[best] >= _MIN_PLAUSIBILITY:
            return clean[best], best, False
        if declared in clean:
            return clean[declared], declared, False
    if declared in _CJK_CODECS:
        # A CJK page with a few bad bytes (a truncated character, a stray byte) is still that page.
        lossy_cjk = body.decode(declared, errors="replace")
        if lossy_cjk.count("\ufffd") <= len(lossy_cjk) // 200 and _cjk_plausibility(lossy_cjk) >= _MIN_PLAUSIBILITY:
            return lossy_cjk, declared, False
    western = _strict(body, "cp1252")
    if western is not None:
        return western, "cp1252", False
    fallback = declared or "cp1252"
    lossy = {c: body.decode(c, errors="replace") for c in dict.fromkeys((fallback, *_CJK_CODECS))}
    best = min(lossy, key=lambda c: (lossy[c].count("\ufffd"), -_cjk_plausibility(lossy[c])))
    return lossy[best], best, False


def site_of(url: str) -> str:
    """Lower-case ``host[:port]`` of ``url`` (the port kept when given: two forums can share a host)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


def _parser(encoding: str | None = None) -> lxml.html.HTMLParser:
    """This thread's parser for text, or for bytes in ``encoding`` (see :data:`_PARSERS`)."""
    parsers: dict[str | None, lxml.html.HTMLParser] = _PARSERS.__dict__.setdefault("parsers", {})
    parser = parsers.get(encoding)
    if parser is None:
        parser = lxml.html.HTMLParser(
            remove_comments=True, remove_pis=True, collect_ids=False, encoding=encoding
        )
        parser.set_element_class_lookup(_ELEMENT_CLASSES)
        parsers[encoding] = parser
    return parser


def _parse(html: str, utf8: bytes | None = None) -> lxml.html.HtmlElement | None:
    """The tree of ``html`` (None when empty or unreadable). ``utf8``, when given, is the same
    text as UTF-8 bytes without NUL: libxml2 parses them as they are, where it converts text
    first (an eighth to a fifth of a parse), and they need no search for NULs (lxml reads one as
    U+FFFD)."""
    if utf8 is None and "\x00" in html:
        html = html.replace("\x00", "")
    if not html.strip():
        return None
    try:
        if utf8 is not None and not _XML_DECL_RE.match(html):
            return lxml.html.document_fromstring(utf8, parser=_parser("utf-8"))
        return lxml.html.document_fromstring(html, parser=_parser())
    except ValueError:
        # lxml refuses text that still carries an XML encoding declaration; drop it and retry.
        stripped = _XML_DECL_RE.sub("", html, count=1)
        if stripped == html:
            return None
        return _parse(stripped)
    except lxml.etree.ParserError:
        return None


def _child_steps(element: lxml.etree._Element, root: lxml.etree._Element) -> list[int] | None:
    """The child places that lead from ``root`` down to ``element`` (None when ``element`` is
    not under ``root``): the same places lead to its twin in a copy of ``root``."""
    steps = []
    while element is not root:
        parent = element.getparent()
        if parent is None:
            return None
        steps.append(parent.index(element))
        element = parent
    return steps[::-1]


@dataclass(eq=False)
class Document:
    """A decoded page: its URL, its text and (parsed on first use) its lxml tree.

    Build one with :meth:`from_bytes` (raw HTTP bodies, files) or :meth:`from_text` (already
    decoded text, e.g. Scrapy's ``response.text``). An empty or unparseable page has
    ``tree is None``; extractors return an empty result for it.
    """

    html: str
    url: str = ""
    encoding: str = "utf-8"
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    #: The bytes ``html`` was read from, when it is exactly their UTF-8 reading and holds no NUL
    #: (see :func:`_parse`); dropped once the tree is built.
    _utf8: bytes | None = field(default=None, init=False, repr=False)

    @classmethod
    def from_bytes(
        cls,
        body: bytes,
        url: str = "",
        content_type: str | None = None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> Document:
        """Decode ``body`` (see :func:`decode_html`); refuse binary and oversized input."""
        if len(body) > max_bytes:
            raise DocumentError(f"page of {len(body)} bytes exceeds the limit of {max_bytes}")
        text, codec, exact = _decode(body, content_type)
        document = cls(html=text, url=url, encoding=codec)
        if exact and b"\x00" not in body:
            document._utf8 = body
        return document

    @classmethod
    def from_text(cls, html: str, url: str = "", *, max_bytes: int = DEFAULT_MAX_BYTES) -> Document:
        """Wrap already-decoded HTML; refuse text over ``max_bytes`` characters."""
        if len(html) > max_bytes:
            raise DocumentError(f"page of {len(html)} characters exceeds the limit of {max_bytes}")
        return cls(html=html, url=url)

    @property
    def tree(self) -> lxml.html.HtmlElement | None:
        """The page's lxml tree, parsed once on first access (``None`` when empty)."""
        return self.derived("tree", self._read_tree)  # type: ignore[no-any-return]

    def _read_tree(self) -> lxml.html.HtmlElement | None:
        """Parse :attr:`html`, from its bytes when they are kept (see :func:`_parse`)."""
        utf8, self._utf8 = self._utf8, None
        return _parse(self.html, utf8)

    def derived(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, computed once per page and kept under ``key``: a walk over the page that
        several extractors (or one extractor twice) need is done once, like the parse."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]  # type: ignore[no-any-return]

    def without(self, elements: Sequence[lxml.etree._Element]) -> Document:
        """A copy of this page whose tree lacks ``elements`` (elements of :attr:`tree`), their
        tails kept: the page as a reader sees it once a part known to be no content (an
        article's comments) is gone, for an extractor to read again. This page is unchanged."""
        tree = self.tree
        copy = Document(html=self.html, url=self.url, encoding=self.encoding)
        if tree is None:
            return copy
        steps = [_child_steps(element, tree) for element in elements]
        twin = copy_tree(tree)
        found = []  # all found before any goes: a dropped element shifts its siblings' places
        for path in steps:
            if path is not None:
                node = twin
                for step in path:
                    node = node[step]
                found.append(node)
        for element in found:
            if element.getparent() is not None:
                element.drop_tree()
        copy._cache["tree"] = twin
        return copy

    def known(self, key: str) -> Any:
        """What :meth:`derived` keeps under ``key``, None when it was not computed: a reader
        that a walk of the page spares work uses it when it ran, without making it run."""
        return self._cache.get(key)

    @cached_property
    def site(self) -> str:
        """The site the page belongs to, used to key per-site rules: see :func:`site_of`."""
        return site_of(self.url)

    @cached_property
    def title(self) -> str:
        """The ``<title>`` text, whitespace-normalised."""
        tree = self.tree
        if tree is None:
            return ""
        found = tree.find(".//title")
        if found is None:
            return ""
        return " ".join((found.text_content() or "").split())
