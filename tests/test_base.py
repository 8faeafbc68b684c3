"""The estimator protocol our learners implement without importing scikit-learn: scikit-learn's
own tools must take them as they take its estimators."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from forumcrawl.extractors.base import Estimator, not_fitted
from forumcrawl.extractors.dom_density import BlockFeaturizer
from forumcrawl.extractors.ksf import KeywordScoringExtractor
from forumcrawl.extractors.navigation import ListingOrders, ThreadIdentity
from forumcrawl.extractors.wrapper import WrapperInducer

ESTIMATORS = [BlockFeaturizer, KeywordScoringExtractor, ListingOrders, ThreadIdentity, WrapperInducer]


class _Twin(BaseEstimator):
    """scikit-learn's reading of a parameter list, to compare ours with."""

    def __init__(self, alpha: float = 1.0, inner: object = None, name: str = "a") -> None:
        self.alpha = alpha
        self.inner = inner
        self.name = name


class _Ours(Estimator):
    def __init__(self, alpha: float = 1.0, inner: object = None, name: str = "a") -> None:
        self.alpha = alpha
        self.inner = inner
        self.name = name


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_each_estimator_clones_with_its_parameters(cls: type[Estimator]) -> None:
    model = cls()
    params = model.get_params()
    assert set(params) == set(model.get_params(deep=False))  # no parameter is an estimator
    twin = clone(model)
    assert twin is not model and twin.get_params() == params
    assert repr(model) == f"{cls.__name__}()"  # nothing changed from the defaults


def test_parameters_read_as_scikit_learn_reads_them() -> None:
    for deep in (False, True):
        assert _Ours(2.0, _Ours(name="b")).get_params(deep=deep).keys() == (
            _Twin(2.0, _Twin(name="b")).get_params(deep=deep).keys()
        )
    model = _Ours(inner=_Ours())
    assert model.set_params(alpha=0.5, inner__name="z") is model
    assert model.alpha == 0.5 and model.inner.name == "z"
    assert repr(model) == "_Ours(alpha=0.5, inner=_Ours(name='z'))"
    assert repr(_Ours(alpha=np.array([1.0]))).startswith("_Ours(alpha=array(")  # no ambiguous ==
    with pytest.raises(ValueError, match="invalid parameter 'beta'"):
        model.set_params(beta=1)
    assert clone(model).inner.get_params() == {"alpha": 1.0, "inner": None, "name": "z"}


def test_an_unfitted_estimator_raises_scikit_learns_error() -> None:
    error = not_fitted("not fitted")
    assert isinstance(error, NotFittedError) and isinstance(error, AttributeError)
    with pytest.raises(NotFittedError):
        ThreadIdentity().key("https://example.org/t/1")

