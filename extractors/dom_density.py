"""DOM node properties: main text from the simple tree's density and position (seed 000).

Method of Wang Haiyan and Cao Pan, 《基于节点属性与正文内容的海量 Web 信息抽取方法》 ("Information
extraction from massive Web pages based on node property and text content"), §3.2-3.4. The page's
DOM is pruned and fused into a *simple tree* ST whose nodes are block elements carrying the text of
their inline content (algorithm 2); every text-carrying node gets density properties ρ1 (its share
of the page's text, formula 2) and ρ2 (its links per character of plain text, formula 3) and a
visual position ⟨top, bottom, width, height⟩; nodes on the page's edge or below Δ1 / above Δ2 are
removed (algorithm 3). The Naive Bayes value filter of §3.4 lives in
:mod:`forumcrawl.extractors.value_model`; the cascade applies it to whichever stage wins
(:class:`forumcrawl.pages.ValueFilter`).

Where this module departs from the paper, and why. Figures are mean text F1 on the dev folders of
``../shared/data``; ``benchmarks/bench_dom.py`` prints them per folder.

* **Position without a browser.** The paper reads ⟨top, bottom, width, height⟩ from the rendered
  page's CSS. Here, all four are in [0, 1] and come from the markup alone:
  ``top`` is the share of the page's ST text *before* the node in document order and ``bottom``
  the share *after* it (a single-column reading order stands for vertical position);
  ``width`` is the product, over the node and its ancestors, of declared widths (``width="30%"``,
  ``style="width:200px"``, pixels read against a nominal :data:`PAGE_WIDTH_PX`), 1 when none is
  declared; ``height`` is the node's estimated share of the page's text lines (one line per
  ``<br>`` plus its characters over a line of :data:`LINE_CHARS` characters scaled by ``width``).
  Layout hints stand in for the style sheet the paper reads: inside ``<nav>``, ``<header>`` or an
  element whose class/id names a header, menu or breadcrumb, ``top`` is 0; inside ``<footer>`` or
  a class/id naming a footer or copyright, ``bottom`` is 0; inside ``<aside>`` or a class/id
  naming a sidebar, widget or share bar, ``width`` is at most :data:`SIDEBAR_WIDTH`. A
  ``<header>`` inside ``<article>``/``<section>``/``<main>`` heads that section, not the page,
  yet it stays a page header here: exempting it brought the section's byline and dates back
  (tried: magic-articles -0.003, aeb-articles-en -0.004; one lead paragraph won on haber7).
* **Δ3 / Δ4 as sets.** A node is on the edge, and removed, when it is short (``height`` under
  :data:`MIN_EDGE_HEIGHT`) and either within :data:`EDGE_SHARE` of the edge it is nearer to (the
  paper's top > bottom choice between ⟨bottom, …⟩ and ⟨top, …⟩) or narrower than
  :data:`MIN_WIDTH`. Tall nodes are never removed by position.
* **Main region.** The paper filters leaves one by one. A ρ1 cut strict enough to remove
  boilerplate also removes the short paragraphs of an article and short forum replies, so Δ1 is
  only a floor against crumbs, and the kept nodes are those of the ST subtree with the largest
  balance of kept minus removed text (removed text weighted by :data:`REMOVED_WEIGHT`): the
  article or thread container, without the teasers and link lists elsewhere on the page.
  Plain text (link density within Δ2) removed only by position counts neither way in that
  balance, and is kept when it lies inside the main region outside a header or footer: with
  position read from reading order, the first paragraphs of an article high on a long page, or
  an inline slideshow of declared narrow width, look like edge nodes but belong to the article
  (six-folder mean F1 0.796 → 0.813; cwced-zh 0.799 → 0.854, harvest 0.788 → 0.834, the others
  within ±0.008). Plain text removed by Δ1 alone counts zero as well: a post's user panel
  ("Posts:", "15", "Joined:") or an article's run of short lines is no sign of boilerplate, and
  counted against the region it moved it off whole threads and onto a single paragraph
  (harvest 0.836 → 0.865, wcxb-dev 0.740 → 0.755, aeb-articles-en 0.937 → 0.939, the other
  three unchanged; link crumbs still count against). Such crumbs stay removed: kept inside the region,
  the user panels came back (harvest -0.011, magic-forums -0.004). Those with a kept block of
  their own tag under the same parent are kept, though: on a long page Δ1 takes an article's
  short paragraphs from among its kept ones (Δ1 is 88 characters on a page of 44,000), while a
  user panel's crumbs have no kept sibling of their kind (magic-articles 0.865 → 0.866,
  aeb-articles-en 0.939 → 0.943, cwced-zh 0.855 → 0.856, wcxb-dev 0.755 → 0.759, harvest
  -0.0003, magic-forums unchanged; with any kept sibling, the panels beside one long entry came
  back: harvest -0.001). List items and ``<h2>``-``<h6>`` headings of the region are kept
  too (:data:`_SHORT_BY_NATURE`): a list's items ("Bend wires") and a section's heading are
  short by nature, and Δ1 took them from long articles. Chosen on the even-numbered pages of
  the nine folders (wcxb-dev 0.8290 → 0.8312, magic-articles 0.9020 → 0.9019, fundus 0.9494 →
  0.9496, dragnet and harvest -0.0001, the rest unchanged); held apart on the odd ones:
  wcxb-dev 0.8095 → 0.8116, cwced-zh 0.8932 → 0.8965, fundus +0.0001, readability-pages
  -0.0005, dragnet and harvest -0.0002, aeb-articles-en -0.0002, the forums' others unchanged.
  The crumbs of a data table's rows are kept too (rows of two or more cells, none holding a
  kept block: :func:`_data_rows`): a table's names and figures are short by nature, while a
  forum post laid out as a table row keeps its user panel's crumbs out. Read on two
  readability-pages tables (lwn-1, links-in-tables; that folder +0.0015); held apart, cwced-zh
  +0.0038, wcxb-dev +0.0012, dragnet +0.0002, fundus-articles and magic-forums -0.0001, the
  others unchanged.
  ``DomDensityExtractor(region=False)`` is the paper's leaf-by-leaf filter.
* **Auxiliary blocks inside the main region.** Comments, the author's box, captions and
  credits, share bars, "related" and newsletter boxes sit inside the article container as plain
  text, so density cannot tell them from the article. Blocks under an element whose class/id
  holds one of the words of :data:`_AUX_WORDS` (``comments``, ``author``, ``bio``, ``caption``,
  ``related``, ``newsletter``, ``share`` …, as whole words of a token: ``wp-caption-text``,
  ``author-bio``) or under ``<figcaption>`` are dropped from the region, but only when they hold
  less than :data:`AUX_MAX_SHARE` of its kept text: a forum thread's replies named ``comments``
  or ``author`` are most of its text and stay. The singular ``comment`` and ``reply``, which
  forum engines give to every post, are not in the list (magic-forums 0.684 → 0.674 and 0.677
  with them), nor ``video``/``player`` (they name whole video-page articles: magic-articles
  -0.002, aeb-articles-en -0.0004). Names are read only inside the chosen region, after the
  walk. Mean F1: aeb-articles-en 0.920 → 0.937, magic-articles 0.850 → 0.865, wcxb-dev
  0.736 → 0.740, harvest 0.834 → 0.836, magic-forums 0.682 → 0.684, cwced-zh 0.854 → 0.855.
  The share is taken for each name on its own (all ``figcaption``, all ``comments``…): an
  article's slideshow captions and the transcript of its video together outweigh its text, each
  alone does not. With the word ``transcript``, magic-articles 0.866 → 0.871, magic-forums
  0.6843 → 0.6845, the other folders unchanged (``transcript`` with one share for all names:
  magic-articles -0.002, the captions stay). ``video`` again, with shares by name:
  magic-articles +0.0003, aeb-articles-en -0.0003 (a tweet in a ``video-container``).
  Added since: ``bios`` and ``authors`` (``about-authors``: magic-articles +0.001), the word
  ``disclaimer``, and ``newsletter``/``subscribe``/``subscription`` as
  the start of a compound token too (``subscribeform``, ``newsletters``; CSS-module names such
  as ``styles_subscribeform__0dj5n``): magic-articles +0.002, aeb-articles-en +0.0006, wcxb-dev
  +0.0001, the other folders unchanged.
  An element that one of its names calls an ``entry`` is the article whatever its other names
  say: TypePad classes every post ``entry entry-author-<name>``, which read as an author's box
  and took the post out of its region (chosen on dragnet's even-numbered pages with the re-read
  of a region locked onto comments, :meth:`forumcrawl.pages.Cascade._uncommented`: +0.0040;
  held apart on the odd ones +0.0062, the other folders unchanged; with ``post``, ``hentry``
  and ``article`` too, a blog's list of teasers came back: wcxb-dev -0.0003).
  Left for later: letting auxiliary text count zero in the region balance helps articles
  (magic-articles +0.009) but moves the region off forum threads (harvest -0.04). Dropping the
  kept text of a list item that holds a link-only line (a teaser card: linked headline and
  summary) helps articles too (magic-articles +0.007) but drops forum posts in ``<li>`` whose
  user name is a link (magic-forums -0.029, harvest -0.011, wcxb-dev -0.010).
* **Region widened.** The best-balanced subtree can be one paragraph: on a page of short
  paragraphs, each between link widgets that count against every subtree holding two of them,
  or a thread whose posts are split by removed rows. The region is then widened to its nearest
  ancestor holding :data:`MIN_REGION_SHARE` of the page's kept text, where the crumbs beside the
  kept paragraphs come back too (mean F1 magic-articles +0.007, cwced-zh +0.011, magic-forums
  +0.008, wcxb-dev +0.016, the other two unchanged). A best-balanced ``<p>`` whose parent holds
  another kept ``<p>`` and a positive balance is widened to that parent: a tag line or a share
  row inside a blog entry outweighed its other paragraphs by a few characters (read on the
  even-numbered dragnet pages: cascade +0.0021; held apart on the odd ones +0.0013,
  readability-pages +0.0004, aeb-articles-en +0.0003, cwced-zh -0.0002, the others unchanged).
* **Related and references headings.** A short block whose whole text is a heading such as
  "Related articles", "More on this story", "相关新闻", "References" or "参考资料" (see
  :data:`_RELATED_TITLES`; a trailing "[edit]" is ignored) announces that what follows is not
  the article: the heading's block and its next sibling are dropped from the region whatever
  their share of its text (a teaser list often outweighs a short story). The heading's own block
  must hold less than :data:`AUX_MAX_SHARE` of the region's text: a stray "推荐阅读" fused into
  the block that wraps an article does not take the article with it. Mean F1 magic-articles
  +0.011, aeb-articles-en +0.001, cwced-zh -0.001, the other three unchanged.
* **Datelines.** A kept block of at most :data:`DATELINE_MAX_CHARS` characters that holds a
  time expression (:func:`forumcrawl.extractors.dates.find_time`) and at most
  :data:`DATELINE_MAX_WORDS` other words is metadata: a post's "Posted on ..." header, an
  article's "Published ... | Updated ..." line. Dropped from the main region (mean F1
  magic-forums +0.017, harvest +0.014, magic-articles +0.004, cwced-zh +0.003, aeb-articles-en
  +0.001, wcxb-dev -0.0002). A short dated sentence ("See you on May 21.") goes with them.
* **Notices.** A kept block of at most :data:`NOTICE_MAX_CHARS` characters that says what it is
  is dropped from the main region: a credit ("责任编辑：张毅", "（编辑：文静）", "Source: Reuters"), a
  rights notice ("© 2024 ...", "未经授权不得转载"), an ad label ("Advertisement", "广告"), a
  control's label left as text ("Read more", "Copy link", "链接已复制"), a reading time ("5 min
  read"), a pager ("首页 | 上一页 1 下一页 | 尾页") or a newsletter call (a newsletter or inbox, and
  signing up). Mean F1 magic-articles 0.895 → 0.900, aeb-articles-en +0.0006, magic-forums
  +0.001, wcxb-dev +0.0001, cwced-zh -0.0001, harvest unchanged; the same at 160
  characters, less at 80 (magic-articles +0.004) and 250 (+0.004). Some gold texts keep these
  lines (a copyright or reprint line on 19 of the 1,040 pages, an editor's credit on 7), and
  harvest-forum-posts keeps XenForo's "Click to expand...", which is left out of the list. Kept
  blocks only, after the region is chosen: counted against the region as removed text, an
  in-article credit moved the region off a short story (magic-articles -0.013).
* **Links opened outside a block.** ``<a href><h4>…</h4></a>`` puts the anchor in the parent
  node and the text in the heading: the heading is given that link, so a teaser headline has ρ2
  = ∞ like any link-only line (six-folder mean F1 +0.01; aeb-articles-en 0.905 → 0.923).
* **Pruning.** ``<form>`` is pruned unless it holds half of the page's text (ASP.NET pages wrap
  the whole body in one form, forum engines a thread's posts in a moderation form). Both are
  read from ST after the walk, not from the raw text of the page, whose scripts made such forms
  look small: harvest 0.865 → 0.900, magic-forums 0.685 → 0.719, wcxb-dev 0.759 → 0.768, the
  article folders unchanged; the walk is also a tenth faster without reading the page's text
  twice. Custom elements (``<article-body>``, ``<amp-img>``) are removed as
  nodes but their content is kept, fused into the enclosing block: removed with their content,
  they take whole article bodies of component-built sites with them. Namespaced elements
  (``<o:p>``, ``<fb:like>``) go with their content. When pruning leaves almost no text (posts
  served in ``<noscript>`` or a hidden block), the tree is simplified again without the
  hidden-element rule.
* **Fusion rate** (formula 8) counts elements only: ``1 - ST nodes / DOM elements``, where ST
  nodes are the block elements left with some text in their subtree.

References
----------
.. [1] 王海艳, 曹攀. 基于节点属性与正文内容的海量 Web 信息抽取方法. 通信学报, 2016, 37(Z1).
.. [2] Sun F., Song D., Liao L. DOM based content extraction via text density. SIGIR 2011.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import lxml.etree

from forumcrawl.document import Document
from forumcrawl.extractors.base import Estimator
from forumcrawl.extractors.cx import (
    PageLines,
    document_lines,
    document_steps,
    filled_events,
    page_lines,
)
from forumcrawl.extractors.dates import find_time

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "DELTA1_MIN_TEXT_SHARE",
    "DELTA2_MAX_LINK_DENSITY",
    "EDGE_SHARE",
    "MIN_EDGE_HEIGHT",
    "MIN_WIDTH",
    "BlockFeaturizer",
    "DomDensityExtractor",
    "DomResult",
    "SimpleTree",
    "STNode",
    "positional_only",
    "simplify_tree",
]

# Tuning: mean text F1 over magic-articles, aeb-articles-en, cwced-zh and magic-forums of
# ../shared/data ("F1₄" below), one constant varied at a time around the values here (0.803).
#: Δ1: a text node holding less than this share of the page's ST text is removed (formula 2).
#: Only a floor against crumbs ("|", "»"): F1₄ 0.800 at 0, 0.803 here, 0.741 at 0.01 (short
#: paragraphs and replies go).
DELTA1_MIN_TEXT_SHARE = 0.002
#: Δ2: a text node with more than this many links per character of plain (non-anchor) text is
#: removed (formula 3). F1₄ 0.791 at 0.03, 0.794 at 0.05, 0.803 here, 0.796 at 0.2.
DELTA2_MAX_LINK_DENSITY = 0.1
#: Δ3/Δ4, edge: a short node whose nearer edge distance (bottom when top > bottom, else top) is
#: under this share of the page's text is on the edge. F1₄ 0.806 at 0.01, 0.803 here, 0.777 at
#: 0.08 (article leads and last lines go).
EDGE_SHARE = 0.03
#: Δ3/Δ4, height: nodes at least this share of the page's text lines are never removed by
#: position. F1₄ 0.805 at 0.02, 0.803 here, 0.802 at 0.1.
MIN_EDGE_HEIGHT = 0.05
#: Δ3/Δ4, width: a short node narrower than this share of the page is a side column.
#: F1₄ 0.805 at 0.15, 0.803 here.
MIN_WIDTH = 0.3
#: In the main-region balance, removed text counts this many times against kept text.
#: F1₄ 0.793 at 1, 0.794 here, 0.766 at 4 (forum replies drop out), all with Δ2 = 0.05.
REMOVED_WEIGHT = 2.0
#: Nominal page width in CSS pixels, to read pixel widths as shares (desktop layouts of the
#: corpus pages are 960-1200 px wide).
PAGE_WIDTH_PX = 1000.0
#: Characters on one text line of a full-width block, to estimate heights (about 80 Latin or
#: 40 CJK characters fit a 1000 px column; non-whitespace characters are counted).
LINE_CHARS = 80
#: Upper bound on the width of a node in a sidebar (``<aside>``, class ``sidebar``...).
SIDEBAR_WIDTH = 0.25
#: Layout hints (class/id names, ``<aside>``...) of an element holding more than this share of
#: the page's text are ignored: ``<body class="has-sidebar">`` or ``<div id="side-wrap">``
#: around the article name the layout, not the element. Mean F1 over the six folders of
#: ../shared/data: 0.793 at 0.3, 0.795 here (Δ2 = 0.05).
HINT_MAX_SHARE = 0.5
#: Blocks under one auxiliary class/id name are dropped from the main region only when they
#: hold less than this share of its kept text. magic-articles 0.859 at 0.4, 0.865 here;
#: magic-forums 0.684 here, 0.674 at 0.6 (forum replies named "comments" go); the other folders
#: within 0.001 (measured with one share for all names).
AUX_MAX_SHARE = 0.5
#: The main region is widened to its nearest ancestor holding at least this share of the page's
#: kept text: a page of short paragraphs between link widgets (each paragraph a region of its
#: own) or a thread whose posts are split by removed rows. Mean F1 over the six folders of
#: ../shared/data: 0.841 without, 0.845 at 0.1, 0.848 at 0.15 and 0.2 (no folder loses),
#: 0.849 at 0.3 (magic-articles -0.002), 0.850 at 0.5 (aeb-articles-en -0.005, magic-articles
#: -0.013).
MIN_REGION_SHARE = 0.15
#: A kept block of the main region at most this long (non-whitespace characters) that holds a
#: time expression and at most :data:`DATELINE_MAX_WORDS` words besides is a dateline.
DATELINE_MAX_CHARS = 80
#: Mean F1 over the six folders: 0.850 without datelines dropped, 0.856 at 3, 4, 5 and 8 words
#: (magic-articles 0.889 → 0.892-0.893 and wcxb-dev within -0.001 at all four; cwced-zh +0.003
#: at 3-5, +0.001 at 8). Reading "mostly a date" as a share of the characters instead drops
#: sentences such as "The council meets again on May 21, 2024 to vote on the bridge."
DATELINE_MAX_WORDS = 4
#: At most this many time expressions are taken out of a block ("Posted ... | Updated ...").
_DATELINE_MAX_TIMES = 3
#: A form is pruned unless it holds at least this share of the page's ST text.
FORM_KEEP_SHARE = 0.5
#: A kept block of at most this many characters is read for a notice (see the module notes):
#: longer blocks are text that may quote a credit or a copyright line, not the line itself.
NOTICE_MAX_CHARS = 120
#: When pruning leaves fewer plain-text characters than this, hidden elements are read after all.
MIN_VISIBLE_CHARS = 50

#: The value filter drops a block when P(worthless | words) is at least this (the paper: 0.5).
#: On the held-apart blocks of the shipped model's training set, 0.5 calls worthless 51 % of the
#: valuable blocks (web boilerplate and content share their words); at 0.99 the worthless calls
#: are 95 % right and 99 % of valuable blocks are kept, and the mock forum's short replies are
#: caught half the time (precision 1.0). A lone "顶" scores P = 0.988: it is only caught at 0.5.
VALUE_MIN_WORTHLESS = 0.99

# Inline elements (HTML phrasing content): fused into the enclosing block.
_INLINE = frozenset(
    """a abbr acronym b bdi bdo big br cite code data del dfn em font i img ins kbd label mark
    nobr q rp rt ruby s samp small span strike strong sub sup time tt u var wbr""".split()
)
# Block and structural elements the parser knows: each one is an ST node.
_BLOCKS = frozenset(
    """address article aside blockquote body caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li
    main menu nav ol p pre section summary table tbody td tfoot th thead tr ul picture""".split()
)
# Pruned with their content: §3.2 rules 1-2 (head, script and style), embedded objects and form
# controls (rule 7: no running text in them).
_PRUNED = frozenset(
    """head title script style noscript template iframe frame frameset object embed applet
    canvas svg math audio video source track map area select option optgroup textarea button
    input datalist meter progress link meta base param col colgroup""".split()
)
# Prune-rule 3 exceptions: read after all when the page has no other text (see module notes).
_HIDEABLE = frozenset({"noscript"})
_TOP_TAGS = frozenset({"nav", "header"})
_BOTTOM_TAGS = frozenset({"footer"})
_SIDE_TAGS = frozenset({"aside"})
_AUX_TAGS = frozenset({"figcaption"})
_RELATED = "related heading"
#: Tags of a region's blocks that are short by nature: kept though under Δ1 (see the module notes).
_SHORT_BY_NATURE = frozenset({"li", "h2", "h3", "h4", "h5", "h6"})
#: Table cells: their crumbs are kept in a data table's rows (see :func:`_data_rows`).
_CELLS = frozenset({"td", "th"})
# Class/id tokens that name a layout region (whole tokens only: "article-header" is not one).
_TOP_NAMES = frozenset(
    "header site-header page-header masthead nav navbar navigation menu topbar breadcrumb breadcrumbs".split()
)
_BOTTOM_NAMES = frozenset("footer site-footer page-footer copyright colophon".split())
_SIDE_NAMES = frozenset("sidebar side aside widget widgets share sharing social related".split())
# Words (whole words of a class/id token, between "-", "_" or its ends) that name a block around
# the article rather than in it: its comment section, the author's box, captions and credits,
# share bars, "related" and newsletter boxes (see the module notes).
_AUX_ALTERNATIVES = (
    r"comments|respond|disqus|bios?|authors?|byline|caption|credits?|related|recommended"
    r"|newsletter[a-z]*|subscri(?:be|ption)[a-z]*|signup|promo|share|sharing|social|tags|transcript|disclaimer"
)
_AUX_WORDS = re.compile(rf"(?<![a-z])(?:{_AUX_ALTERNATIVES})(?![a-z])")
# The same words opening or closing a class or id name ("author-bio", "post-comments"), not
# inside one: "entry-author-cassi" is a blog's entry named by its author (see aux_name).
_AUX_EDGE_WORDS = re.compile(
    rf"(?<!\S)(?:{_AUX_ALTERNATIVES})(?![a-z])|(?<![a-z])(?:{_AUX_ALTERNATIVES})(?!\S)"
)
#: A class or id that names its element an entry or a post as a whole: the element is the
#: article, and an auxiliary word among its other names is the entry's metadata (TypePad's
#: ``entry entry-author-chad_sakac``), not an author's box around it.
_ENTRY_NAMES = frozenset({"entry"})
# Headings that announce what follows as not the article's: related and recommended links
# (also those a publisher names by its own name, "Also on HuffPost", "Related on The Verge"),
# references and external links (the whole text of a short block, lower-cased, with its
# punctuation and a trailing "[edit]" link stripped; see the module notes).
_RELATED_TITLES = re.compile(
    r"(?:related(?: articles?| stories| news| posts| content| coverage| reading| links)?"
    r"|read (?:more|next|also)|also read|see also|further reading|you (?:may|might) also like"
    r"|more (?:stories|news|on this(?: story| topic)?|from [\w .'-]+)|recommended(?: for you| stories| articles)?"
    r"|trending(?: now)?|more like this|most (?:read|popular)|popular (?:stories|posts)"
    r"|(?:also|related) on [\w .'&-]+|recent (?:comments|posts|articles|entries)"
    r"|references|external links|bibliography"
    r"|mehr zum thema|lesen sie auch|weitere artikel|das könnte sie auch interessieren|einzelnachweise|weblinks"
    r"|à lire aussi|lire aussi|sur le même sujet|leer también|noticias relacionadas|te puede interesar"
    r"|leia também|veja também|notícias relacionadas|baca juga|artikel terkait|berita terkait|lihat juga"
    r"|читайте также|по теме|i̇lgili haberler|ilgili haberler"
    r"|相关(?:新闻|阅读|文章|链接|报道|推荐|资讯|专题|视频)|延伸阅读|推荐阅读|热门推荐|猜你喜欢|精彩推荐"
    r"|更多(?:新闻|精彩|阅读)|热点新闻|参考(?:资料|文献|来源)|注释|脚注|外部链接"
    r"|相關(?:新聞|閱讀|文章|報導)|延伸閱讀|推薦閱讀|參考(?:資料|文獻)|外部連結|関連記事|관련\s*기사"
    r")(?:\s*\[[^\]]{0,16}\])?"
)
_TITLE_PUNCTUATION = " :：>»›|-—·•"
#: A related heading is read only on a block this short (non-whitespace characters).
_RELATED_MAX_CHARS = 40
_WORD = re.compile(r"\w+")
# Notices: lines that say what they are (see the module notes). A credit is one or more
# "label: name" pairs, the labels of Chinese news credits and of a source line; a rights notice
# holds a copyright or no-reprint phrase anywhere; an ad label, a control's label ("Read more",
# "Copy link"), a reading time or a pager is the whole line; a newsletter call names a newsletter
# or inbox and asks to sign up. All are read on the lower-cased text: case-insensitive matching
# made the step three times slower.
_CREDIT_LABEL = (
    r"[\[【(（]?\s*(?:责任编辑|责编|编辑|作者|记者|通讯员|来源|原标题|校对|审核|审校|监制|主编"
    r"|責任編輯|編輯|記者|來源|source|quelle|źródło(?: artykułu)?|fuente|fonte|kaynak|sumber|bron)"
    r"\s*[:：]\s*[^:：\n]{0,30}?\s*[\]】)）]?"
)
_PAGE_WORD = r"(?:首页|上一页|下一页|尾页|末页|first|last|prev(?:ious)?|next|«|»|‹|›|\d{1,4}|…)"
_NOTICE_LINE = re.compile(
    _CREDIT_LABEL + r"(?:\s*[|/,，]?\s*" + _CREDIT_LABEL + r")*"
    r"|(?:advertisements?|advert|ads?|sponsored(?: content)?|skip ad|anzeige|werbung|publicité"
    r"|publicidad|pubblicità|reklam|iklan|广告|廣告|広告|광고|реклама)"
    r"|(?:previous|next) slide|read more|continue reading|show more|see more|copy link|link copied"
    r"|haberin devamı|devamını oku|weiterlesen|lire la suite|leer más|leia mais|baca selengkapnya"
    r"|阅读全文|展开全文|查看全文|查看更多|链接已复制|复制链接|続きを読む|もっと見る|더보기"
    r"|(?:reading time\s*[:：]?\s*)?\d+\s*(?:-\s*\d+\s*)?min(?:ute)?s?\.?(?:\s+read)?"
    r"|(?:阅读时间|閱讀時間|lesezeit)\s*[:：]?\s*\d+\s*(?:分钟|分鐘|min(?:uten)?)|\d+\s*分钟(?:阅读|读完)"
    r"|(?=.*?(?:首页|上一页|下一页|尾页|末页|first|last|prev|next))"
    + _PAGE_WORD + r"(?:\s*[|/]?\s*" + _PAGE_WORD + r")+"
)
_RIGHTS = re.compile(
    r"copyright|©|all rights reserved|版权所有|版權所有|未经.{0,10}(?:授权|许可|同意)|禁止转载|转载请注明"
    r"|不得转载|무단\s*전재|無断転載|tous droits réservés|alle rechte vorbehalten"
)
_NEWSLETTER = re.compile(r"newsletters?\b|inbox")
_SIGN_UP = re.compile(r"sign(?:ing)? up|subscrib|get our|delivered")
# A notice line's ends: a heading's punctuation, and the dots of "Read more..." or "…".
_NOTICE_STRIP = _TITLE_PUNCTUATION + "–.…"
_WIDTH_STYLE = re.compile(r"(?:^|;)\s*width\s*:\s*(\d*\.?\d+)\s*(px|%)", re.I)
_WIDTH_ATTR = re.compile(r"^\s*(\d*\.?\d+)\s*(%|px)?\s*$")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)

_TOP, _BOTTOM, _SIDE = 1, 2, 4
# Each layout name with its hint bits, so a class token costs one dict lookup.
_NAME_HINTS = {
    name: (name in _TOP_NAMES) * _TOP | (name in _BOTTOM_NAMES) * _BOTTOM | (name in _SIDE_NAMES) * _SIDE
    for name in _TOP_NAMES | _BOTTOM_NAMES | _SIDE_NAMES
}
_LAYOUT_NAMES = frozenset(_NAME_HINTS)
_TAG_HINTS = {
    **dict.fromkeys(_TOP_TAGS, _TOP),
    **dict.fromkeys(_BOTTOM_TAGS, _BOTTOM),
    **dict.fromkeys(_SIDE_TAGS, _SIDE),
}

# What the walk does with an element, by tag: one dict lookup instead of a test per tag set.
# Tags not listed are custom elements (fused like inline ones) or namespaced (pruned).
_FUSE, _BLOCK, _ANCHOR, _IMAGE, _BREAK, _PRUNE, _NOT_ELEMENT = range(7)
_KINDS: dict[object, int] = {
    **dict.fromkeys(_INLINE, _FUSE),
    **dict.fromkeys(_BLOCKS, _BLOCK),
    **dict.fromkeys(_PRUNED, _PRUNE),
    "a": _ANCHOR,
    "img": _IMAGE,
    "br": _BREAK,
    # Comments, processing instructions and entities (rule 5); their ``tag`` is their factory.
    lxml.etree.Comment: _NOT_ELEMENT,
    lxml.etree.ProcessingInstruction: _NOT_ELEMENT,
    lxml.etree.Entity: _NOT_ELEMENT,
}
# The same when hidden elements are read after all (prune-rule 3 exceptions fused like inline).
_KINDS_SHOWING_HIDDEN = {**_KINDS, **dict.fromkeys(_HIDEABLE, _FUSE)}
_HIDING_ATTRIBUTES = frozenset({"hidden", "aria-hidden", "style"})
# The elements of a tree, counted by libxml2 without element proxies (compiled once).
_ELEMENTS = lxml.etree.XPath("count(descendant-or-self::*)")


@dataclass(slots=True)
class STNode:
    """One node of the simple tree: a block element and the text fused into it.

    ``text`` is the node's own text (its inline content, not its child blocks'), ``chars`` its
    non-whitespace characters, ``link_chars`` those inside anchors, ``links`` its anchors and
    images (the paper's generalised links). ``width`` is the width estimate, ``hints`` the
    layout hints, its own and its ancestors' (see the module notes), and ``names`` its own class
    and id names, lower-cased. ``parent`` is the index of the parent node (-1 for the root): a
    node's children are the nodes after it with it as parent.
    """

    tag: str
    parent: int
    depth: int
    width: float
    hints: int
    names: str = ""
    text: str = ""
    chars: int = 0
    link_chars: int = 0
    links: int = 0
    breaks: int = 0
    subtree_chars: int = 0

    @property
    def plain_chars(self) -> int:
        """Non-anchor characters: the paper's ``node.text``."""
        return self.chars - self.link_chars


@dataclass(frozen=True, slots=True)
class SimpleTree:
    """The simple tree ST of one page (§3.2): its nodes in document order, root first.

    ``root`` is the page's tree (None for an empty page); :attr:`dom_nodes` counts its
    elements, and :attr:`fusion_rate` is the share of them pruned or fused away (formula 8 for
    one page).
    """

    nodes: list[STNode]
    root: lxml.etree._Element | None = None

    @property
    def dom_nodes(self) -> int:
        """The page's elements before simplification, counted when asked: the cascade never
        asks, and a count is a tenth of the simplification's time."""
        return int(_ELEMENTS(self.root)) if self.root is not None else 0

    @property
    def st_nodes(self) -> int:
        """Nodes left in ST."""
        return len(self.nodes)

    @property
    def fusion_rate(self) -> float:
        """``1 - ST nodes / DOM elements`` (0 for an empty page)."""
        elements = self.dom_nodes
        return 1.0 - self.st_nodes / elements if elements else 0.0

    @property
    def text_chars(self) -> int:
        """The page's ST text: the paper's ``text`` in formula 2."""
        return self.nodes[0].subtree_chars if self.nodes else 0


def _declared_width(element: lxml.etree._Element) -> float | None:
    """A width share declared on ``element`` by attribute or inline style (None: not declared)."""
    style = element.get("style")
    found = _WIDTH_STYLE.search(style) if style else None
    if found is None:
        raw = element.get("width")
        found = _WIDTH_ATTR.match(raw) if raw else None
    if found is None:
        return None
    value = float(found.group(1))
    share = value / 100.0 if found.group(2) == "%" else value / PAGE_WIDTH_PX
    return min(1.0, share) if share > 0 else None


def _block_layout(
    element: lxml.etree._Element, tag: str, attributes: list[str]
) -> tuple[str, float, int]:
    """A block's class and id names (lower-cased, space-separated), its declared width (1 when
    none) and its layout hints from tag and names (see the module notes). ``attributes`` lists
    the element's attribute names: only those it has are read."""
    hints = _TAG_HINTS.get(tag, 0)
    names = element.get("class") if "class" in attributes else None
    ident = element.get("id") if "id" in attributes else None
    if ident:
        names = f"{names} {ident}" if names else ident
    width = _declared_width(element) if "style" in attributes or "width" in attributes else None
    if not names:
        return "", width or 1.0, hints
    names = names.lower()
    for token in _LAYOUT_NAMES.intersection(names.split()):
        hints |= _NAME_HINTS[token]
    return names, width or 1.0, hints


def _is_hidden(element: lxml.etree._Element, attributes: list[str]) -> bool:
    """Prune-rule 3: hidden by attribute or inline style. ``attributes`` lists the element's
    attribute names: one call listing them costs less than asking for each attribute."""
    if "hidden" in attributes:
        return True
    if "aria-hidden" in attributes and element.get("aria-hidden") == "true":
        return True
    return "style" in attributes and _HIDDEN_STYLE.search(element.get("style")) is not None


def _root_of(source: Document | lxml.etree._Element | None) -> lxml.etree._Element | None:
    if isinstance(source, Document):
        return source.tree
    return source


def simplify_tree(source: Document | lxml.etree._Element | None, *, prune_hidden: bool = True) -> SimpleTree:
    """Prune and fuse a page's DOM into its simple tree ST (algorithm 2).

    Pruned (with their content): ``head``, ``script``, ``style``, hidden elements (when
    ``prune_hidden``), forms (unless they hold half of the ST text), comments, embedded objects and
    form controls, namespaced elements. Inline elements and custom elements are fused into the
    nearest enclosing block. Blocks are never merged. Blocks with no text in their subtree are
    removed (rule 6). The DOM tree is not modified.

    The tree is not walked again: ST is read from the walk of the CX lines (their
    :attr:`~forumcrawl.extractors.cx.PageLines.events`, kept per page for a Document), which
    reads every element's tag and text already; only the content that walk skips and ST keeps
    (a ``<label>``'s) is read from the tree. Where the compiled walk is built
    (:data:`~forumcrawl.extractors.cx.COMPILED`), it makes the same ST in the walk that cuts
    the lines.

    Parameters
    ----------
    source : a :class:`~forumcrawl.document.Document` or an lxml element (``None``: empty page).
    prune_hidden : apply prune-rule 3 (hidden elements, ``<noscript>``).

    Returns
    -------
    SimpleTree
        Empty (no nodes) for an empty page.
    """
    root = _root_of(source)
    if root is None:
        return SimpleTree([])
    compiled = None
    if isinstance(source, Document):
        document_lines(source)  # where the compiled walk cuts them, it makes ST too
        compiled = source.known("dom.simple") if prune_hidden else None
    tree = compiled if compiled is not None else _simplify(root, _steps(source, root), prune_hidden)
    if prune_hidden and sum(n.plain_chars for n in tree.nodes) < MIN_VISIBLE_CHARS:
        hidden_too = _simplify(root, _steps(source, root), False)
        if hidden_too.text_chars > tree.text_chars:
            return SimpleTree(hidden_too.nodes, root)
    return SimpleTree(tree.nodes, root)


def _steps(source: Document | lxml.etree._Element, root: lxml.etree._Element) -> PageLines:
    """The lines' walk with its steps, once per page for a Document."""
    return document_steps(source) if isinstance(source, Document) else page_lines(root)


def _simplify(root: lxml.etree._Element, lines: PageLines, prune_hidden: bool) -> SimpleTree:
    """:func:`simplify_tree` of ``root`` from its lines' walk, without the second reading of a
    page whose visible text is too short."""
    body = root.find("body") if root.tag == "html" else None
    start = body if body is not None else root
    kinds = _KINDS if prune_hidden else _KINDS_SHOWING_HIDDEN
    # The content the lines' walk skipped and ST reads: a <label>'s.
    events = filled_events(lines, lambda tag: kinds.get(tag, _PRUNE) < _PRUNE)
    # Attribute names that cannot hide an element: all of them when hidden elements are read.
    cannot_hide = (_HIDING_ATTRIBUTES if prune_hidden else frozenset()).isdisjoint
    forms: list[int] = []  # ST nodes of <form> elements, weighed after the walk
    nodes: list[STNode] = [STNode("body", -1, 0, 1.0, 0)]
    raws: list[str] = [""]  # each node's text as found, joined from its pieces on leaving it
    linked: dict[int, list[str]] = {}  # the pieces of a node's text inside an anchor
    # The ST node the text goes to, its pieces and its anchored pieces (None outside anchors);
    # one such frame per open element, that of its parent, restored at its end.
    current, texts, anchored = 0, [], None
    frames: list[tuple[int, list[str], list[str] | None]] = []
    flat = iter(events)
    steps = zip(flat, flat, flat)
    for step in steps:  # to the start's own start: its text is not read, its children are
        if step[1] is start:
            break
    for tag, element, text in steps:
        if tag is None:  # an element ends: its parent's frame is back, then its tail
            if element is start:
                break
            outer = frames.pop()
            if outer[1] is not texts:  # leaving a block: all its pieces are read
                raws[current] = "".join(texts)
            current, texts, anchored = outer
        else:
            kind = kinds.get(tag)
            if kind is None:  # a custom or namespaced element
                kind = _PRUNE if ":" in tag else _FUSE
            if (
                kind >= _PRUNE
                or (attributes := element.keys())
                and not cannot_hide(attributes)
                and _is_hidden(element, attributes)
            ):
                for step in steps:  # pruned with its content, up to its own end
                    if step[1] is element:
                        break
                text = step[2]
            else:
                inner, inner_texts, inner_anchored = current, texts, anchored
                if kind == _BLOCK:
                    inner = len(nodes)
                    if attributes:
                        names, width, hints = _block_layout(element, tag, attributes)
                    else:
                        names, width, hints = "", 1.0, _TAG_HINTS.get(tag, 0)
                    node = STNode(tag, current, nodes[current].depth + 1, width, hints, names)
                    nodes.append(node)
                    if tag == "form":
                        forms.append(inner)
                    raws.append("")
                    inner_texts = []
                    if anchored is not None:  # an anchor opened in an ancestor holds this block
                        node.links = 1
                        inner_anchored = linked[inner] = []
                elif kind == _ANCHOR:
                    nodes[current].links += 1
                    if anchored is None:
                        inner_anchored = linked.setdefault(current, [])
                elif kind == _IMAGE:
                    nodes[current].links += 1
                elif kind == _BREAK:
                    texts.append("\n")
                    nodes[current].breaks += 1
                frames.append((current, texts, anchored))
                current, texts, anchored = inner, inner_texts, inner_anchored
        if text:
            texts.append(text)
            if anchored is not None:
                anchored.append(text)
    raws[0] = "".join(texts)
    return finish_tree(nodes, raws, linked, forms)


def finish_tree(
    nodes: list[STNode], raws: list[str], linked: dict[int, list[str]], forms: list[int]
) -> SimpleTree:
    """What the simple tree's walk (this module's or the compiled one) does after its last step:
    each node's text from its pieces ``raws`` with whitespace collapsed, link characters from
    its anchored pieces ``linked``, small ``forms`` emptied, empty blocks dropped."""
    for node, raw in zip(nodes, raws):
        raw = raw.strip()
        if not raw:  # most blocks hold only the indentation between tags
            continue
        if "  " not in raw and raw.isprintable():  # no whitespace but single spaces
            node.text = raw
            node.chars = len(raw) - raw.count(" ")
        elif "\n" in raw:
            node.text = "\n".join(filter(None, map(" ".join, map(str.split, raw.split("\n")))))
            node.chars = len(node.text) - node.text.count(" ") - node.text.count("\n")
        else:
            words = raw.split()
            node.text = " ".join(words)
            node.chars = len(node.text) - len(words) + 1
    for i, pieces in linked.items():
        nodes[i].link_chars = len("".join("".join(pieces).split()))
    if forms:
        _prune_small_forms(nodes, forms)
    return _drop_empty(nodes)


def _prune_small_forms(nodes: list[STNode], forms: list[int]) -> None:
    """Empty the subtree of each form holding less than :data:`FORM_KEEP_SHARE` of the page's
    ST text (pruned by :func:`_drop_empty`). Weighed after the walk, from the text it gathered:
    the whole page's text read again for the first form cost a fifth of a parse."""
    total = sum(node.chars for node in nodes)
    for top in forms:
        end = _run_end(nodes, top)
        if sum(node.chars for node in nodes[top:end]) < FORM_KEEP_SHARE * total:
            for node in nodes[top:end]:
                node.text, node.chars, node.link_chars = "", 0, 0


def _run_end(nodes: Sequence[STNode], top: int) -> int:
    """One past the last node of ``top``'s subtree: nodes are in document order, so a subtree is
    the run of deeper nodes that follows its root."""
    depth, end = nodes[top].depth, top + 1
    while end < len(nodes) and nodes[end].depth > depth:
        end += 1
    return end


def _drop_empty(nodes: list[STNode]) -> SimpleTree:
    """Remove blocks without text in their subtree (rule 6) and renumber the rest."""
    for node in reversed(nodes):  # children come after their parent
        node.subtree_chars += node.chars
        if node.parent >= 0:
            nodes[node.parent].subtree_chars += node.subtree_chars
    if not nodes[0].subtree_chars:
        return SimpleTree([])
    out: list[STNode] = []
    new_index = [0] * len(nodes)
    hint_limit = HINT_MAX_SHARE * nodes[0].subtree_chars
    for old, node in enumerate(nodes):
        if not node.subtree_chars:
            continue
        new_index[old] = len(out)
        if node.subtree_chars > hint_limit:
            node.hints = 0
        if node.parent >= 0:  # parents come first: their index, hints and width are final
            node.parent = new_index[node.parent]
            parent = out[node.parent]
            node.hints |= parent.hints
            node.width *= parent.width
        if node.hints & _SIDE:
            node.width = min(node.width, SIDEBAR_WIDTH)
        out.append(node)
    return SimpleTree(out)


@dataclass(slots=True)
class Block:
    """One text-carrying ST node with its properties (§3.3); ``node`` is its index in ST."""

    node: int
    text: str
    chars: int
    #: ρ1, formula 2: the node's characters over the page's.
    text_share: float
    #: ρ2, formula 3: links per plain-text character (``inf`` for links with no plain text).
    link_density: float
    top: float
    bottom: float
    width: float
    height: float
    #: Anchor characters over all characters (not in the paper; a feature for learners).
    link_char_share: float


def node_blocks(tree: SimpleTree) -> list[Block]:
    """The text-carrying nodes of ``tree`` in document order, with ρ1, ρ2 and position."""
    total = tree.text_chars
    if not total:
        return []
    blocks = []
    lines = []
    before = 0
    for i, node in enumerate(tree.nodes):
        chars = node.chars
        if not chars:
            continue
        width = node.width
        node_lines = chars / (LINE_CHARS * (width if width > 0.05 else 0.05))
        node_lines = node.breaks + (node_lines if node_lines > 1.0 else 1.0)
        lines.append(node_lines)
        plain = chars - node.link_chars
        # Positional, in field order: keyword arguments cost twice the rest of the loop. The
        # height is the node's lines until all are counted.
        blocks.append(
            Block(
                i,
                node.text,
                chars,
                chars / total,
                node.links / plain if plain else (math.inf if node.links else 0.0),
                0.0 if node.hints & _TOP else before / total,
                0.0 if node.hints & _BOTTOM else (total - before - chars) / total,
                width,
                node_lines,
                node.link_chars / chars,
            )
        )
        before += chars
    all_lines = sum(lines)
    for block in blocks:
        block.height /= all_lines
    return blocks


def on_edge(block: Block) -> bool:
    """Algorithm 3's position test: ⟨bottom, width, height⟩ ∉ Δ3 when top > bottom, else
    ⟨top, width, height⟩ ∉ Δ4 (see the module notes for the sets)."""
    if block.height >= MIN_EDGE_HEIGHT:
        return False
    edge = block.bottom if block.top > block.bottom else block.top
    return edge < EDGE_SHARE or block.width < MIN_WIDTH


def removal_reason(block: Block) -> str | None:
    """Why algorithm 3 removes ``block`` (``"edge"``, ``"rho1"``, ``"rho2"``), None to keep it."""
    if on_edge(block):
        return "edge"
    if block.text_share < DELTA1_MIN_TEXT_SHARE:
        return "rho1"
    if block.link_density > DELTA2_MAX_LINK_DENSITY:
        return "rho2"
    return None


def positional_only(reason: str | None, block: Block) -> bool:
    """Removed by position alone although its text is plain (see the module notes)."""
    return reason == "edge" and block.link_density <= DELTA2_MAX_LINK_DENSITY


def _neutral(reason: str | None, block: Block) -> bool:
    """Plain text removed by position or as a crumb (ρ1): a page's layout or a post's user panel,
    no sign that the subtree around it is boilerplate (see the module notes)."""
    return positional_only(reason, block) or reason == "rho1" and block.link_density <= DELTA2_MAX_LINK_DENSITY


def main_region(tree: SimpleTree, blocks: Sequence[Block], reasons: Sequence[str | None]) -> int:
    """The ST node whose subtree has the largest balance of kept minus weighted removed text
    (plain text removed by position or ρ1 alone counts zero), widened to its nearest ancestor
    holding :data:`MIN_REGION_SHARE` of the page's kept text."""
    nodes = tree.nodes
    balance = [0.0] * len(nodes)
    kept = [0] * len(nodes)
    for block, reason in zip(blocks, reasons):
        if reason is None:
            balance[block.node] = kept[block.node] = block.chars
        elif not _neutral(reason, block):
            balance[block.node] = -REMOVED_WEIGHT * block.chars
    for i in range(len(nodes) - 1, 0, -1):
        balance[nodes[i].parent] += balance[i]
        kept[nodes[i].parent] += kept[i]
    top = max(range(len(balance)), key=balance.__getitem__)
    parent = nodes[top].parent
    if top > 0 and nodes[top].tag == "p" and balance[parent] > 0 and _kept_sibling(tree, blocks, reasons, top):
        top = parent  # one paragraph of an article whose other paragraphs are kept beside it
    while top > 0 and kept[top] < MIN_REGION_SHARE * kept[0]:
        top = nodes[top].parent
    return top


def _kept_sibling(tree: SimpleTree, blocks: Sequence[Block], reasons: Sequence[str | None], node: int) -> bool:
    """Whether another child of ``node``'s parent with ``node``'s tag is a kept block: the
    best-balanced subtree is then one paragraph of the article the parent holds, which some
    link line or crumb inside the parent outweighed by a few characters."""
    nodes = tree.nodes
    parent, tag = nodes[node].parent, nodes[node].tag
    return any(
        reason is None and block.node != node and nodes[block.node].parent == parent and nodes[block.node].tag == tag
        for block, reason in zip(blocks, reasons)
    )


def _keep_crumbs(
    tree: SimpleTree, blocks: Sequence[Block], keep: list[bool], reasons: list[str | None], top: int, end: int
) -> None:
    """Keep the plain-text ρ1 crumbs of the main region ``top:end`` that sit beside a kept block
    of their own tag, and its plain list items: on a long page, Δ1 takes the article's short
    paragraphs, which are siblings of its kept ones, and the items of its lists, which are short
    by nature ("Bend wires"); a user panel's crumbs have no kept sibling of their kind."""
    nodes = tree.nodes
    kept_kinds = {(nodes[b.node].parent, nodes[b.node].tag) for b, k in zip(blocks, keep) if k}
    rows = _data_rows(tree, blocks, keep, top, end)
    for i, block in enumerate(blocks):
        node = nodes[block.node]
        if (
            reasons[i] == "rho1"
            and top <= block.node < end
            and block.link_density <= DELTA2_MAX_LINK_DENSITY
            and (
                node.tag in _SHORT_BY_NATURE
                or (node.parent, node.tag) in kept_kinds
                or _row_of(tree, block.node) in rows
            )
        ):
            keep[i] = True
            reasons[i] = None


def _row_of(tree: SimpleTree, node: int) -> int:
    """The table row of the cell that is ``node`` or ``node``'s parent, -1 for none."""
    nodes = tree.nodes
    cell = node if nodes[node].tag in _CELLS else nodes[node].parent
    return nodes[cell].parent if cell >= 0 and nodes[cell].tag in _CELLS else -1


def _data_rows(tree: SimpleTree, blocks: Sequence[Block], keep: Sequence[bool], top: int, end: int) -> set[int]:
    """Rows of a data table in the main region ``top:end``: rows of two or more cells none of
    which holds a kept block. A table's figures and names ("14.7%", "Herbert Dürr") are short
    by nature; the row of a forum post built as a table (a user panel's cell beside the post's
    kept text) is no data row, and its panel's crumbs stay removed."""
    nodes = tree.nodes
    cells: Counter[int] = Counter(
        nodes[i].parent for i in range(top, end) if nodes[i].tag in _CELLS and nodes[i].parent >= 0
    )
    taken = {_row_of(tree, b.node) for b, k in zip(blocks, keep) if k}
    return {row for row, count in cells.items() if count >= 2 and row not in taken}


def _related_sections(tree: SimpleTree, top: int, end: int) -> set[int]:
    """Nodes of the main region ``top:end`` that head a related-links or references section
    (a short block whose whole text is a heading of :data:`_RELATED_TITLES`, holding less than
    :data:`AUX_MAX_SHARE` of the region's text), and the next sibling of each: the list it
    announces, inside the heading's block or just after it."""
    nodes, found = tree.nodes, set()
    limit = AUX_MAX_SHARE * nodes[top].subtree_chars
    for i in range(top, end):
        node = nodes[i]
        if (
            0 < node.chars <= _RELATED_MAX_CHARS
            and node.subtree_chars < limit
            and related_title(node.text)
        ):
            found.add(i)
            after = _run_end(nodes, i)
            if after < end and nodes[after].parent == node.parent:
                found.add(after)
    return found


def _aux_kinds(tree: SimpleTree, top: int, end: int) -> list[str]:
    """For each node of the main region ``top:end``: the auxiliary name (``related`` under a
    related heading, a word of :data:`_AUX_WORDS`, ``figcaption``) of the node or its nearest
    named region ancestor, ``""`` for none. Names are read here, for the region only: a search
    of every class/id name of the page costs a tenth of its parse."""
    nodes, kinds = tree.nodes, []
    related = _related_sections(tree, top, end)
    for i in range(top, end):
        node = nodes[i]
        kind = kinds[node.parent - top] if node.parent >= top else ""
        if not kind:
            if i in related:
                kind = _RELATED
            elif node.tag in _AUX_TAGS:
                kind = node.tag
            elif node.names and _ENTRY_NAMES.isdisjoint(node.names.split()):
                found = _AUX_WORDS.search(node.names)
                kind = found.group(0) if found else ""
        kinds.append(kind)
    return kinds


def _drop_aux(
    tree: SimpleTree, blocks: Sequence[Block], keep: list[bool], reasons: list[str | None], top: int, end: int
) -> None:
    """Drop the kept blocks of the main region ``top:end`` under an auxiliary name (comments,
    author box, caption...), each name on its own, when those under that name hold less than
    :data:`AUX_MAX_SHARE` of its kept text: in an article they surround the text; in a thread
    whose posts are named "comments" or "author" they are the text, and stay. Blocks under a
    related heading go whatever their share: the heading says what they are."""
    kinds = _aux_kinds(tree, top, end)
    named: dict[str, int] = {}
    for block, kept in zip(blocks, keep):
        if kept and top <= block.node < end and kinds[block.node - top]:
            kind = kinds[block.node - top]
            named[kind] = named.get(kind, 0) + block.chars
    if not named:
        return
    limit = AUX_MAX_SHARE * sum(b.chars for b, k in zip(blocks, keep) if k)
    for i, block in enumerate(blocks):
        kind = kinds[block.node - top] if top <= block.node < end else ""
        if keep[i] and kind and (kind == _RELATED or named.get(kind, limit) < limit):
            keep[i] = False
            reasons[i] = "aux"


def related_title(text: str) -> bool:
    """Whether ``text`` is a heading of :data:`_RELATED_TITLES` as a whole (its punctuation
    stripped, case folded): it announces that what follows is not the article's."""
    return _RELATED_TITLES.fullmatch(text.lower().strip(_TITLE_PUNCTUATION)) is not None


def related_heading(text: str) -> bool:
    """Whether ``text`` is a short line (at most :data:`_RELATED_MAX_CHARS` characters besides
    whitespace) that is a :func:`related_title`, as ``dom`` reads a region's blocks."""
    return 0 < len("".join(text.split())) <= _RELATED_MAX_CHARS and related_title(text)


def aux_name(element: lxml.etree._Element) -> str:
    """The word of :data:`_AUX_WORDS` that opens or closes one of ``element``'s class and id
    names ("" for none): it names a block around an article rather than in it (its comments,
    the author's box...). Stricter than the main region's reading (:func:`_aux_kinds`), which
    is ``dom``'s region alone: read on a whole text, a word inside a name ("entry-author-cassi",
    a blog's entry by its author) took the article itself for a box."""
    names = element.get("class") or ""
    ident = element.get("id")
    if ident:
        names = f"{names} {ident}"
    found = _AUX_EDGE_WORDS.search(names.lower()) if names else None
    return found.group(0) if found else ""


def _is_dateline(text: str) -> bool:
    """A time expression with at most :data:`DATELINE_MAX_WORDS` words around it."""
    found = find_time(text)
    if found is None:
        return False
    for _ in range(_DATELINE_MAX_TIMES):
        text = text.replace(found, " ")
        found = find_time(text)
        if found is None:
            break
    return len(_WORD.findall(text)) <= DATELINE_MAX_WORDS


def _drop_datelines(blocks: Sequence[Block], keep: list[bool], reasons: list[str | None]) -> None:
    """Drop the kept blocks that are a date and a few words ("Posted May 10, 2024 at 2:52 pm",
    "发稿时间：2024-05-20 13:15"): a post's or an article's metadata, not its text."""
    for i, block in enumerate(blocks):
        if keep[i] and block.chars <= DATELINE_MAX_CHARS and _is_dateline(block.text):
            keep[i] = False
            reasons[i] = "dateline"


def _is_notice(text: str) -> bool:
    """A credit, rights notice, ad or control label, reading time, pager or newsletter call."""
    text = text.lower()
    return bool(
        _NOTICE_LINE.fullmatch(text.strip(_NOTICE_STRIP))
        or _RIGHTS.search(text)
        or _NEWSLETTER.search(text) and _SIGN_UP.search(text)
    )


def _drop_notices(blocks: Sequence[Block], keep: list[bool], reasons: list[str | None]) -> None:
    """Drop the kept blocks of at most :data:`NOTICE_MAX_CHARS` characters that are notices
    ("责任编辑：张毅", "© 2024 ...", "Advertisement", "5 min read", "Sign up for our newsletter"):
    they sit inside the article container as plain text, and say what they are."""
    for i, block in enumerate(blocks):
        if keep[i] and block.chars <= NOTICE_MAX_CHARS and _is_notice(block.text):
            keep[i] = False
            reasons[i] = "notice"


@dataclass(frozen=True)
class DomResult:
    """DOM density on one page.

    ``text`` is the kept blocks' text, one block per line (``""`` when nothing is kept);
    ``blocks`` the kept blocks in page order; ``removed`` counts removals by reason (``edge``,
    ``rho1``, ``rho2``, ``region``: outside the main region, ``aux``: an auxiliary block inside
    it, ``dateline``: a kept block that is mostly a date, ``notice``: a credit, rights or
    newsletter line; see the module notes).
    """

    text: str
    blocks: list[Block]
    removed: dict[str, int]
    #: The page's simple tree, for its sizes (counted only when asked).
    tree: SimpleTree

    @property
    def fusion_rate(self) -> float:
        """See :attr:`SimpleTree.fusion_rate`."""
        return self.tree.fusion_rate

    @property
    def dom_nodes(self) -> int:
        """See :attr:`SimpleTree.dom_nodes`."""
        return self.tree.dom_nodes

    @property
    def st_nodes(self) -> int:
        """See :attr:`SimpleTree.st_nodes`."""
        return self.tree.st_nodes


@dataclass(frozen=True)
class DomDensityExtractor:
    """Algorithms 2 and 3 with their parameters: ``DomDensityExtractor().extract(doc).text``.

    ``region=False`` keeps every block algorithm 3 keeps, as the paper does; the default keeps
    only those of the main region (see the module notes).
    """

    region: bool = True

    def extract(self, document: Document | lxml.etree._Element | None) -> DomResult:
        """Main text of ``document`` (an empty result for an empty page)."""
        tree = simplify_tree(document)
        blocks = node_blocks(tree)
        reasons = [removal_reason(b) for b in blocks]
        keep = [r is None for r in reasons]
        if self.region and any(keep):
            top = main_region(tree, blocks, reasons)
            end = _run_end(tree.nodes, top)
            for i, block in enumerate(blocks):
                inside = top <= block.node < end
                if keep[i] and not inside:
                    keep[i] = False
                    reasons[i] = "region"
                elif (
                    inside
                    and positional_only(reasons[i], block)
                    and not tree.nodes[block.node].hints & (_TOP | _BOTTOM)
                ):
                    keep[i] = True
                    reasons[i] = None
            _keep_crumbs(tree, blocks, keep, reasons, top, end)
            _drop_aux(tree, blocks, keep, reasons, top, end)
            _drop_datelines(blocks, keep, reasons)
            _drop_notices(blocks, keep, reasons)
        removed: dict[str, int] = {}
        for reason in reasons:
            if reason is not None:
                removed[reason] = removed.get(reason, 0) + 1
        kept = [b for b, k in zip(blocks, keep) if k]
        return DomResult(
            text="\n".join(b.text for b in kept),
            blocks=kept,
            removed=removed,
            tree=tree,
        )


class BlockFeaturizer(Estimator):
    """Blocks (see :func:`node_blocks`) to a numeric matrix of their §3.3 properties.

    Columns, in :meth:`get_feature_names_out` order: ρ1, ρ2 (capped at ``max_link_density`` so
    that the matrix stays finite), top, bottom, width, height, anchor-character share, and
    ``log1p`` of the character count. Stateless: ``fit`` only records the feature count.
    """

    _FEATURES = ("rho1", "rho2", "top", "bottom", "width", "height", "link_char_share", "log_chars")

    def __init__(self, max_link_density: float = 1.0) -> None:
        self.max_link_density = max_link_density

    def fit(self, X: Sequence[Block], y: object = None) -> BlockFeaturizer:
        """Validate the parameter; nothing is learned."""
        if not self.max_link_density > 0:
            raise ValueError(f"max_link_density must be positive, got {self.max_link_density}")
        self.n_features_out_ = len(self._FEATURES)
        return self

    def fit_transform(self, X: Sequence[Block], y: object = None) -> np.ndarray:
        """``fit``, then ``transform``."""
        return self.fit(X, y).transform(X)

    def transform(self, X: Sequence[Block]) -> np.ndarray:
        """One row per block."""
        import numpy as np  # not at import: extraction itself never builds feature rows

        cap = self.max_link_density
        return np.array(
            [
                (
                    b.text_share,
                    min(b.link_density, cap),
                    b.top,
                    b.bottom,
                    b.width,
                    b.height,
                    b.link_char_share,
                    math.log1p(b.chars),
                )
                for b in X
            ],
            dtype=float,
        ).reshape(len(X), len(self._FEATURES))

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        """The column names."""
        import numpy as np

        return np.array(self._FEATURES, dtype=object)
