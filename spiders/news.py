"""The ``news`` spider: ``scrapy crawl news -a start=URL[,URL…]``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from forumcrawl.document import Document
from forumcrawl.extractors.kinds import NON_CONTENT_KINDS
from forumcrawl.items import Article
from forumcrawl.pages import Extraction, article_item
from forumcrawl.sitemodel import SiteModel
from forumcrawl.spiders.base import SiteSpider

__all__ = ["NewsSpider"]


class NewsSpider(SiteSpider):
    """Crawls news sites and exports one Article per article page.

    A page the kind model reads as a listing, collection, product, service or documentation page
    is not exported (counted as ``forumcrawl/skip/kind/<kind>``): a news site's section fronts
    and shop pages are not articles.
    """

    name = "news"

    def items_for(self, doc: Document, model: SiteModel | None, fetched: datetime) -> Iterator[Any]:
        for item in super().items_for(doc, model, fetched):
            kind = self.cascade.page_kind(doc)
            if kind in NON_CONTENT_KINDS:
                self._inc(f"skip/kind/{kind}")
                self.logger.debug("not exporting %s: a %s page, not an article", doc.url, kind)
                continue
            yield item

    def make_item(self, doc: Document, extraction: Extraction, now: datetime) -> Article:
        return article_item(doc, extraction, now=now)
