"""The ``forum`` spider: ``scrapy crawl forum -a start=URL[,URL…] [-a topic_example=URL]``."""

from __future__ import annotations

from datetime import datetime

from forumcrawl.document import Document
from forumcrawl.items import ForumThread
from forumcrawl.pages import Extraction, thread_item
from forumcrawl.spiders.base import SiteSpider

__all__ = ["ForumSpider"]


class ForumSpider(SiteSpider):
    """Crawls forums and exports one ForumThread per thread page."""

    name = "forum"

    def make_item(self, doc: Document, extraction: Extraction, now: datetime) -> ForumThread:
        return thread_item(doc, extraction, now=now)
