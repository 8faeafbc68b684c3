"""forumcrawl: a Scrapy crawler for forums and news sites that learns each site's rules.

Importing this package pulls in no Scrapy: the extractors and the page layer run offline too.
"""

import logging

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())
