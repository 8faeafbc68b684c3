"""Accuracy of ``forumcrawl extract`` beside trafilatura on every gold folder, one scorer for both.

For each folder of the data root that has a ``gold.jsonl``: our predictions come from running
``forumcrawl extract <folder>/pages -o ours.jsonl`` as a separate process, trafilatura's from
``peers.py``; both are scored by :func:`forumcrawl.evaluation.evaluate`. Prints a Markdown table
and a second of the title, author and date of the article pages, and writes every report as
JSON::

    python benchmarks/accuracy.py                         # ../shared/data, all folders
    python benchmarks/accuracy.py --folders cwced-zh --work /tmp/acc --reuse
    python benchmarks/accuracy.py --work /tmp/acc --holdout   # and leave-one-folder-out figures
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trafilatura

import forumcrawl
from forumcrawl.evaluation import NON_CONTENT_KINDS, EvalReport, evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent))
import holdout  # noqa: E402  (sibling scripts, not a package)
import peers  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
SYSTEMS = ("ours", "trafilatura", "readability")
#: Gold folders whose posts keep the quotes they hold (Harvest's annotation): a post is scored
#: with the quotes forumcrawl took out of its text (``Post.quotes``).
QUOTED_POSTS = frozenset({"harvest-forum-posts"})


def run_ours(folder: Path, out: Path, extra: list[str]) -> str | None:
    """Run ``forumcrawl extract`` on the folder's pages; returns an error message or None."""
    command = [sys.executable, "-m", "forumcrawl.cli", "extract", str(folder / "pages")]
    command += ["-o", str(out), *extra]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return f"forumcrawl extract failed: {tail[0]}"
    return None


def predictions_for(
    system: str, folder: Path, work: Path, *, reuse: bool, jobs: int, extra: list[str]
) -> tuple[Path | None, float | None, str | None]:
    """``(predictions file, seconds taken, error)`` for one system on one folder."""
    out = work / folder.name / f"{system}.jsonl"
    if reuse and out.is_file():
        return out, None, None
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if system == "ours":
        error = run_ours(folder, out, [*extra, "-j", str(jobs)])
    else:
        peers.write_predictions(folder, out, jobs, system)
        error = None
    seconds = time.perf_counter() - started
    return (None, seconds, error) if error else (out, seconds, None)


def _cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def table_row(folder: str, system: str, report: EvalReport, seconds: float | None = None) -> str:
    """One Markdown row: text P/R/F1 means and F1 median, posts P/R, the F1 of the gold's
    ``with`` / ``without`` snippets (pooled, as trafilatura's evaluation pools them),
    non-content exported, and the seconds the system took on the folder in this run (— when its
    output was reused)."""
    metrics = report.summary().metrics
    snippets = report.snippets()
    has_posts = metrics["posts_precision"].n > 0
    non_content = sum(p.kind in NON_CONTENT_KINDS for p in report.pages)
    cells = [
        folder,
        system,
        str(len(report.pages)),
        str(len(report.missing_ids)),
        _cell(metrics["text_precision"].mean),
        _cell(metrics["text_recall"].mean),
        _cell(metrics["text_f1"].mean),
        _cell(metrics["text_f1"].median),
        _cell(metrics["posts_precision"].mean if has_posts else None),
        _cell(metrics["posts_recall"].mean if has_posts else None),
        _cell(snippets["f1"] if snippets else None),
        f"{len(report.non_content_exported)}/{non_content}" if non_content else "—",
        "—" if seconds is None else f"{seconds:.1f}",
    ]
    return "| " + " | ".join(cells) + " |"


