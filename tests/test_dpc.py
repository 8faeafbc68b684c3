"""KNN-DPC (seed 003 §3.1.2): sklearn compliance, the formulas, Algorithm 2, the decision graph."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score, pairwise_distances
from sklearn.utils.estimator_checks import parametrize_with_checks

from forumcrawl.extractors.dpc import KNNDensityPeaks, gamma_knee, knn_dpc
from forumcrawl.extractors.usc import usc_distance_matrix

LINE = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])


def _expected_failures(estimator: KNNDensityPeaks) -> dict[str, str]:
    if estimator.metric == "precomputed":
        return {
            "check_clustering": "sklearn feeds feature rows here even to pairwise estimators; "
            "the same check passes with metric='euclidean'",
        }
    return {}


@parametrize_with_checks(
    [KNNDensityPeaks(n_neighbors=5, metric="euclidean"), KNNDensityPeaks(n_neighbors=5)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator: KNNDensityPeaks, check) -> None:  # noqa: ANN001
    """sklearn's own battery; with metric="precomputed" the estimator declares the pairwise tag,
    so the checks feed it distance matrices."""
    check(estimator)


def test_formulas_5_and_6() -> None:
    d = pairwise_distances(LINE)
    found = knn_dpc(d, 2)
    for i in range(6):
        nearest = np.sort(np.delete(d[i], i))[:2]
        assert found.rho[i] == pytest.approx(np.exp(-nearest).sum())
    densest = int(np.argmax(found.rho + 1e-9 * (found.rho == found.rho.max()) * -np.arange(6)))
    for i in range(6):
        higher = [j for j in range(6) if found.rho[j] > found.rho[i]]
        if higher:
            assert found.delta[i] == pytest.approx(d[i, higher].min())
    assert found.delta.max() == pytest.approx(d[densest].max())
    assert found.neighbors.shape == (6, 2)
    assert np.allclose(found.gamma, found.rho / found.rho.max() * found.delta / found.delta.max())


def test_two_groups_on_a_line() -> None:
    model = KNNDensityPeaks(n_neighbors=2, metric="euclidean").fit(LINE)
    assert len(model.centers_) == 2
    assert len(set(model.labels_[:3])) == 1 and len(set(model.labels_[3:])) == 1
    assert model.labels_[0] != model.labels_[3]
    assert set(model.labels_[model.centers_]) == {0, 1}
    assert (model.fit_predict(LINE) == model.labels_).all()


def test_blobs_found_automatically() -> None:
    X, y = make_blobs(n_samples=500, centers=5, random_state=3)
    model = KNNDensityPeaks(n_neighbors=10, metric="euclidean").fit(X)
    assert len(model.centers_) == 5
    assert adjusted_rand_score(y, model.labels_) > 0.9


def test_n_centers_overrides_the_knee() -> None:
    X, _ = make_blobs(n_samples=120, centers=3, random_state=0)
    model = KNNDensityPeaks(n_neighbors=8, n_centers=4, metric="euclidean").fit(X)
    assert len(model.centers_) == 4
    assert set(model.labels_) == {0, 1, 2, 3}


def test_admission_rule_of_algorithm_2() -> None:
    """A point is admitted from q only if d(q, r) ≤ the mean distance of r to its own KNN."""
    # Tight group 0-3, then a far point 4 whose neighbours are all far: the walk from the group
    # reaches 4 through KNN links but must not admit it; only the vote step places it.
    X = np.array([[0.0], [0.1], [0.2], [0.3], [3.0], [10.0], [10.1], [10.2], [10.3]])
    d = pairwise_distances(X)
    walked = knn_dpc(d, 3, n_centers=2, assign_outliers=False)
    assert walked.labels[4] == -1
    assert (walked.labels[:4] == walked.labels[0]).all()
    assert (walked.labels[5:] == walked.labels[5]).all()
    voted = knn_dpc(d, 3, n_centers=2)
    assert voted.labels[4] in (voted.labels[0], voted.labels[5])
    assert (voted.labels >= 0).all()


def test_gamma_knee() -> None:
    assert gamma_knee(np.array([1.0, 0.9, 0.8, 0.05, 0.04, 0.03])) == 3
    assert gamma_knee(np.array([1.0, 0.9, 0.8, 0.05, 0.04, 0.03]), n_peaks=1) == 1
    assert gamma_knee(np.array([1.0])) == 1
    assert gamma_knee(np.array([1.0, 0.0, 0.0])) == 1


def test_local_peaks_selection_on_urls() -> None:
    urls = [f"http://f.example/forum/b-{b}/topic/t-{t}/?post={p}" for b in (1, 2) for t in range(3)
            for p in range(6)]
    urls += [f"http://f.example/member/profile/{u}/" for u in range(12)]
    model = KNNDensityPeaks(n_neighbors=5, center_selection="local_peaks", metric="usc").fit(urls)
    labels = model.labels_
    members = {labels[i] for i, u in enumerate(urls) if "/member/" in u}
    threads = {labels[i] for i, u in enumerate(urls) if "/topic/" in u}
    assert len(members) == 1 and not members & threads


def test_usc_metric_equals_precomputed() -> None:
    urls = [f"http://f.example/t/{i}/p/{j}" for i in range(4) for j in range(3)]
    a = KNNDensityPeaks(n_neighbors=3, metric="usc").fit(urls)
    b = KNNDensityPeaks(n_neighbors=3).fit(usc_distance_matrix(urls))
    assert (a.labels_ == b.labels_).all()
    with pytest.raises(ValueError, match="URLs"):
        KNNDensityPeaks(metric="usc").fit("http://f.example/")


def test_callable_metric() -> None:
    model = KNNDensityPeaks(n_neighbors=2, metric=lambda a, b: float(abs(a[0] - b[0]))).fit(LINE)
    assert len(set(model.labels_)) == 2


def test_deterministic_and_refit_forgets() -> None:
    X, _ = make_blobs(n_samples=80, centers=3, random_state=2)
    model = KNNDensityPeaks(n_neighbors=6, metric="euclidean")
    first = model.fit(X).labels_.copy()
    model.fit(LINE)
    assert model.labels_.shape == (6,)
    assert (clone(model).fit(X).labels_ == first).all()


@pytest.mark.parametrize(
    ("params", "X", "message"),
    [
        ({}, np.ones((2, 3)), "square"),
        ({}, np.array([[0.0, -1.0], [-1.0, 0.0]]), "non-negative"),
        ({}, np.array([[0.0, 1.0], [2.0, 0.0]]), "symmetric"),
        ({"n_neighbors": 0}, np.zeros((2, 2)), "n_neighbors"),
        ({"n_centers": 0}, np.zeros((2, 2)), "n_centers"),
        ({"center_selection": "eyeball"}, np.zeros((2, 2)), "center_selection"),
    ],
)
def test_bad_input(params: dict, X: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KNNDensityPeaks(**params).fit(X)


def test_decision_graph_and_png(tmp_path) -> None:  # noqa: ANN001
    pytest.importorskip("matplotlib")
    with pytest.raises(NotFittedError):
        KNNDensityPeaks().decision_graph()
    model = KNNDensityPeaks(n_neighbors=2, metric="euclidean").fit(LINE)
    graph = model.decision_graph()
    assert set(graph) == {"rho", "delta", "gamma", "is_center"}
    assert graph["is_center"].sum() == 2
    assert (graph["rho"] == model.rho_).all() and (graph["delta"] == model.delta_).all()
    out = model.plot_decision_graph(tmp_path / "decision.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 5000
