# cython: language_level=3
"""Text scans in C that stand in for regex passes over a page's whole text (optional, like
``_walk.pyx``; the regexes stay the reference and ``tests/test_compiled_walk.py`` compares them).

Python's ``re`` spends about 60 ns a character whatever the pattern; a page's text is several
thousand characters, and the kind signals read it for a few dozen words. This scan reads each
character once, in C, and looks up only the word runs that could be one of the words.
"""
from cpython.unicode cimport Py_UNICODE_ISALNUM


cdef inline bint _is_word(Py_UCS4 c) noexcept:
    """``\\w`` of Python's ``re`` on str patterns."""
    return c == u'_' or Py_UNICODE_ISALNUM(c)


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
    cdef unsigned char opens[128][128]  # the first two characters of a word or phrase

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
                self.opens[ord(word[0])][ord(word[1])] = 1
                lengths.append(len(word.partition("|")[0].partition(" ")[0].partition(":")[0]))
                head, _, after = word.partition("|")
                run = 0
                while run < len(head) and _is_word(head[run]):
                    run += 1
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
                or not self.opens[<int>text[i]][<int>text[i + 1]]
            ):
                if wide:
                    self._extra(text, i, j, counts)
                i = j
                continue
            found = False
            choices = self.phrases.get(text[i:j])
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
            topic = self.singles.get(text[i:j])
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
