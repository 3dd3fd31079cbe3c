"""Behaviour unchanged: the bundled suites, run on the fake server, store the same rows and
events (and publish the same events) as main's code did before the runner's hub was split
(``golden_bundled.json``, written by ``golden.py``; what varies from run to run left out)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def _golden_module():
    spec = importlib.util.spec_from_file_location("runner_golden", HERE / "golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the agent suite's model graders ask the embedded model (the golden file holds its grades)
@pytest.mark.model
def test_bundled_suites_store_and_publish_what_they_did(fake_server, tmp_path: Path) -> None:
    golden = _golden_module()
    expected = json.loads((HERE / "golden_bundled.json").read_text())
    server = fake_server()
    got = json.loads(json.dumps(golden.snapshot(server.url, tmp_path / "runs.db")))
    assert sorted(got) == sorted(expected)
    for suite, want in expected.items():
        for part in ("rows", "events", "published"):
            assert got[suite][part] == want[part], f"{suite}: {part} differ from the golden file"
