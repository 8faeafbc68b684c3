"""Every ``FORUMCRAWL_*`` setting with its default, grouped by component.

Components read these only in ``from_crawler`` and pass plain values on; extractors never read
settings. The docs' settings reference is generated from this file (docs/hooks/settings_table.py):
each setting's ``#:`` comment is its description there, and blank lines separate its tables.
"""

from __future__ import annotations

# Retries
#: Seconds before the first retry of a failed fetch, doubled for each later one (Scrapy's
#: RETRY_TIMES and RETRY_HTTP_CODES say which and how often); a server's Retry-After wins when longer.
FORUMCRAWL_RETRY_BACKOFF: float = 0.5
#: Longest pause before a retry, whatever Retry-After asks.
FORUMCRAWL_RETRY_BACKOFF_MAX: float = 60.0

# Extraction
#: Cascade stages tried in order on every content page until one yields text (``ksf``: the
#: learned keyword-scoring rule; ``template``: page-cluster templates; ``dom``: DOM node density
#: and position; ``cx``: line blocks).
FORUMCRAWL_EXTRACT_CASCADE: list[str] = ["ksf", "template", "dom", "cx"]
#: Judge every exported page's posts (or text blocks) with the Naive Bayes value filter: a
#: worthless first post drops the page, later ones are flagged (``Post.worthless``). Off:
#: it dropped 5 of 800 content pages of the evaluation folders and flags real short posts in
#: languages it knows few words of (see "How extraction works", "The value filter"): too often
#: wrong to drop data unasked.
FORUMCRAWL_VALUE_FILTER_ENABLED: bool = False
#: With the filter on, remove worthless later posts and text blocks instead of flagging (posts) or
#: keeping (blocks) them; the item's text and reply count follow the kept posts.
FORUMCRAWL_VALUE_FILTER_DROP: bool = False
#: Value model JSON written by ``forumcrawl train value``; empty: the shipped model.
FORUMCRAWL_VALUE_MODEL: str = ""
#: A stage whose text is shorter than this (characters without spaces) counts as a miss.
FORUMCRAWL_EXTRACT_MIN_CHARS: int = 20
#: Pages with larger bodies are skipped (logged and counted) before decoding.
FORUMCRAWL_MAX_PAGE_BYTES: int = 20 * 1024 * 1024

# Link scoring
#: Score followed links with the SVM link classifier until the site's URL rule exists.
FORUMCRAWL_LINK_SCORING_ENABLED: bool = True
#: Path of a ``links.json`` model (``forumcrawl train links --out DIR``); empty: the shipped model.
FORUMCRAWL_LINK_MODEL: str = ""
#: Drop links less likely than this to lead to posts (to a thread page or a list page) before
#: the URL rule exists; 0 keeps all.
FORUMCRAWL_LINK_MIN_PROBABILITY: float = 0.0

# Navigation
#: Once a site's rules exist, fetch each thread page once (whatever URL form links it) and only
#: the other pages whose URL pattern keeps leading to new thread pages; off: follow every link.
FORUMCRAWL_NAVIGATION_ENABLED: bool = True

# Learning
#: Learn each site's rules (topic URL rule, extraction rule) from a sample of the crawl.
FORUMCRAWL_LEARN_ENABLED: bool = True
#: How many distinct URLs of a site to collect before clustering them (USC).
FORUMCRAWL_LEARN_URL_SAMPLE: int = 300
#: How many topic pages of a site to learn the extraction rule from (KSF).
FORUMCRAWL_LEARN_PAGE_SAMPLE: int = 5
#: Thread pages a site's extraction rule may miss (template drift) before it is learned again.
FORUMCRAWL_LEARN_RELEARN_AFTER: int = 20
#: Folder where learned site models are kept between crawls (embedded mode).
FORUMCRAWL_RULES_DIR: str = ".forumcrawl/rules"
#: Class of the rule store (built with ``from_crawler``); the add-on sets the Redis store in Redis mode.
FORUMCRAWL_RULES_STORE: str = "forumcrawl.sitemodel.FileRuleStore"

# Records and recrawls
#: What one exported record is: ``page`` (one ForumThread per thread page) or ``thread`` (one
#: WholeThread per thread, emitted once all its pages are in, or incomplete at the crawl's end).
FORUMCRAWL_ITEM: str = "page"
#: Keep each site's crawl state (threads, their pages, posts, index rows) and, on the next crawl,
#: fetch only new threads and the changed pages of changed threads, exporting only new posts.
FORUMCRAWL_INCREMENTAL: bool = False
#: Folder of the crawl states of FORUMCRAWL_INCREMENTAL, one JSON file per site.
FORUMCRAWL_STATE_DIR: str = ".forumcrawl/state"
#: ``news``: also export each article's reader comments, as ``comments: [{author, published,
#: text}]`` (never part of the article's text).
FORUMCRAWL_NEWS_COMMENTS: bool = False

# Reports
#: Write the crawl's stats (requests, failures, start and end, forumcrawl's counters) to this JSON
#: file when it ends, for ``forumcrawl report --stats``; empty: none. One file per process: give
#: each cluster worker its own name.
FORUMCRAWL_STATS_FILE: str = ""

# Dropped records
#: Drop a page whose site, title and text equal an exported page's (one page, several URLs).
FORUMCRAWL_DEDUP_ENABLED: bool = True
#: Drop items whose extracted text is empty (counted as forumcrawl/drop/empty).
FORUMCRAWL_DROP_EMPTY: bool = True

# Cluster (Redis)
#: ``redis://host:port/db`` or ``unix:///path.sock`` of the cluster's Redis; empty: embedded crawl.
#: Setting it (or scrapy-redis's REDIS_URL or REDIS_HOST) switches scheduler, dupefilter, seeds,
#: rule store, stats and pipelines to Redis (the add-on).
FORUMCRAWL_REDIS_URL: str = ""
#: Prefix of every Redis key of forumcrawl (``<prefix>:<spider>:queue``, ``<prefix>:rules:<site>``).
FORUMCRAWL_REDIS_PREFIX: str = "forumcrawl"
#: Requests a worker leases per round trip, ahead of need (its Redis calls run in their own thread).
FORUMCRAWL_REDIS_BATCH: int = 16
#: Seconds a popped request stays leased without renewal; a dead worker's requests return after it.
FORUMCRAWL_REDIS_LEASE_SECONDS: float = 120.0
#: Seconds a learning lock lasts, so a learner that died frees its site for another worker.
FORUMCRAWL_REDIS_LOCK_SECONDS: float = 600.0
#: Seconds a worker retries an unreachable Redis before closing with reason ``redis_unavailable``.
FORUMCRAWL_REDIS_MAX_OUTAGE: float = 60.0
#: Seconds between an idle worker's looks at the cluster queue (and between reconnection attempts).
FORUMCRAWL_REDIS_POLL_SECONDS: float = 0.25
#: Seconds a worker that has not yet seen the cluster busy waits for work before it closes: it may
#: have started before the seeds were pushed. Once it has seen work, one idle look suffices.
FORUMCRAWL_REDIS_IDLE_CLOSE: float = 3.0
#: Seconds the seen-URL set lives after its last new URL (0: forever); lets recurring crawls revisit.
FORUMCRAWL_REDIS_DEDUP_TTL: int = 0
#: Also append every exported item as JSON to the Redis list ``<spider>:items`` (REDIS_ITEMS_KEY), as
#: scrapy-redis's RedisPipeline does (which, when listed in ITEM_PIPELINES, turns this on too).
FORUMCRAWL_REDIS_ITEMS: bool = False
