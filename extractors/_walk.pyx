# cython: language_level=3
"""The CX lines' walk and ``dom``'s simple tree in one walk over libxml2's nodes, in C; and
single-page KSF's block lines.

An optional speed-up, built at install where Cython and a C compiler are at hand (``setup.py``).
:func:`walk` gives what :func:`forumcrawl.extractors.cx.page_lines` and
:func:`forumcrawl.extractors.dom_density._simplify` (hidden elements pruned) give, and
:func:`block_lines` what :func:`forumcrawl.extractors.ksf.page_lines` gives. The Python code
stays the reference: ``tests/test_compiled.py`` requires both to agree.

Why it is faster: the Python walks pay for an lxml proxy, an event tuple and a tag string per
element, twice (the lines' walk records its steps for ``dom`` to read them back). This walk follows
libxml2's ``children``/``next``/``parent`` pointers, reads tag names, texts and attributes from
the nodes through lxml's public C API, and makes a proxy only for the elements its results hold
(the facts, marked elements, line containers). It records no steps: the lines it returns say so
(``stepped`` False), and a reader of the steps walks again in Python.
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.unicode cimport Py_UNICODE_ISSPACE, PyUnicode_4BYTE_KIND, PyUnicode_FromKindAndData

cimport lxml.includes.etreepublic as cetree
from cpython.object cimport PyObject
from libc.string cimport memset, strcmp, strstr
from lxml.includes.tree cimport (
    XML_COMMENT_NODE, XML_ELEMENT_NODE, XML_ENTITY_REF_NODE, XML_PI_NODE, XML_TEXT_NODE, xmlAttr, xmlNode,
)

cetree.import_lxml__etree()


cdef inline bint _is_node(xmlNode* c) noexcept:
    """The nodes lxml's iteration shows: elements, comments, processing instructions, entities."""
    return (
        c.type == XML_ELEMENT_NODE or c.type == XML_COMMENT_NODE
        or c.type == XML_PI_NODE or c.type == XML_ENTITY_REF_NODE
    )


cdef inline xmlNode* _first_child(xmlNode* c) noexcept:
    cdef xmlNode* k = c.children
    while k is not NULL and not _is_node(k):
        k = k.next
    return k


cdef inline xmlNode* _next_node(xmlNode* c) noexcept:
    cdef xmlNode* k = c.next
    while k is not NULL and not _is_node(k):
        k = k.next
    return k


cdef inline xmlNode* _into(xmlNode* c, bint* entering) noexcept:
    """The step after ``c``'s start: its first child's start, else its own end."""
    cdef xmlNode* k = _first_child(c)
    entering[0] = k is not NULL
    return k if k is not NULL else c


cdef inline xmlNode* _after(xmlNode* c, bint* entering) noexcept:
    """The step after ``c``'s end: its next sibling's start, else its parent's end."""
    cdef xmlNode* k = _next_node(c)
    entering[0] = k is not NULL
    return k if k is not NULL else c.parent


cdef enum:
    _TAG_SLOTS = 256  # a power of two, above the tag names a page uses


# One walk's tag strings by libxml2 name address (an open-addressing table); the list given
# with it to _tag keeps each string alive for the walk.
cdef struct _Tags:
    const void* keys[_TAG_SLOTS]
    PyObject* values[_TAG_SLOTS]


cdef inline object _tag(xmlNode* c, _Tags* tags, list held):
    """The element's tag, one str per name and walk: libxml2 keeps one copy of each name a
    document uses, so its address stands for the name (a new str per element, and its hash,
    cost more than the lookup)."""
    cdef size_t at
    cdef int probes = 0
    if c.ns is not NULL:
        return cetree.namespacedName(c)
    at = (<size_t>c.name >> 3) & (_TAG_SLOTS - 1)
    while tags.keys[at] is not NULL:
        if tags.keys[at] == <const void*>c.name:
            return <object>tags.values[at]
        probes += 1
        if probes == _TAG_SLOTS:
            return cetree.namespacedName(c)
        at = (at + 1) & (_TAG_SLOTS - 1)
    tag = cetree.namespacedName(c)
    held.append(tag)
    tags.keys[at] = <const void*>c.name
    tags.values[at] = <PyObject*>tag
    return tag


