"""Display helpers of the experiment layer: the HTML table of the ``_repr_mimebundle_`` methods,
and the deprecated ``.widget()`` methods' path to :mod:`tooleval_nb.widgets`."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["html_table", "legacy_widget"]


def html_table(df: pd.DataFrame, *, max_chars: int = 60, max_rows: int = 30) -> str:
    """``df`` as an HTML table: long texts shortened, floats with 3 decimals, HTML escaped.

    (``DataFrame.to_html`` has no ``max_colwidth``, and pandas 3 stores text in ``str``
    columns, not ``object`` ones: every column holding text is shortened here.)
    """
    from pandas.api.types import is_object_dtype, is_string_dtype

    view = df.head(max_rows).copy()
    for col in view.columns:
        if is_object_dtype(view[col]) or is_string_dtype(view[col]):
            view[col] = [v if not isinstance(v, str) or len(v) <= max_chars
                         else v[:max_chars - 1] + "…" for v in view[col]]
    return view.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="")


def legacy_widget(obj: Any, view: str) -> Any:
    """What the deprecated ``Experiment.widget()``, ``Sweep.widget()`` and ``PromptTune.widget()``
    return: ``tooleval_nb.widgets.<view>(obj)``, with a warning naming that replacement.

    Widgets sit above experiments; this is the one import against that arrow, allowed (until the
    shims go in 0.3) by ``LEGACY_ARROWS`` in ``tests/test_architecture.py``.
    """
    warnings.warn(f"{type(obj).__name__}.widget() is deprecated; use "
                  f"tooleval_nb.widgets.{view}(...) instead", DeprecationWarning, stacklevel=3)
    from .. import widgets  # legacy arrow: experiments -> widgets (see the docstring)

    return getattr(widgets, view)(obj)
