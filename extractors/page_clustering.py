"""Group a site's pages by template: tree similarity, column similarity, agglomerative merging.

Seed 001 §2.4: pages are compared by the normalised tree edit similarity es (formula 2); two
pages are then compared by their whole rows of that matrix, the column similarity cs (formula 3),
which is more robust than es alone (two thread pages of different lengths differ in es but relate
to every other page alike). Groups merge, best auto-similarity (formula 4) first, while the merged
group stays above Ωg and every pair in it above Ωe.

Three departures from the paper, all measured in ``benchmarks/bench_wrapper.py`` (cluster F on
the mock families and machina, 100-page samples):

- Tag labels carry the element's class tokens (``tag_tree(classes=True)``), not the bare tag. A
  site's templates choose class names, its users do not, so classes tell apart pages built from
  the same few tags: as bare tags a discuz login page and a profile page have es 0.91.

- A pair of groups that breaks Ωe is passed over instead of ending all merging. One outlier page
  (a thread with a 200-node post) is the best partner of the largest group yet fails Ωe; under
  ``break`` it froze machina's threads in three clusters.
- Each group is clustered again on its own sub-matrix (:func:`refine_clusters`). In a sample that
  is mostly threads, every non-thread page is about equally far from the threads, so whole-row cs
  finds list, profile and login pages alike; restricted to the group's own columns, cs sees how
  they differ from each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_array

from forumcrawl.extractors.tree_distance import page_trees, similarity_matrix

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "TemplateClustering",
    "auto_similarity",
    "cluster_f_measure",
    "cluster_pages",
    "column_similarity",
    "refine_clusters",
    "page_trees",
    "similarity_matrix",
]


def column_similarity(m: ArrayLike) -> NDArray[np.float64]:
    """cs(p_i, p_j) = 1 − Σ_k |m_ik − m_jk| / n, formula 3 (rows of a similarity or distance
    matrix give the same cs, since |(1 − a) − (1 − b)| = |a − b|)."""
    arr = np.asarray(m, dtype=float)
    return 1.0 - cdist(arr, arr, metric="cityblock") / arr.shape[1]


def auto_similarity(cs: ArrayLike, members: Sequence[int]) -> float:
    """s(Φ) = 2 / (|Φ|(|Φ| − 1)) · Σ_{i<j} cs(p_i, p_j), formula 4 (1.0 for one page)."""
    arr = np.asarray(cs, dtype=float)
    idx = np.asarray(members)
    k = len(idx)
    if k < 2:
        return 1.0
    block = arr[np.ix_(idx, idx)]
    return float((block.sum() - np.trace(block)) / (k * (k - 1)))


def cluster_pages(cs: ArrayLike, *, omega_g: float = 0.9, omega_e: float = 0.8) -> NDArray[np.intp]:
    """``ClusterPage`` of seed 001 §2.4 on a column-similarity matrix: one label per page.

    Every page starts as its own group. Of the pairs of groups A, B whose pages all have cs > Ωe,
    the one maximising s(A ∪ B) merges while s(A ∪ B) > Ωg; a pair failing Ωe is skipped rather
    than stopping the loop (module docstring). Labels are numbered by first page, so the result
    does not depend on merge order.
    """
    arr = np.asarray(cs, dtype=float)
    n = arr.shape[0]
    groups: list[list[int]] = [[i] for i in range(n)]
    inner = [0.0] * n  # sum of cs over pairs inside each group
    cross = arr.copy()  # sum of cs between groups
    low = arr.copy()  # least cs between groups
    np.fill_diagonal(cross, 0.0)
    alive = list(range(n))
    while len(alive) > 1:
        best, pair = -np.inf, None
        for x, a in enumerate(alive):
            size_a = len(groups[a])
            for b in alive[x + 1 :]:
                # Pairs inside A and inside B passed Ωe when those groups formed; low covers the rest.
                if not low[a, b] > omega_e:
                    continue
                k = size_a + len(groups[b])
                s = (inner[a] + inner[b] + cross[a, b]) / (k * (k - 1) / 2)
                if s > best:
                    best, pair = s, (a, b)
        if pair is None or not best > omega_g:
            break
        a, b = pair
        inner[a] += inner[b] + cross[a, b]
        groups[a] = groups[a] + groups[b]
        cross[a, :] += cross[b, :]
        cross[:, a] = cross[a, :]
        low[a, :] = np.minimum(low[a, :], low[b, :])
        low[:, a] = low[a, :]
        alive.remove(b)
    return _labels([groups[a] for a in alive], n)


def _labels(groups: Sequence[Sequence[int]], n: int) -> NDArray[np.intp]:
    """One label per page, groups numbered in order of their first page."""
    labels = np.empty(n, dtype=np.intp)
    for label, g in enumerate(sorted((sorted(g) for g in groups), key=lambda g: g[0])):
        labels[list(g)] = label
    return labels


def refine_clusters(
    m: ArrayLike, labels: ArrayLike, *, omega_g: float = 0.9, omega_e: float = 0.8
) -> NDArray[np.intp]:
    """Split each cluster by ``ClusterPage`` on cs of its own sub-matrix, until no group splits.

    ``m`` is the es (or 1 − es) matrix the clusters came from. cs over all pages measures how a page
    relates to the whole sample; inside one group only the group's columns tell its pages apart.
    """
    arr = np.asarray(m, dtype=float)
    pending = [np.flatnonzero(np.asarray(labels) == k) for k in np.unique(labels)]
    done: list[NDArray[np.intp]] = []
    while pending:
        idx = pending.pop()
        sub = cluster_pages(column_similarity(arr[np.ix_(idx, idx)]), omega_g=omega_g, omega_e=omega_e)
        if len(idx) < 3 or sub.max() == 0:
            done.append(idx)
        else:
            pending.extend(idx[sub == k] for k in range(int(sub.max()) + 1))
    return _labels(done, arr.shape[0])


def cluster_f_measure(labels_true: ArrayLike, labels_pred: ArrayLike) -> float:
    """Cluster F-measure, formulas 6–7 of seed 001 §3.1.

    F = Σ_i |C*_i| / N · max_j F(i, j), where F(i, j) is the harmonic mean of
    |C_j ∩ C*_i| / |C_j| and |C_j ∩ C*_i| / |C*_i| (true class i, found cluster j).
    """
    true = np.asarray(labels_true)
    pred = np.asarray(labels_pred)
    if true.shape != pred.shape or true.ndim != 1:
        raise ValueError("labels_true and labels_pred must be 1-d and of the same length")
    n = len(true)
    if n == 0:
        return 1.0
    total = 0.0
    for c in np.unique(true):
        in_class = true == c
        best = 0.0
        for k in np.unique(pred[in_class]):
            in_cluster = pred == k
            both = np.count_nonzero(in_class & in_cluster)
            prec, rec = both / np.count_nonzero(in_cluster), both / np.count_nonzero(in_class)
            best = max(best, 2 * prec * rec / (prec + rec))
        total += np.count_nonzero(in_class) / n * best
    return total


class TemplateClustering(ClusterMixin, BaseEstimator):
    """Agglomerative page clustering by tag-tree similarity (seed 001 §2.4, ``ClusterPage``).

    Parameters
    ----------
    omega_g : float, default=0.9
        Ωg, least auto-similarity (formula 4) of a merged group.
    omega_e : float, default=0.8
        Ωe, least column similarity (formula 3) of any two pages in a merged group.
    metric : {"precomputed", "tree", "tree_edit"}, default="precomputed"
        ``"precomputed"``: ``X`` is an N×N distance matrix 1 − es (or any matrix whose rows
        describe the pages; cs only compares rows). ``"tree"`` (alias ``"tree_edit"``): ``X`` is a
        sequence of :class:`~forumcrawl.document.Document` or :class:`TagNode`, compared with
        :func:`~forumcrawl.extractors.tree_distance.tree_similarity` after repeated groups are
        collapsed.
    method : {"auto", "exact", "stm"}, default="auto"
        Tree algorithm for ``metric="tree"``.
    classes : bool, default=True
        With a tree metric, label nodes by tag and class tokens (module docstring); ``False``
        compares bare tags as seed 001 does.
    refine : bool, default=True
        Re-cluster each group on its own sub-matrix (:func:`refine_clusters`); ``False`` gives
        the single pass of the paper.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each page, numbered in order of first page.
    similarity_ : ndarray of shape (n_samples, n_samples)
        es matrix (only with a tree metric).
    column_similarity_ : ndarray of shape (n_samples, n_samples)
        cs matrix.
    auto_similarity_ : ndarray of shape (n_clusters,)
        s(Φ) of each cluster.
    n_clusters_ : int

    References
    ----------
    Seed 001 §2.3–2.4; S. Guha, R. Rastogi and K. Shim, "CURE: an efficient clustering algorithm
    for large databases", SIGMOD 1998.
    """

    def __init__(
        self,
        omega_g: float = 0.9,
        omega_e: float = 0.8,
        metric: str = "precomputed",
        method: str = "auto",
        classes: bool = True,
        refine: bool = True,
    ) -> None:
        self.omega_g = omega_g
        self.omega_e = omega_e
        self.metric = metric
        self.method = method
        self.classes = classes
        self.refine = refine

    def _validate(self) -> None:
        for name in ("omega_g", "omega_e"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
        if self.metric not in {"precomputed", "tree", "tree_edit"}:
            raise ValueError(f"metric must be 'precomputed', 'tree' or 'tree_edit', not {self.metric!r}")
        if self.method not in {"auto", "exact", "stm"}:
            raise ValueError(f"method must be 'auto', 'exact' or 'stm', not {self.method!r}")

    def fit(self, X: Any, y: Any = None) -> TemplateClustering:
        """Cluster the pages of ``X``; ``y`` is ignored."""
        self._validate()
        if self.metric == "precomputed":
            matrix = check_array(X, dtype=float, ensure_min_samples=1)
            if matrix.shape[0] != matrix.shape[1]:
                raise ValueError(f"precomputed X must be square, got shape {matrix.shape}")
            self.n_features_in_ = matrix.shape[1]
        else:
            if len(X) == 0:
                raise ValueError("X has no pages")
            matrix = similarity_matrix(page_trees(X, classes=self.classes), method=self.method)
            self.similarity_ = matrix
        cs = column_similarity(matrix)
        self.column_similarity_ = cs
        self.labels_ = cluster_pages(cs, omega_g=self.omega_g, omega_e=self.omega_e)
        if self.refine:
            self.labels_ = refine_clusters(matrix, self.labels_, omega_g=self.omega_g, omega_e=self.omega_e)
        self.n_clusters_ = int(self.labels_.max()) + 1
        self.auto_similarity_ = np.array(
            [auto_similarity(cs, np.flatnonzero(self.labels_ == k)) for k in range(self.n_clusters_)]
        )
        return self

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags
