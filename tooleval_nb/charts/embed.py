"""The one way the package's charts draw: offline, wherever a chart appears, without touching
Altair's global renderer.

A chart shows in a cell's output, inside a widget's ``Output`` (the experiment, sweep, tune and
results views), in a notebook exported to HTML and in a report. Altair's own renderers load Vega
from a CDN (or need a JupyterLab extension for the Vega-Lite version at hand), which a reader
with no network does not reach. This module's renderer draws every chart with the
Vega/Vega-Lite/vega-embed bundle shipped in this package (``vega_bundle.js.gz``: the bundle
vl-convert-python builds, about 0.9 MB; ``scripts/vega_bundle.py`` writes it, and
``VEGA_NOTICE.md`` gives the licences of what it holds):

* the first chart a kernel shows carries the bundle inline (guarded, so a page holding it twice
  defines it once); later charts are a small ``text/html`` snippet that waits for it.
  :func:`enable_offline` shows the bundle on its own, at the top of a notebook, so that it stays
  in the saved notebook even when the cell of the first chart is cleared;
* nbconvert copies such HTML as is, so an exported notebook or a report draws every chart by
  itself;
* every output carries a ``text/plain`` fallback, and a chart whose bundle never arrives says
  so in place of the chart.

Each chart our functions return carries this drawing itself (:func:`offline`: the chart's class
becomes the matching ``Offline*`` subclass of Altair's, whose ``_repr_mimebundle_`` draws as
above; ``to_dict()``, ``save()`` and the rest are Altair's). Nothing process-wide changes:
Altair's active renderer is left as it is, so a chart the user makes with Altair draws with the
renderer the user chose (``charts.offline(chart)`` draws one of theirs our way). When the user
has enabled a renderer other than Altair's ``"default"``, our charts use it too: the user's
choice wins. A chart derived from ours (``.properties()``, ``.interactive()``, ``.resolve_scale()``)
stays ours, and so does one composed with ours on the left of ``+``, ``|`` or ``&``; a
composition led by a chart of the user's is Altair's (:func:`offline` draws it our way).
The single place to opt into a CDN instead is :func:`set_vega_source` (or
``TOOLEVAL_VEGA_SOURCE=cdn`` in the environment): the scripts then come from cdn.jsdelivr.net,
pinned to the versions Altair was built for.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import re
import uuid
from collections.abc import Callable
from importlib import resources
from typing import Any, Literal, ParamSpec, TypeVar, get_args

import altair as alt

from ..errors import ToolEvalError

__all__ = [
    "bundle_html",
    "chart_html",
    "offline_renderer",
    "offline",
    "drawn_offline",
    "enable_offline",
    "set_vega_source",
    "vega_source",
    "VegaSource",
    "SOURCE_ENV",
    "OfflineChart",
    "OfflineLayerChart",
    "OfflineHConcatChart",
    "OfflineVConcatChart",
    "OfflineConcatChart",
    "OfflineFacetChart",
    "OfflineRepeatChart",
]

#: The environment variable that may opt into the CDN (``cdn``; default ``inline``).
SOURCE_ENV = "TOOLEVAL_VEGA_SOURCE"
#: Where a page gets Vega from: the bundle inline (no network) or cdn.jsdelivr.net.
VegaSource = Literal["inline", "cdn"]

#: how long (ms) a chart waits for the bundle before saying it is missing
_WAIT_MS = 15_000
_BUNDLE_CACHE: dict[str, str] = {}
_STATE: dict[str, Any] = {"source": None, "sent": False}


def _check_source(value: str, where: str) -> VegaSource:
    if value not in get_args(VegaSource):
        raise ToolEvalError(
            f"{where}: {value!r} is not a Vega source; use 'inline' (the bundle "
            "in the page, no network) or 'cdn' (cdn.jsdelivr.net)"
        )
    return value  # type: ignore[return-value]


def set_vega_source(source: VegaSource | None) -> None:
    """Choose where charts get Vega from: ``"inline"`` (the default: no network) or ``"cdn"``.
    None goes back to ``$TOOLEVAL_VEGA_SOURCE`` (or the default).

    Raises:
        ToolEvalError: ``source`` is neither.
    """
    _STATE["source"] = None if source is None else _check_source(source, "set_vega_source")
    _STATE["sent"] = False


def vega_source() -> VegaSource:
    """The source in force: :func:`set_vega_source`'s, else ``$TOOLEVAL_VEGA_SOURCE``'s, else
    ``"inline"``."""
    if _STATE["source"] is not None:
        return _STATE["source"]  # type: ignore[no-any-return]
    env = os.environ.get(SOURCE_ENV, "").strip().lower()
    return _check_source(env, f"${SOURCE_ENV}") if env else "inline"


def _versions() -> tuple[str, str, str]:
    return alt.VEGA_VERSION, alt.VEGALITE_VERSION, alt.VEGAEMBED_VERSION


def _bundle_script() -> str:
    """The bundle's script: the shipped one when it holds the Vega-Lite major version of the
    installed Altair, else vl-convert-python's for that version when it is installed."""
    import altair as alt

    files = resources.files(__package__)
    record = json.loads(files.joinpath("vega_bundle.json").read_text(encoding="utf-8"))
    if record["vega_lite"].split(".")[0] == alt.VEGALITE_VERSION.split(".")[0]:
        return gzip.decompress(files.joinpath("vega_bundle.js.gz").read_bytes()).decode()
    try:
        import vl_convert
    except ImportError:
        raise ToolEvalError(
            f"charts cannot draw offline: the Vega bundle shipped with tooleval_nb holds "
            f"Vega-Lite {record['vega_lite']}, and the installed Altair writes Vega-Lite "
            f"{alt.VEGALITE_VERSION}; pip install vl-convert-python (it builds the bundle for "
            "this Altair), or call tooleval_nb.charts.set_vega_source('cdn')"
        ) from None
    from altair.utils._importers import vl_version_for_vl_convert

    return vl_convert.javascript_bundle(None, vl_version=vl_version_for_vl_convert())  # type: ignore[arg-type]


