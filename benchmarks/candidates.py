"""Every single-page stage's candidate text for every page of a gold folder, kept as JSONL.

The arbiter and every constant of the cascade are chosen on these candidates (see
``accuracy.py --holdout``): the stages run once per page, and choosing among their outputs is
then a matter of seconds, for any split of folders into tuned-on and held-apart.
``holdout.py`` writes them to ``<work>/<folder>/candidates.jsonl`` on its first run.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from forumcrawl.document import Document, DocumentError
from forumcrawl.extractors.cx import LineBlockExtractor
from forumcrawl.extractors.dom_density import DomDensityExtractor
from forumcrawl.extractors.arbiter import overlay_lines, without_lines, without_parts
from forumcrawl.extractors.cx import document_lines
from forumcrawl.extractors.ksf import SinglePage, single_posts
from forumcrawl.pages import own_words, thread_text

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (a sibling script, not a package)

#: The stages whose candidates are kept, in the order the cascade knows them.
STAGE_NAMES = ("ksf", "dom", "cx")


def page_candidates(body: bytes, page_id: str) -> dict[str, Any]:
    """``{"id", "<stage>": text, "ksf_posts": n, "ksf_quoted": text, "ksf_commented": bool,
    "seconds": {stage: s}}`` for one page. ``ksf`` is the posts' own words, which the cascade's
    thread tests read; ``ksf_quoted`` the thread's text with its quotes, which it exports;
    ``ksf_commented`` whether the posts are an article with its readers' comments
    (:func:`~forumcrawl.extractors.ksf.comments_on_first`) or its comments alone
    (``ksf_comments``: ``cx_cut`` and ``dom_cut`` are their texts without them, as the cascade
    reads them once KSF ran)."""
    record: dict[str, Any] = {"id": page_id, "seconds": {}}
    try:
        doc = Document.from_bytes(body)
    except DocumentError as exc:
        return {**record, "error": str(exc), **dict.fromkeys(STAGE_NAMES, "")}
    started = time.perf_counter()
    doc.tree  # noqa: B018  (the parse, timed on its own)
    record["seconds"]["parse"] = time.perf_counter() - started
    started = time.perf_counter()
    record["cx"] = LineBlockExtractor().extract(doc).text
    record["seconds"]["cx"] = time.perf_counter() - started
    started = time.perf_counter()
    record["dom"] = DomDensityExtractor().extract(doc).text
    record["seconds"]["dom"] = time.perf_counter() - started
    for name in ("cx", "dom"):  # as the cascade reads them: no consent banner or dialog
        record[name] = without_lines(record[name], overlay_lines(record[name], document_lines(doc)))
    started = time.perf_counter()
    try:
        single = single_posts(doc)
    except Exception as exc:  # noqa: BLE001  (a stage failure is a miss, as in the cascade)
        single = SinglePage()
        record["ksf_error"] = repr(exc)
    record["seconds"]["ksf"] = time.perf_counter() - started
    record["ksf"] = own_words(single.posts)
    record["ksf_quoted"] = thread_text(single.posts)
    record["ksf_posts"] = len(single.posts)
    record["ksf_commented"] = single.commented
    if single.comments:  # an article's comments: once KSF ran, dom and cx are read without them
        record["ksf_comments"] = True
        for name in ("cx", "dom"):
            record[f"{name}_cut"] = without_parts(record[name], document_lines(doc), single.comments)
    return record


def _for_file(path: Path) -> dict[str, Any]:
    page_id = path.name[: -len(peers.PAGE_SUFFIX)]
    return page_candidates(peers.read_page(path), page_id)


def write_candidates(folder: Path, out: Path, jobs: int = 1) -> int:
    """Write the candidates of every page of ``folder`` to ``out``; returns the page count."""
    files = peers.page_files(folder)
    out.parent.mkdir(parents=True, exist_ok=True)
    if jobs <= 1:
        return peers.write_jsonl(map(_for_file, files), out)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return peers.write_jsonl(pool.map(_for_file, files, chunksize=8), out)
