"""Extraction speed beside a bare lxml parse and trafilatura, in one process and one run.

Every stage starts from the page file, so that the read+gunzip time can be subtracted:

- ``read``: read the file and gunzip it;
- ``parse``: read, decode as UTF-8 (errors replaced), ``lxml.html.document_fromstring`` — the floor
  any DOM-based extractor pays;
- ``ours``: read, ``forumcrawl.offline.extract_bytes`` (decoding, parsing, extraction, fields);
- ``trafilatura``: read, the same ``trafilatura.extract`` call as ``peers.py``;
- with ``--components``, each part of our cascade alone (:func:`component_stages`);
- with ``--cli``, ``forumcrawl extract -j 1`` over the same pages in a new process each round,
  after the round's other stages (:func:`time_cli`): what a user waits for, start-up and
  writing the records included.

Each round runs every stage over every page; the best and the median round are reported, in
seconds net of ``read`` and as a ratio to ``parse``::

    python benchmarks/speed.py --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lxml.etree
import trafilatura

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (a sibling script, not a package)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PAGES = REPO.parent / "shared" / "data" / "aeb-articles-en" / "pages"

Stage = Callable[[Path], object]


def stage_read(path: Path) -> object:
    return peers.read_page(path)


def stage_parse(path: Path) -> object:
    return peers.parse_page(peers.read_page(path))


def stage_trafilatura(path: Path) -> object:
    return peers.trafilatura_record(peers.read_page(path), path.name)


def ours_stage(method: str | None) -> Stage:
    """Our offline extraction of one page (``method``: one cascade stage instead of the default)."""
    from forumcrawl.offline import ExtractOptions, extract_bytes

    options = ExtractOptions(cascade=(method,)) if method else ExtractOptions()

    def stage(path: Path) -> object:
        return extract_bytes(peers.read_page(path), page_id=path.name, options=options)

    return stage


#: The parts :func:`component_stages` times beside ``doc``.
_PARTS = (
    "cx lines", "cx", "evidence (+lines)", "kind signals (+evidence)", "dom (+lines)", "ksf (+lines)",
    "fields (+lines)",
)


def component_stages() -> dict[str, Stage]:
    """Each part of the default cascade alone, every one from the page file: ``doc`` decodes and
    parses (forumcrawl's Document), the others add one part to that; a part's own cost is its
    time less ``doc``'s. ``ksf`` and ``dom`` run here on every page, the cascade on some; ``ksf``
    as the arbiter runs it, learning no further than the body on a page that cannot give two
    posts; ``dom`` and ``ksf`` read every element from the CX lines' walk, and ``fields`` what
    that walk gathered, as in the cascade, so the three include the lines."""
    from forumcrawl.document import Document
    from forumcrawl.extractors.arbiter import page_evidence
    from forumcrawl.extractors.cx import document_lines
    from forumcrawl.extractors.dom_density import DomDensityExtractor
    from forumcrawl.extractors.kinds import page_signals
    from forumcrawl.extractors.ksf import extract_single
    from forumcrawl.pages import Cascade, Extraction, article_item

    cascade = Cascade()

    def fields_after_lines(document: Document) -> object:
        """The item's fields as the cascade reads them: from what the lines' walk gathered."""
        document_lines(document)
        return article_item(document, Extraction("cx", "text"))

    def doc(path: Path) -> Document:
        document = Document.from_bytes(peers.read_page(path))
        _ = document.tree
        return document

    return {
        "doc": doc,
        "cx lines": lambda path: document_lines(doc(path)),
        "cx": lambda path: cascade.cx_text(doc(path)),
        "evidence (+lines)": lambda path: page_evidence(doc(path)),
        "kind signals (+evidence)": lambda path: page_signals(doc(path)),
        "dom (+lines)": lambda path: DomDensityExtractor().extract(doc(path)),
        "ksf (+lines)": lambda path: extract_single(doc(path), min_posts=2),  # as the arbiter runs it
        "fields (+lines)": lambda path: fields_after_lines(doc(path)),
    }


def time_rounds(
    stages: dict[str, Stage],
    files: list[Path],
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
    cli: Callable[[], float] | None = None,
) -> dict[str, list[float]]:
    """Seconds per round for each stage over all files, after one warm-up pass, by ``clock``;
    with ``cli``, one run of it (its own seconds) in each round as stage ``cli``: in the same
    round as the parse it is compared with, so that a machine whose speed drifts moves both."""
    for path in files:
        stage_read(path)  # puts every file in the OS cache
    for stage in stages.values():
        for path in files[:3]:
            stage(path)  # imports, models and caches load outside the timings
    timings: dict[str, list[float]] = {name: [] for name in stages}
    if cli is not None:
        timings["cli"] = []
    for _ in range(rounds):
        for name, stage in stages.items():
            started = clock()
            for path in files:
                stage(path)
            timings[name].append(clock() - started)
        if cli is not None:
            timings["cli"].append(cli())
    return timings


def time_cli(files: list[Path], cpu: bool) -> float:
    """Seconds of one run of ``forumcrawl extract -j 1`` over ``files`` in a new process (its
    CPU time with ``cpu``): imports, models, reading, extraction and writing the records."""
    command = [sys.executable, "-m", "forumcrawl", "extract", "-j", "1", "-o", os.devnull, *map(str, files)]
    before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode:
        raise SystemExit(f"forumcrawl extract failed ({run.returncode}): {run.stderr[-2000:]}")
    after, ended = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return used if cpu else ended - started


def summarise(timings: dict[str, list[float]], pages: int) -> dict[str, dict[str, Any]]:
    """Best and median round per stage, net of ``read``, with the ratio to ``parse``."""
    out: dict[str, dict[str, Any]] = {}
    for statistic, pick in (("best", min), ("median", statistics.median)):
        read = pick(timings["read"])
        parse_net = pick(timings["parse"]) - read
        for name, rounds in timings.items():
            total = pick(rounds)
            net = total - read if name != "read" else total
            entry = out.setdefault(name, {"rounds": rounds})
            entry[statistic] = {
                "seconds": total,
                "net_seconds": net,
                "ms_per_page": 1000 * net / pages,
                "to_parse": net / parse_net if name != "read" and parse_net > 0 else None,
            }
    return out


def format_table(summary: dict[str, dict[str, Any]]) -> str:
    """Markdown table; with components, the last column is a part's own cost (less ``doc``)."""
    doc = summary.get("doc", {}).get("best", {}).get("to_parse")
    lines = [
        "| stage | best s | net s | ms/page | × parse | median net s | × parse (median) "
        "| own × parse |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, entry in summary.items():
        best, median = entry["best"], entry["median"]
        ratio = "—" if best["to_parse"] is None else f"{best['to_parse']:.1f}"
        ratio_median = "—" if median["to_parse"] is None else f"{median['to_parse']:.1f}"
        own = "—"
        if doc is not None and name in _PARTS and best["to_parse"] is not None:
            own = f"{best['to_parse'] - doc:.2f}"
        lines.append(
            f"| {name} | {best['seconds']:.3f} | {best['net_seconds']:.3f}"
            f" | {best['ms_per_page']:.2f} | {ratio}"
            f" | {median['net_seconds']:.3f} | {ratio_median} | {own} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages",
        type=Path,
        nargs="*",
        default=[DEFAULT_PAGES],
        help="page folders or files, timed together (default: %(default)s)",
    )
    parser.add_argument("-n", "--rounds", type=int, default=3, help="%(default)s")
    parser.add_argument("--limit", type=int, help="only the first N pages")
    parser.add_argument("--method", help="time only this stage of our cascade (e.g. cx)")
    parser.add_argument(
        "--components",
        action="store_true",
        help="also time each part of the cascade alone (see component_stages)",
    )
    parser.add_argument(
        "--cli",
        action="store_true",
        help="also time `forumcrawl extract -j 1` over the pages, one new process per round",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time by this process's CPU time, not the wall clock (a machine others load)",
    )
    parser.add_argument("--json", type=Path, default=Path("speed.json"), help="%(default)s")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    try:
        files = [file for pages in args.pages for file in peers.page_files(pages)][: args.limit]
    except FileNotFoundError as exc:
        parser.error(str(exc))

    stages: dict[str, Stage] = {"read": stage_read, "parse": stage_parse}
    try:
        stages["ours"] = ours_stage(args.method)
    except ImportError as exc:
        print(f"ours: not timed, forumcrawl.offline unavailable: {exc}", file=sys.stderr)
    stages["trafilatura"] = stage_trafilatura
    if args.components:
        stages.update(component_stages())

    clock = time.process_time if args.cpu else time.perf_counter
    cli = (lambda: time_cli(files, args.cpu)) if args.cli else None
    timings = time_rounds(stages, files, args.rounds, clock, cli)
    summary = summarise(timings, len(files))
    folders = ", ".join(map(str, args.pages))
    print(f"{len(files)} pages from {folders}, {args.rounds} rounds, {'CPU' if args.cpu else 'wall'} time\n")
    print(format_table(summary))
    meta = {
        "pages": len(files),
        "folders": [str(pages) for pages in args.pages],
        "rounds": args.rounds,
        "clock": "cpu" if args.cpu else "wall",
        "method": args.method,
        "python": platform.python_version(),
        "lxml": ".".join(map(str, lxml.etree.LXML_VERSION)),
        "trafilatura": trafilatura.__version__,
        "machine": platform.machine(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.json.write_text(json.dumps({"meta": meta, "stages": summary}, indent=2) + "\n", "utf-8")
    print(f"\nwritten to {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
