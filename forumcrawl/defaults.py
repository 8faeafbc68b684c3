"""Every ``FORUMCRAWL_*`` setting with its default, grouped by component.

Components read these only in ``from_crawler`` and pass plain values on; extractors never read
settings. README's settings table lists the same names (a test checks it).
"""

from __future__ import annotations

#: Cascade stages tried in order on every content page until one yields text
#: (``ksf``: the learned keyword-scoring rule; ``cx``: line-block distribution).
FORUMCRAWL_EXTRACT_CASCADE: list[str] = ["ksf", "cx"]
#: A stage whose text is shorter than this (characters without spaces) counts as a miss.
FORUMCRAWL_EXTRACT_MIN_CHARS: int = 20
#: Pages with larger bodies are skipped (logged and counted) before decoding.
FORUMCRAWL_MAX_PAGE_BYTES: int = 20 * 1024 * 1024

#: Score followed links with the SVM link classifier (seed 002 §1) until the site's URL rule exists.
FORUMCRAWL_LINK_SCORING_ENABLED: bool = True
#: Path of a ``links.json`` model (``forumcrawl train links --out DIR``); empty: the shipped model.
FORUMCRAWL_LINK_MODEL: str = ""
#: Drop links below this information-link probability before the URL rule exists; 0 keeps all
#: (list pages are navigation, yet must be followed to reach threads).
FORUMCRAWL_LINK_MIN_PROBABILITY: float = 0.0

#: Learn each site's rules (topic URL rule, extraction rule) from a sample of the crawl.
FORUMCRAWL_LEARN_ENABLED: bool = True
#: How many distinct URLs of a site to collect before clustering them (USC).
FORUMCRAWL_LEARN_URL_SAMPLE: int = 300
#: How many topic pages of a site to learn the extraction rule from (KSF, paper: 5).
FORUMCRAWL_LEARN_PAGE_SAMPLE: int = 5
#: Thread pages a site's extraction rule may miss (template drift) before it is learned again.
FORUMCRAWL_LEARN_RELEARN_AFTER: int = 20
#: Folder where learned site models are kept between crawls (embedded mode).
FORUMCRAWL_RULES_DIR: str = ".forumcrawl/rules"

#: Drop a page whose site, title and text equal an exported page's (one page, several URLs).
FORUMCRAWL_DEDUP_ENABLED: bool = True
#: Drop items whose extracted text is empty (counted as forumcrawl/drop/empty).
FORUMCRAWL_DROP_EMPTY: bool = True