cdef inline object _attr(xmlNode* c, const char* name):
    return cetree.attributeValueFromNsName(c, NULL, <const unsigned char*>name)


# The Python modules this one mirrors, and dom_density's constants, read at the first walk:
# they import this module, so they may not be complete while it is imported.
cdef bint _ready = False
cdef object _cx, _dd, _width_style, _width_attr, _layout_names
cdef double _page_width
cdef dict _name_hints, _tag_hints
cdef unsigned char _layout_opens[128]  # the ASCII first characters of the layout names
cdef Py_ssize_t _layout_shortest, _layout_longest
cdef object _st_node
cdef double _form_keep, _hint_max_share, _sidebar_width
cdef list _writer_words = []  # cx.WRITER_CLASSES as bytes, alive for the pointers below
cdef const char* _writer_class[8]
cdef int _n_writer_classes = 0
cdef long _side


cdef void _prepare():
    global _ready, _cx, _dd, _width_style, _width_attr, _page_width, _layout_names, _name_hints, _tag_hints
    global _st_node, _form_keep, _hint_max_share, _sidebar_width, _side
    global _layout_shortest, _layout_longest, _n_writer_classes
    from forumcrawl.extractors import cx as _cx
    from forumcrawl.extractors import dom_density as _dd
    _width_style = _dd._WIDTH_STYLE.search
    _width_attr = _dd._WIDTH_ATTR.match
    _page_width = _dd.PAGE_WIDTH_PX
    _layout_names = _dd._LAYOUT_NAMES
    _name_hints = _dd._NAME_HINTS
    _layout_opens[:] = [0] * 128
    for name in _layout_names:
        if ord(name[0]) >= 128:
            raise ValueError(f"{name!r}: the compiled walk needs layout names that open in ASCII")
        _layout_opens[ord(name[0])] = 1
    _layout_shortest = min(map(len, _layout_names))
    _layout_longest = max(map(len, _layout_names))
    _tag_hints = _dd._TAG_HINTS
    if len(_cx.WRITER_CLASSES) > 8:
        raise ValueError("too many writer classes for the compiled walk")
    _writer_words[:] = [word.encode("utf-8") for word in _cx.WRITER_CLASSES]
    for i, word in enumerate(_writer_words):
        _writer_class[i] = <const char*>(<bytes>word)
    _n_writer_classes = len(_writer_words)
    _st_node = _dd.STNode
    _form_keep = _dd.FORM_KEEP_SHARE
    _hint_max_share = _dd.HINT_MAX_SHARE
    _sidebar_width = _dd.SIDEBAR_WIDTH
    _side = _dd._SIDE
    for name in _cx._MARKS:
        _name_bits(name, _MARKED)
    for name in _cx._HIDING:
        _name_bits(name, _HIDES_LINES)
    for name in _dd._HIDING_ATTRIBUTES:
        _name_bits(name, _HIDES_TREE)
    for name, bits in (("hidden", _HIDDEN), ("aria-hidden", _ARIA_HIDDEN), ("style", _STYLE),
                       ("class", _CLASS), ("id", _ID), ("width", _WIDTH)):
        _name_bits(name, bits)
    _ready = True


# What an element's attribute names tell the walk, as bits: computed from libxml2's attribute
# list with C string comparisons, instead of a list of names and set operations on it.
cdef enum:
    _ANY = 1           # some attribute (a namespaced one too)
    _MARKED = 2        # a name of cx._MARKS
    _HIDES_LINES = 4   # a name of cx._HIDING
    _HIDES_TREE = 8    # a name of dom_density._HIDING_ATTRIBUTES
    _HIDDEN = 16
    _ARIA_HIDDEN = 32
    _STYLE = 64
    _CLASS = 128
    _ID = 256
    _WIDTH = 512
    _WRITER = 1024     # a class that names a writer's block (cx.WRITER_CLASSES)
    _WRITER_UNSURE = 2048  # a class of several text nodes, to be read as a string

cdef list _flag_names = []  # the names as bytes, alive for the pointers below
cdef const char* _names[32]
cdef long _bits[32]
cdef int _n_names = 0


