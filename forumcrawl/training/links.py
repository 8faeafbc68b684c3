"""``forumcrawl train links``: rebuild the shipped link classifier from sites with known topic pages.

No hand labels: on a site whose thread pages are known (the mock forum's truth, a generated forum
of the universe, a truth file such as the machina forum's), every link of every fetched page is
labelled by its target — a thread page, a list page (a page that links at least
:data:`MIN_LISTED` thread pages: a board, its next pages, a "latest" list; not a profile or
another page whose URL names an action, whose threads the boards list anyway) or another page.
A folder in the evaluation format (``gold.jsonl`` + ``pages/``) adds its listing pages, labelled
by whether a link's anchor text is part of the page's gold main content. Only 127.0.0.1/localhost
is fetched.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import re
import time
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from urllib.error import URLError
from urllib.parse import urlsplit

__all__ = [
    "HELP",
    "LabelledLinks",
    "add_arguments",
    "fetch_local",
    "gold_listing_links",
    "mock_links",
    "run",
    "site_links",
    "truth_file_labeller",
    "universe_links",
]

logger = logging.getLogger(__name__)

HELP = "rebuild the link classifier (extractors/models/links.json) from forums with known topic pages"

#: Pages fetched per site: the mock families have about 90, the machina forum about 900; 400
#: reaches every board and list page and a few hundred thread pages of the latter.
DEFAULT_MAX_PAGES = 400
#: Distinct links kept per site, so that one big site does not outweigh the others and the SVM
#: (quadratic in the sample) trains in about a minute.
DEFAULT_MAX_LINKS = 2500
#: A page linking this many distinct thread pages lists threads (a board, a "latest" list); fewer
#: is a page's aside. On the mock families boards link 3-17 (3: a board's last page), front
#: pages 0-3, member pages 0-4; on tuning forums 0-3 of the universe boards link 9-32, member post
#: lists 2-6, every other page none.
MIN_LISTED = 3
#: Anchor texts at least this wide (text_width) count as content when found in the gold text;
#: shorter ones ("More", "1") are too common to tell.
MIN_CONTENT_ANCHOR = 16
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}


@dataclass
class LabelledLinks:
    """Link records with labels (:data:`~forumcrawl.extractors.links.THREAD`, ``LIST`` or
    ``OTHER``, by the link's target) and the site each came from."""

    records: list[Any] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    sites: list[str] = field(default_factory=list)

    def extend(self, other: LabelledLinks) -> None:
        """Append another set."""
        self.records += other.records
        self.labels += other.labels
        self.sites += other.sites

    def __len__(self) -> int:
        return len(self.records)


def fetch_local(url: str, timeout: float = 10.0) -> tuple[bytes, str | None] | None:
    """Body and Content-Type of a page on 127.0.0.1/localhost; None for errors and non-HTML."""
    if urlsplit(url).hostname not in _LOCAL_HOSTS:
        raise ValueError(f"only 127.0.0.1/localhost is fetched here, not {url!r}")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (local only)
            content_type = response.headers.get("Content-Type")
            if content_type and "html" not in content_type:
                return None
            return response.read(), content_type
    except (URLError, OSError, ValueError):
        return None


def site_links(
    start: str,
    is_topic: Callable[[str], bool],
    *,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_links: int = DEFAULT_MAX_LINKS,
    random_state: int = 0,
) -> LabelledLinks:
    """Breadth-first fetch of one local site; the links of its home and list pages, labelled.

    Only pages that are not thread pages give samples, as in the paper (home and board pages:
    the classifier steers the crawl from there). A link repeated with the same text and place
    (the navigation bar on every page) counts once. A link to a page of the site that was not
    fetched (beyond ``max_pages``, or failing) cannot be told a list link or not and is left out;
    a link to another site is an other link.
    """
    from forumcrawl.document import Document, DocumentError, site_of
    from forumcrawl.extractors.links import link_records

    site = site_of(start)
    queue, seen = deque([start]), {start}
    unique: dict[tuple[Any, ...], Any] = {}
    #: Fetched page → the distinct thread pages it links.
    listed: dict[str, set[str]] = {}
    while queue and len(listed) < max_pages:
        url = queue.popleft()
        got = fetch_local(url)
        if got is None:
            continue
        try:
            document = Document.from_bytes(got[0], url, got[1])
        except DocumentError:
            continue
        listing = not is_topic(url)
        records = link_records(document)
        listed[url] = {r.href for r in records if is_topic(r.href)}
        for record in records:
            if listing:
                key = (record.href, record.text, record.title, record.tag_path, record.group_size)
                unique.setdefault(key, record)
            if site_of(record.href) == site and record.href not in seen:
                seen.add(record.href)
                queue.append(record.href)
    labelled = [(r, _label(r.href, site, is_topic, listed)) for r in unique.values()]
    kept = [(r, label) for r, label in labelled if label is not None]
    if len(kept) > max_links:
        kept = random.Random(random_state).sample(kept, max_links)
    logger.info("%s: %d pages, %d distinct links", site, len(listed), len(kept))
    return LabelledLinks([r for r, _ in kept], [label for _, label in kept], [site] * len(kept))


def _label(href: str, site: str, is_topic: Callable[[str], bool],
           listed: dict[str, set[str]]) -> int | None:
    """THREAD, LIST or OTHER by the link's target; None for a page of the site not fetched."""
    from forumcrawl.document import site_of
    from forumcrawl.extractors.links import LIST, OTHER, THREAD, is_action_url

    if is_topic(href):
        return THREAD
    if site_of(href) != site or is_action_url(href):
        return OTHER
    if href not in listed:
        return None
    return LIST if len(listed[href]) >= MIN_LISTED else OTHER


def mock_links(family: str, **kwargs: Any) -> LabelledLinks:
    """Labelled links of one mock-forum family, served on 127.0.0.1 for the time of the fetch."""
    from forumcrawl.mockforum import serve

    with serve(family) as server:
        links = site_links(server.url, server.truth.is_topic, **kwargs)
    links.sites = [f"mock:{family}"] * len(links)
    return links


def universe_links(seed: int, **kwargs: Any) -> LabelledLinks:
    """Labelled links of one generated forum of the universe, served for the time of the fetch."""
    from forumcrawl.mockforum.universe import serve_seed

    with serve_seed(seed) as server:
        links = site_links(server.url, server.truth.is_topic, **kwargs)
    links.sites = [f"universe:{seed}"] * len(links)
    return links


def truth_file_labeller(path: Path) -> tuple[str, Callable[[str], bool]]:
    """Base URL and topic test of a forum truth file (``topic_urls`` + ``topic_url_aliases``)."""
    truth = json.loads(path.read_text("utf-8"))
    topics = set(truth["topic_urls"]) | set(truth.get("topic_url_aliases", {}))
    base = truth.get("meta", {}).get("base_url") or truth["topic_urls"][0]
    return base.rstrip("/") + "/", lambda url: url in topics


_TOKEN_RE = re.compile(r"[\u3400-\u9fff]|[a-z0-9]+")


def _tokens(text: str) -> str:
    return " ".join(_TOKEN_RE.findall(text.lower()))


def gold_listing_links(folder: Path, kinds: tuple[str, ...] = ("listing",)) -> LabelledLinks:
    """Links of a gold folder's listing pages: content if the anchor is in the gold main text.

    A link is positive when its anchor (at least :data:`MIN_CONTENT_ANCHOR` wide) occurs in the
    page's annotated main content, negative when its anchor does not occur there at all; short
    anchors found in the content are left out as undecidable.
    """
    from forumcrawl.document import Document, DocumentError, site_of
    from forumcrawl.extractors.links import link_records, text_width

    out = LabelledLinks()
    for line in (folder / "gold.jsonl").read_text("utf-8").splitlines():
        gold = json.loads(line)
        if gold.get("kind") not in kinds or not gold.get("url") or not gold.get("text"):
            continue
        page = folder / "pages" / f"{gold['id']}.html.gz"
        try:
            document = Document.from_bytes(gzip.decompress(page.read_bytes()), gold["url"])
        except (OSError, DocumentError):
            continue
        content = f" {_tokens(gold['text'])} "
        for record in link_records(document):
            anchor = _tokens(record.text)
            if not anchor:
                continue
            inside = f" {anchor} " in content
            if inside and text_width(record.text) < MIN_CONTENT_ANCHOR:
                continue
            out.records.append(record)
            out.labels.append(int(inside))
            out.sites.append(f"gold:{site_of(gold['url'])}")
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl train links``."""
    from forumcrawl.mockforum import ALL_FAMILIES

    parser.add_argument(
        "--mock",
        nargs="*",
        default=list(ALL_FAMILIES),
        metavar="FAMILY",
        help=f"mock-forum families to serve and fetch (default: {' '.join(ALL_FAMILIES)})",
    )
    parser.add_argument(
        "--universe",
        default="0-9",
        metavar="SEEDS",
        help="generated forums to train on, e.g. 0-9 or 3,7 (default 0-9, tuning seeds; '' none)",
    )
    parser.add_argument(
        "--report",
        default="100-109",
        metavar="SEEDS",
        help="generated forums only scored, never trained on (default 100-109, held apart; '' none)",
    )
    parser.add_argument(
        "--truth",
        action="append",
        default=[],
        type=Path,
        metavar="TRUTH.json",
        help="a local forum's truth file (meta.base_url, topic_urls); its site is fetched",
    )
    parser.add_argument(
        "--gold",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="a gold folder (gold.jsonl + pages/) whose listing pages add labelled links",
    )
    parser.add_argument("--max-pages", type=int, default=DEFAULT_MAX_PAGES, help="pages per site")
    parser.add_argument("--max-links", type=int, default=DEFAULT_MAX_LINKS, help="links per site")
    parser.add_argument("--w", type=float, default=0.5, help="tag-sequence weight of sim (0-1)")
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "extractors" / "models",
        help="folder for links.json and links.md (default: the package's extractors/models)",
    )


def collect(args: argparse.Namespace) -> LabelledLinks:
    """The labelled links of every source named on the command line."""
    from forumcrawl.cli import CommandError

    links = LabelledLinks()
    options = {"max_pages": args.max_pages, "max_links": args.max_links,
               "random_state": args.random_state}
    for family in args.mock:
        links.extend(mock_links(family, **options))
    for seed in _seeds(args.universe):
        links.extend(universe_links(seed, **options))
    for path in args.truth:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        base, is_topic = truth_file_labeller(path)
        if fetch_local(base) is None:
            raise CommandError(f"{base} (from {path}) does not answer; start the forum first")
        links.extend(site_links(base, is_topic, **options))
    for folder in args.gold:
        if not (folder / "gold.jsonl").is_file():
            raise CommandError(f"{folder}: no gold.jsonl")
        links.extend(gold_listing_links(folder))
    if len(set(links.labels)) < 3:
        raise CommandError("the sources gave no links of one of the three classes "
                           "(thread, list, other)")
    return links


def _seeds(text: str) -> list[int]:
    from forumcrawl.cli import CommandError
    from forumcrawl.mockforum.universe import parse_seeds

    try:
        return parse_seeds(text) if text.strip() else []
    except ValueError:
        raise CommandError(f"not a list of seeds: {text!r} (e.g. 0-9 or 3,7)") from None


def scores(truth: Any, predicted: Any) -> dict[str, float]:
    """Links and precision, recall and F1 of thread links and of list links."""
    import numpy as np
    from sklearn.metrics import precision_recall_fscore_support

    from forumcrawl.extractors.links import LIST, THREAD

    p, r, f, _ = precision_recall_fscore_support(
        truth, predicted, labels=[THREAD, LIST], average=None, zero_division=0
    )
    truth = np.asarray(truth)
    return {"links": int(len(truth)), "positives": int((truth == THREAD).sum()),
            "precision": float(p[0]), "recall": float(r[0]), "f1": float(f[0]),
            "lists": int((truth == LIST).sum()),
            "list_precision": float(p[1]), "list_recall": float(r[1]), "list_f1": float(f[1])}


def leave_one_site_out(
    links: LabelledLinks, *, structural: bool = True, w: float = 0.5, random_state: int = 0
) -> Iterator[tuple[str, dict[str, float]]]:
    """Per held-out site: :func:`scores` of a model trained on the others."""
    import numpy as np

    from forumcrawl.extractors.links import make_link_classifier

    sites = np.asarray(links.sites)
    y = np.asarray(links.labels)
    records = np.asarray(links.records, dtype=object)
    for site in dict.fromkeys(links.sites):
        test = sites == site
        if len(set(y[~test])) < 2:
            continue
        model = make_link_classifier(w=w, structural=structural, random_state=random_state)
        model.fit(list(records[~test]), y[~test])
        yield site, scores(y[test], model.predict(list(records[test])))


def _card(links: LabelledLinks, loso: dict[str, dict[str, float]],
          held_apart: dict[str, dict[str, float]], args: argparse.Namespace,
          seconds: float) -> dict[str, Any]:
    import sklearn

    from forumcrawl.extractors.links import FEATURE_NAMES, LIST, THREAD

    counts: dict[str, dict[str, int]] = {}
    for site, label in zip(links.sites, links.labels):
        kind = {THREAD: "threads", LIST: "lists"}.get(label, "others")
        row = counts.setdefault(site, {"threads": 0, "lists": 0, "others": 0})
        row[kind] += 1
    return {
        "model": "LinkFeaturizer → StandardScaler → CalibratedClassifierCV(SVC(kernel='linear'), "
        "method='sigmoid', ensemble=False), three classes: 1 thread, 2 list, 0 other",
        "trained": date.today().isoformat(),
        "features": list(FEATURE_NAMES),
        "sklearn_version": sklearn.__version__,
        "training_seconds": round(seconds, 1),
        "labels": "no hand labels: a link is a thread link when its target is a thread page of the "
        "site's truth (mock forum and universe SiteTruth.is_topic; truth.json topic_urls + "
        f"topic_url_aliases), a list link when its target links at least {MIN_LISTED} distinct "
        "thread pages and its URL has no action word (profiles, search), other otherwise (links to pages not fetched are left out); for gold "
        "folders, a thread link when its anchor text is part of the page's gold main content",
        "training_data": counts,
        "parameters": {"w": args.w, "max_pages": args.max_pages, "max_links": args.max_links,
                       "random_state": args.random_state, "universe": args.universe,
                       "report": args.report},
        "leave_one_site_out": loso,
        "held_apart": held_apart,
        "storage": "JSON, no pickle: scaler mean/scale, the SVC's support vectors, dual "
        "coefficients and intercepts, and one Platt sigmoid (a, b) per class. Rebuilding sets "
        "sklearn's fitted attributes, some private (SVC _n_support, _dual_coef_, _intercept_, "
        "_gamma; the calibration's _CalibratedClassifier and _SigmoidCalibration), so a model is "
        "tied to the attribute names of the sklearn version above; the trainer reloads what it "
        "writes and checks the probabilities match. SVC(probability=True) is deprecated in "
        "sklearn 1.9, hence the calibration wrapper (same Platt scaling)",
    }


def _score_rows(table: dict[str, dict[str, float]]) -> list[str]:
    lines = ["| site | links | threads | P | R | F1 | lists | P | R | F1 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for site, s in table.items():
        lines.append(
            f"| {site} | {s['links']} | {s['positives']} | {s['precision']:.3f} | "
            f"{s['recall']:.3f} | {s['f1']:.3f} | {s['lists']} | {s['list_precision']:.3f} | "
            f"{s['list_recall']:.3f} | {s['list_f1']:.3f} |"
        )
    return lines


def _markdown(card: dict[str, Any]) -> str:
    lines = [
        "# Link classifier (extractors/models/links.json)",
        "",
        f"- Model: {card['model']}",
        f"- Trained: {card['trained']} with scikit-learn {card['sklearn_version']} "
        f"({card['training_seconds']} s); rebuild with `forumcrawl train links`.",
        f"- Features: {', '.join(card['features'])}.",
        f"- Labels: {card['labels']}.",
        f"- Parameters: {card['parameters']}.",
        f"- Storage: {card['storage']}.",
        "",
        "| site | threads | lists | others |",
        "|---|---:|---:|---:|",
    ]
    for site, n in card["training_data"].items():
        lines.append(f"| {site} | {n['threads']} | {n['lists']} | {n['others']} |")
    lines += ["", "Leave one site out (trained on the others, scored on the site): thread links, "
              "then list links:", "", *_score_rows(card["leave_one_site_out"])]
    if card["held_apart"]:
        lines += ["", "Held-apart forums (never trained or chosen on), scored by the shipped "
                  "model:", "", *_score_rows(card["held_apart"])]
    return "\n".join(lines) + "\n"


def _print_scores(title: str, table: dict[str, dict[str, float]]) -> None:
    print(title)
    for site, s in table.items():
        print(f"  {site}: threads P={s['precision']:.3f} R={s['recall']:.3f}, "
              f"lists P={s['list_precision']:.3f} R={s['list_recall']:.3f}")


def run(args: argparse.Namespace) -> int:
    """Collect labelled links, score leave-one-site-out, fit on all, score the held-apart
    forums, write links.json + links.md."""
    import numpy as np

    from forumcrawl.cli import CommandError
    from forumcrawl.extractors.links import (
        MODEL_FILE,
        make_link_classifier,
        model_from_dict,
        model_to_dict,
    )

    if not 0 <= args.w <= 1:
        raise CommandError("--w must be between 0 and 1")
    links = collect(args)
    print(f"{len(links)} links from {len(set(links.sites))} sites, "
          f"{links.labels.count(1)} to thread pages, {links.labels.count(2)} to list pages")
    loso = dict(leave_one_site_out(links, w=args.w, random_state=args.random_state))
    _print_scores("leave one site out:", loso)
    started = time.perf_counter()
    model = make_link_classifier(w=args.w, random_state=args.random_state)
    model.fit(links.records, np.asarray(links.labels))
    seconds = time.perf_counter() - started
    options = {"max_pages": args.max_pages, "max_links": args.max_links,
               "random_state": args.random_state}
    held_apart = {}
    for seed in _seeds(args.report):
        found = universe_links(seed, **options)
        held_apart[found.sites[0] if found.sites else f"universe:{seed}"] = scores(
            found.labels, model.predict(found.records)
        )
    _print_scores("held apart:", held_apart)
    data = model_to_dict(model)
    reloaded = model_from_dict(json.loads(json.dumps(data)))
    if not np.allclose(reloaded.predict_proba(links.records), model.predict_proba(links.records)):
        raise CommandError("the stored model does not reproduce the fitted one")
    data["card"] = _card(links, loso, held_apart, args, seconds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / MODEL_FILE).write_text(json.dumps(data, ensure_ascii=False) + "\n", "utf-8")
    (args.out / "links.md").write_text(_markdown(data["card"]), "utf-8")
    print(f"wrote {args.out / MODEL_FILE} and {args.out / 'links.md'}")
    return 0
