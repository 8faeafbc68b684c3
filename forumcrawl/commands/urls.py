"""``forumcrawl urls FILE``: cluster a site's URLs (USC) and show its thread-page rule.

Prints each cluster with its size, its pattern and a few URLs, then the resolver learned for
the topic cluster and why that cluster was chosen. The topic cluster comes from
``--topic-example`` (the paper's way) or from the evidence of pages fetched with ``--fetch N``
(as the crawl fetches them: robots.txt, user agent, timeout); without either, the clusters are
shown and no rule is learned. ``--format tsv|jsonl`` writes one row per URL instead: its cluster,
the cluster's pattern and whether the rule takes it for a thread page.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from forumcrawl.document import Document
    from forumcrawl.extractors.topic import ClusterSummary

NAME = "urls"
HELP = "cluster a site's URLs by structure (USC) and learn which of them are thread pages"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``forumcrawl urls``."""
    from forumcrawl.fetch import add_timeout_option
    from forumcrawl.output import add_format_option

    parser.add_argument(
        "file", metavar="FILE", help="URLs of one site, one per line ('-' reads standard input)"
    )
    parser.add_argument(
        "--topic-example", metavar="URL", help="a thread URL of the site: its cluster is the topic"
    )
    parser.add_argument(
        "--fetch", metavar="N", type=int, default=0,
        help="fetch up to N of the URLs, spread over the clusters, to choose the topic cluster "
        "from their content (default: 0, no network)",
    )
    parser.add_argument("--plot", metavar="PNG", type=Path, help="save the decision graph")
    parser.add_argument("--save", metavar="JSON", type=Path, help="save the learned rule")
    parser.add_argument(
        "--sample-size", metavar="N", type=int, default=600, help="URLs clustered at most"
    )
    parser.add_argument("--neighbors", metavar="K", type=int, default=10, help="K of KNN-DPC")
    parser.add_argument(
        "--examples", metavar="N", type=int, default=3, help="URLs shown per cluster (table)"
    )
    add_format_option(
        parser, "the clusters", "every URL with its cluster, pattern and topic verdict"
    )
    add_timeout_option(parser)