cdef void _name_bits(name, long bits) except *:
    """Add ``bits`` to the attribute ``name``'s entry."""
    global _n_names
    cdef int i
    raw = name.encode("utf-8")
    for i in range(_n_names):
        if _flag_names[i] == raw:
            _bits[i] |= bits
            return
    if _n_names == 32:
        raise ValueError("too many attribute names for the compiled walk")
    _flag_names.append(raw)
    _names[_n_names] = <const char*>(<bytes>_flag_names[_n_names])
    _bits[_n_names] = bits
    _n_names += 1


cdef long _attribute_flags(xmlNode* c) noexcept:
    """The bits of ``c``'s attributes that have no namespace (those ``keys()`` names plainly),
    and whether its class names a writer's block (searched in libxml2's text of it)."""
    cdef long flags = _ANY
    cdef xmlAttr* a = c.properties
    cdef int i
    while a is not NULL:
        if a.ns is NULL:
            for i in range(_n_names):
                if strcmp(<const char*>a.name, _names[i]) == 0:
                    flags |= _bits[i]
                    if _bits[i] & _CLASS:
                        flags |= _class_writer(a)
                    break
        a = a.next
    return flags


cdef long _class_writer(xmlAttr* a) noexcept:
    """:data:`_WRITER` when the class attribute ``a`` holds a word of ``cx.WRITER_CLASSES``;
    :data:`_WRITER_UNSURE` when its value is not one text node."""
    cdef int i
    if a.children is NULL:
        return 0
    if a.children.next is not NULL or a.children.type != XML_TEXT_NODE:
        return _WRITER_UNSURE
    if a.children.content is NULL:
        return 0
    for i in range(_n_writer_classes):
        if strstr(<const char*>a.children.content, _writer_class[i]) is not NULL:
            return _WRITER
    return 0


cdef inline int _names_writer(xmlNode* c, long flags, object href) except -1:
    """``cx.names_writer`` read from the node (``href``: an ``<a>``'s target, else None)."""
    if flags & _WRITER:
        return True
    if flags & _WRITER_UNSURE:
        names = _attr(c, "class")
        for word in _cx.WRITER_CLASSES:
            if word in names:
                return True
    if href is not None:
        for path in _cx.WRITER_PATHS:
            if path in href:
                return True
    return False


cdef int _gather(
    cetree._Document doc, xmlNode* top, dict found, list marked, list hrefs, list writers, _Tags* tags, list held
) except -1:
    """``cx._gather`` read from the nodes: the facts, marked elements, writers' elements and
    links of ``top`` and its descendants, in document order, with a proxy only for the elements
    kept."""
    cdef xmlNode* node = top
    cdef xmlNode* k
    cdef long flags
    while node is not NULL:
        if node.type == XML_ELEMENT_NODE:
            tag = _tag(node, tags, held)
            element = None
            facts = found.get(tag)
            if facts is not None:
                element = cetree.elementFactory(doc, node)
                facts.append(element)
            flags = _attribute_flags(node) if node.properties is not NULL else 0
            if flags & _MARKED:
                if element is None:
                    element = cetree.elementFactory(doc, node)
                marked.append(element)
            href = None
            if tag == "a":
                href = _attr(node, "href")
                if href is not None:
                    hrefs.append(href)
            if flags and _names_writer(node, flags, href):
                writers.append(element if element is not None else cetree.elementFactory(doc, node))
            k = _first_child(node)
            if k is not NULL:
                node = k
                continue
        # the next node in document order below top: a sibling, else an ancestor's sibling
        while node is not top and _next_node(node) is NULL:
            node = node.parent
        if node is top:
            break
        node = _next_node(node)
    return 0


cdef object _declared_width(xmlNode* c, long flags):
    """``dom_density._declared_width`` read from the node."""
    found = None
    if flags & _STYLE:
        style = _attr(c, "style")
        found = _width_style(style) if style else None
    if found is None and flags & _WIDTH:
        raw = _attr(c, "width")
        found = _width_attr(raw) if raw else None
    if found is None:
        return None
    cdef double value = float(found.group(1))
    cdef double share = value / 100.0 if found.group(2) == "%" else value / _page_width
    return min(1.0, share) if share > 0 else None


