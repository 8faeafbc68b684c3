"""DedupPipeline: export each page once, however many URLs lead to it.

Forums link one thread page under several URLs (Discuz!'s ``extra=page%3D1`` / ``tid=`` /
``&page=1`` forms, phpBB's ``?p=`` post permalinks). Scrapy's dupefilter sees different requests;
this pipeline sees the same content: a digest of site, title and text, and, for a thread page,
the same place: its site, thread and page number. The first URL seen wins.
Settings: FORUMCRAWL_DEDUP_ENABLED. Counts drops as ``forumcrawl/drop/duplicate`` and logs them at
DEBUG: they are expected on every forum, and a WARNING per alias buried the crawl's real warnings.
"""

from __future__ import annotations

import hashlib
from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured

__all__ = ["DedupPipeline", "content_fingerprint", "dedup_keys"]


def content_fingerprint(item: Any) -> bytes:
    """16-byte digest of an item's site, title and whitespace-normalised text."""
    adapter = ItemAdapter(item)
    digest = hashlib.blake2b(digest_size=16)
    for name in ("site", "title", "text"):
        value = " ".join(str(adapter.get(name) or "").split())
        digest.update(value.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.digest()


def dedup_keys(item: Any) -> list[bytes]:
    """What makes an item a duplicate: its content fingerprint, and for a thread page its place
    (site, thread, page number). A post's permalink shows the page the post is on, but not
    always as the page's own URL shows it (an answer's comments unfolded): the texts differ, the
    place does not."""
    keys = [content_fingerprint(item)]
    adapter = ItemAdapter(item)
    thread, page = adapter.get("thread_id"), adapter.get("page")
    if thread is not None and page is not None:
        place = "\x00".join(("page", str(adapter.get("site") or ""), str(thread), str(page)))
        keys.append(hashlib.blake2b(place.encode("utf-8", "surrogatepass"), digest_size=16).digest())
    return keys


class DedupPipeline:
    """Drops an item whose content or thread page was already exported in this crawl under
    another URL (see :func:`dedup_keys`)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.seen: dict[bytes, str] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DedupPipeline:
        if not crawler.settings.getbool("FORUMCRAWL_DEDUP_ENABLED"):
            raise NotConfigured("FORUMCRAWL_DEDUP_ENABLED is off")
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        url = ItemAdapter(item).get("url") or ""
        keys = dedup_keys(item)
        first = next((self.seen[k] for k in keys if self.seen.get(k, url) != url), url)
        if first == url:
            self.seen.update(dict.fromkeys(keys, url))
        else:
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("forumcrawl/drop/duplicate")
            raise DropItem(f"duplicate of {first}: {url}", log_level="DEBUG")
        return item
