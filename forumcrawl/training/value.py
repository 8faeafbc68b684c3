"""``forumcrawl train value``: rebuild the Naive Bayes value filter from labelled texts.

Two sources of labels:

* ``--data FILE.jsonl``: the user's own examples, one ``{"text": ..., "label": 0 | 1}`` per
  line (1 = valuable, 0 = worthless: spam, "顶"-only replies, ads, signatures); an optional
  ``"group"`` keeps the examples of one page or thread on the same side of the split.
* ``--from-corpus DATA_ROOT``: how the shipped ``models/value.json`` was built. For every page
  with gold text under ``DATA_ROOT/*/gold.jsonl``, the page's simple-tree text blocks (see
  :mod:`forumcrawl.extractors.dom_density`) are labelled by the gold: a block whose text occurs
  verbatim in the gold main text is valuable, a block sharing at most
  :data:`MAX_BOILERPLATE_OVERLAP` of its tokens with it is worthless (navigation, footers,
  teasers, ads), anything in between is left out. The generated mock forum
  (:mod:`forumcrawl.mockforum`, whose truth marks its contentless replies) adds its posts:
  replies like "顶", "沙发", "+1", "bump" are worthless, the other posts valuable, signatures
  worthless. So "worthless" is mostly *boilerplate*, not spam: the corpora have no labelled
  spam, and the mock forum's short replies come from a fixed list.

A share of the groups (pages, threads) is held apart; the model is fitted on the rest and its
precision and recall on the held-apart examples go into the model card.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import sys
import zlib
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from forumcrawl.document import Document, DocumentError
from forumcrawl.evaluation import tokens
from forumcrawl.extractors.dom_density import node_blocks, simplify_tree
from forumcrawl.extractors.value_model import DEFAULT_K, ValueModel, make_value_classifier

HELP = "Naive Bayes value filter (valuable / worthless blocks and posts)"
#: A block sharing at most this share of its scoring tokens with the gold text is boilerplate.
MAX_BOILERPLATE_OVERLAP = 0.2
#: Mock forums generated for ``--from-corpus``: (family, seed) pairs.
MOCK_SITES = tuple((family, seed) for family in ("discuz", "phpbb") for seed in range(4))

Example = tuple[str, int, str]  # text, label, group


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl train value``."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", type=Path, help='labelled JSONL: {"text", "label", "group"?}')
    source.add_argument("--from-corpus", type=Path, metavar="DATA_ROOT", help="gold folders + mock forum")
    parser.add_argument("-o", "--output", type=Path, default=Path("value.json"), help="model JSON to write")
    parser.add_argument("-k", type=int, default=DEFAULT_K, help="features kept by information gain")
    parser.add_argument("--held-apart", type=float, default=0.2, help="share of groups held apart")


def read_examples(path: Path) -> Iterator[Example]:
    """Examples of a labelled JSONL file; a line without ``group`` is its own group."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            label = obj.get("label")
            if not isinstance(obj.get("text"), str) or label not in (0, 1, True, False):
                raise ValueError(f"{path}:{number}: need a string 'text' and a 0/1 'label'")
            yield obj["text"], int(label), str(obj.get("group", f"line{number}"))


def corpus_examples(data_root: Path) -> Iterator[Example]:
    """Blocks of the gold folders labelled by their gold text (see the module notes)."""
    for gold_file in sorted(data_root.glob("*/gold.jsonl")):
        folder = gold_file.parent
        with gold_file.open(encoding="utf-8") as handle:
            for line in handle:
                gold = json.loads(line)
                page = folder / "pages" / f"{gold['id']}.html.gz"
                if not isinstance(gold.get("text"), str) or not page.is_file():
                    continue
                try:
                    doc = Document.from_bytes(gzip.decompress(page.read_bytes()))
                except DocumentError:
                    continue
                yield from _label_blocks(doc, gold["text"], f"{folder.name}/{gold['id']}")


