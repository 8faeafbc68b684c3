"""The thread pages a cluster's workers fetched, told to each other.

Each worker's :class:`~forumcrawl.navigation.SiteNavigator` knows only its own fetches. A page
another worker fetched would look, to this one, like a page still waiting: every link to it
would count as a lead, and a pattern of post permalinks whose thread pages the other worker
fetched would never run dry. So each worker appends the thread pages it fetched to one Redis
LIST and reads the others' from where it last stopped, once a second in one round trip (not
once per page: a second's delay costs a few leads counted twice, nothing is lost).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import redis

__all__ = ["FetchedPages", "rules_tag"]

#: Seconds between two exchanges of a worker's fetched thread pages.
SHARE_SECONDS = 1.0

#: One fetched thread page: (site, rules tag, thread, page).
Entry = tuple[str, str, str, int]


def rules_tag(nav_rule: Any) -> str:
    """A short digest of a site's thread-identity rule: pages named under another rule (a worker
    that relearned the site) are not the same ``(thread, page)``."""
    text = json.dumps(nav_rule, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


class FetchedPages:
    """The LIST ``key`` of fetched thread pages (JSON ``[site, tag, thread, page]``) and how far
    this worker has read it."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key
        self.offset = 0

    def exchange(self, ours: list[Entry]) -> list[Entry]:
        """Append ``ours`` and return every entry appended since the last call, ours included
        (blocking: run it in a thread). Unreadable entries are skipped."""
        pipe = self.client.pipeline(transaction=False)
        if ours:
            pipe.rpush(self.key, *(json.dumps(list(entry), ensure_ascii=False) for entry in ours))
        pipe.lrange(self.key, self.offset, -1)
        raw = pipe.execute()[-1]
        self.offset += len(raw)
        entries: list[Entry] = []
        for item in raw:
            try:
                site, tag, thread, page = json.loads(item)
                entries.append((str(site), str(tag), str(thread), int(page)))
            except (ValueError, TypeError):
                continue
        return entries