def _inline_bundle() -> str:
    js = re.sub(r"</(script)", r"<\\/\1", _bundle_script(), flags=re.IGNORECASE)
    return (
        '<script type="text/javascript">\nif (!window.vegaEmbed) { (function () {\n'
        f"{js}\n}})(); }}\n</script>"
    )


def bundle_html() -> str:
    """The ``<script>`` that defines ``window.vegaEmbed`` (unless already defined): inline, with
    no network, or (``set_vega_source("cdn")``) three script tags from cdn.jsdelivr.net.

    Raises:
        ToolEvalError: the installed Altair writes a Vega-Lite major version the shipped bundle
            does not hold, and vl-convert-python (which would build one) is not installed.
    """
    source = vega_source()
    if source not in _BUNDLE_CACHE:
        if source == "cdn":
            vega, lite, embed = _versions()
            _BUNDLE_CACHE[source] = "".join(
                f'<script src="https://cdn.jsdelivr.net/npm/{name}@{version}"></script>'
                for name, version in (("vega", vega), ("vega-lite", lite), ("vega-embed", embed))
            )
        else:
            _BUNDLE_CACHE[source] = _inline_bundle()
    return _BUNDLE_CACHE[source]


def chart_html(
    chart: Any, embed_options: dict[str, Any] | None = None, *, bundle: bool = False
) -> str:
    """The HTML snippet that draws ``chart`` (an Altair chart or a Vega-Lite dict).

    It waits for the bundle of :func:`bundle_html` to be on the page; with ``bundle=True`` it
    carries it. A chart whose bundle never arrives says so, with what to do, in its place.
    """
    spec = chart.to_dict() if hasattr(chart, "to_dict") else dict(chart)
    div = f"tooleval-vega-{uuid.uuid4().hex[:12]}"
    spec_json = json.dumps(spec, ensure_ascii=False).replace("</", "<\\/")
    options = json.dumps({"actions": False, **(embed_options or {})})
    missing = (
        "chart not drawn: the Vega bundle is not on this page (run "
        "tooleval_nb.charts.enable_offline() in a cell above)"
    )
    return (
        (bundle_html() if bundle else "") + f'<div id="{div}" class="tooleval-chart"></div>\n'
        '<script type="text/javascript">\n(function (spec, opt) {\n'
        f'  var el = document.getElementById("{div}"), waited = 0;\n'
        "  function draw() { if (window.vegaEmbed) { window.vegaEmbed(el, spec, opt)"
        ".catch(function (e) { el.textContent = 'chart error: ' + e; }); }\n"
        f"    else if (waited > {_WAIT_MS}) {{ el.textContent = {json.dumps(missing)}; }}\n"
        "    else { waited += 50; setTimeout(draw, 50); } }\n"
        f"  draw();\n}})({spec_json}, {options});\n</script>"
    )


def offline_renderer(spec: dict[str, Any], **metadata: Any) -> dict[str, str]:
    """Altair renderer: ``text/html`` drawing the chart (with the bundle, the first time this
    process shows one) and a ``text/plain`` fallback."""
    text = f"<Vega-Lite chart: {spec.get('title', '') or spec.get('mark', '')}>"
    try:
        page = chart_html(spec, metadata.get("embed_options"), bundle=not _STATE["sent"])
    except ToolEvalError as exc:  # display never breaks the notebook
        return {"text/plain": f"{text}\n{exc}"}
    _STATE["sent"] = True
    return {"text/html": page, "text/plain": text}


