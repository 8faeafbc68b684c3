"""The optional compiled parts of the extractors (``_walk.pyx``, ``_scan.pyx``).

They are built at install where Cython and a C compiler are at hand (``setup.py``) and give what
the Python code they stand in for gives, faster; that code stays the reference and the fallback.
``FORUMCRAWL_PURE_PYTHON`` set to a non-empty value turns them off for a process.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["PURE_PYTHON_ENV", "compiled_module"]

#: The environment variable that turns the compiled parts off.
PURE_PYTHON_ENV = "FORUMCRAWL_PURE_PYTHON"


def compiled_module(name: str) -> ModuleType | None:
    """The compiled module ``forumcrawl.extractors.<name>``, or None where it was not built or
    :data:`PURE_PYTHON_ENV` is set."""
    if os.environ.get(PURE_PYTHON_ENV):
        return None
    try:
        return importlib.import_module(f"forumcrawl.extractors.{name}")
    except ImportError:
        return None
