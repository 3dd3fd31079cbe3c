"""The Vega bundle shipped inside the package (charts draw offline without vl-convert-python)."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import altair as alt
import pytest

from tooleval_nb.charts import embed
from tooleval_nb.errors import ToolEvalError

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_bundle_is_whole_and_is_the_one_its_record_names():
    files = resources.files("tooleval_nb.charts")
    record = json.loads(files.joinpath("vega_bundle.json").read_text())
    js = gzip.decompress(files.joinpath("vega_bundle.js.gz").read_bytes())
    assert hashlib.sha256(js).hexdigest() == record["sha256"]
    assert b"vegaEmbed" in js and len(js) > 500_000
    assert "BSD-3-Clause" in files.joinpath("VEGA_NOTICE.md").read_text()


def test_the_shipped_bundle_is_the_one_vl_convert_makes_for_the_locked_altair():
    """Fails when Altair or vl-convert-python moved without the bundle: run the script."""
    proc = subprocess.run(
        [sys.executable, "scripts/vega_bundle.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def test_charts_draw_from_the_shipped_bundle_without_vl_convert(monkeypatch):
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # import vl_convert now fails
    script = embed._bundle_script()
    assert (
        hashlib.sha256(script.encode()).hexdigest()
        == json.loads(
            resources.files("tooleval_nb.charts").joinpath("vega_bundle.json").read_text()
        )["sha256"]
    )


def test_an_altair_of_another_vega_lite_major_without_vl_convert_names_both_ways_out(monkeypatch):
    monkeypatch.setitem(sys.modules, "vl_convert", None)
    monkeypatch.setattr(alt, "VEGALITE_VERSION", "99.0.0")
    with pytest.raises(ToolEvalError) as err:
        embed._bundle_script()
    message = str(err.value)
    assert "Vega-Lite 99.0.0" in message and "pip install vl-convert-python" in message
    assert "set_vega_source('cdn')" in message
