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
    python benchmarks/accuracy.py --data /tmp --folders trafilatura-pages

Its gold (``<out>/gold.jsonl``) is what trafilatura's own tests ask of 83 of the pages
(``tests/realworld_tests.py``: ``assert 'phrase' in result and 'other' not in result``): phrases
that must appear (``with``) and phrases that must not (``without``), 198 and 193 of them, which
``forumcrawl eval`` scores as snippets. They are trafilatura's tests of its own output, written
until it passed them: its figures here are those of a system tuned on these pages, ours of one
that never saw them. Every page is given the kind ``article``; the tests do not tell kinds.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (a sibling script, not a package)

#: The last release whose source distribution ships ``tests/cache``.
RELEASE = "1.1.0"


def download(release: str, into: Path) -> Path:
    """The source distribution of trafilatura ``release``, downloaded by pip into ``into``."""
    command = [sys.executable, "-m", "pip", "download", f"trafilatura=={release}"]
    command += ["--no-binary", ":all:", "--no-deps", "--quiet", "-d", str(into)]
    try:
        subprocess.run(command, check=True)
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"pip could not download trafilatura {release}'s sources ({exc})") from exc
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


def _phrase(part: ast.expr, name: str | None) -> tuple[str, str] | None:
    """``("with" | "without", phrase)`` for a test ``'phrase' in name`` / ``not in name``."""
    if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
        return None
    left, target, op = part.left, part.comparators[0], part.ops[0]
    if not (isinstance(left, ast.Constant) and isinstance(left.value, str)):
        return None
    if not (isinstance(target, ast.Name) and target.id == name):
        return None
    if isinstance(op, (ast.In, ast.NotIn)):
        return ("with" if isinstance(op, ast.In) else "without", left.value)
    return None


def _asserted(
    statements: list[ast.stmt],
    pages: dict[str, str],
    gold: dict[str, dict[str, list[str]]],
    state: dict[str, str | None],
) -> None:
    """Collect the phrases the tests assert ``in`` / ``not in`` a mock page's result."""
    for statement in statements:
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            name, call = statement.targets[0].id, statement.value
            url = None
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "load_mock_page":
                url = call.args[0] if call.args else None
            if isinstance(url, ast.Constant) and url.value in pages:
                state.update(file=pages[url.value], name=name)
            elif name == state.get("name"):
                state.update(file=None, name=None)  # the name now holds something else
        elif isinstance(statement, ast.Assert) and state.get("file"):
            test = statement.test
            conjoined = isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)
            parts = test.values if isinstance(test, ast.BoolOp) and conjoined else [test]
            for part in parts:
                found = _phrase(part, state["name"])
                if found is None:
                    continue
                phrases = gold.setdefault(str(state["file"]), {"with": [], "without": []})
                if found[1] not in phrases[found[0]]:
                    phrases[found[0]].append(found[1])
        elif isinstance(statement, (ast.For, ast.If, ast.With)):
            _asserted(statement.body, pages, gold, state)


def write_gold(archive: Path, out: Path) -> int:
    """Write ``out/gold.jsonl`` from the ``realworld_tests.py`` of ``archive`` (see the module
    notes); the number of pages it gives phrases for."""
    with tarfile.open(archive) as tar:
        tests = "tests/realworld_tests.py"
        member = next((m for m in tar.getmembers() if m.name.endswith(tests)), None)
        data = tar.extractfile(member) if member is not None else None
        if data is None:
            return 0
        tree = ast.parse(data.read().decode("utf-8"))
    pages: dict[str, str] = {}
    for node in tree.body:
        names = [getattr(target, "id", None) for target in getattr(node, "targets", ())]
        if isinstance(node, ast.Assign) and "MOCK_PAGES" in names:
            pages = ast.literal_eval(node.value)
    gold: dict[str, dict[str, list[str]]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            _asserted(node.body, pages, gold, {})
    present = {path.name[: -len(".html.gz")] for path in (out / "pages").glob("*.html.gz")}
    rows = (
        {"id": name[: -len(".html")], "kind": "article", **phrases}
        for name, phrases in sorted(gold.items())
        if name.endswith(".html") and name[: -len(".html")] in present
    )
    return peers.write_jsonl(rows, out / "gold.jsonl")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write (its pages/ subfolder)")
    parser.add_argument("--release", default=RELEASE, help="trafilatura release (%(default)s)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        archive = download(args.release, Path(tmp))
        written = write_pages(archive, args.out)
        if not written:
            parser.error(f"trafilatura {args.release}'s sources hold no tests/cache pages")
        judged = write_gold(archive, args.out)
    print(f"{written} pages in {args.out / 'pages'}; phrases for {judged} in gold.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
