"""What the workers of a cluster tell each other about a site's pages, once a second.

- **Thread pages fetched.** Each worker's :class:`~forumcrawl.navigation.SiteNavigator` knows
  only its own fetches. A page another worker fetched would look, to this one, like a page
  still waiting: every link to it would count as a lead, and a pattern of post permalinks
  whose thread pages the other worker fetched would never run dry. So each worker appends the
  thread pages it fetched to one LIST and reads the others' from where it last stopped.
- **Patterns closed.** A URL pattern one worker found leading to no new thread page is closed
  for all: each worker probing it on its own would spend the probe once per worker.
- **Pages sampled.** Before a site's rules exist, each worker holds the pages it fetched. Were
  the rules learned from one worker's pages alone, a cluster of two would fetch twice the
  sample an embedded crawl needs, and learn from a different one. So each worker appends the
  pages it samples (URL, HTML, links) to the site's sample LIST and learns from all of them;
  the list is deleted once the site's rules exist.

One round trip per second, not one per page: a second's delay costs a few leads counted twice
or a few pages sampled more, and nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import redis

__all__ = ["SHARE_SECONDS", "Entry", "Notes", "Sampled", "WorkerNotes", "rules_tag"]

#: Seconds between two exchanges of a worker's notes.
SHARE_SECONDS = 1.0

#: Seconds a site's sample list outlives its last page (it is deleted once the rules exist).
SAMPLE_TTL = 3600

#: One fetched thread page: (site, rules tag, thread, page).
Entry = tuple[str, str, str, int]
#: One sampled page: (site, URL, HTML, links).
Sampled = tuple[str, str, str, list[str]]


@dataclass
class Notes:
    """What a worker tells, or hears, in one exchange."""

    #: Thread pages fetched.
    fetched: list[Entry] = field(default_factory=list)
    #: Pages sampled of sites without rules yet.
    sampled: list[Sampled] = field(default_factory=list)
    #: URL patterns closed: (site, pattern).
    closed: list[tuple[str, str]] = field(default_factory=list)


def rules_tag(nav_rule: Any) -> str:
    """A short digest of a site's thread-identity rule: pages named under another rule (a worker
    that relearned the site) are not the same ``(thread, page)``."""
    text = json.dumps(nav_rule, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


class WorkerNotes:
    """The cluster's LISTs ``pages`` (JSON ``[site, tag, thread, page]``) and ``sample(site)``
    (JSON ``{"w", "url", "html", "links"}``), its SET ``closed`` (JSON ``[site, pattern]``), and
    how far this worker has read each list."""

    def __init__(self, client: redis.Redis, keys: Any) -> None:
        self.client = client
        self.keys = keys
        self.worker = uuid.uuid4().hex
        self.offset = 0
        self.sample_offsets: dict[str, int] = {}

    def unheard(self, sites: list[str]) -> list[str]:
        """The ``sites`` whose sample LIST holds pages this worker has not read yet. One round
        trip, blocking: run it in a thread."""
        pipe = self.client.pipeline(transaction=False)
        for site in sites:
            pipe.llen(self.keys.sample(site))
        lengths = pipe.execute() if sites else []
        return [site for site, n in zip(sites, lengths) if int(n) > self.sample_offsets.get(site, 0)]

    def exchange(self, ours: Notes, sampling: list[str], learned: list[str]) -> Notes:
        """Tell ``ours``; hear every thread page told since the last call (ours included), every
        pattern closed so far, and the pages other workers sampled of the sites still
        ``sampling`` here; delete the samples of the sites ``learned`` here since the last
        call. One round trip, blocking: run it in a thread. Unreadable entries are skipped."""
        pipe = self.client.pipeline(transaction=False)
        if ours.fetched:
            pipe.rpush(self.keys.pages, *(json.dumps(list(entry), ensure_ascii=False) for entry in ours.fetched))
        if ours.closed:
            pipe.sadd(self.keys.closed, *(json.dumps(list(pair), ensure_ascii=False) for pair in ours.closed))
        for site, url, html, links in ours.sampled:
            note = {"w": self.worker, "url": url, "html": html, "links": links}
            pipe.rpush(self.keys.sample(site), json.dumps(note, ensure_ascii=False))
            # pushed by a worker that had not yet adopted the rules when the list was deleted
            pipe.expire(self.keys.sample(site), SAMPLE_TTL)
        if learned:
            pipe.delete(*(self.keys.sample(site) for site in learned))
        pipe.lrange(self.keys.pages, self.offset, -1)
        pipe.smembers(self.keys.closed)
        for site in sampling:
            pipe.lrange(self.keys.sample(site), self.sample_offsets.get(site, 0), -1)
        replies = pipe.execute()[-2 - len(sampling) :]
        told, closed, samples = replies[0], replies[1], replies[2:]
        self.offset += len(told)
        theirs = Notes()
        for raw in told:
            try:
                site, tag, thread, page = json.loads(raw)
                theirs.fetched.append((str(site), str(tag), str(thread), int(page)))
            except (ValueError, TypeError):
                continue
        for raw in closed:
            try:
                site, pattern = json.loads(raw)
                theirs.closed.append((str(site), str(pattern)))
            except (ValueError, TypeError):
                continue
        for site, raws in zip(sampling, samples):
            self.sample_offsets[site] = self.sample_offsets.get(site, 0) + len(raws)
            for raw in raws:
                try:
                    note = json.loads(raw)
                    if note["w"] != self.worker:
                        theirs.sampled.append(
                            (site, str(note["url"]), str(note["html"]), [str(u) for u in note["links"]])
                        )
                except (ValueError, TypeError, KeyError):
                    continue
        return theirs
