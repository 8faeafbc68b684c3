"""Leave-one-folder-out check of one constant of a single-page stage.

For each value given, the stage (``cx`` or ``dom``) runs alone on every page of every folder with
the constant set to that value; then, for each folder, the value with the best mean F1 over the
*other* folders is chosen and the folder is scored with it (held-apart), beside the figure of the
value in the code today. A constant whose held-apart figures do not beat a simpler value was fit
to the folders, not to the web::

    python benchmarks/constants.py cx.SECONDARY_MASS_SHARE 0.1 0.2 0.3
    python benchmarks/constants.py dom.REMOVED_WEIGHT 1 2 3 --folders aeb-articles-en,dragnet
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from forumcrawl.document import Document, DocumentError
from forumcrawl.evaluation import text_prf
from forumcrawl.extractors.cx import LineBlockExtractor
from forumcrawl.extractors.dom_density import DomDensityExtractor

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402  (a sibling script, not a package)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
STAGES: dict[str, tuple[str, Callable[[Document], str]]] = {
    "cx": ("forumcrawl.extractors.cx", lambda doc: LineBlockExtractor().extract(doc).text),
    "dom": ("forumcrawl.extractors.dom_density", lambda doc: DomDensityExtractor().extract(doc).text),
}

Folder = list[tuple[bytes, str]]  # (page bytes, gold text) of each page


def load(folder: Path) -> Folder:
    """Every page's bytes with its gold text."""
    pages = []
    for line in (folder / "gold.jsonl").open(encoding="utf-8"):
        gold = json.loads(line)
        path = folder / "pages" / f"{gold['id']}{peers.PAGE_SUFFIX}"
        if path.is_file():
            pages.append((peers.read_page(path), gold.get("text") or ""))
    return pages


def folder_f1(extract: Callable[[Document], str], pages: Folder) -> float:
    """Mean text F1 of ``extract`` over ``pages`` (an unreadable page scores 0)."""
    total = 0.0
    for body, gold in pages:
        try:
            text = extract(Document.from_bytes(body))
        except DocumentError:
            text = ""
        total += text_prf(text, gold).f1
    return total / len(pages) if pages else 0.0


def sweep(stage: str, name: str, values: Sequence[float], folders: dict[str, Folder]) -> dict[float, dict[str, float]]:
    """``{value: {folder: mean F1}}`` with the constant set to each value in turn."""
    module_name, extract = STAGES[stage]
    module = importlib.import_module(module_name)
    if not hasattr(module, name):
        raise SystemExit(f"{module_name} has no constant {name}")
    today = getattr(module, name)
    scores: dict[float, dict[str, float]] = {}
    try:
        for value in values:
            setattr(module, name, type(today)(value))
            scores[value] = {f: folder_f1(extract, pages) for f, pages in folders.items()}
            print(f"{stage}.{name} = {value}: scored", file=sys.stderr)
    finally:
        setattr(module, name, today)
    return scores


def held_apart(scores: dict[float, dict[str, float]]) -> dict[str, tuple[float, float]]:
    """Per folder: ``(value chosen on the other folders, the folder's F1 with it)``."""
    folders = next(iter(scores.values())).keys()
    out = {}
    for folder in folders:
        def others(value: float, held: str = folder) -> float:
            return sum(f1 for f, f1 in scores[value].items() if f != held)

        chosen = max(scores, key=others)
        out[folder] = (chosen, scores[chosen][folder])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("constant", help="stage.NAME, e.g. cx.SECONDARY_MASS_SHARE")
    parser.add_argument("values", nargs="+", type=float, help="values to try (today's is added)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="data root (%(default)s)")
    parser.add_argument("--folders", help="comma-separated folder names (default: all)")
    args = parser.parse_args(argv)
    stage, _, name = args.constant.partition(".")
    if stage not in STAGES or not name:
        parser.error(f"constant must be one of {sorted(STAGES)} then .NAME")
    today = getattr(importlib.import_module(STAGES[stage][0]), name, None)
    if not isinstance(today, (int, float)):
        parser.error(f"{args.constant} is not a numeric constant")
    values = sorted({*args.values, float(today)})
    folders = {f.name: load(f) for f in peers.gold_folders(args.data, args.folders)}
    scores = sweep(stage, name, values, folders)
    chosen = held_apart(scores)
    print(f"{args.constant} (today {today}), {stage} alone, text F1 mean per folder\n")
    print("| folder | " + " | ".join(f"{v:g}" for v in values) + " | chosen on the others | held-apart |")
    print("|---|" + "---:|" * (len(values) + 2))
    for folder in folders:
        cells = [f"{scores[v][folder]:.3f}" for v in values]
        value, f1 = chosen[folder]
        print(f"| {folder} | " + " | ".join(cells) + f" | {value:g} | {f1:.3f} |")
    mean_today = sum(scores[float(today)].values()) / len(folders)
    mean_apart = sum(f1 for _, f1 in chosen.values()) / len(folders)
    print(f"\nmean over folders: today's value {mean_today:.3f}, held-apart choice {mean_apart:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
