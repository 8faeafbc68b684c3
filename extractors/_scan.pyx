# cython: language_level=3, boundscheck=False, wraparound=False
"""Text scans in C that stand in for regex passes over a page's text (optional, like
``_walk.pyx``; the regexes stay the reference and ``tests/test_compiled.py`` compares them).

Python's ``re`` spends about 60 ns a character whatever the pattern; a page's text is several
thousand characters, and the kind signals read it for a few dozen words. These scans read each
character once, in C, and make a Python object only for what they find: the kind signals' topic
words, date stamps, prices, tokens and profile-link words, the arbiter's and the tokenizer's
words.
"""
from cpython.unicode cimport Py_UNICODE_ISALNUM, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISSPACE


cdef unsigned char _ASCII_WORD[128]
for _c in range(128):
    _ASCII_WORD[_c] = chr(_c).isalnum() or chr(_c) == "_"


cdef inline bint _is_word(Py_UCS4 c) noexcept:
    """``\\w`` of Python's ``re`` on str patterns (ASCII from a table: the Unicode test is four
    lookups in CPython's character database)."""
    if c < 128:
        return _ASCII_WORD[c]
    return Py_UNICODE_ISALNUM(c)


cdef inline bint _is_decimal(Py_UCS4 c) noexcept:
    """``\\d`` of Python's ``re`` on str patterns."""
    if c < 128:
        return u'0' <= c <= u'9'
    return Py_UNICODE_ISDECIMAL(c)


cdef inline bint _boundary(str text, Py_ssize_t at, Py_ssize_t n):
    """``\\b`` at ``at`` (between ``text[at - 1]`` and ``text[at]``)."""
    cdef bint before = at > 0 and _is_word(text[at - 1])
    cdef bint after = at < n and _is_word(text[at])
    return before != after