cdef tuple _layout(xmlNode* c, str tag, long flags):
    """``dom_density._block_layout`` read from the node."""
    cdef int hints = _tag_hints.get(tag, 0)
    names = _attr(c, "class") if flags & _CLASS else None
    ident = _attr(c, "id") if flags & _ID else None
    if ident:
        names = f"{names} {ident}" if names else ident
    width = _declared_width(c, flags) if flags & (_STYLE | _WIDTH) else None
    if not names:
        return "", width or 1.0, hints
    names = names.lower()
    return names, width or 1.0, hints | _layout_bits(names)


cdef long _layout_bits(str names) except -1:
    """The hints of the words of ``names`` that are layout names (``_LAYOUT_NAMES``): a scan
    for whitespace-separated words that slices only those that open like one and are as long."""
    cdef Py_ssize_t n = len(names), i = 0, j
    cdef Py_UCS4 c
    cdef long hints = 0
    while i < n:
        c = names[i]
        if Py_UNICODE_ISSPACE(c):
            i += 1
            continue
        j = i + 1
        while j < n and not Py_UNICODE_ISSPACE(names[j]):
            j += 1
        if c < 128 and _layout_opens[c] and _layout_shortest <= j - i <= _layout_longest:
            token = names[i:j]
            if token in _layout_names:
                hints |= <long>_name_hints[token]
        i = j
    return hints


include "_chars.pxi"


cdef str _collapse(object parts, long* visible, bint lines=False):
    """``" ".join("".join(parts).split())`` (``parts``: a list of str, or one str), written at
    once instead of joined, split and joined again; ``visible`` gets its characters that are
    not whitespace. With ``lines``, each line break between text is kept and the lines are
    collapsed each, empty ones dropped: ``dom_density.finish_tree``'s node text."""
    cdef Py_ssize_t size = 0, n = 0
    cdef Py_UCS4 c
    cdef Py_UCS4* out
    cdef bint gap = False, broken = False
    if type(parts) is str:
        parts = (parts,)
    for part in parts:
        size += len(<str>part)
    out = <Py_UCS4*>PyMem_Malloc((size + 1) * sizeof(Py_UCS4))
    if out is NULL:
        raise MemoryError()
    try:
        for part in parts:
            for c in <str>part:
                if lines and c == u'\n':
                    broken = n > 0
                    gap = False
                elif Py_UNICODE_ISSPACE(c):
                    gap = n > 0
                else:
                    if broken:
                        out[n] = u'\n'
                        n += 1
                    elif gap:
                        out[n] = u' '
                        n += 1
                    broken = gap = False
                    out[n] = c
                    n += 1
                    visible[0] += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, n)
    finally:
        PyMem_Free(out)


cdef class _Lines:
    """The lines being cut, as ``cx.page_lines`` keeps them."""

    cdef list texts, lengths, links, parts, muted_lines, muted
    cdef dict containers
    cdef bint has_text, line_muted
    cdef long link, in_anchor

    def __cinit__(self):
        self.texts = []; self.lengths = []; self.links = []; self.parts = []
        self.muted_lines = []; self.muted = []; self.containers = {}
        self.has_text = self.line_muted = False
        self.link = self.in_anchor = 0

    cdef void cut(self, cetree._Document doc, xmlNode* holder):
        """End the current line at a block boundary; ``holder`` holds the whole line."""
        if self.has_text:
            self.containers[len(self.texts)] = cetree.elementFactory(doc, holder)
            self.close()
        else:
            self.texts.append(""); self.lengths.append(0); self.links.append(0); self.parts.clear()

    cdef void close(self):
        cdef long visible = 0
        line = _collapse(self.parts, &visible)
        if self.line_muted:
            self.muted_lines.append(len(self.texts))
        self.texts.append(line); self.lengths.append(visible); self.links.append(self.link)
        self.parts.clear()
        self.has_text = self.line_muted = False
        self.link = 0

    cdef void add(self, str text):
        """A text or tail the lines read."""
        self.parts.append(text)
        if not text.isspace():
            self.has_text = True
            if self.in_anchor:
                self.link += _visible(text)
            if self.muted:
                self.line_muted = True


