"""Learned per-site rules as JSON data, and where they are kept between crawls.

A :class:`SiteModel` holds one rule per method (``usc`` topic-URL rule, ``ksf`` extraction rule,
later templates), each as the plain dict its extractor writes with ``to_dict()``. Rules are data:
a person can read, edit and share them, and a later crawl reuses them instead of learning again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

__all__ = ["FileRuleStore", "SiteModel"]

SCHEMA_VERSION = 1


@dataclass
class SiteModel:
    """Everything forumcrawl learned about one site."""

    #: ``host[:port]`` of the site (see :func:`forumcrawl.document.site_of`).
    site: str
    #: One rule per method name, each the ``to_dict()`` of that method's rule object.
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Provenance per method: sample sizes, timings, why a cluster was chosen.
    info: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: When the model was last changed (ISO 8601, UTC).
    updated: str = ""
    version: int = SCHEMA_VERSION

    def with_rule(self, method: str, rule: dict[str, Any], **info: Any) -> SiteModel:
        """A copy with ``rule`` set for ``method`` (models are shared, so never mutated)."""
        return SiteModel(
            site=self.site,
            rules={**self.rules, method: rule},
            info={**self.info, method: info},
            updated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "version": self.version,
            "site": self.site,
            "updated": self.updated,
            "rules": self.rules,
            "info": self.info,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SiteModel:
        """Inverse of :meth:`to_dict`; refuses models written by a newer forumcrawl."""
        version = int(data.get("version", SCHEMA_VERSION))
        if version > SCHEMA_VERSION:
            raise ValueError(f"site model version {version} is newer than supported ({SCHEMA_VERSION})")
        return cls(
            site=str(data["site"]),
            rules=dict(data.get("rules", {})),
            info=dict(data.get("info", {})),
            updated=str(data.get("updated", "")),
        )


class FileRuleStore:
    """Site models as one JSON file per site in a folder (the embedded default)."""

    #: Models here outlive crawls and are kept per ``host:port``, where another forum may be
    #: served later: a crawl checks them on its first pages before it trusts them.
    verify = True

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FileRuleStore:
        """The store of FORUMCRAWL_RULES_DIR."""
        return cls(crawler.settings["FORUMCRAWL_RULES_DIR"])

    def try_lock(self, site: str) -> bool:
        """Always True: one embedded crawl is its only learner."""
        return True

    def release(self, site: str) -> None:
        """Nothing to release (see :meth:`try_lock`)."""

    def _path(self, site: str) -> Path:
        return self.directory / (re.sub(r"[^A-Za-z0-9_.-]", "_", site) + ".json")

    def get(self, site: str) -> SiteModel | None:
        """The stored model of ``site``, or ``None`` (also when the file is unreadable)."""
        path = self._path(site)
        try:
            return SiteModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"unreadable site model {path}: {exc}") from exc

    def sites(self) -> list[str]:
        """The sites with a stored model, as their models name them (file names are escaped)."""
        found = []
        for path in sorted(self.directory.glob("*.json")):
            try:
                found.append(str(json.loads(path.read_text(encoding="utf-8"))["site"]))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return found

    def forget(self, site: str) -> bool:
        """Delete the stored model of ``site``; False when there was none."""
        try:
            self._path(site).unlink()
        except FileNotFoundError:
            return False
        return True

    def put(self, model: SiteModel) -> Path:
        """Write ``model`` atomically (write then rename) and return its path."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self._path(model.site)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(model.to_dict(), ensure_ascii=False, indent=2), encoding="utf-8")
        tmp.replace(path)
        return path
