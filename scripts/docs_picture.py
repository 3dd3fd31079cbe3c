"""Draw the manual's picture of a result (``docs/img/result.png``): two stand-in models on the
bundled ``weather`` suite, served by the package's fake OpenAI-compatible server with planted
answers, then their summary table, leaderboard chart and failure-mode chart on one page, opened in
headless Chromium and saved as a PNG. No model and no network.

    .venv/bin/python scripts/docs_picture.py [--out docs/img/result.png] [--chromium PATH]

The stand-ins: ``paris-only`` calls ``get_weather(city="Paris")`` whatever it is asked;
``city-reader`` calls ``get_weather`` for the capitalised word after "in" (so it misses forecasts,
conversions and units).
"""

from __future__ import annotations

import argparse
import html
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import tooleval_nb as te
from tooleval_nb import charts
from tooleval_nb.charts.embed import bundle_html, chart_html
from tooleval_nb.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent


def paris_only(request: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}


def city_reader(request: dict[str, Any]) -> dict[str, Any]:
    words = str(request["messages"][-1]["content"]).replace("?", " ").replace(".", " ").split()
    city = next(
        (w for i, w in enumerate(words[1:], 1) if words[i - 1] == "in" and w[:1].isupper()),
        "Paris",
    )
    return {"tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": city}}}]}


def results(store: Path) -> Any:
    import pandas as pd

    suite = te.load_suite("bundled:weather")
    frames = []
    for label, handler in (("paris-only", paris_only), ("city-reader", city_reader)):
        with FakeOpenAIServer(handler=handler) as server:
            target = {"model": "openai/stand-in", "api_base": server.url, "label": label}
            run = te.run_eval(suite, [target], store=store, progress="none", cache=False).result()
        frames.append((run.summary_df(), run.results_df()))
    summary = pd.concat([s for s, _ in frames], ignore_index=True)
    return summary, pd.concat([r for _, r in frames], ignore_index=True)


def page(summary: Any, df: Any) -> str:
    columns = ["model", "n_cases", "n_passed", "pass_rate", "tool_score", "param_score", "overall"]
    table = summary[columns].round(3).to_html(index=False, border=0, classes="summary")
    board = charts.leaderboard_chart(df).properties(width=380, height=110)
    failures = charts.failure_chart(df).properties(width=330, height=140)
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>
body {{ font-family: sans-serif; margin: 24px; color: #222; }}
h1 {{ font-size: 20px; margin: 0 0 12px; }}
table.summary {{ border-collapse: collapse; font-size: 14px; margin-bottom: 16px; }}
table.summary th, table.summary td {{ padding: 4px 10px; border-bottom: 1px solid #ddd; }}
.row {{ display: flex; gap: 32px; }}
</style>{bundle_html()}</head><body>
<h1>{html.escape("bundled:weather, two stand-in models: run.summary_df() and two charts")}</h1>
{table}<div class="row"><div>{chart_html(board)}</div><div>{chart_html(failures)}</div></div>
</body></html>"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "result.png")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tooleval-picture.") as tmp:
        summary, df = results(Path(tmp) / "runs.db")
        html_file = Path(tmp) / "result.html"
        html_file.write_text(page(summary, df), encoding="utf-8")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                args.chromium,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--user-data-dir={tmp}/profile",
                "--virtual-time-budget=10000",
                f"--screenshot={args.out}",
                "--window-size=1100,370",
                html_file.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(f"docs_picture: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
