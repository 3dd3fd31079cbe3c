"""Display helpers of the experiment layer: the HTML table of the ``_repr_mimebundle_`` methods
(the widgets of an experiment, a sweep or a tune are :mod:`tooleval_nb.widgets`' ``*_view``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["html_table"]


def html_table(df: pd.DataFrame, *, max_chars: int = 60, max_rows: int = 30) -> str:
    """``df`` as an HTML table: long texts shortened, floats with 3 decimals, HTML escaped.

    (``DataFrame.to_html`` has no ``max_colwidth``, and pandas 3 stores text in ``str``
    columns, not ``object`` ones: every column holding text is shortened here.)
    """
    from pandas.api.types import is_object_dtype, is_string_dtype

    view = df.head(max_rows).copy()
    for col in view.columns:
        if is_object_dtype(view[col]) or is_string_dtype(view[col]):
            view[col] = [
                v if not isinstance(v, str) or len(v) <= max_chars else v[: max_chars - 1] + "…"
                for v in view[col]
            ]
    return view.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="")