cdef class _Nodes:
    """The simple tree's nodes while the walk reads them: per node, C numbers for what the walk
    counts and lists for its tag, names and text pieces; :class:`STNode` objects are made at the
    end, for the nodes that stay, with their final values (``dom_density.finish_tree``)."""

    cdef list tags, names, raws, forms
    cdef long *parent
    cdef long *depth
    cdef long *hints
    cdef long *links
    cdef long *breaks
    cdef long *chars
    cdef long *link_chars
    cdef long *subtree
    cdef double *width
    cdef Py_ssize_t size, room

    def __cinit__(self):
        self.tags = []; self.names = []; self.raws = []; self.forms = []
        self.size = self.room = 0

    def __dealloc__(self):
        PyMem_Free(self.parent); PyMem_Free(self.depth); PyMem_Free(self.hints)
        PyMem_Free(self.links); PyMem_Free(self.breaks); PyMem_Free(self.chars)
        PyMem_Free(self.link_chars); PyMem_Free(self.subtree); PyMem_Free(self.width)

    cdef Py_ssize_t add(self, str tag, long parent, double width, long hints, str names) except -1:
        """A new node under ``parent`` (-1: the root); its index."""
        cdef Py_ssize_t at = self.size
        if at == self.room:
            self._grow(2 * self.room + 64)
        self.parent[at] = parent
        self.depth[at] = self.depth[parent] + 1 if parent >= 0 else 0
        self.width[at] = width
        self.hints[at] = hints
        self.links[at] = self.breaks[at] = self.chars[at] = self.link_chars[at] = self.subtree[at] = 0
        self.tags.append(tag); self.names.append(names); self.raws.append("")
        self.size = at + 1
        return at

    cdef int _grow(self, Py_ssize_t room) except -1:
        self.parent = <long*>_grown(self.parent, room * sizeof(long))
        self.depth = <long*>_grown(self.depth, room * sizeof(long))
        self.hints = <long*>_grown(self.hints, room * sizeof(long))
        self.links = <long*>_grown(self.links, room * sizeof(long))
        self.breaks = <long*>_grown(self.breaks, room * sizeof(long))
        self.chars = <long*>_grown(self.chars, room * sizeof(long))
        self.link_chars = <long*>_grown(self.link_chars, room * sizeof(long))
        self.subtree = <long*>_grown(self.subtree, room * sizeof(long))
        self.width = <double*>_grown(self.width, room * sizeof(double))
        self.room = room
        return 0

    cdef object finish(self, dict linked):
        """``dom_density.finish_tree`` of these nodes: texts with their whitespace collapsed,
        link characters, small forms emptied, nodes without text below them dropped."""
        cdef Py_ssize_t i, n = self.size, end, kept
        cdef long total, inside
        cdef double limit
        cdef long visible
        texts = [""] * n
        for i in range(n):
            if self.raws[i]:
                visible = 0
                texts[i] = _collapse(self.raws[i], &visible, True)
                self.chars[i] = visible
        for i, pieces in linked.items():
            visible = 0
            for piece in pieces:
                visible += _visible(piece)
            self.link_chars[<Py_ssize_t>i] = visible
        if self.forms:
            total = 0
            for i in range(n):
                total += self.chars[i]
            for top in self.forms:
                end = top + 1
                while end < n and self.depth[end] > self.depth[<Py_ssize_t>top]:
                    end += 1
                inside = 0
                for i in range(top, end):
                    inside += self.chars[i]
                if inside < _form_keep * total:
                    for i in range(top, end):
                        texts[i] = ""
                        self.chars[i] = self.link_chars[i] = 0
        for i in range(n - 1, -1, -1):  # children come after their parent
            self.subtree[i] += self.chars[i]
            if self.parent[i] >= 0:
                self.subtree[self.parent[i]] += self.subtree[i]
        if not self.subtree[0]:
            return _dd.SimpleTree([])
        out = []
        new_index = [0] * n
        limit = _hint_max_share * self.subtree[0]
        kept = 0
        for i in range(n):
            if not self.subtree[i]:
                continue
            new_index[i] = kept
            if self.subtree[i] > limit:
                self.hints[i] = 0
            if self.parent[i] >= 0:  # parents come first: their hints and width are final
                self.hints[i] |= self.hints[self.parent[i]]
                self.width[i] *= self.width[self.parent[i]]
            if self.hints[i] & _side:
                self.width[i] = min(self.width[i], _sidebar_width)
            node = _st_node.__new__(_st_node)
            node.tag = self.tags[i]
            node.parent = new_index[self.parent[i]] if self.parent[i] >= 0 else -1
            node.depth = self.depth[i]
            node.width = self.width[i]
            node.hints = self.hints[i]
            node.names = self.names[i]
            node.text = texts[i]
            node.chars = self.chars[i]
            node.link_chars = self.link_chars[i]
            node.links = self.links[i]
            node.breaks = self.breaks[i]
            node.subtree_chars = self.subtree[i]
            out.append(node)
            kept += 1
        return _dd.SimpleTree(out)


