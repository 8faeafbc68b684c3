"""DOM density (seed 000) beside trafilatura, in one run: accuracy, speed, parallel speed-up.

For every folder of the data root with a ``gold.jsonl``: text P/R/F1 (mean over pages, the
scorer of ``forumcrawl eval``) of DOM density alone, of DOM density + the NB value filter
(the cascade's ``dom`` stage with the filter dropping worthless blocks), of the paper's leaf-by-leaf filter (``region=False``) and of
trafilatura, plus the mean fusion rate. Then, on one folder: time per page of DOM density over
a bare lxml parse of the same pages, and the speed-up of 2 processes over 1 and of a 2-worker
local Dask cluster over 1 worker (whole offline extraction, ``--cascade``)::

    python benchmarks/bench_dom.py                            # ../shared/data, all folders
    python benchmarks/bench_dom.py --folders cwced-zh --speed-folder cwced-zh --json dom.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import lxml.html
import trafilatura

from forumcrawl.document import Document, DocumentError
from forumcrawl.evaluation import evaluate
from forumcrawl.extractors.dom_density import DomDensityExtractor
from forumcrawl.offline import ExtractOptions, extract_paths
from forumcrawl.pages import Cascade

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (a sibling script, not a package)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
SYSTEMS = ("dom", "dom+nb", "dom-paper", "trafilatura")


def _pages(folder: Path) -> list[tuple[str, bytes]]:
    return [(p.name[: -len(".html.gz")], gzip.decompress(p.read_bytes())) for p in peers.page_files(folder)]


def _filtered() -> Cascade:
    """DOM density, then the NB value filter dropping worthless blocks (seed 000 §3.4)."""
    return Cascade(("dom",), value_filter=True, value_drop=True)


def _text(cascade: Cascade, doc: Document) -> str:
    extraction = cascade.run(doc).extraction
    return extraction.text if extraction is not None else ""


def predictions(folder: Path) -> tuple[dict[str, list[dict[str, Any]]], float]:
    """Every system's predictions for a folder, and DOM density's mean fusion rate."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in SYSTEMS}
    rates = []
    region, paper = DomDensityExtractor(), DomDensityExtractor(region=False)
    filtered = _filtered()
    for page_id, body in _pages(folder):
        out["trafilatura"].append(peers.trafilatura_record(body, page_id))
        try:
            doc = Document.from_bytes(body)
        except DocumentError:
            for name in ("dom", "dom+nb", "dom-paper"):
                out[name].append({"id": page_id, "text": ""})
            continue
        result = region.extract(doc)
        rates.append(result.fusion_rate)
        out["dom"].append({"id": page_id, "text": result.text})
        out["dom+nb"].append({"id": page_id, "text": _text(filtered, doc)})
        out["dom-paper"].append({"id": page_id, "text": paper.extract(doc).text})
    return out, statistics.fmean(rates) if rates else 0.0


def accuracy(data: Path, folders: list[str]) -> list[dict[str, Any]]:
    """One row per folder and system: text P/R/F1 means."""
    rows = []
    for name in folders:
        folder = data / name
        preds, fusion = predictions(folder)
        for system, records in preds.items():
            metrics = evaluate(folder, records).summary().metrics
            rows.append(
                {
                    "folder": name,
                    "system": system,
                    "pages": metrics["text_f1"].n,
                    "P": metrics["text_precision"].mean,
                    "R": metrics["text_recall"].mean,
                    "F1": metrics["text_f1"].mean,
                    "fusion_rate": fusion if system.startswith("dom") else None,
                }
            )
            print(_row(rows[-1]), flush=True)
    return rows


def _row(row: dict[str, Any]) -> str:
    cells = [row["folder"], row["system"], str(row["pages"])]
    cells += [f"{row[k]:.3f}" for k in ("P", "R", "F1")]
    cells.append("—" if row["fusion_rate"] is None else f"{row['fusion_rate']:.1%}")
    return "| " + " | ".join(cells) + " |"


def _best(seconds: list[float]) -> float:
    return min(seconds)