def _read(name: str) -> list[str]:
    from forumcrawl.cli import CommandError

    try:
        stream: TextIO = sys.stdin if name == "-" else open(name, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise CommandError(f"{name}: {exc.strerror}") from exc
    with stream:
        try:
            lines = [line.strip() for line in stream]
        except UnicodeDecodeError as exc:
            raise CommandError(f"{name}: not UTF-8 text ({exc.reason})") from exc
    return [line for line in lines if line and not line.startswith("#")]


def _fetch(
    urls: Sequence[str], labels: Sequence[int], limit: int, timeout: float, notes: TextIO
) -> dict[str, Document]:
    """Up to ``limit`` pages, taking URLs from each cluster in turn (every cluster gets evidence).

    Pages that cannot be had are skipped; ``notes`` gets how many and the first reason of each kind.
    """
    from forumcrawl.document import Document, DocumentError
    from forumcrawl.fetch import Fetcher, FetchError
    from forumcrawl.runner import project_settings

    queues: dict[int, list[str]] = {}
    for url, label in zip(urls, labels):
        queues.setdefault(int(label), []).append(url)
    order: list[str] = []
    while any(queues.values()) and len(order) < limit:
        for queue in queues.values():
            if queue and len(order) < limit:
                order.append(queue.pop(0))
    fetcher = Fetcher.from_settings(project_settings(), timeout=timeout)
    pages: dict[str, Document] = {}
    failures: Counter[str] = Counter()
    for url in order:
        try:
            page = fetcher.fetch(url)
            pages[url] = Document.from_bytes(page.body, url, page.content_type)
        except (FetchError, DocumentError) as exc:
            reason = "forbidden by robots.txt" if "robots.txt" in str(exc) else "failed"
            if not failures[reason]:
                notes.write(f"skipped {exc}\n")
            failures[reason] += 1
    notes.write(
        f"fetched {len(pages)} of {len(order)} pages"
        + "".join(f"; {n} {reason}" for reason, n in sorted(failures.items()))
        + "\n"
    )
    return pages


def _show_clusters(clusters: Sequence[ClusterSummary], examples: int, out: TextIO) -> None:
    out.write(f"{'cluster':>7} {'size':>5} {'pages':>5} {'evidence':>8}  topic  pattern\n")
    for c in sorted(clusters, key=lambda c: (-c.size, c.label)):
        evidence = "" if c.evidence is None else f"{c.evidence:.2f}"
        pages = f"{c.thread_pages}/{c.n_pages}" if c.n_pages else ""
        out.write(
            f"{c.label:>7} {c.size:>5} {pages:>5} {evidence:>8}  {'*' if c.topic else ' ':^5}  "
            f"{c.pattern}\n"
        )
        for url in c.examples[:examples]:
            out.write(f"{'':>16}{url}\n")


def run(args: argparse.Namespace) -> int:
    """Cluster, learn, print; 0 on success."""
    from forumcrawl.cli import CommandError
    from forumcrawl.extractors.dpc import KNNDensityPeaks
    from forumcrawl.extractors.topic import ClusterSummary, cluster_pattern, learn_topic_rule
    from forumcrawl.extractors.usc import split_url, usc_distance_matrix
    from forumcrawl.output import write_rows

    fmt = args.format
    if args.timeout <= 0:
        raise CommandError("--timeout must be positive")
    if args.fetch < 0 or args.sample_size < 1 or args.neighbors < 1 or args.examples < 0:
        raise CommandError("--fetch, --sample-size, --neighbors and --examples must be positive")
    urls = list(dict.fromkeys(_read(args.file)))
    good = []
    for url in urls:
        try:
            split_url(url)
        except ValueError:
            continue
        good.append(url)
    if not good:
        raise CommandError(f"{args.file}: no http(s) URL")
    if args.topic_example is not None:
        try:
            split_url(args.topic_example)
        except ValueError as exc:
            raise CommandError(f"--topic-example: {exc}") from exc
    # The table and notes share standard output; with tsv/jsonl it holds only the rows.
    out = sys.stdout if fmt == "table" else sys.stderr
    pages: dict[str, Document] = {}
    if args.fetch:
        preview = KNNDensityPeaks(args.neighbors, center_selection="local_peaks")
        head = good[: args.sample_size]
        labels = preview.fit(usc_distance_matrix(head, drop_sessions=True)).labels_
        pages = _fetch(head, labels, args.fetch, args.timeout, out)
    try:
        found = learn_topic_rule(
            good, pages, topic_example=args.topic_example, sample_size=args.sample_size,
            n_neighbors=args.neighbors,
        )
    except ValueError as exc:
        if args.topic_example is not None or "topic_example" not in str(exc):
            raise CommandError(str(exc)) from exc
        # No way to tell which cluster holds threads: show the clusters only.
        sample = good[: args.sample_size]
        clustering = KNNDensityPeaks(args.neighbors, center_selection="local_peaks")
        labels = clustering.fit(usc_distance_matrix(sample, drop_sessions=True)).labels_
        clusters = []
        for k in range(int(labels.max()) + 1):
            members = [u for u, label in zip(sample, labels) if label == k]
            clusters.append(ClusterSummary(
                label=k, size=len(members), n_pages=0, thread_pages=0, evidence=None,
                topic=False, pattern=cluster_pattern(members), examples=tuple(members[:3]),
            ))
        out.write(f"{len(sample)} URLs, {len(clusters)} clusters (KNN-DPC, K={args.neighbors})\n")
        if fmt == "table":
            _show_clusters(clusters, args.examples, out)
        else:
            write_rows(_url_rows(good, sample, labels, clusters, None), fmt, sys.stdout)
        out.write(f"no topic rule: {exc} (or --fetch N)\n")
        if args.plot:
            _plot(clustering, args.plot, out)
        return 0
    out.write(
        f"site {found.site}: {len(found.urls)} URLs, {len(found.clusters)} clusters "
        f"(KNN-DPC, K={args.neighbors})\n"
    )
    topic = found.resolver.predict(good)
    if fmt == "table":
        _show_clusters(found.clusters, args.examples, out)
    else:
        write_rows(_url_rows(good, found.urls, found.labels, found.clusters, topic), fmt, sys.stdout)
    matched = int(topic.sum())
    out.write(f"\ntopic rule: {found.resolver}\n")
    out.write(f"topic URLs in {args.file}: {matched} of {len(good)}\n")
    out.write(f"why: {found.reason}\n")
    if args.plot:
        _plot(found.clustering, args.plot, out)
    if args.save:
        try:
            args.save.write_text(
                json.dumps(found.resolver.to_dict(), ensure_ascii=False, indent=2) + "\n",
                encoding="utf-8",
            )
        except OSError as exc:
            raise CommandError(f"cannot write {args.save}: {exc.strerror}") from exc
        out.write(f"rule saved to {args.save}\n")
    return 0


def _url_rows(
    urls: Sequence[str],
    sample: Sequence[str],
    labels: Sequence[int],
    clusters: Sequence[ClusterSummary],
    topic: Sequence[bool] | None,
) -> Iterator[dict[str, Any]]:
    """One row per URL: its cluster in the clustered sample (None beyond it), that cluster's
    pattern, and whether the topic rule takes it for a thread page (None without a rule)."""
    label_of = {url: int(label) for url, label in zip(sample, labels)}
    pattern_of = {c.label: c.pattern for c in clusters}
    for i, url in enumerate(urls):
        label = label_of.get(url)
        yield {
            "url": url,
            "cluster": label,
            "pattern": None if label is None else pattern_of.get(label),
            "topic": None if topic is None else bool(topic[i]),
        }


def _plot(clustering: object, path: Path, out: TextIO) -> None:
    from forumcrawl.cli import CommandError

    try:
        saved = clustering.plot_decision_graph(path)  # type: ignore[attr-defined]
    except ImportError as exc:
        raise CommandError(str(exc)) from exc
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from exc
    out.write(f"decision graph saved to {saved}\n")