cdef void* _grown(void* block, size_t size) except NULL:
    cdef void* bigger = PyMem_Realloc(block, size)
    if bigger is NULL:
        raise MemoryError()
    return bigger


def walk(tree):
    """``(lines, simple tree)`` of ``tree`` (an lxml element): the page's
    :class:`~forumcrawl.extractors.cx.PageLines` without recorded steps, and ``dom``'s
    :class:`~forumcrawl.extractors.dom_density.SimpleTree` with hidden elements pruned, before
    ``simplify_tree``'s second reading of a page whose visible text is too short."""
    if not _ready:
        _prepare()
    # The lines' state, as in cx.page_lines.
    cdef _Lines cut = _Lines()
    cdef list muted = cut.muted  # the open muted nodes (their addresses), innermost last
    found = {tag: [] for tag in _cx.FACT_TAGS}
    headings = []
    for tag in _cx._HEADINGS:
        found[tag] = headings
    marked = []; hrefs = []; writers = []
    cdef bint breaks
    block_tags = _cx._BLOCK_TAGS; block_starts = _cx._BLOCK_STARTS; skip_tags = _cx._SKIP_TAGS
    muted_tags = _cx._MUTED_TAGS
    hidden_style = _cx._hidden_style; swallowed = _cx._swallowed
    # The simple tree's state, as in dom_density._simplify.
    kinds = _dd._KINDS
    hidden_re = _dd._HIDDEN_STYLE.search
    cdef int FUSE = _dd._FUSE, BLOCK = _dd._BLOCK, ANCHOR = _dd._ANCHOR
    cdef int IMAGE = _dd._IMAGE, BREAK = _dd._BREAK, PRUNE = _dd._PRUNE
    cdef _Nodes nodes = _Nodes()
    nodes.add("body", -1, 1.0, 0, "")
    linked = {}
    current = 0; dtexts = []; anchored = None
    frames = []
    cdef cetree._Element root_el = <cetree._Element>tree
    cdef cetree._Document doc = root_el._doc
    cdef xmlNode* root = root_el._c_node
    body_el = tree.find("body") if tree.tag == "html" else None
    start_el = body_el if body_el is not None else tree
    cdef xmlNode* start = (<cetree._Element>start_el)._c_node
    cdef xmlNode* node = root
    cdef xmlNode* cx_skip = NULL   # the element whose content the lines skip
    cdef xmlNode* dom_skip = NULL  # the element the simple tree prunes, with its content
    cdef int dom_on = 0            # 1 inside the simple tree's start element, 2 after its end
    cdef bint entering = True, cx_here, dom_here
    cdef int kind
    cdef _Tags tags
    memset(tags.keys, 0, sizeof(tags.keys))
    cdef list tag_strings = []
    cdef long flags
    while node is not NULL:
        element = None
        if entering:
            flags = 0
            if node.type == XML_ELEMENT_NODE:
                tag = _tag(node, &tags, tag_strings)
                if node.properties is not NULL:
                    flags = _attribute_flags(node)
            else:
                element = cetree.elementFactory(doc, node)
                tag = element.tag
            text = None
            # The lines: an element starts.
            if cx_skip is NULL:
                if tag.__class__ is not str:
                    pass
                elif tag in skip_tags and not swallowed(
                    element if element is not None else cetree.elementFactory(doc, node)
                ):
                    element = cetree.elementFactory(doc, node)
                    cx_skip = node
                    if _first_child(node) is not NULL:
                        _gather(doc, node, found, marked, hrefs, writers, &tags, tag_strings)
                    else:
                        facts = found.get(tag)
                        if facts is not None:
                            facts.append(element)
                        if flags & _MARKED:
                            marked.append(element)
                        if flags and _names_writer(node, flags, _attr(node, "href") if tag == "a" else None):
                            writers.append(element)
                else:
                    facts = found.get(tag)
                    if facts is not None:
                        if element is None:
                            element = cetree.elementFactory(doc, node)
                        facts.append(element)
                    if flags & _MARKED:
                        if element is None:
                            element = cetree.elementFactory(doc, node)
                        marked.append(element)
                    if tag in muted_tags or (
                        flags & _HIDES_LINES and (
                            flags & _HIDDEN or _attr(node, "aria-hidden") == "true"
                            or (flags & _STYLE and hidden_style(_attr(node, "style")))
                        )
                    ):
                        muted.append(<size_t>node)
                        breaks = cut.has_text
                    else:
                        breaks = cut.has_text and tag in block_starts
                    href = None
                    if tag == "a":
                        cut.in_anchor += 1
                        href = _attr(node, "href")
                        if href is not None:
                            hrefs.append(href)
                    if flags and _names_writer(node, flags, href):
                        if element is None:
                            element = cetree.elementFactory(doc, node)
                        writers.append(element)
                    text = cetree.textOf(node)
                    if breaks:  # a block's start closes a line its parent holds
                        cut.cut(doc, node.parent)
                    if text:
                        cut.add(text)
            # The simple tree: an element starts.
            dom_here = dom_on == 1 and dom_skip is NULL
            if dom_here:
                k = kinds.get(tag)
                kind = (PRUNE if ":" in tag else FUSE) if k is None else k
                if kind >= PRUNE:
                    dom_skip = node
                elif flags & _HIDES_TREE and (
                    flags & _HIDDEN
                    or (flags & _ARIA_HIDDEN and _attr(node, "aria-hidden") == "true")
                    or (flags & _STYLE and hidden_re(_attr(node, "style")) is not None)
                ):
                    dom_skip = node
                if dom_skip is NULL:
                    inner, inner_texts, inner_anchored = current, dtexts, anchored
                    if kind == BLOCK:
                        if flags:
                            names, width, hints = _layout(node, tag, flags)
                        else:
                            names, width, hints = "", 1.0, _tag_hints.get(tag, 0)
                        inner = nodes.add(tag, current, width, hints, names)
                        if tag == "form":
                            nodes.forms.append(inner)
                        inner_texts = []
                        if anchored is not None:
                            nodes.links[inner] = 1
                            inner_anchored = linked[inner] = []
                    elif kind == ANCHOR:
                        nodes.links[<Py_ssize_t>current] += 1
                        if anchored is None:
                            inner_anchored = linked.setdefault(current, [])
                    elif kind == IMAGE:
                        nodes.links[<Py_ssize_t>current] += 1
                    elif kind == BREAK:
                        dtexts.append("\n")
                        nodes.breaks[<Py_ssize_t>current] += 1
                    frames.append((current, dtexts, anchored))
                    current, dtexts, anchored = inner, inner_texts, inner_anchored
                    if text is None:
                        text = cetree.textOf(node) if node.type == XML_ELEMENT_NODE else None
                    if text:
                        dtexts.append(text)
                        if anchored is not None:
                            anchored.append(text)
            if node is start:
                dom_on = 1
            # Into the children, unless both readers skip them.
            if node.type == XML_ELEMENT_NODE and (cx_skip is NULL or (dom_on == 1 and dom_skip is NULL)):
                node = _into(node, &entering)
            else:
                entering = False
            continue
        # An element ends.
        tail = cetree.tailOf(node)
        if node.type == XML_ELEMENT_NODE:
            tag = _tag(node, &tags, tag_strings)
        else:
            element = cetree.elementFactory(doc, node)
            tag = element.tag
        # The lines.
        if cx_skip is node:
            cx_skip = NULL
            breaks = False
            cx_here = True
        elif cx_skip is NULL:
            cx_here = True
            if tag.__class__ is not str:
                breaks = False
            elif muted and muted[-1] == <size_t>node:
                muted.pop()
                breaks = True
            else:
                breaks = tag in block_tags
            if tag == "a":
                cut.in_anchor -= 1
        else:
            cx_here = False
        if cx_here:
            if breaks:  # a block's end closes a line it holds
                cut.cut(doc, node)
            if tail:
                cut.add(tail)
        # The simple tree.
        if dom_on == 1:
            if node is start:
                dom_on = 2
            elif dom_skip is node:
                dom_skip = NULL
                if tail:
                    dtexts.append(tail)
                    if anchored is not None:
                        anchored.append(tail)
            elif dom_skip is NULL:
                outer = frames.pop()
                if outer[1] is not dtexts:
                    nodes.raws[current] = "".join(dtexts)
                current, dtexts, anchored = outer
                if tail:
                    dtexts.append(tail)
                    if anchored is not None:
                        anchored.append(tail)
        if node is root:
            break
        node = _after(node, &entering)
    if cut.has_text:
        cut.containers[len(cut.texts)] = tree
        cut.close()
    lines = _cx.PageLines(
        cut.texts, cut.lengths, cut.links, found, marked, hrefs, headings, [], [], {}, cut.containers, False,
        writers,
    )
    nodes.raws[0] = "".join(dtexts)
    return _cx.finish_lines(tree, lines, cut.muted_lines), nodes.finish(linked)


