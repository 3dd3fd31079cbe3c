"""``te.history()`` shows its times as the package shows times: UTC, to the second, no offset."""

from __future__ import annotations

import re

import pandas as pd

from tooleval_nb import history, run_eval

from .conftest import model_for, weather_suite


def test_history_times_are_to_the_second(fake, tmp_path):
    store = tmp_path / "runs.db"
    for _ in range(2):  # two runs in one process
        run_eval(weather_suite(2), [model_for(fake)], store=store, progress="none", cache=False)
    df = history(store)
    assert len(df) == 2 and (df["finished_at"] >= df["created_at"]).all()
    for column in ("created_at", "finished_at"):
        times = df[column]
        assert times.dt.tz is None and (times == times.dt.floor("s")).all()
        for line in df[[column]].to_string(index=False).splitlines()[1:]:
            assert re.fullmatch(r"\s*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", line), line
    now = pd.Timestamp.now("UTC").tz_localize(None)
    assert abs(now - df["created_at"].iloc[0]) < pd.Timedelta(minutes=5)  # UTC, not local time
