"""The ``news`` spider: ``scrapy crawl news -a start=URL[,URL…]``."""

from __future__ import annotations

from datetime import datetime

from forumcrawl.document import Document
from forumcrawl.items import Article
from forumcrawl.pages import Extraction, article_item
from forumcrawl.spiders.base import SiteSpider

__all__ = ["NewsSpider"]


class NewsSpider(SiteSpider):
    """Crawls news sites and exports one Article per article page."""

    name = "news"

    def make_item(self, doc: Document, extraction: Extraction, now: datetime) -> Article:
        return article_item(doc, extraction, now=now)
