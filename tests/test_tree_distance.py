"""Tree edit distance on hand-made trees (distances computed by hand) and on a parsed page."""

from __future__ import annotations

import pytest

from forumcrawl.document import Document
from forumcrawl.extractors.tree_distance import (
    EditCosts,
    collapse_repeats,
    normalised_similarity,
    simple_tree_matching,
    stm_mapping,
    tag_tree,
    tree,
    tree_edit_distance,
    tree_similarity,
)


def zs_example() -> tuple:
    # Zhang & Shasha (1989) figure: f(d(a, c(b)), e) and f(c(d(a, b)), e), distance 2.
    t1 = tree("f", tree("d", tree("a"), tree("c", tree("b"))), tree("e"))
    t2 = tree("f", tree("c", tree("d", tree("a"), tree("b"))), tree("e"))
    return t1, t2


def test_zhang_shasha_paper_example() -> None:
    t1, t2 = zs_example()
    assert tree_edit_distance(t1, t2) == 2.0
    assert tree_edit_distance(t2, t1) == 2.0


@pytest.mark.parametrize(
    ("t1", "t2", "costs", "expected"),
    [
        (tree("a"), tree("a"), EditCosts(), 0.0),
        (tree("a"), tree("b"), EditCosts(), 1.0),  # one substitution
        (tree("a"), tree("b"), EditCosts(5, 1, 1), 2.0),  # delete + insert beats p = 5
        (tree("a", tree("b"), tree("c")), tree("a"), EditCosts(1, 2, 3), 4.0),  # two deletions
        (tree("a"), tree("a", tree("b"), tree("c")), EditCosts(1, 2, 3), 6.0),  # two insertions
        # a(b, c) vs a(c): delete b only.
        (tree("a", tree("b"), tree("c")), tree("a", tree("c")), EditCosts(), 1.0),
        # a(b(c)) vs a(c): delete b, c moves up to a.
        (tree("a", tree("b", tree("c"))), tree("a", tree("c")), EditCosts(), 1.0),
        # a(b, c) vs a(c, b): order matters, two edits (substitute both, or delete + insert).
        (tree("a", tree("b"), tree("c")), tree("a", tree("c"), tree("b")), EditCosts(), 2.0),
    ],
)
def test_hand_computed_distances(t1, t2, costs, expected) -> None:
    assert tree_edit_distance(t1, t2, costs=costs) == expected


def test_normalised_similarity_formula_2() -> None:
    t1, t2 = zs_example()
    assert normalised_similarity(2.0, t1.size, t2.size) == pytest.approx(1 - 2 / 12)
    assert tree_similarity(t1, t2, method="exact") == pytest.approx(1 - 2 / 12)
    assert tree_similarity(t1, t1) == 1.0


def test_simple_tree_matching_is_top_down() -> None:
    t1, t2 = zs_example()
    # Only f and e can map top-down (d and c differ), so W = 2 and ed = (6 - 2) + (6 - 2) = 8.
    assert simple_tree_matching(t1, t2) == 2
    assert [(a.label, b.label) for a, b in stm_mapping(t1, t2)] == [("f", "f"), ("e", "e")]
    assert tree_similarity(t1, t2, method="stm") == pytest.approx(1 - 8 / 12)
    assert simple_tree_matching(tree("a"), tree("b")) == 0
    assert stm_mapping(tree("a"), tree("b")) == []


def test_stm_is_an_upper_bound_of_the_exact_distance() -> None:
    t1 = tree("r", tree("x", tree("y"), tree("z")), tree("w"), tree("x", tree("y")))
    t2 = tree("r", tree("x", tree("z")), tree("x", tree("y"), tree("y")), tree("w"))
    assert tree_similarity(t1, t2, method="stm") <= tree_similarity(t1, t2, method="exact")


def test_mapping_keeps_order_and_labels() -> None:
    t1 = tree("r", tree("a"), tree("b", tree("c")), tree("d"))
    t2 = tree("r", tree("b", tree("c"), tree("c")), tree("d"))
    pairs = [(a.label, b.label) for a, b in stm_mapping(t1, t2)]
    assert pairs == [("r", "r"), ("b", "b"), ("c", "c"), ("d", "d")]


def test_tag_tree_is_cleaned() -> None:
    html = (
        "<html><head><style>p{}</style><script>x()</script></head>"
        "<body><!-- note --><div><p>one</p><p>two</p></div><noscript>x</noscript></body></html>"
    )
    root = tag_tree(Document.from_text(html, "http://example.test/"))
    assert [n.label for n in root.preorder()] == ["html", "head", "body", "div", "p", "p"]
    assert root.size == 6


def test_collapse_repeats_merges_similar_siblings() -> None:
    row = lambda: tree("li", tree("a"), tree("span"))  # noqa: E731
    root = tree("ul", row(), row(), row(), tree("p"))
    collapsed = collapse_repeats(root)
    assert [c.label for c in collapsed.children] == ["li", "p"]
    assert len(collapsed.children[0].members) == 3
    assert collapsed.size == 5