class _Bundle:
    """The bundle as a display object with a plain-text fallback (no IPython import needed).

    Only showing it puts the bundle on the page, so only showing it marks the bundle as sent:
    an ``enable_offline()`` whose value is not the cell's last expression (never shown) leaves
    the first chart to carry the bundle itself.
    """

    def __init__(self, html: str, text: str):
        self.html, self.text = html, text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        _STATE["sent"] = True
        return {"text/html": self.html, "text/plain": self.text}

    def __repr__(self) -> str:
        return self.text


class _DrawnOffline:
    """What makes a chart draw offline: its own ``_repr_mimebundle_`` (Altair's other methods
    are untouched). Mixed into each ``Offline*`` subclass below."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        if alt.renderers.active != "default":  # the user chose a renderer: it draws ours too
            return super()._repr_mimebundle_(include, exclude)  # type: ignore[misc]
        try:
            spec = self.to_dict()  # type: ignore[attr-defined]
        except Exception as exc:  # display never breaks the notebook
            return {"text/plain": f"<chart not drawn: {type(exc).__name__}: {exc}>"}
        return offline_renderer(spec)

    # a chart composed from ours (``ours | other``, ``ours & other``, ``ours + other``: the
    # notebooks and the report put two of ours side by side) draws offline too
    def __or__(self, other: Any) -> Any:
        return offline(super().__or__(other))  # type: ignore[misc]

    def __and__(self, other: Any) -> Any:
        return offline(super().__and__(other))  # type: ignore[misc]

    def __add__(self, other: Any) -> Any:
        return offline(super().__add__(other))  # type: ignore[misc]

    def __repr__(self) -> str:  # the Altair class it is (alt.LayerChart(...)), as Altair writes it
        return f"alt.{type(self).__bases__[-1].__name__}(...)"


class OfflineChart(_DrawnOffline, alt.Chart):
    """An :class:`altair.Chart` that draws offline (:func:`offline`)."""


class OfflineLayerChart(_DrawnOffline, alt.LayerChart):
    """An :class:`altair.LayerChart` that draws offline (:func:`offline`)."""


class OfflineHConcatChart(_DrawnOffline, alt.HConcatChart):
    """An :class:`altair.HConcatChart` that draws offline (:func:`offline`)."""


class OfflineVConcatChart(_DrawnOffline, alt.VConcatChart):
    """An :class:`altair.VConcatChart` that draws offline (:func:`offline`)."""


class OfflineConcatChart(_DrawnOffline, alt.ConcatChart):
    """An :class:`altair.ConcatChart` that draws offline (:func:`offline`)."""


class OfflineFacetChart(_DrawnOffline, alt.FacetChart):
    """An :class:`altair.FacetChart` that draws offline (:func:`offline`)."""


class OfflineRepeatChart(_DrawnOffline, alt.RepeatChart):
    """An :class:`altair.RepeatChart` that draws offline (:func:`offline`)."""


_OFFLINE: dict[type, type] = {
    alt.Chart: OfflineChart,
    alt.LayerChart: OfflineLayerChart,
    alt.HConcatChart: OfflineHConcatChart,
    alt.VConcatChart: OfflineVConcatChart,
    alt.ConcatChart: OfflineConcatChart,
    alt.FacetChart: OfflineFacetChart,
    alt.RepeatChart: OfflineRepeatChart,
}

C = TypeVar("C")
P = ParamSpec("P")


def offline(chart: C) -> C:
    """``chart`` itself, made to draw offline when shown (its class becomes the ``Offline*``
    subclass of its Altair class; the spec, ``to_dict()`` and every method are unchanged).
    Altair's global renderer is not touched. A chart of another class is returned as it is.

        from tooleval_nb import charts
        charts.offline(alt.Chart(df).mark_bar().encode(x="a", y="b"))
    """
    target = _OFFLINE.get(type(chart))
    if target is not None:
        object.__setattr__(chart, "__class__", target)  # Altair's __setattr__ writes the spec
    return chart


def drawn_offline(make: Callable[P, C]) -> Callable[P, C]:
    """Decorator of the chart functions of :mod:`tooleval_nb.charts`: the chart they return
    draws offline (:func:`offline`)."""

    @functools.wraps(make)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> C:
        return offline(make(*args, **kwargs))

    return wrapper


def enable_offline() -> _Bundle:
    """The bundle, to display once at the top of a notebook (no renderer is enabled: our charts
    draw offline by themselves, and Altair's renderer stays the user's).

    Charts draw without it (the first one carries the bundle); showing it at the top of a
    notebook keeps the bundle in the saved notebook even when that first chart's cell is
    cleared or re-run. Only a shown bundle counts: called without showing its value, the first
    chart still carries the bundle::

        from tooleval_nb import charts
        charts.enable_offline()
    """
    return _Bundle(bundle_html(), f"Vega charts enabled ({vega_source()} bundle)")
