# Included by _walk.pyx and _scan.pyx (each cimports Py_UNICODE_ISSPACE): one definition of a
# count both modules call from C, without a call across modules per text.

cdef long _visible(str text):
    """``len("".join(text.split()))``: the characters of ``text`` that are not whitespace."""
    cdef long count = 0
    cdef Py_UCS4 c
    for c in text:
        if not Py_UNICODE_ISSPACE(c):
            count += 1
    return count