def block_lines(tree, root, block_tags, skip_tags, holds_page, make_line):
    """``ksf.page_lines`` of ``tree`` read from the nodes, without the lines' recorded steps:
    ``make_line(text, block, link_chars)`` per block element that holds text directly (inline
    descendants included), in the order of each block's first text, from ``root``'s start to its
    end. Skipped with their content: comments, ``head``, ``skip_tags`` but a ``<noscript>`` for
    which ``holds_page(element, root)``; their tails are read. None where ``root`` itself would
    be skipped (the caller's Python walk then decides)."""
    cdef cetree._Element root_el = <cetree._Element>root
    cdef cetree._Document doc = root_el._doc
    cdef xmlNode* top = root_el._c_node
    cdef xmlNode* node = top
    cdef bint entering = True, in_link = False
    cdef list stack = []  # (block, in_link) of each open element's parent
    cdef dict found = {}  # block node address -> [element, pieces, link characters]
    cdef _Tags tags
    memset(tags.keys, 0, sizeof(tags.keys))
    cdef list tag_strings = []
    block = <size_t>(<cetree._Element>tree)._c_node
    block_el = tree
    while True:
        if entering:
            text = None
            if node.type == XML_ELEMENT_NODE:
                tag = _tag(node, &tags, tag_strings)
                skip = tag == "head" or (
                    tag in skip_tags
                    and not (tag == "noscript" and holds_page(cetree.elementFactory(doc, node), root))
                )
            else:
                skip = True
            if skip:
                if node is top:
                    return None
                text = cetree.tailOf(node)
            else:
                stack.append((block, block_el, in_link))
                if tag in block_tags:
                    block = <size_t>node
                    block_el = None
                in_link = in_link or tag == "a"
                text = cetree.textOf(node)
            if text:
                _piece(found, block, block_el, doc, text, in_link)
            if not skip:
                node = _into(node, &entering)
                continue
        else:
            block, block_el, in_link = stack.pop()
            if node is top:
                break
            text = cetree.tailOf(node)
            if text:
                _piece(found, block, block_el, doc, text, in_link)
        node = _after(node, &entering)
    lines = []
    for element, pieces, links in found.values():
        text = " ".join("".join(pieces).split())
        if text:
            lines.append(make_line(text, element, links))
    return lines


cdef void _piece(dict found, size_t block, object block_el, cetree._Document doc, str text, bint in_link):
    """Add a text piece to its block's line (made at the block's first piece)."""
    entry = found.get(block)
    if entry is None:
        entry = found[block] = [
            block_el if block_el is not None else cetree.elementFactory(doc, <xmlNode*>block), [text], 0
        ]
    else:
        (<list>entry[1]).append(text)
    if in_link:
        entry[2] += len(text.strip())
