"""The rows and events of the bundled suites, run on the fake server, with what varies from run
to run (ids, times, latencies) left out: the behaviour the runner's refactors must keep.

``tests/runner/golden_bundled.json`` was written by this script from main's code before the
executor split (issue 31)::

    PYTHONPATH=/path/to/checkout python tests/runner/golden.py --write tests/runner/golden_bundled.json

and ``test_golden.py`` compares today's code with it.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

#: keys whose values differ between two runs of the same code
VOLATILE = {
    "run_id",
    "job_id",
    "ts",
    "finished_at",
    "latency_ms",
    "latency_mean_ms",
    "created_at",
    "created",
    "eval_id",
    "id",
    "started_at",
    "duration_s",
    "api_base",
}


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return _clean(json.loads(value))
        except ValueError:
            return value
    if isinstance(value, float):
        return round(value, 9)
    return value


def bundled_suites() -> list[Path]:
    from tooleval_nb.formats import bundled_suites_dir

    return sorted(p for p in bundled_suites_dir().iterdir() if p.suffix in {".json", ".yaml"})


def snapshot(url: str, store: Path) -> dict[str, Any]:
    """Each bundled suite run on the fake server at ``url``, one case at a time (so that the
    events come in one order): its rows and events without what varies."""
    import tooleval_nb as te

    out: dict[str, Any] = {}
    for path in bundled_suites():
        suite = te.load_suite(path)
        job = te.run_eval(
            suite,
            [{"model": "openai/fake", "api_base": url, "api_key": "sk-golden"}],
            max_concurrency=1,
            cache=False,
            store=str(store),
            resume=False,
            progress="none",
        )
        with sqlite3.connect(store) as db:
            db.row_factory = sqlite3.Row
            rows = [
                dict(r)
                for r in db.execute(
                    "SELECT * FROM results WHERE run_id = ? ORDER BY model_index, case_index, "
                    "sample",
                    (job.run_id,),
                )
            ]
            events = [
                {"type": r["type"], **json.loads(r["data_json"])}
                for r in db.execute(
                    "SELECT type, data_json FROM events WHERE job_id = ? ORDER BY id", (job.id,)
                )
            ]
        published = [{"type": e.type, **e.data} for e in job.events]
        out[path.name] = {
            "rows": _clean(rows),
            "events": _clean(events),
            "published": _clean(published),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", type=Path, required=True)
    args = parser.parse_args()
    from tooleval_nb.testing import FakeOpenAIServer

    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer() as server:
        data = snapshot(server.url, Path(tmp) / "runs.db")
    args.write.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {args.write}", file=sys.stderr)


if __name__ == "__main__":
    main()
