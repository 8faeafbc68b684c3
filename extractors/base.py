"""scikit-learn's estimator protocol for the learners that extraction loads, without importing
scikit-learn.

Our learners follow scikit-learn's conventions: the hyper-parameters are the ``__init__``
arguments, stored unchanged under their own names, and ``fit`` sets the learned attributes
(ending in ``_``), so that ``sklearn.base.clone``, grid searches and pipelines take them.
``sklearn.base.BaseEstimator`` would give them ``get_params`` and ``set_params``, but importing
it imports SciPy's statistics: 1.5 s of the 2.2 s a ``forumcrawl extract`` process spent
importing before its first page, for pages whose models are plain JSON weights. scikit-learn's
developer guide lets an estimator implement the two methods itself; :class:`Estimator` does for
the learners a page's extraction loads (single-page KSF, ``dom``'s block featurizer, the thread
identity, the template wrapper), and scikit-learn is imported where it is used (fitting, its
exceptions). Learners used only to learn a site (page clustering, DPC, the link classifier, the
URL rules) are scikit-learn's own estimators and pass its estimator checks.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["Estimator", "not_fitted"]


class Estimator:
    """``get_params``, ``set_params`` and a short ``repr``, as ``BaseEstimator`` gives them."""

    @classmethod
    def _param_names(cls) -> list[str]:
        """The ``__init__`` arguments, sorted: an estimator's parameters."""
        if cls.__init__ is object.__init__:
            return []
        names = []
        for parameter in inspect.signature(cls.__init__).parameters.values():
            if parameter.name == "self" or parameter.kind is parameter.VAR_KEYWORD:
                continue
            if parameter.kind is parameter.VAR_POSITIONAL:
                raise TypeError(f"{cls.__name__}.__init__ takes *args: its parameters cannot be listed")
            names.append(parameter.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameter name to value; with ``deep``, also those of parameters that are estimators
        (as ``name__param``)."""
        params: dict[str, Any] = {}
        for name in self._param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                params.update((f"{name}__{key}", inner) for key, inner in value.get_params().items())
            params[name] = value
        return params

    def set_params(self, **params: Any) -> Estimator:
        """Set parameters (``name__param`` reaches into a parameter that is an estimator)."""
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, inner = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"invalid parameter {name!r} for {type(self).__name__}; valid: {self._param_names()}"
                )
            if inner:
                nested.setdefault(name, {})[inner] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, inner_params in nested.items():
            valid[name].set_params(**inner_params)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()
        }
        changed = []
        for name, value in self.get_params(deep=False).items():
            default = defaults.get(name, inspect.Parameter.empty)
            if default is inspect.Parameter.empty or not _same(value, default):
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"


def _same(value: Any, default: Any) -> bool:
    """Whether a parameter still holds its default: an equal value of the default's type (an
    array or another type shows as changed)."""
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def not_fitted(message: str) -> Exception:
    """scikit-learn's ``NotFittedError`` (a ``ValueError`` and an ``AttributeError``), imported
    only when an unfitted estimator is used."""
    from sklearn.exceptions import NotFittedError

    return NotFittedError(message)
