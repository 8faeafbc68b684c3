"""JSON request serialiser with scrapy-redis's interface (``SCHEDULER_SERIALIZER``: ``loads``/``dumps``).

scrapy-redis pickles by default, which breaks across versions and runs code from whoever can write
to the server; ``json`` alone cannot hold a request's bytes. Here the body is base64 and header
bytes are Latin-1 text, exact both ways.
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = ["dumps", "loads"]


def dumps(data: dict[str, Any]) -> str:
    """``Request.to_dict()`` as JSON."""
    data = dict(data)
    data["body"] = base64.b64encode(data.get("body") or b"").decode("ascii")
    data["headers"] = {
        k.decode("latin-1"): [v.decode("latin-1") for v in values] for k, values in (data.get("headers") or {}).items()
    }
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def loads(member: str | bytes) -> dict[str, Any]:
    """Inverse of :func:`dumps`, ready for ``request_from_dict``."""
    data = json.loads(member)
    data["body"] = base64.b64decode(data["body"])
    data["headers"] = {k.encode("latin-1"): [v.encode("latin-1") for v in vs] for k, vs in data["headers"].items()}
    return data
