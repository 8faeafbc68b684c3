"""The algorithms of forumcrawl: plain Python over HTML strings, documents and URLs, no Scrapy."""
