"""Transient faults a mock forum's server injects, for testing what a crawl loses.

A :class:`Faults` picks the affected request targets by a seeded hash (``share`` of them, or the
``targets`` named) and spoils their first ``attempts`` requests one ``kind`` of way: a 5xx status
(with ``Retry-After`` when ``retry_after`` is set), a connection closed before any answer, a body
cut short of its ``Content-Length``, or an answer ``delay`` seconds late. Later requests of the
same target are answered normally, so a crawler that retries gets every page and one that does
not loses them; ``attempts=None`` spoils every request (a page that never works). Which request
is which attempt is counted per target by the server.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["FAULT_KINDS", "Fault", "Faults", "first_fault"]

#: What a spoilt request gets.
FAULT_KINDS = ("status", "reset", "truncate", "slow")


class Fault(NamedTuple):
    """How one request is spoilt."""

    kind: str
    status: int
    delay: float
    retry_after: int | None


@dataclass
class Faults:
    """Which requests a server spoils, and how (see the module docstring)."""

    kind: str = "status"
    #: Statuses of the ``status`` kind, used in turn by attempt.
    statuses: tuple[int, ...] = (503, 500)
    #: Share of the site's targets spoilt (by a hash of the target and ``seed``).
    share: float = 1.0
    #: Exactly these targets instead of a share (``/path?query``).
    targets: frozenset[str] | None = None
    #: Requests of a target spoilt before it answers normally; None: every one.
    attempts: int | None = 1
    retry_after: int | None = None
    delay: float = 0.0
    seed: int = 0
    #: Targets never spoilt (robots.txt, so that the crawl's start is not what is tested).
    spare: frozenset[str] = frozenset({"/robots.txt"})
    _seen: Counter[str] = field(default_factory=Counter, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}: one of {', '.join(FAULT_KINDS)}")

    def affects(self, target: str) -> bool:
        """Whether ``target`` is one of the spoilt targets."""
        if target in self.spare:
            return False
        if self.targets is not None:
            return target in self.targets
        digest = hashlib.sha256(f"{self.seed}:{target}".encode()).digest()
        return int.from_bytes(digest[:4], "big") / 2**32 < self.share

    def take(self, target: str) -> Fault | None:
        """The fault of this request of ``target``, or None to answer normally; counts the
        request."""
        with self._lock:
            attempt = self._seen[target]
            self._seen[target] += 1
        if not self.affects(target) or (self.attempts is not None and attempt >= self.attempts):
            return None
        return Fault(self.kind, self.statuses[attempt % len(self.statuses)], self.delay, self.retry_after)

    def spoilt(self) -> int:
        """Requests spoilt so far."""
        with self._lock:
            seen = dict(self._seen)
        return sum(
            n if self.attempts is None else min(n, self.attempts)
            for target, n in seen.items() if self.affects(target)
        )


def first_fault(faults: Sequence[Faults], target: str) -> Fault | None:
    """The fault of the first of ``faults`` that spoils this request (each counts it)."""
    found = [fault.take(target) for fault in faults]
    return next((fault for fault in found if fault is not None), None)
