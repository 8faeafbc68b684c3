"""Scrapy spiders of forumcrawl: they route pages, the algorithms live in forumcrawl.extractors."""
