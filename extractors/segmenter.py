"""jieba, with its dictionary loaded from a compact copy kept per user.

jieba's own cache is a marshal file of its prefix dictionary, about 500,000 words and prefixes
with their frequencies. Unmarshalling it takes about a second of CPU, nearly all the cost of
loading jieba, and every process that meets a Chinese page pays it. The same dictionary kept as
its words (UTF-8, one per line) and their frequencies (an array of integers) loads in a quarter
of that: splitting one string and zipping it with an array are loops in C.

The copy is written once, the first time jieba is loaded the slow way, under
``$XDG_CACHE_HOME/forumcrawl`` (else ``~/.cache/forumcrawl``). Its name holds jieba's version
and its dictionary file's size and time, so a new jieba or dictionary gets a new copy. It holds
data only: no code runs on reading it, as it would with a pickle, and it is checked as it is
read. A missing or damaged copy, a dictionary other than jieba's default, or a cache folder that
cannot be written, falls back to jieba's own loading.
"""

from __future__ import annotations

import array
import hashlib
import logging
import os
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["cache_path", "load_jieba"]

logger = logging.getLogger(__name__)

_MAGIC = b"forumcrawl jieba dictionary 1\n"
#: The copy's header after the magic line: jieba's total frequency, the number of words.
_HEADER = struct.Struct("<qq")
#: The frequencies' array type: 64-bit integers in this machine's byte order (in the name).
_TYPECODE = "q"


def _cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "forumcrawl"


def cache_path(jieba: Any) -> Path | None:
    """Where the copy of ``jieba``'s default dictionary belongs; None for another dictionary
    (set with ``jieba.set_dictionary``), which jieba loads itself."""
    if jieba.dt.dictionary is not None:
        return None
    source = Path(jieba.__file__).with_name(jieba.DEFAULT_DICT_NAME)
    try:
        stat = source.stat()
    except OSError:
        return None
    key = f"{jieba.__version__}|{stat.st_size}|{stat.st_mtime_ns}|{sys.byteorder}"
    return _cache_folder() / f"jieba-{hashlib.sha1(key.encode()).hexdigest()[:16]}.dict"


def _read(path: Path) -> tuple[dict[str, int], int] | None:
    """The frequencies and total of the copy at ``path``; None when it is missing or damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    start = len(_MAGIC) + _HEADER.size
    if not data.startswith(_MAGIC) or len(data) < start:
        return None
    total, count = _HEADER.unpack_from(data, len(_MAGIC))
    freqs = array.array(_TYPECODE)
    end = start + count * freqs.itemsize
    if total <= 0 or count <= 0 or len(data) < end:
        return None
    freqs.frombytes(data[start:end])
    try:
        words = data[end:].decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if len(words) != count:
        return None
    return dict(zip(words, freqs)), total


def _write(path: Path, freq: dict[str, int], total: int) -> None:
    """Write the copy atomically (a temporary file renamed), so that a reader never sees half."""
    if any("\n" in word for word in freq):
        return  # one word per line: a dictionary with a line break in a word is not copied
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".jieba-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(_MAGIC)
            out.write(_HEADER.pack(total, len(freq)))
            out.write(array.array(_TYPECODE, freq.values()).tobytes())
            out.write("\n".join(freq).encode("utf-8"))
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load_jieba() -> Any:
    """The jieba module, initialised, without its log lines on stderr (see the module notes)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.dt
    path = cache_path(jieba)
    with tokenizer.lock:
        if tokenizer.initialized:
            return jieba
        found = _read(path) if path is not None else None
        if found is not None:
            tokenizer.FREQ, tokenizer.total = found
            tokenizer.initialized = True
            return jieba
    jieba.initialize()
    if path is not None:
        try:
            _write(path, tokenizer.FREQ, tokenizer.total)
        except OSError as exc:
            logger.debug("jieba's dictionary not copied to %s: %s", path, exc)
    return jieba
