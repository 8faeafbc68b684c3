"""Column similarity, auto-similarity, ClusterPage merging and the cluster F-measure."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from forumcrawl.document import Document
from forumcrawl.extractors.page_clustering import (
    TemplateClustering,
    auto_similarity,
    cluster_f_measure,
    cluster_pages,
    column_similarity,
    refine_clusters,
)


def test_column_similarity_formula_3() -> None:
    m = np.array([[1.0, 0.8, 0.2], [0.8, 1.0, 0.4], [0.2, 0.4, 1.0]])
    cs = column_similarity(m)
    # cs(0, 1) = 1 - (0.2 + 0.2 + 0.2) / 3 = 0.8; cs(0, 2) = 1 - (0.8 + 0.4 + 0.8) / 3.
    assert cs[0, 1] == pytest.approx(0.8)
    assert cs[0, 2] == pytest.approx(1 - 2.0 / 3)
    assert np.allclose(cs, cs.T)
    assert np.allclose(column_similarity(1.0 - m), cs)  # distances give the same cs


def test_auto_similarity_formula_4() -> None:
    cs = np.array([[1.0, 0.9, 0.6], [0.9, 1.0, 0.3], [0.6, 0.3, 1.0]])
    assert auto_similarity(cs, [0, 1, 2]) == pytest.approx((0.9 + 0.6 + 0.3) / 3)
    assert auto_similarity(cs, [0, 1]) == pytest.approx(0.9)
    assert auto_similarity(cs, [2]) == 1.0


def two_templates() -> np.ndarray:
    # Pages 0-2 from one template, 3-4 from another: es 0.95 within, 0.3 across.
    es = np.full((5, 5), 0.3)
    es[:3, :3] = 0.95
    es[3:, 3:] = 0.95
    np.fill_diagonal(es, 1.0)
    return es


def test_cluster_pages_merges_within_templates_only() -> None:
    labels = cluster_pages(column_similarity(two_templates()))
    assert labels.tolist() == [0, 0, 0, 1, 1]


def test_omega_e_blocks_a_dissimilar_pair() -> None:
    cs = np.array([[1.0, 0.95, 0.79], [0.95, 1.0, 0.95], [0.79, 0.95, 1.0]])
    # s({0,1,2}) = 0.897 < 0.9 anyway; with Ωg = 0.85 the pair (0, 2) at 0.79 < Ωe = 0.8 blocks.
    assert cluster_pages(cs, omega_g=0.85, omega_e=0.8).tolist() == [0, 0, 1]
    assert cluster_pages(cs, omega_g=0.85, omega_e=0.7).tolist() == [0, 0, 0]


def test_pair_failing_omega_e_is_skipped_not_final() -> None:
    cs = np.full((5, 5), 0.5)
    cs[0, 1] = cs[1, 0] = 0.99
    cs[1, 2] = cs[2, 1] = 0.985
    cs[0, 2] = cs[2, 0] = 0.79
    cs[3, 4] = cs[4, 3] = 0.92
    np.fill_diagonal(cs, 1.0)
    # After {0,1}: s({0,1,2}) = (0.99 + 0.985 + 0.79) / 3 = 0.9217 beats s({3,4}) = 0.92 but fails
    # Ωe; the printed pseudo-code would stop there and leave 3 and 4 apart.
    assert cluster_pages(cs).tolist() == [0, 0, 1, 2, 2]


def three_templates() -> np.ndarray:
    # 10 thread pages (es 0.95), then 3 list pages and 3 profile pages (es 0.98 inside, 0.7
    # between them), every non-thread page at 0.3 from the threads.
    es = np.full((16, 16), 0.3)
    es[:10, :10] = 0.95
    es[10:, 10:] = 0.7
    es[10:13, 10:13] = es[13:, 13:] = 0.98
    np.fill_diagonal(es, 1.0)
    return es


def test_refine_splits_a_group_on_its_own_columns() -> None:
    es = three_templates()
    cs = column_similarity(es)
    # Whole rows: list/profile cs = 1 - 2·(2·0.28 + 0.3) / 16 = 0.8925, s of the six pages
    # (6·0.9975 + 9·0.8925) / 15 = 0.934 > Ωg: one group.
    assert cs[10, 13] == pytest.approx(0.8925)
    first = cluster_pages(cs)
    assert first.tolist() == [0] * 10 + [1] * 6
    # Own columns: cs = 1 - 2·(2·0.28 + 0.3) / 6 = 0.713 < Ωe, so the group splits.
    assert refine_clusters(es, first).tolist() == [0] * 10 + [1] * 3 + [2] * 3
    assert refine_clusters(1.0 - es, first).tolist() == [0] * 10 + [1] * 3 + [2] * 3
    assert TemplateClustering().fit_predict(1.0 - es).tolist() == [0] * 10 + [1] * 3 + [2] * 3
    assert TemplateClustering(refine=False).fit_predict(1.0 - es).tolist() == first.tolist()


def test_estimator_on_precomputed_distances() -> None:
    model = TemplateClustering().fit(1.0 - two_templates())
    assert model.labels_.tolist() == [0, 0, 0, 1, 1]
    assert model.n_clusters_ == 2
    assert model.fit_predict(1.0 - two_templates()).tolist() == [0, 0, 0, 1, 1]
    assert clone(model).get_params() == model.get_params()
    with pytest.raises(ValueError, match="square"):
        TemplateClustering().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="omega_g"):
        TemplateClustering(omega_g=2).fit(np.eye(2))


def test_estimator_on_documents() -> None:
    def page(n_posts: int, kind: str) -> Document:
        if kind == "thread":
            posts = "".join(f"<div class=p><b>u{i}</b><span>t</span><p>x</p></div>" for i in range(n_posts))
            body = f"<h1>T</h1><div id=posts>{posts}</div>"
        else:
            body = "<form><input><input><button>go</button></form><table><tr><td>a</td></tr></table>"
        return Document.from_text(f"<html><body>{body}</body></html>", f"http://x.test/{kind}{n_posts}")

    docs = [page(2, "thread"), page(7, "thread"), page(1, "login"), page(4, "thread"), page(3, "login")]
    labels = TemplateClustering(metric="tree").fit_predict(docs)
    assert labels.tolist() == [0, 0, 1, 0, 1]


def test_class_tokens_separate_same_tag_templates() -> None:
    def page(i: int, kind: str) -> Document:
        rows = "".join(f"<div class={kind}-row><span class={kind}-cell>{k}</span></div>" for k in range(3))
        body = f"<div class={kind}-head><h2>{kind}</h2></div><div class={kind}-main>{rows}</div>"
        return Document.from_text(f"<html><body>{body}</body></html>", f"http://x.test/{kind}{i}")

    docs = [page(i, kind) for kind in ("profile", "login") for i in range(3)]
    assert TemplateClustering(metric="tree").fit_predict(docs).tolist() == [0, 0, 0, 1, 1, 1]
    assert TemplateClustering(metric="tree", classes=False).fit_predict(docs).tolist() == [0] * 6


def test_cluster_f_measure_formulas_6_7() -> None:
    assert cluster_f_measure([0, 0, 1, 1], [5, 5, 7, 7]) == 1.0
    # True {a,a,a,b}; found {0,0},{1,1}: class a best F = 2·1·(2/3)/(1+2/3) = 0.8 with weight 3/4;
    # class b best F with cluster 1: P 1/2, R 1 -> 2/3, weight 1/4.
    assert cluster_f_measure(list("aaab"), [0, 0, 1, 1]) == pytest.approx(0.75 * 0.8 + 0.25 * 2 / 3)
    with pytest.raises(ValueError, match="same length"):
        cluster_f_measure([0], [0, 1])


@parametrize_with_checks(
    [TemplateClustering()],
    expected_failed_checks=lambda est: {
        "check_clustering": "sklearn feeds feature rows here even to pairwise estimators"
    },
)
def test_sklearn_compatible(estimator, check) -> None:  # noqa: ANN001
    """sklearn's battery; the pairwise tag makes the checks feed distance matrices."""
    check(estimator)
