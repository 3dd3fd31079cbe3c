"""The notebooks as stored in the repository are what nbval can check (``scripts/test.sh``): a
code cell with outputs carries its execution count (nbval refuses "Unrun reference cell has
outputs"), every checked cell (``# NBVAL_CHECK_OUTPUT``) has its reference output, and no stored
output carries the offline Vega bundle (0.9 MB a chart: a chart cell is stored without outputs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
BIGGEST_OUTPUT = 200_000


def _code_cells(path: Path) -> list[tuple[int, dict[str, object]]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(k, c) for k, c in enumerate(cells) if c["cell_type"] == "code"]


def test_every_notebook_is_found() -> None:
    assert len(NOTEBOOKS) >= 10


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_are_checkable(path: Path) -> None:
    for k, cell in _code_cells(path):
        source = "".join(cell["source"])  # type: ignore[arg-type]
        outputs = cell.get("outputs") or []
        where = f"{path.name}, cell {k}"
        if outputs:
            assert cell.get("execution_count") is not None, (
                f"{where}: outputs without an execution count"
            )
        if "NBVAL_CHECK_OUTPUT" in source:
            assert outputs, f"{where}: a checked cell with no reference output"
        size = len(json.dumps(outputs))
        assert size < BIGGEST_OUTPUT, f"{where}: {size} characters of stored output"