cdef class TopicScanner:
    """Counts, per topic, the words and phrases of ``topics`` found in a text as whole words, as
    one ``re.finditer`` pass over ``\\b(?:…)\\b`` alternatives in the order given (topic by
    topic) does, and ``extra`` words anywhere (``…|extra words`` after the bounded part).

    A phrase written ``"head |next"`` matches ``head `` only where ``next`` follows as a whole
    word, and ``next`` is then read on its own (a look-ahead in the regex).
    """

    cdef dict singles      # word -> topic
    cdef dict phrases      # first word -> [(phrase, followed by, topic), ...] in order
    cdef dict extra        # first character -> [word, ...] in order
    cdef str extra_topic
    cdef Py_ssize_t shortest, longest
    cdef Py_UCS4 extra_low  # no extra word starts below this character
    # Per first two characters of a word or phrase, a bit per length of its first word run.
    cdef unsigned int opens[128][128]

    def __init__(self, topics, str extra_topic="", extra=()):
        self.singles = {}
        self.phrases = {}
        self.extra = {}
        self.extra_topic = extra_topic
        lengths = []
        self.opens[:] = [[0] * 128] * 128
        for topic, words in topics.items():
            for word in words:
                if len(word) < 2 or not word[:2].isascii():
                    raise ValueError(f"{word!r}: the words open with two ASCII characters")
                head, _, after = word.partition("|")
                run = 0
                while run < len(head) and _is_word(head[run]):
                    run += 1
                if not 2 <= run < 32:
                    raise ValueError(f"{word!r}: the words open with a run of 2 to 31 letters")
                self.opens[ord(word[0])][ord(word[1])] |= 1u << run
                lengths.append(run)
                if run == len(head) and not after:
                    self.singles.setdefault(head, topic)
                else:
                    self.phrases.setdefault(head[:run], []).append((head, after, topic))
        if not self.singles.keys().isdisjoint(self.phrases):
            # Then the order of the alternatives would decide between a word and a phrase,
            # which this scan does not follow.
            raise ValueError("a phrase opens with a word of the lists")
        for word in extra:
            self.extra.setdefault(word[0], []).append(word)
        self.extra_low = min((ord(word[0]) for word in extra), default=0x110000)
        self.shortest = min(lengths, default=0)
        self.longest = max(lengths, default=0)

    def count(self, str text):
        """``{topic: count}`` of ``text``, topics without a match left out."""
        cdef Py_ssize_t n = len(text), i = 0, j, k, end
        cdef Py_UCS4 c
        cdef dict counts = {}
        cdef bint found, wide
        cdef list choices
        while i < n:
            c = text[i]
            if not _is_word(c):
                i += 1
                continue
            wide = c >= self.extra_low
            j = i + 1
            while j < n:
                c = text[j]
                if not _is_word(c):
                    break
                wide = wide or c >= self.extra_low
                j += 1
            # The word run text[i:j] starts at a boundary: a phrase, then a word of the lists.
            if (
                j - i < self.shortest or j - i > self.longest or text[i] >= 128 or text[i + 1] >= 128
                or not (self.opens[<int>text[i]][<int>text[i + 1]] >> (j - i)) & 1
            ):
                if wide:
                    self._extra(text, i, j, counts)
                i = j
                continue
            found = False
            word = text[i:j]
            choices = self.phrases.get(word)
            if choices is not None:
                for head, after, topic in choices:
                    if not text.startswith(head, i):
                        continue
                    end = i + len(<str>head)
                    if after and not (
                        text.startswith(after, end) and _boundary(text, end + len(<str>after), n)
                    ):
                        continue
                    if not _boundary(text, end, n):
                        continue
                    counts[topic] = counts.get(topic, 0) + 1
                    i = end
                    found = True
                    break
                if found:
                    continue
            topic = self.singles.get(word)
            if topic is not None:
                counts[topic] = counts.get(topic, 0) + 1
            elif wide:
                self._extra(text, i, j, counts)
            i = j
        return counts

    cdef void _extra(self, str text, Py_ssize_t i, Py_ssize_t j, dict counts):
        """Count the extra words anywhere in the word run ``text[i:j]``."""
        cdef Py_UCS4 c
        while i < j:
            c = text[i]
            if c >= self.extra_low:
                words = self.extra.get(c)
                if words is not None:
                    for word in words:
                        if text.startswith(word, i):
                            counts[self.extra_topic] = counts.get(self.extra_topic, 0) + 1
                            i += len(<str>word) - 1
                            break
            i += 1



cdef tuple _MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
cdef Py_UCS4 _month_letters[12][3]
for _m, _name in enumerate(_MONTHS):
    for _k in range(3):
        _month_letters[_m][_k] = ord(_name[_k])
cdef tuple _UNITS = ("minute", "hour", "day", "week", "month", "year")


cdef inline Py_ssize_t _digits(str text, Py_ssize_t i, Py_ssize_t n) noexcept:
    """The end of the run of decimal digits (``\\d``) from ``i``."""
    while i < n and _is_decimal(text[i]):
        i += 1
    return i


cdef inline bint _separator(str text, Py_ssize_t i, Py_ssize_t n) noexcept:
    return i < n and (text[i] == u'-' or text[i] == u'/' or text[i] == u'.')


cdef inline bint _ends_word(str text, Py_ssize_t i, Py_ssize_t n) noexcept:
    """``\\b`` after a word character at ``i - 1``."""
    return i >= n or not _is_word(text[i])


cdef inline bint _at(str text, Py_ssize_t i, Py_ssize_t n, Py_UCS4 c) noexcept:
    return i < n and text[i] == c


