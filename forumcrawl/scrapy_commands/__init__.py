"""Scrapy commands of the forumcrawl project (``COMMANDS_MODULE``); ``crawl`` replaces Scrapy's."""
