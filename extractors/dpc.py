"""KNN-DPC: density-peaks clustering with K nearest neighbours (seed 003 §3.1.2, Xie et al. 2016).

Cluster centres are points that are dense (``ρ``, formula 5: ``Σ exp(−d)`` over the K nearest
neighbours) and far from any denser point (``δ``, formula 6). The paper picks them by eye on the
decision graph (``ρ`` against ``δ``); a crawler cannot, so :func:`knn_dpc` cuts the decreasing
``γ = ρ·δ`` at its largest drop (:func:`gamma_knee`) and still returns what the graph needs.
Points are then assigned by breadth-first walks over K-nearest-neighbour links from the centres,
admitting a point only when it is at most as far from the point that reaches it as it is, on
average, from its own neighbours (the paper's Algorithm 2). Points no walk reaches take the label
most of their neighbours have (the second step of Xie et al.), so every point ends in a cluster.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.metrics import pairwise_distances
from sklearn.utils.validation import check_is_fitted, validate_data

from forumcrawl.extractors.usc import usc_distance_matrix

__all__ = ["CENTER_SELECTIONS", "DensityPeaks", "KNNDensityPeaks", "gamma_knee", "knn_dpc"]

CENTER_SELECTIONS = ("gamma_knee", "local_peaks")


@dataclass(frozen=True)
class DensityPeaks:
    """What :func:`knn_dpc` found: one entry per point unless said otherwise."""

    #: Cluster of each point, ``0 .. n_centers - 1`` (``-1`` only with ``assign_outliers=False``).
    labels: np.ndarray
    #: Local density, formula 5.
    rho: np.ndarray
    #: Distance to the nearest denser point, formula 6 (the densest point: its largest distance).
    delta: np.ndarray
    #: ``ρ/max ρ · δ/max δ``, the centre score.
    gamma: np.ndarray
    #: Indices of the centres, in label order (centre ``k`` has label ``k``).
    centers: np.ndarray
    #: Indices of each point's K nearest neighbours, nearest first, shape ``(n, K)``.
    neighbors: np.ndarray


def gamma_knee(gamma: np.ndarray, n_peaks: int | None = None) -> int:
    """How many centres: the largest drop between consecutive values of ``γ`` sorted decreasingly.

    The drop is measured as a ratio (``log γ_k − log γ_{k+1}``), so it does not depend on the
    scale of distances, and it is looked for only among the first ``n_peaks + 1`` values:
    ``n_peaks`` counts the points that are density maxima of their own neighbourhood (their
    nearest denser point lies beyond their K-th neighbour), the only points that can head a
    cluster. Without it, ratios between tiny ``γ`` in the tail (points next to a denser twin)
    would win. Points with ``γ = 0`` are never centres.

    Examples
    --------
    >>> gamma_knee(np.array([1.0, 0.9, 0.8, 0.05, 0.04, 0.03]))
    3
    """
    g = np.sort(np.asarray(gamma, dtype=np.float64))[::-1]
    g = g[g > 0]
    m = g.size if n_peaks is None else min(g.size, max(int(n_peaks), 1) + 1)
    if m < 2:
        return 1
    drops = np.log(g[: m - 1]) - np.log(g[1:m])
    return int(np.argmax(drops)) + 1


def _neighbors(distances: np.ndarray, k: int, chunk: int = 512) -> np.ndarray:
    """Indices of the ``k`` nearest other points of each row, nearest first (ties by index).

    Rows are handled a block at a time, so no copy of the whole matrix is made.
    """
    n = distances.shape[0]
    out = np.empty((n, k), dtype=np.intp)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        block = distances[start:stop].copy()
        block[np.arange(stop - start), np.arange(start, stop)] = np.inf
        part = np.argpartition(block, k - 1, axis=1)[:, :k] if k < n - 1 else (
            np.argsort(block, axis=1, kind="stable")[:, :k]
        )
        rows = np.arange(stop - start)[:, None]
        order = np.lexsort((part, block[rows, part]), axis=1)
        out[start:stop] = part[rows, order]
    return out


def knn_dpc(
    distances: np.ndarray,
    n_neighbors: int = 10,
    *,
    n_centers: int | None = None,
    center_selection: str = "gamma_knee",
    assign_outliers: bool = True,
) -> DensityPeaks:
    """Cluster points given their distance matrix by KNN density peaks.

    Parameters
    ----------
    distances : ``(n, n)`` symmetric, non-negative distances. ``exp(−d)`` must not vanish for
        most pairs: scale them first (USC distances: :func:`forumcrawl.extractors.usc.distance_table`).
    n_neighbors : ``K`` (capped at ``n − 1``).
    n_centers : number of centres; ``None`` chooses it by ``center_selection``.
    center_selection : ``"gamma_knee"`` (the largest drop of the sorted ``γ``, see
        :func:`gamma_knee`) or ``"local_peaks"`` (every point whose nearest denser point lies
        beyond its K-th neighbour: the finest clustering the densities support, used for URLs,
        whose templates nest and give ``γ`` no single knee). Either way only such local peaks
        can be centres.
    assign_outliers : give points the breadth-first walk does not reach the majority label of
        their neighbours (otherwise they keep ``-1``).

    Returns
    -------
    DensityPeaks
    """
    d = np.asarray(distances, dtype=np.float64)
    n = d.shape[0]
    if n == 0:
        raise ValueError("no points to cluster")
    if n == 1:
        zero = np.zeros(1)
        return DensityPeaks(
            labels=np.zeros(1, dtype=np.intp), rho=zero, delta=zero, gamma=zero,
            centers=np.zeros(1, dtype=np.intp), neighbors=np.zeros((1, 0), dtype=np.intp),
        )
    k = max(1, min(int(n_neighbors), n - 1))
    knn = _neighbors(d, k)
    knn_d = np.take_along_axis(d, knn, axis=1)
    rho = np.exp(-knn_d).sum(axis=1)
    mean_knn = knn_d.mean(axis=1)
    # Denser first; equal densities are ordered by tighter neighbourhoods, then by index, so that
    # "denser than" is a strict total order and exactly one point has no denser point.
    rank = np.lexsort((np.arange(n), mean_knn, -rho))
    delta = _delta(d, rank)
    gamma = (rho / rho.max()) * (delta / delta.max() if delta.max() > 0 else delta)
    # A point whose nearest denser point lies within its K neighbours is not a peak of density.
    peaks = delta > knn_d[:, -1]
    peaks[rank[0]] = True
    by_gamma = np.lexsort((np.arange(n), -gamma))
    if n_centers is None:
        if center_selection not in CENTER_SELECTIONS:
            raise ValueError(
                f"center_selection must be one of {CENTER_SELECTIONS}, got {center_selection!r}"
            )
        n_peaks = int(peaks.sum())
        n_centers = gamma_knee(gamma, n_peaks) if center_selection == "gamma_knee" else n_peaks
        candidates = by_gamma[peaks[by_gamma]]
    else:
        # A requested number of centres may exceed the peaks: then the best other points follow.
        candidates = np.concatenate([by_gamma[peaks[by_gamma]], by_gamma[~peaks[by_gamma]]])
    n_centers = max(1, min(int(n_centers), n))
    centers = candidates[:n_centers]
    labels = _bfs_assign(d, knn, mean_knn, centers)
    if assign_outliers:
        _vote_assign(d, knn, labels)
    return DensityPeaks(
        labels=labels, rho=rho, delta=delta, gamma=gamma, centers=centers, neighbors=knn
    )


def _delta(d: np.ndarray, rank: np.ndarray, chunk: int = 512) -> np.ndarray:
    """Formula 6 for every point: the distance to the nearest point ranked denser; the densest
    point gets its largest distance. Rows are taken a block at a time (``O(n²)`` work in numpy,
    ``O(chunk·n)`` extra memory)."""
    n = d.shape[0]
    delta = np.empty(n)
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        block = d[np.ix_(rank[start:stop], rank[:stop])]
        # Entry (p - start, q) may count only if q is ranked before p.
        later = np.arange(stop)[None, :] >= np.arange(start, stop)[:, None]
        block[later] = np.inf
        delta[rank[start:stop]] = block.min(axis=1)
    delta[rank[0]] = d[rank[0]].max()
    return delta


def _bfs_assign(
    d: np.ndarray, knn: np.ndarray, mean_knn: np.ndarray, centers: np.ndarray
) -> np.ndarray:
    """Algorithm 2: breadth-first walks over KNN links from the centres, admitting ``r`` from
    ``q`` when ``d(q, r) ≤`` the mean distance of ``r`` to its own K neighbours.

    Each centre first takes its unassigned neighbours, as in the paper. The walks then advance
    together, one queue for all centres, rather than one centre after another: run in turn, the
    first walk floods any cluster that touches its own before that cluster's walk starts (on
    sklearn's blobs, ARI 0.0 against 0.8 for touching clusters); apart clusters end the same.
    """
    labels = np.full(d.shape[0], -1, dtype=np.intp)
    labels[centers] = np.arange(len(centers))
    queue: deque[int] = deque()
    for label, c in enumerate(centers):
        for r in knn[c]:
            if labels[r] == -1:
                labels[r] = label
                queue.append(int(r))
    while queue:
        q = queue.popleft()
        for r in knn[q]:
            if labels[r] == -1 and d[q, r] <= mean_knn[r]:
                labels[r] = labels[q]
                queue.append(int(r))
    return labels


def _vote_assign(d: np.ndarray, knn: np.ndarray, labels: np.ndarray) -> None:
    """Give unassigned points the most common label among their assigned neighbours, repeatedly;
    points with no assigned neighbour at all take the label of their nearest assigned point."""
    n_labels = int(labels.max()) + 1
    while True:
        todo = np.flatnonzero(labels == -1)
        if todo.size == 0:
            return
        neigh = labels[knn[todo]]
        votes = np.zeros((todo.size, n_labels))
        for j in range(neigh.shape[1]):
            ok = neigh[:, j] >= 0
            # Nearer neighbours weigh a little more, which breaks ties towards them.
            votes[np.flatnonzero(ok), neigh[ok, j]] += 1.0 + 1e-6 * (neigh.shape[1] - j)
        has_vote = votes.max(axis=1) > 0
        if not has_vote.any():
            assigned = np.flatnonzero(labels >= 0)
            nearest = assigned[np.argmin(d[np.ix_(todo, assigned)], axis=1)]
            labels[todo] = labels[nearest]
            return
        labels[todo[has_vote]] = votes[has_vote].argmax(axis=1)


def _check_symmetric(X: np.ndarray, chunk: int = 512) -> None:
    """Refuse a distance matrix that is not symmetric, one block of rows at a time (sklearn's
    ``check_symmetric`` builds ``X − Xᵀ``: another full matrix)."""
    for start in range(0, X.shape[0], chunk):
        stop = min(X.shape[0], start + chunk)
        if not np.allclose(X[start:stop], X[:, start:stop].T):
            raise ValueError("a precomputed distance matrix must be symmetric")


class KNNDensityPeaks(ClusterMixin, BaseEstimator):
    """KNN density-peaks clustering (KNN-DPC), with automatic choice of centres.

    Parameters
    ----------
    n_neighbors : int, default=10
        ``K``: neighbours that define a point's density and its links for assignment.
    n_centers : int or None, default=None
        Number of clusters; ``None`` picks it by ``center_selection``.
    center_selection : {"gamma_knee", "local_peaks"}, default="gamma_knee"
        How centres are chosen when ``n_centers`` is None: the knee of the sorted
        ``γ = ρ·δ`` curve (see :func:`gamma_knee`), or every local density peak (a point whose
        nearest denser point lies beyond its K-th neighbour).
    metric : str or callable, default="precomputed"
        ``"precomputed"``: ``X`` is an ``(n, n)`` distance matrix. ``"usc"``: ``X`` is a sequence
        of URLs of one site, compared by normalised USC distance
        (:func:`forumcrawl.extractors.usc.usc_distance_matrix`). Any other value is passed to
        :func:`sklearn.metrics.pairwise_distances` with numeric ``X``.
    assign_outliers : bool, default=True
        Give points the breadth-first walk does not reach the label of most of their neighbours
        (otherwise they are labelled ``-1``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point.
    rho_ : ndarray of shape (n_samples,)
        Local density ``Σ_{j ∈ KNN(i)} exp(−d_ij)``.
    delta_ : ndarray of shape (n_samples,)
        Distance to the nearest denser point.
    gamma_ : ndarray of shape (n_samples,)
        ``ρ·δ`` after dividing each by its maximum.
    centers_ : ndarray of shape (n_clusters,)
        Index of the centre of each cluster (centre ``k`` has label ``k``).
    neighbors_ : ndarray of shape (n_samples, K)
        Indices of each point's nearest neighbours.
    n_features_in_ : int
        Number of columns of ``X`` (numeric metrics only).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> KNNDensityPeaks(n_neighbors=2, metric="euclidean").fit(X).labels_
    array([1, 1, 1, 0, 0, 0])

    Notes
    -----
    Time ``O(n²)`` and memory ``O(n²)`` (the distance matrix); assignment is ``O(nK)``.

    References
    ----------
    .. [1] Xie J., Gao H., Xie W. "K-nearest neighbors optimized clustering algorithm by fast
       search and finding the density peaks of a dataset". Scientia Sinica Informationis 46(2),
       258–280, 2016.
    .. [2] Seed 003 §3.1.2: the paper's Algorithms 1 and 2 applied to URL structure vectors.
    """

    def __init__(
        self,
        n_neighbors: int = 10,
        *,
        n_centers: int | None = None,
        center_selection: str = "gamma_knee",
        metric: str | Callable[..., float] = "precomputed",
        assign_outliers: bool = True,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.metric = metric
        self.assign_outliers = assign_outliers

    def _distances(self, X: Any) -> np.ndarray:
        if self.metric == "usc":
            if isinstance(X, str) or not isinstance(X, Sequence | np.ndarray):
                raise ValueError('metric="usc" needs a sequence of URLs')
            urls = [str(u) for u in X]
            if not urls:
                raise ValueError("no URLs to cluster")
            return usc_distance_matrix(urls)
        X = validate_data(self, X, accept_sparse=False, ensure_min_samples=1)
        if self.metric == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(f"a precomputed distance matrix must be square, got {X.shape}")
            if (X < 0).any():
                raise ValueError("Negative values in data: distances must be non-negative")
            _check_symmetric(X)
            return X
        return pairwise_distances(X, metric=self.metric)

    def _validate_params(self) -> None:
        if not isinstance(self.n_neighbors, Integral) or self.n_neighbors < 1:
            raise ValueError(f"n_neighbors must be a positive int, got {self.n_neighbors!r}")
        if self.n_centers is not None and (
            not isinstance(self.n_centers, Integral) or self.n_centers < 1
        ):
            raise ValueError(f"n_centers must be None or a positive int, got {self.n_centers!r}")
        if self.center_selection not in CENTER_SELECTIONS:
            raise ValueError(
                f"center_selection must be one of {CENTER_SELECTIONS}, "
                f"got {self.center_selection!r}"
            )
        if not (isinstance(self.metric, str) or callable(self.metric)):
            raise ValueError(f"metric must be a string or a callable, got {self.metric!r}")

    def fit(self, X: Any, y: None = None) -> KNNDensityPeaks:
        """Cluster ``X``: a distance matrix, URLs (``metric="usc"``) or feature rows."""
        self._validate_params()
        distances = self._distances(X)
        found = knn_dpc(
            distances,
            self.n_neighbors,
            n_centers=self.n_centers,
            center_selection=self.center_selection,
            assign_outliers=self.assign_outliers,
        )
        self.labels_ = found.labels
        self.rho_ = found.rho
        self.delta_ = found.delta
        self.gamma_ = found.gamma
        self.centers_ = found.centers
        self.neighbors_ = found.neighbors
        return self

    def fit_predict(self, X: Any, y: None = None, **kwargs: Any) -> np.ndarray:
        """Cluster ``X`` and return ``labels_``."""
        return self.fit(X).labels_

    def decision_graph(self) -> dict[str, np.ndarray]:
        """The decision graph's data: ``rho``, ``delta``, ``gamma`` and a boolean ``is_center``."""
        check_is_fitted(self, "labels_")
        is_center = np.zeros(self.rho_.shape[0], dtype=bool)
        is_center[self.centers_] = True
        return {"rho": self.rho_, "delta": self.delta_, "gamma": self.gamma_, "is_center": is_center}

    def plot_decision_graph(self, path: str | Path, *, title: str | None = None) -> Path:
        """Save the decision graph (``ρ`` against ``δ``, centres marked and numbered) as a PNG.

        Needs matplotlib (``pip install forumcrawl[plot]``); it is imported here only.
        """
        graph = self.decision_graph()
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise ImportError("plotting needs matplotlib: pip install 'forumcrawl[plot]'") from exc
        centre = graph["is_center"]
        fig, ax = plt.subplots(figsize=(6, 4.5), dpi=110)
        try:
            ax.scatter(graph["rho"][~centre], graph["delta"][~centre], s=10, c="0.55",
                       label="points")
            ax.scatter(graph["rho"][centre], graph["delta"][centre], s=40, c="tab:red",
                       marker="D", label="centres")
            for label, i in enumerate(self.centers_):
                ax.annotate(str(label), (graph["rho"][i], graph["delta"][i]),
                            textcoords="offset points", xytext=(4, 4), fontsize=8)
            ax.set_xlabel("ρ (local density)")
            ax.set_ylabel("δ (distance to a denser point)")
            ax.set_title(title or f"KNN-DPC decision graph: {len(self.centers_)} centres")
            ax.legend(loc="best", fontsize=8)
            fig.tight_layout()
            out = Path(path)
            fig.savefig(out, format="png")
        finally:
            plt.close(fig)
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        tags.input_tags.positive_only = self.metric == "precomputed"
        tags.input_tags.string = self.metric == "usc"
        return tags
