"""Text helpers shared by the extractors: normalisation, tokenisation, stop words, language.

Chinese has no spaces between words, so CJK runs go through jieba (loaded on first use, with its
start-up chatter silenced); everything else is split into runs of letters and digits. Keeping the
two apart also keeps jieba off long English pages, where it is slow and adds nothing; a caller
that knows its text is not Chinese (:func:`segments_cjk`: another language, Japanese among them)
has the Han characters in it cut into characters, and does not load jieba's dictionary for them
(a quarter of a second from its copy, :mod:`~forumcrawl.extractors.segmenter`).
"""

from __future__ import annotations

import html
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from typing import Any

from forumcrawl.extractors.compiled import compiled_module

__all__ = [
    "is_stop_word",
    "language",
    "normalise",
    "segments_cjk",
    "stop_words",
    "tokenize",
    "trie_pattern",
]

# Characters that render as blanks but are not matched by ``str.split()`` or are invisible.
_INVISIBLE_RE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_SPACES_RE = re.compile(r"[^\S\n]+")
_BLANK_LINES_RE = re.compile(r"\n\s*\n+")
_CJK_RUN_RE = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_scan = compiled_module("_scan")
#: :data:`_WORD_RE`'s words of a text: a C scan where it is built (0.6 of the regex's time).
_word_tokens: Callable[[str], list[str]] = _scan.word_tokens if _scan is not None else _WORD_RE.findall
_CJK_CHAR_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Han characters and kana: the scripts written without spaces between words.
_CJK_SCRIPT_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Kana, the syllabaries Japanese writes beside its Han characters.
_KANA_RE = re.compile(r"[\u3040-\u30ff]")

#: Characters of text :func:`language` reads: a few paragraphs tell the script.
_LANGUAGE_SAMPLE = 3000
#: Text is Japanese when its kana are at least this share of its Han characters (Chinese text
#: has none, Japanese writes its particles and endings in kana).
_KANA_SHARE = 0.2

_jieba_lock = threading.Lock()
_jieba: Any = None


def normalise(text: str) -> str:
    """Unescape entities and collapse blanks, keeping paragraph breaks (one blank line at most).

    Examples
    --------
    >>> normalise("  a&nbsp;&amp;\\u200b b \\n\\n\\n c ")
    'a & b\\n\\nc'
    """
    if not text:
        return ""
    if "&" in text:
        text = html.unescape(text)
    text = _INVISIBLE_RE.sub("", unicodedata.normalize("NFC", text))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SPACES_RE.sub(" ", text)
    lines = [line.strip() for line in text.split("\n")]
    return _BLANK_LINES_RE.sub("\n\n", "\n".join(lines)).strip()


def trie_pattern(words: set[str]) -> str:
    """One regex alternation of ``words`` factored by common prefixes, longest continuation first.

    A flat alternation (~70 month names, ~45 block tags) is tried word by word at every
    position a search reaches; the factored form fails on the first letter, which makes the
    search several times faster. It matches the same strings as the flat one.
    """
    heads: dict[str, set[str]] = {}
    for word in words:
        if word:
            heads.setdefault(word[0], set()).add(word[1:])
    branches = [re.escape(head) + trie_pattern(tails) for head, tails in sorted(heads.items())]
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")" if branches else ""
    if "" in words:
        return f"(?:{body})?" if body else ""
    return body


