"""Site models in Redis, with a lock so that exactly one worker learns each site."""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

import redis

from forumcrawl.redis.keys import REDIS_ERRORS, client_from_settings, connect
from forumcrawl.sitemodel import SiteModel

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["RedisRuleStore"]

# Delete the lock only if it still holds our token: an expired lock may belong to another worker.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisRuleStore:
    """The :class:`~forumcrawl.learning.RuleStore` of a cluster: ``<prefix>:rules:<site>`` as JSON.

    The learning lock is ``SET NX PX`` with a random token, so a learner that dies frees the site
    after ``lock_seconds``; release deletes only our own token. Redis errors surface as ``OSError``
    (``ValueError`` from :meth:`get`), the errors the learner already handles for the file store.
    Settings: FORUMCRAWL_REDIS_URL, FORUMCRAWL_REDIS_PREFIX, FORUMCRAWL_REDIS_LOCK_SECONDS.
    """

    def __init__(self, url_or_client: str | redis.Redis, prefix: str = "forumcrawl", *, lock_seconds: float = 600) -> None:
        self.client = connect(url_or_client)
        self.prefix = prefix
        self.lock_seconds = lock_seconds
        self._tokens: dict[str, str] = {}
        self._release = self.client.register_script(_RELEASE)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisRuleStore:
        settings = crawler.settings
        return cls(
            client_from_settings(settings),
            settings["FORUMCRAWL_REDIS_PREFIX"],
            lock_seconds=settings.getfloat("FORUMCRAWL_REDIS_LOCK_SECONDS"),
        )

    def _key(self, site: str) -> str:
        return f"{self.prefix}:rules:{site}"

    def get(self, site: str) -> SiteModel | None:
        """The published model of ``site``, or None."""
        try:
            raw = self.client.get(self._key(site))
        except REDIS_ERRORS as exc:
            raise ValueError(f"redis unavailable: {exc}") from exc
        if raw is None:
            return None
        try:
            return SiteModel.from_dict(json.loads(raw))
        except (ValueError, KeyError) as exc:
            raise ValueError(f"unreadable site model {self._key(site)}: {exc}") from exc

    def put(self, model: SiteModel) -> str:
        """Publish ``model`` (the other workers pick it up) and return its key."""
        key = self._key(model.site)
        try:
            self.client.set(key, json.dumps(model.to_dict(), ensure_ascii=False))
        except REDIS_ERRORS as exc:
            raise OSError(f"redis unavailable: {exc}") from exc
        return key

    def sites(self) -> list[str]:
        """The sites with a published model."""
        prefix = self._key("")
        try:
            keys = [k.decode("utf-8") for k in self.client.scan_iter(match=prefix + "*", count=500)]
        except REDIS_ERRORS as exc:
            raise OSError(f"redis unavailable: {exc}") from exc
        return sorted(k[len(prefix):] for k in keys if not k.endswith(":lock"))

    def forget(self, site: str) -> bool:
        """Delete the published model of ``site``; False when there was none."""
        try:
            return bool(self.client.delete(self._key(site)))
        except REDIS_ERRORS as exc:
            raise OSError(f"redis unavailable: {exc}") from exc

    def try_lock(self, site: str) -> bool:
        """Take the learning lock of ``site``; False while another worker holds it."""
        token = uuid.uuid4().hex
        try:
            taken = self.client.set(f"{self._key(site)}:lock", token, nx=True, px=int(self.lock_seconds * 1000))
        except REDIS_ERRORS as exc:
            raise OSError(f"redis unavailable: {exc}") from exc
        if taken:
            self._tokens[site] = token
        return bool(taken)

    def release(self, site: str) -> None:
        """Give the lock back, unless it expired and someone else took it."""
        token = self._tokens.pop(site, None)
        if token is None:
            return
        try:
            self._release(keys=[f"{self._key(site)}:lock"], args=[token])
        except REDIS_ERRORS as exc:
            raise OSError(f"redis unavailable: {exc}") from exc
