"""Rebuild ``background_df.txt``: document frequencies of words over article pages.

Run from the repository root with the evaluation data at hand (not needed at run time)::

    python extractors/data/build_background.py /work/shared/data > extractors/data/background_df.txt

Every page's visible text (all of it: navigation and footers included, so that template words
get a high document frequency) is tokenised with forumcrawl's tokenizer; each word counts once
per page. Words seen on fewer than two pages are left out to keep the file small: a missing
word reads as document frequency 0, which is what single-page KSF wants for rare words anyway.
"""

from __future__ import annotations

import gzip
import sys
from collections import Counter
from pathlib import Path

from forumcrawl.document import Document
from forumcrawl.extractors.ksf import page_lines
from forumcrawl.extractors.text import tokenize

#: Article corpora only: the forum corpora (magic-forums, wcxb-dev, harvest-forum-posts) are
#: what single-page KSF is evaluated on, so they stay out of its background.
CORPORA = ("aeb-articles-en", "magic-articles", "cwced-zh")


def main(data_dir: str) -> None:
    df: Counter[str] = Counter()
    n_docs = 0
    for corpus in CORPORA:
        for path in sorted((Path(data_dir) / corpus / "pages").glob("*.html.gz")):
            doc = Document.from_bytes(gzip.decompress(path.read_bytes()))
            if doc.tree is None:
                continue
            words = {t for line in page_lines(doc.tree) for t in tokenize(line.text)}
            df.update(w for w in words if len(w) > 1 and len(w) <= 30)
            n_docs += 1
    print(f"# n_docs={n_docs}")
    print(f"# document frequencies over the visible text of {', '.join(CORPORA)}")
    print("# (see README.md); word<TAB>pages, words on fewer than 2 pages omitted")
    for word, count in sorted(df.items(), key=lambda kv: (-kv[1], kv[0])):
        if count >= 2:
            print(f"{word}\t{count}")


if __name__ == "__main__":
    main(sys.argv[1])