cdef Py_ssize_t _month_words(str text, Py_ssize_t i, Py_ssize_t n):
    """After a month's name and its ``[a-z]*`` from ``i``, or -1."""
    cdef Py_UCS4 a, b, c
    if i + 3 > n:
        return -1
    cdef int m
    a, b, c = text[i], text[i + 1], text[i + 2]
    if not (u'a' <= a <= u'z' and u'a' <= b <= u'z' and u'a' <= c <= u'z'):
        return -1
    for m in range(12):
        if _month_letters[m][0] == a and _month_letters[m][1] == b and _month_letters[m][2] == c:
            break
    else:
        return -1
    i += 3
    while i < n and u'a' <= text[i] <= u'z':
        i += 1
    return i


cdef Py_ssize_t _date_at(str text, Py_ssize_t i, Py_ssize_t n):
    """The end of the date stamp ``kinds._DATE`` matches at ``i``, or -1. Each ``\\d{m,n}`` of
    the pattern is followed by a separator, a space, a letter or a boundary, none a digit, so it
    matches a whole run of digits or nothing: the runs' lengths decide, with no backtracking."""
    cdef Py_ssize_t e, e2, e3, run
    cdef Py_UCS4 c = text[i]
    if i == 0 or not _is_word(text[i - 1]):  # the bounded forms
        if _is_decimal(c):
            e = _digits(text, i, n)
            run = e - i
            if run == 4 and _separator(text, e, n):  # 2024-05-01
                e2 = _digits(text, e + 1, n)
                if 1 <= e2 - e - 1 <= 2 and _separator(text, e2, n):
                    e3 = _digits(text, e2 + 1, n)
                    if 1 <= e3 - e2 - 1 <= 2 and _ends_word(text, e3, n):
                        return e3
            elif run <= 2 and _separator(text, e, n):  # 01.05.2024
                e2 = _digits(text, e + 1, n)
                if 1 <= e2 - e - 1 <= 2 and _separator(text, e2, n):
                    e3 = _digits(text, e2 + 1, n)
                    if 2 <= e3 - e2 - 1 <= 4 and _ends_word(text, e3, n):
                        return e3
            elif _at(text, e, n, u' '):
                if run <= 2:  # 1 may 2024
                    e2 = _month_words(text, e + 1, n)
                    if e2 >= 0 and _at(text, e2, n, u' '):
                        e3 = _digits(text, e2 + 1, n)
                        if e3 - e2 - 1 == 4 and _ends_word(text, e3, n):
                            return e3
                for unit in _UNITS:  # 3 days ago
                    if text.startswith(unit, e + 1):
                        e2 = e + 1 + len(<str>unit)
                        if _at(text, e2, n, u's'):
                            e2 += 1
                        if text.startswith(" ago", e2) and _ends_word(text, e2 + 4, n):
                            return e2 + 4
                        break
        else:  # may 1, 2024
            e = _month_words(text, i, n)
            if e >= 0:
                if _at(text, e, n, u'.'):
                    e += 1
                if _at(text, e, n, u' '):
                    e2 = _digits(text, e + 1, n)
                    if 1 <= e2 - e - 1 <= 2:
                        if _at(text, e2, n, u','):
                            e2 += 1
                        if _at(text, e2, n, u' '):
                            e3 = _digits(text, e2 + 1, n)
                            if e3 - e2 - 1 == 4 and _ends_word(text, e3, n):
                                return e3
    if _is_decimal(c):  # 2024年5月1日, anywhere
        e = i + 4
        if e < n and text[e] == u'年' and _digits(text, i, e) == e:
            e2 = _digits(text, e + 1, n)
            if 1 <= e2 - e - 1 <= 2 and _at(text, e2, n, u'月'):
                e3 = _digits(text, e2 + 1, n)
                if 1 <= e3 - e2 - 1 <= 2 and _at(text, e3, n, u'日'):
                    return e3 + 1
    return -1


