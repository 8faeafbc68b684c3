"""Memory of ``forumcrawl extract`` over many pages: does it stay flat (issue #6, seed 000 §3.1)?

Builds a folder of ``--pages`` page files by linking the pages of a data folder over and over
(symbolic links: no disk used, every link read as a separate page), runs ``forumcrawl extract``
on it as a user would (a separate process, ``-j`` workers, output to a file), and samples the
resident memory of the whole process tree (the command and its workers) twice a second. It
reports the RSS after the first tenth of the pages and at the end, and the peak: flat memory
means the last two are about the first, not ten times it::

    python benchmarks/bench_memory.py                         # 100,000 pages, 2 workers
    python benchmarks/bench_memory.py --pages 20000 --method cx --json mem.json
    python benchmarks/bench_memory.py --engine dask
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "aeb-articles-en" / "pages"


def link_farm(source: Path, target: Path, pages: int) -> int:
    """Fill ``target`` with ``pages`` links to the page files of ``source``, in rotation, spread
    over sub-folders of 1,000 (as a crawl archive would be)."""
    files = sorted(p for p in source.iterdir() if p.name.endswith((".html", ".html.gz")))
    if not files:
        raise SystemExit(f"no page files in {source}")
    for i in range(pages):
        original = files[i % len(files)]
        folder = target / f"{i // 1000:04d}"
        if i % 1000 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        suffix = ".html.gz" if original.name.endswith(".gz") else ".html"
        (folder / f"p{i:07d}{suffix}").symlink_to(original)
    return len(files)


def tree_rss(process: psutil.Process) -> int:
    """Resident bytes of ``process`` and all its descendants (0 for those already gone)."""
    total = 0
    for proc in [process, *process.children(recursive=True)]:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            continue
    return total


class LineCounter:
    """Records written so far to a growing file, reading only what was added since last time
    (re-reading a file of 100,000 records twice a second would compete with the run)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.lines = path, 0, 0

    def __call__(self) -> int:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.offset)
                added = handle.read()
        except FileNotFoundError:
            return 0
        self.offset += len(added)
        self.lines += added.count(b"\n")
        return self.lines


def run(folder: Path, pages: int, extra: list[str], interval: float) -> dict[str, Any]:
    """Run the command on ``folder`` and sample its memory until it ends."""
    out = folder.parent / "records.jsonl"
    command = ["forumcrawl", "extract", str(folder), "-o", str(out), *extra]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    process = psutil.Process(child.pid)
    samples: list[tuple[float, int, int]] = []
    count_lines = LineCounter(out)
    while child.poll() is None:
        rss = tree_rss(process)
        done = count_lines()
        samples.append((time.perf_counter() - started, done, rss))
        time.sleep(interval)
    seconds = time.perf_counter() - started
    stderr = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{stderr[-2000:]}")
    written = count_lines()
    tenth = [rss for _, done, rss in samples if done >= pages // 10]
    late = [rss for _, done, rss in samples if done >= pages * 9 // 10]
    mib = 1024 * 1024
    return {
        "command": " ".join(command),
        "pages": pages,
        "records": written,
        "seconds": round(seconds, 1),
        "pages_per_s": round(written / seconds, 1),
        "rss_mib_at_10pct": round(tenth[0] / mib, 1) if tenth else None,
        "rss_mib_at_90pct_plus": round(max(late) / mib, 1) if late else None,
        "rss_mib_peak": round(max(rss for _, _, rss in samples) / mib, 1) if samples else None,
        "samples": [(round(t, 1), done, round(rss / mib, 1)) for t, done, rss in samples[:: max(1, len(samples) // 200)]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="folder of page files")
    parser.add_argument("--pages", type=int, default=100_000)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--method", help="one cascade stage (default: the whole cascade)")
    parser.add_argument("--engine", choices=("processes", "dask"), default="processes")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between samples")
    parser.add_argument("--json", type=Path, help="write the figures and samples here")
    args = parser.parse_args(argv)
    extra = ["-j", str(args.jobs)]
    if args.method:
        extra += ["--method", args.method]
    if args.engine == "dask":
        extra += ["--engine", "dask"]
    with tempfile.TemporaryDirectory(prefix="forumcrawl-mem-") as tmp:
        folder = Path(tmp) / "pages"
        distinct = link_farm(args.source, folder, args.pages)
        print(f"{args.pages} pages ({distinct} distinct) under {folder}, {os.cpu_count()} cores", flush=True)
        report = run(folder, args.pages, extra, args.interval)
    summary = {k: v for k, v in report.items() if k != "samples"}
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