def fields_row(folder: str, system: str, report: EvalReport) -> str | None:
    """One Markdown row of the fields scored on the folder's article pages: title and author
    (exact after whitespace and case folding), date (the gold's day in the predicted time), each
    with the number of pages whose gold has it; None when the gold has none of them."""
    article = report.by("kind").get("article")
    if article is None:
        return None
    metrics = article.metrics
    names = ("title", "author", "date")
    if not any(metrics[name].n for name in names):
        return None
    cells = [folder, system, *(f"{_cell(metrics[n].mean)} ({metrics[n].n})" if metrics[n].n else "—" for n in names)]
    return "| " + " | ".join(cells) + " |"


FIELDS_HEADER = (
    "| folder | system | title (pages) | author (pages) | date (pages) |\n"
    "|---|---|---:|---:|---:|"
)

TABLE_HEADER = (
    "| folder | system | pages | missing | text P | text R | text F1 | F1 median "
    "| posts P | posts R | snippets F1 | non-content exported | seconds |\n"
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data root (%(default)s)")
    parser.add_argument("--folders", help="comma-separated folder names (default: all)")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="%(default)s")
    parser.add_argument("--work", type=Path, help="keep predictions here (default: a temp dir)")
    parser.add_argument(
        "--reuse", action="store_true", help="score predictions already in --work, do not rerun"
    )
    parser.add_argument("-j", "--jobs", type=int, default=2, help="processes per system")
    parser.add_argument(
        "--extract-args", default="", help="more forumcrawl extract arguments, e.g. '--method cx'"
    )
    parser.add_argument("--json", type=Path, default=Path("accuracy.json"), help="%(default)s")
    parser.add_argument(
        "--holdout",
        action="store_true",
        help="also print the leave-one-folder-out figures of the cascade's fitted choices (holdout.py)",
    )
    args = parser.parse_args(argv)

    folders = peers.gold_folders(args.data, args.folders)
    if not folders:
        parser.error(f"no gold folders in {args.data}")
    systems = [s for s in args.systems.split(",") if s]
    if unknown := set(systems) - set(SYSTEMS):
        parser.error(f"unknown systems {sorted(unknown)}; known: {', '.join(SYSTEMS)}")
    if args.reuse and not args.work:
        parser.error("--reuse needs --work")

    with tempfile.TemporaryDirectory(prefix="fc-accuracy-") as tmp:
        work = args.work or Path(tmp)
        results: dict[str, dict[str, Any]] = {}
        rows: list[str] = []
        field_rows: list[str] = []
        for folder in folders:
            results[folder.name] = {}
            for system in systems:
                path, seconds, error = predictions_for(
                    system,
                    folder,
                    work,
                    reuse=args.reuse,
                    jobs=args.jobs,
                    extra=args.extract_args.split(),
                )
                if path is None:
                    print(f"{folder.name} / {system}: {error}", file=sys.stderr)
                    results[folder.name][system] = {"error": error}
                    continue
                report = evaluate(folder, path, with_quotes=folder.name in QUOTED_POSTS)
                results[folder.name][system] = {"seconds": seconds, **report.to_dict()}
                rows.append(table_row(folder.name, system, report, seconds))
                if (row := fields_row(folder.name, system, report)) is not None:
                    field_rows.append(row)
                print(f"{folder.name} / {system}: scored", file=sys.stderr)

        print(TABLE_HEADER)
        print("\n".join(rows))
        if field_rows:
            print("\nFields of the article pages\n")
            print(FIELDS_HEADER)
            print("\n".join(field_rows))
        if args.holdout:
            print("\nLeave one folder out (benchmarks/holdout.py): text F1 of the cascade's choices fit on")
            print("the other folders (held-apart) and on every folder (tuned-on)\n")
            results["holdout"] = holdout.run(folders, work, jobs=args.jobs)
    meta = {
        "forumcrawl": forumcrawl.__version__,
        "trafilatura": trafilatura.__version__,
        "python": platform.python_version(),
        "extract_args": args.extract_args,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.json.write_text(
        json.dumps({"meta": meta, "results": results}, ensure_ascii=False, indent=2) + "\n",
        encoding="utf-8",
    )
    print(f"\nreports written to {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