def count_dates(str text):
    """How many date stamps ``kinds._DATE.findall`` finds in ``text`` (lower-cased)."""
    cdef Py_ssize_t n = len(text), i = 0, end
    cdef Py_UCS4 c
    cdef long found = 0
    cdef bint after_word = False  # text[i - 1] is a word character
    while i < n:
        c = text[i]
        if _is_decimal(c) or (not after_word and (
            c == u'j' or c == u'f' or c == u'm' or c == u'a' or c == u's' or c == u'o' or c == u'n'
            or c == u'd'
        )):
            end = _date_at(text, i, n)
            if end >= 0:
                found += 1
                i = end
                after_word = _is_word(text[i - 1])
                continue
        after_word = _is_word(c)
        i += 1
    return found


cdef inline bint _price_digit(Py_UCS4 c) noexcept:
    return _is_decimal(c) or c == u',' or c == u'.'


def count_prices(str text):
    """How many prices ``kinds._PRICE.findall`` finds in ``text`` (lower-cased): a currency
    sign, maybe a space, then digits, commas and points; or those, maybe a space, then € or a
    currency code. The ``[\\d,.]*`` run can only end where the run ends, so no backtracking."""
    cdef Py_ssize_t n = len(text), i = 0, e
    cdef Py_UCS4 c
    cdef long found = 0
    while i < n:
        c = text[i]
        if c == u'$' or c == u'€' or c == u'£' or c == u'¥':
            e = i + 1
            if e + 1 < n and Py_UNICODE_ISSPACE(text[e]) and _is_decimal(text[e + 1]):
                e += 1
            if e < n and _is_decimal(text[e]):
                e += 1
                while e < n and _price_digit(text[e]):
                    e += 1
                found += 1
                i = e
                continue
        elif _is_decimal(c):
            e = i + 1
            while e < n and _price_digit(text[e]):
                e += 1
            if e < n and Py_UNICODE_ISSPACE(text[e]):
                e += 1
            if e < n and text[e] == u'€':
                found += 1
                i = e + 1
                continue
            if text.startswith("usd", e) or text.startswith("eur", e) or text.startswith("gbp", e):
                found += 1
                i = e + 3
                continue
        i += 1
    return found



def count_tokens(str text):
    """``len(text.split())``: the runs of characters that are not whitespace."""
    cdef long found = 0
    cdef bint inside = False
    cdef Py_UCS4 c
    for c in text:
        if Py_UNICODE_ISSPACE(c):
            inside = False
        elif not inside:
            inside = True
            found += 1
    return found


include "_chars.pxi"


def visible(str text):
    """``len("".join(text.split()))``: the characters that are not whitespace, without making a
    string of each word (a page's text is thousands of them)."""
    return _visible(text)


cdef enum:
    _MAX_WORDS = 32
    _MAX_LETTERS = 32


cdef class LiteralCounter:
    """Counts what ``re.findall`` finds in a text for an alternation of literal ``words``
    (``#`` stands for a decimal digit; each word opens with an ASCII character), tried in order
    at each place as the regex tries them: the words are kept as C arrays, and each character
    of the text is looked up in a table of the words' first characters."""

    cdef Py_UCS4 letters[_MAX_WORDS][_MAX_LETTERS]
    cdef Py_ssize_t lengths[_MAX_WORDS]
    cdef unsigned int opens[128]  # per ASCII first character, a bit per word that opens with it
    cdef int count_words

    def __init__(self, tuple words):
        cdef int w, k
        if len(words) > _MAX_WORDS or any(len(word) > _MAX_LETTERS or not word for word in words):
            raise ValueError(f"at most {_MAX_WORDS} words of 1 to {_MAX_LETTERS} characters")
        self.opens[:] = [0] * 128
        self.count_words = len(words)
        for w, word in enumerate(words):
            if ord(word[0]) >= 128 or word[0] == "#":
                raise ValueError(f"{word!r}: a word opens with an ASCII character, not a digit")
            self.lengths[w] = len(word)
            for k, letter in enumerate(word):
                self.letters[w][k] = ord(letter)
            self.opens[ord(word[0])] |= 1u << w

    def count(self, str text):
        """How many matches of the alternation ``text`` holds."""
        cdef Py_ssize_t n = len(text), i = 0, k, m
        cdef Py_UCS4 c, want
        cdef unsigned int candidates
        cdef int w
        cdef long found = 0
        cdef bint ok
        while i < n:
            c = text[i]
            candidates = self.opens[c] if c < 128 else 0
            if candidates:
                for w in range(self.count_words):
                    if not (candidates >> w) & 1:
                        continue
                    m = self.lengths[w]
                    if i + m > n:
                        continue
                    ok = True
                    for k in range(1, m):
                        want = self.letters[w][k]
                        c = text[i + k]
                        if want == u'#':
                            if not _is_decimal(c):
                                ok = False
                                break
                        elif want != c:
                            ok = False
                            break
                    if ok:
                        found += 1
                        i += m
                        break
                else:
                    i += 1
                continue
            i += 1
        return found