def speed(folder: Path, rounds: int) -> dict[str, float]:
    """Seconds per page (best of ``rounds``): bare parse of the decoded text and of the raw
    bytes, DOM density (decode + parse + ST + filters), DOM + NB, trafilatura; and their ratios
    to the bare parse of the text (DOM's also to the parse of the bytes, since it parses UTF-8
    pages from their bytes)."""
    pages = [body for _, body in _pages(folder)]
    texts = []
    for body in pages:
        try:
            texts.append(Document.from_bytes(body).html)
        except DocumentError:
            continue

    def parse() -> None:
        for html in texts:
            lxml.html.document_fromstring(html)

    def parse_bytes() -> None:
        for body in pages:
            lxml.html.document_fromstring(body)

    def dom() -> None:
        extractor = DomDensityExtractor()
        for body in pages:
            try:
                extractor.extract(Document.from_bytes(body))
            except DocumentError:
                continue

    filtered = _filtered()

    def dom_nb() -> None:
        for body in pages:
            try:
                _text(filtered, Document.from_bytes(body))
            except DocumentError:
                continue

    def trafi() -> None:
        for body in pages:
            trafilatura.extract(body)

    dom_nb()  # load jieba and the model outside the timing
    timings = {}
    runs = (
        ("lxml_parse", parse),
        ("lxml_parse_bytes", parse_bytes),
        ("dom", dom),
        ("dom+nb", dom_nb),
        ("trafilatura", trafi),
    )
    for name, run in runs:
        seconds = []
        for _ in range(rounds):
            started = time.perf_counter()
            run()
            seconds.append(time.perf_counter() - started)
        timings[name] = _best(seconds) / len(pages)
    return {
        **{f"{k}_ms_per_page": v * 1000 for k, v in timings.items()},
        **{f"{k}_over_parse": v / timings["lxml_parse"] for k, v in timings.items() if k != "lxml_parse"},
        "dom_over_parse_bytes": timings["dom"] / timings["lxml_parse_bytes"],
    }


def scaling(folder: Path, cascade: tuple[str, ...], repeat: int) -> dict[str, float]:
    """Wall seconds of offline extraction with 1 and 2 processes, and on a local Dask cluster
    of 1 and 2 workers (the folder is given ``repeat`` times, so each run has enough pages)."""
    from forumcrawl.engines import run_dask

    options = ExtractOptions(cascade=cascade)
    paths = [folder / "pages"] * repeat
    out: dict[str, float] = {}
    for jobs in (1, 2):
        started = time.perf_counter()
        count = sum(1 for _ in extract_paths(paths, options=options, jobs=jobs))
        out[f"processes_{jobs}_s"] = time.perf_counter() - started
    for workers in (1, 2):
        started = time.perf_counter()
        assert sum(1 for _ in run_dask(paths, options, n_workers=workers)) == count
        out[f"dask_{workers}_s"] = time.perf_counter() - started
    out["pages"] = count
    out["speedup_processes_2_over_1"] = out["processes_1_s"] / out["processes_2_s"]
    out["speedup_dask_2_over_1"] = out["dask_1_s"] / out["dask_2_s"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--folders", help="comma-separated folder names (default: all with gold)")
    parser.add_argument("--speed-folder", default="aeb-articles-en")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cascade", default="ksf,cx", help="cascade stages for the scaling runs")
    parser.add_argument("--repeat", type=int, default=3, help="times the speed folder is fed to the scaling runs")
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    folders = args.folders.split(",") if args.folders else sorted(
        p.parent.name for p in args.data.glob("*/gold.jsonl")
    )
    print(f"trafilatura {trafilatura.__version__}, python {platform.python_version()}")
    print("| folder | system | pages | text P | text R | text F1 | fusion rate |")
    print("|---|---|---|---|---|---|---|")
    report: dict[str, Any] = {"accuracy": accuracy(args.data, folders)}
    report["speed"] = speed(args.data / args.speed_folder, args.rounds)
    print(json.dumps(report["speed"], indent=2))
    if not args.skip_scaling:
        cascade = tuple(args.cascade.split(","))
        report["scaling"] = scaling(args.data / args.speed_folder, cascade, args.repeat)
        print(json.dumps(report["scaling"], indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
