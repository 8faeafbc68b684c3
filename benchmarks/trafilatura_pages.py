"""Fetch pages of trafilatura's own evaluation set into a folder the speed benchmarks read.

Issue #20's speed bar is set on "the 990-page trafilatura evaluation set's kind of pages".
That set's pages live in trafilatura's repository (``tests/eval``, ``tests/cache``), not in
``../shared/data``. The source distributions of trafilatura 0.3 to 1.1 on PyPI ship
``tests/cache``: 110 of those pages (German, English, French news, blogs and institutions'
pages of 2019-2021) that its evaluation reads too. This downloads one of them with pip and
writes each page gzipped, as ``<out>/pages/<name>.html.gz``, which ``speed.py`` and
``instructions.py`` take like any evaluation folder::

    python benchmarks/trafilatura_pages.py /tmp/trafilatura-pages
    python benchmarks/instructions.py /tmp/trafilatura-pages

There is no ground truth here (the repository's tests check a few phrases per page): the folder
measures speed, not accuracy.
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

#: The last release whose source distribution ships ``tests/cache``.
RELEASE = "1.1.0"


def download(release: str, into: Path) -> Path:
    """The source distribution of trafilatura ``release``, downloaded by pip into ``into``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"trafilatura=={release}", "--no-binary", ":all:",
         "--no-deps", "--quiet", "-d", str(into)],
        check=True,
    )
    found = sorted(into.glob("trafilatura-*.tar.gz"))
    if not found:
        raise SystemExit(f"pip left no trafilatura-*.tar.gz in {into}")
    return found[0]


def write_pages(archive: Path, out: Path) -> int:
    """Write each ``tests/cache/*.html`` of ``archive`` gzipped into ``out/pages``; their number."""
    pages = out / "pages"
    pages.mkdir(parents=True, exist_ok=True)
    written = 0
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            path = PurePosixPath(member.name)
            if not member.isfile() or path.parent.name != "cache" or path.suffix != ".html":
                continue
            data = tar.extractfile(member)
            if data is None:
                continue
            (pages / f"{path.name}.gz").write_bytes(gzip.compress(data.read(), mtime=0))
            written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write (its pages/ subfolder)")
    parser.add_argument("--release", default=RELEASE, help="trafilatura release (default: %(default)s)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        written = write_pages(download(args.release, Path(tmp)), args.out)
    if not written:
        parser.error(f"trafilatura {args.release}'s source distribution has no tests/cache pages")
    print(f"{written} pages in {args.out / 'pages'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
