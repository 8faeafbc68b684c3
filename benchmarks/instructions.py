"""Instructions, not seconds: the CLI's cost beside read + parse, counted by valgrind.

A machine whose speed drifts by a fifth within a minute cannot tell 4.0x from 4.3x by the
clock (``speed.py``). The number of instructions a process executes does not drift: this
counts them with valgrind's cachegrind (no cache simulation) for

- ``start``: the interpreter with this script's imports, listing the pages, reading none;
- ``read``: the same, reading and gunzipping every page;
- ``parse``: the same, also decoding each page as UTF-8 and parsing it with
  ``lxml.html.document_fromstring`` (``peers.parse_page``, ``speed.py``'s ``parse``);
- ``cli``: ``forumcrawl extract -j 1 -o /dev/null`` over the pages, the whole process;
- ``cli start``: the same command over an empty folder: the interpreter, the imports (with
  their regexes) and the arguments, which every run pays once (the models load with the first
  page, so they count as the pages' work).

and reports ``cli / (parse - start)``: what the command costs over what reading and parsing the
pages costs, and ``(cli - cli start) / (parse - start)``, the same per page: what it tends to
over more pages than these, as its start-up is spread over them. Instructions weigh a C loop
and a Python one alike, so this is a second view beside the clock, not a replacement: it needs
valgrind (Debian's ``valgrind`` package) and takes about fifty times as long as the runs
themselves::

    python benchmarks/instructions.py                       # ../shared/data/aeb-articles-en
    python benchmarks/instructions.py ../shared/data/fundus-articles --json instructions.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (a sibling script, not a package)

DEFAULT_PAGES = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "aeb-articles-en"
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def stage(mode: str, folders: list[Path]) -> None:
    """One measured process: list the pages of ``folders``, then read them or read and parse
    them (``mode``), as ``speed.py``'s ``read`` and ``parse`` stages do; ``start`` does
    neither."""
    files = [file for folder in folders for file in peers.page_files(folder)]
    for path in files:
        if mode == "read":
            peers.read_page(path)
        elif mode == "parse":
            peers.parse_page(peers.read_page(path))


def count(command: list[str]) -> int:
    """Instructions executed by ``command`` under cachegrind (its children are not counted)."""
    run = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *command],
        capture_output=True,
        text=True,
    )
    found = _REFS.search(run.stderr)
    if run.returncode or found is None:
        raise SystemExit(f"{' '.join(command[:4])} failed under valgrind: {run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", type=Path, nargs="*", default=[DEFAULT_PAGES], help="page folders (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    parser.add_argument("--stage", choices=("start", "read", "parse"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage:  # a measured child process
        stage(args.stage, args.pages)
        return 0
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (Debian: apt install valgrind)")
    try:
        files = [str(file) for folder in args.pages for file in peers.page_files(folder)]
    except FileNotFoundError as exc:
        parser.error(str(exc))
    me = [sys.executable, str(Path(__file__).resolve()), *map(str, args.pages)]
    counts = {name: count([*me, "--stage", name]) for name in ("start", "read", "parse")}
    cli = [sys.executable, "-m", "forumcrawl", "extract", "-j", "1", "-o", "/dev/null"]
    counts["cli"] = count([*cli, *files])
    with tempfile.TemporaryDirectory() as empty:
        counts["cli start"] = count([*cli, empty])
    read_parse = counts["parse"] - counts["start"]
    report = {
        "pages": len(files),
        "folders": [str(folder) for folder in args.pages],
        "instructions": counts,
        "read": counts["read"] - counts["start"],
        "read_parse": read_parse,
        "cli_to_read_parse": counts["cli"] / read_parse,
        "cli_per_page_to_read_parse": (counts["cli"] - counts["cli start"]) / read_parse,
    }
    print(f"{len(files)} pages; instructions (millions):")
    for name, value in counts.items():
        print(f"  {name:9s} {value / 1e6:10.1f}")
    print(f"read + parse {read_parse / 1e6:.1f}; the CLI costs {report['cli_to_read_parse']:.2f}x read + parse")
    print(f"without its start-up, {report['cli_per_page_to_read_parse']:.2f}x (what more pages tend to)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