cdef inline bint _cjk(Py_UCS4 c) noexcept:
    """``arbiter._CJK_RANGES``: kana, CJK ideographs, Hangul syllables."""
    return (0x3040 <= c <= 0x30FF) or (0x3400 <= c <= 0x9FFF) or (0xAC00 <= c <= 0xD7AF)


def words(str text):
    """``arbiter._words`` of ``text`` on its regex path: the lower-cased text's letter and digit
    runs (``[^\\W_]+``), each CJK character a word of its own when the text holds one."""
    text = text.lower()
    cdef Py_ssize_t n = len(text), i = 0, j
    cdef Py_UCS4 c
    cdef bint split_cjk = False
    cdef list found = []
    for c in text:
        if c >= 0x3040 and _cjk(c):
            split_cjk = True
            break
    while i < n:
        c = text[i]
        if c == u'_' or not _is_word(c):
            i += 1
            continue
        if split_cjk and _cjk(c):
            found.append(text[i:i + 1])
            i += 1
            continue
        j = i + 1
        while j < n:
            c = text[j]
            if c == u'_' or not _is_word(c) or (split_cjk and _cjk(c)):
                break
            j += 1
        found.append(text[i:j])
        i = j
    return found


cdef inline bint _letter_or_digit(Py_UCS4 c) noexcept:
    """``[^\\W_]``."""
    return c != u'_' and _is_word(c)


def word_tokens(str text):
    """``text.text._WORD_RE.findall(text)``: runs of letters and digits, joined by single
    apostrophes (``'`` or ``’``) between two of them."""
    cdef Py_ssize_t n = len(text), i = 0, j
    cdef list found = []
    while i < n:
        if not _letter_or_digit(text[i]):
            i += 1
            continue
        j = i + 1
        while True:
            while j < n and _letter_or_digit(text[j]):
                j += 1
            if j + 1 < n and (text[j] == u"'" or text[j] == u'’') and _letter_or_digit(text[j + 1]):
                j += 2
                continue
            break
        found.append(text[i:j])
        i = j
    return found


from cpython.dict cimport PyDict_GetItem, PyDict_Next
from cpython.object cimport PyObject


def bag_overlap(object a, object b):
    """``sum(min(a[w], b[w]) for w in a.keys() & b.keys())`` for two bags of words (``Counter``s
    of int counts): the smaller bag is read, each word looked up in the other, in C."""
    cdef Py_ssize_t at = 0
    cdef PyObject* word
    cdef PyObject* count
    cdef PyObject* other
    cdef long total = 0, mine, theirs
    if not (isinstance(a, dict) and isinstance(b, dict)):
        raise TypeError("bag_overlap reads two dicts (Counters)")
    if len(a) > len(b):
        a, b = b, a
    while PyDict_Next(a, &at, &word, &count):
        other = PyDict_GetItem(b, <object>word)
        if other is not NULL:
            mine = <long><object>count
            theirs = <long><object>other
            total += mine if mine < theirs else theirs
    return total