def _load_jieba() -> Any:
    """Import and initialise jieba once (see :func:`~forumcrawl.extractors.segmenter.load_jieba`)."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                from forumcrawl.extractors.segmenter import load_jieba

                _jieba = load_jieba()
    return _jieba


def preload_segmenter(text: str) -> None:
    """Start loading jieba in a background thread when ``text`` is Chinese (see
    :func:`segments_cjk`) and it is not loaded yet: its dictionary takes a quarter of a second
    (a second the first time, see :mod:`~forumcrawl.extractors.segmenter`), which a
    crawl would otherwise pay in the middle of learning a site (while a cluster's other workers
    wait for the rules)."""
    if _jieba is None and segments_cjk((text,)):
        threading.Thread(target=_load_jieba, name="jieba-preload", daemon=True).start()


@lru_cache(maxsize=65536)
def _cut_cjk(run: str) -> tuple[str, ...]:
    """Segment one run of CJK characters (cached: forum pages repeat the same phrases)."""
    return tuple(w for w in _load_jieba().lcut(run, HMM=True) if w.strip())


def tokenize(text: str, *, drop_stop_words: bool = False, segment: bool = True) -> list[str]:
    """Split ``text`` into lower-cased words: jieba for CJK runs, letter/digit runs otherwise.

    Punctuation and blanks are dropped. With ``drop_stop_words`` the words of
    :func:`stop_words` are dropped too. Without ``segment`` a CJK run gives one token per
    character: for text in another language (see :func:`segments_cjk`), whose few Han
    characters are a name or a language menu, where jieba's dictionary would cost time to
    load and give no word the text is about.

    Examples
    --------
    >>> tokenize("Hello, World! It's 2024.")
    ['hello', 'world', "it's", '2024']
    """
    tokens: list[str] = []
    for i, part in enumerate(_CJK_RUN_RE.split(text)):
        if not part:
            continue
        if i % 2:
            tokens.extend(_cut_cjk(part) if segment else part)
        else:
            lowered = part.lower()
            # Lower-casing character for character moves no word boundary (a letter stays a
            # letter): one C call. A character that lower-cases to two ("İ") takes the long way,
            # and so does "Σ", whose lower case depends on what follows it in the string.
            if len(lowered) == len(part) and "Σ" not in part:
                tokens.extend(_word_tokens(lowered))
            else:
                tokens.extend(m.group().lower() for m in _WORD_RE.finditer(part))
    if drop_stop_words:
        stops = stop_words()
        tokens = [t for t in tokens if t not in stops]
    return tokens


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """Chinese and English stop words shipped in ``data/stopwords.txt`` (see data/README.md)."""
    raw = resources.files("forumcrawl.extractors").joinpath("data/stopwords.txt").read_text("utf-8")
    return frozenset(
        line.strip().lower() for line in raw.splitlines() if line.strip() and not line.startswith("#")
    )


def is_stop_word(word: str) -> bool:
    """Whether ``word`` is a stop word, or has no letter at all (numbers, punctuation)."""
    return word.lower() in stop_words() or not any(map(str.isalpha, word))


# Function words that tell the main Latin-script languages apart; a handful is enough on a page.
_LATIN_MARKERS = {
    "en": frozenset("the and of to is that it with for was you this are have not".split()),
    "de": frozenset("der die und das ist nicht ich mit sie auf ein eine den zu wir".split()),
    "fr": frozenset("le la les et est des une pas que qui dans pour je vous sur".split()),
    "es": frozenset("el la los las y es que de una por con para no se lo".split()),
}
_SCRIPT_RANGES = (
    ("ja", _KANA_RE),
    ("ko", re.compile(r"[\uac00-\ud7af]")),
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
)
_LATIN_RE = re.compile(r"[A-Za-z\u00c0-\u024f]")
#: Any character :func:`language` counts for a script other than Latin.
_SCRIPT_RE = re.compile(
    "[" + _CJK_CHAR_RE.pattern[1:-1] + "".join(p.pattern[1:-1] for _, p in _SCRIPT_RANGES) + "]"
)


def language(text: str) -> str:
    """Guess the main language of ``text`` from its character classes (``""`` if no letters).

    Han characters give ``"zh"`` unless kana are frequent (``"ja"``); other scripts map to their
    main language; Latin text is told apart by common function words, defaulting to ``"en"``.

    Examples
    --------
    >>> language("今天天气很好，我们去公园吧")
    'zh'
    >>> language("Der Hund und die Katze sind nicht da")
    'de'
    """
    sample = text[:_LANGUAGE_SAMPLE]  # the whole page would cost a regex pass each
    if _SCRIPT_RE.search(sample) is None:  # no script counted but Latin's (one pass)
        if _LATIN_RE.search(sample) is None:
            return ""
        return _latin_language(sample)
    counts = {"zh": len(_CJK_CHAR_RE.findall(sample)), "latin": len(_LATIN_RE.findall(sample))}
    for name, pattern in _SCRIPT_RANGES:
        counts[name] = len(pattern.findall(sample))
    if counts["ja"] and counts["ja"] >= _KANA_SHARE * counts["zh"]:
        counts["ja"] += counts["zh"]
    best = max(counts, key=lambda k: counts[k])
    if counts[best] == 0:
        return ""
    if best != "latin":
        return best
    return _latin_language(sample)


def segments_cjk(texts: Iterable[str]) -> bool:
    """Whether the text of ``texts`` (its first few paragraphs, as :func:`language` reads them)
    is mostly Chinese, whose Han runs :func:`tokenize` should cut into words: it holds Han
    characters, at least as many CJK characters as words of other scripts, and too few kana to
    be Japanese (:data:`_KANA_SHARE`, as :func:`language` tells). A Chinese word is one or two
    characters and an English one a run of letters: a Chinese forum page whose posts are short
    ("顶") beside an English footer is Chinese, an English story that names a poem in Han
    characters is not. Japanese is not cut: jieba's dictionary is Chinese (it holds no kana and
    few Japanese words written in kanji), and loading it costs a process a quarter of a second
    or more."""
    sample: list[str] = []
    size = 0
    for text in texts:
        sample.append(text)
        size += len(text) + 1
        if size >= _LANGUAGE_SAMPLE:
            break
    joined = "\n".join(sample)[:_LANGUAGE_SAMPLE]
    if _CJK_CHAR_RE.search(joined) is None:  # most pages: one scan
        return False
    cjk = len(_CJK_SCRIPT_RE.findall(joined))
    if cjk < len(_word_tokens(_CJK_SCRIPT_RE.sub(" ", joined))):
        return False
    kana = len(_KANA_RE.findall(joined))
    return kana < _KANA_SHARE * (cjk - kana)


def _latin_language(sample: str) -> str:
    """The Latin-script language whose function words ``sample`` holds most (``"en"`` on a tie)."""
    words = Counter(map(str.lower, _word_tokens(sample)))
    hits = {lang: sum(words[w] for w in markers) for lang, markers in _LATIN_MARKERS.items()}
    top = max(hits, key=lambda k: hits[k])
    return top if hits[top] > hits["en"] else "en"
