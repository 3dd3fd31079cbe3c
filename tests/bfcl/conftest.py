"""Fixtures shared by the BFCL tests."""

from __future__ import annotations

import pytest

from tooleval_nb.bfcl_rules.data import BfclData, _installed_data


@pytest.fixture(scope="session")
def bfcl_full_data() -> BfclData:
    """BFCL's whole V4 data (multi-turn, memory, format sensitivity too) from the installed
    bfcl-eval; the test is skipped without it (the reference data holds single-turn only)."""
    found = _installed_data()
    if found is None or not (found / "BFCL_v4_format_sensitivity.json").is_file():
        pytest.skip("bfcl-eval (the bfcl extra) is not installed")
    return BfclData(found)