def _label_blocks(doc: Document, gold_text: str, group: str) -> Iterator[Example]:
    compact_gold = "".join(gold_text.split())
    gold_tokens = set(tokens(gold_text))
    for block in node_blocks(simplify_tree(doc)):
        words = tokens(block.text)
        if not words:
            continue
        if "".join(block.text.split()) in compact_gold:
            yield block.text, 1, group
        elif sum(w in gold_tokens for w in words) <= MAX_BOILERPLATE_OVERLAP * len(words):
            yield block.text, 0, group


def mock_examples() -> Iterator[Example]:
    """Posts of generated forums: contentless replies and signatures worthless, others valuable."""
    from forumcrawl.mockforum.site import ForumSite

    for family, seed in MOCK_SITES:
        plan = ForumSite(family, seed=seed).plan
        for thread in plan.threads.values():
            group = f"mock/{family}/{seed}/{thread.tid}"
            for post in thread.posts:
                yield "\n".join(post.paragraphs), int(not post.short), group
                if post.signature:
                    yield post.signature, 0, group


def held_apart(group: str, share: float) -> bool:
    """Whether ``group`` is in the held-apart split (a stable hash, the same in every run)."""
    return zlib.crc32(group.encode("utf-8")) % 1000 < share * 1000


def train(examples: list[Example], *, k: int, share: float, source: str) -> ValueModel:
    """Fit on the groups not held apart; the card records the held-apart scores."""
    import sklearn  # imported to train, not when the command line starts
    from sklearn.metrics import precision_recall_fscore_support

    if not examples:
        raise ValueError("no labelled examples")
    test = [held_apart(g, share) for _, _, g in examples]
    train_x = [t for (t, _, _), h in zip(examples, test) if not h]
    train_y = [y for (_, y, _), h in zip(examples, test) if not h]
    if len(set(train_y)) < 2:
        raise ValueError("the training split needs both valuable (1) and worthless (0) examples")
    pipeline = make_value_classifier(k=k)
    vocabulary = len(set().union(*(set(pipeline.named_steps["words"].build_analyzer()(t)) for t in train_x)))
    pipeline.set_params(select__k=min(k, vocabulary))
    pipeline.fit(train_x, train_y)
    model = ValueModel.from_pipeline(pipeline)
    card: dict[str, Any] = {
        "trained": date.today().isoformat(),
        "source": source,
        "examples": {"train": len(train_x), "held_apart": sum(test)},
        "labels": {"valuable": sum(train_y), "worthless": len(train_y) - sum(train_y)},
        "features": len(model.vocabulary),
        "versions": {"python": platform.python_version(), "scikit-learn": sklearn.__version__},
    }
    test_x = [t for (t, _, _), h in zip(examples, test) if h]
    test_y = np.array([y for (_, y, _), h in zip(examples, test) if h])
    if len(test_x):
        predicted = model.predict(test_x).astype(int)
        p, r, f, n = precision_recall_fscore_support(test_y, predicted, labels=[0, 1], zero_division=0)
        card["held_apart_scores"] = {
            name: {"precision": round(float(p[i]), 4), "recall": round(float(r[i]), 4),
                   "f1": round(float(f[i]), 4), "support": int(n[i])}
            for i, name in enumerate(("worthless", "valuable"))
        }
    model.card = card
    return model


def run(args: argparse.Namespace) -> int:
    """Build examples, train, report and write the model."""
    if args.data is not None:
        examples = list(read_examples(args.data))
        source = f"user examples: {args.data.name}"
    else:
        examples = list(corpus_examples(args.from_corpus)) + list(mock_examples())
        source = (
            f"gold folders of {args.from_corpus.name}/ (blocks verbatim in the gold text = "
            f"valuable, ≤{MAX_BOILERPLATE_OVERLAP:.0%} token overlap = worthless) + mock forum "
            f"{', '.join(f'{f}:{s}' for f, s in MOCK_SITES)} (short replies and signatures = "
            "worthless, other posts = valuable)"
        )
    model = train(examples, k=args.k, share=args.held_apart, source=source)
    model.save(args.output)
    print(json.dumps(model.card, ensure_ascii=False, indent=2), file=sys.stderr)
    print(f"value model ({len(model.vocabulary)} features) -> {args.output}", file=sys.stderr)
    return 0
