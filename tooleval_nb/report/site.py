"""A report folder as a static site: every report written there kept, and an ``index.html``
linking them, newest first, with each report's headline figures.

Layout of a report folder::

    index.html              the list (static HTML, no script, opens offline)
    report.html             the newest report (and report.ipynb, its executed notebook)
    reports/<id>/           every report written here, as written
    reports.json            the list as data (:class:`SiteManifest`)

Nothing here needs a server: open ``index.html`` from the disk, or publish the folder as is.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ..errors import ToolEvalError
from .runs import Headline

__all__ = [
    "ReportEntry",
    "SiteManifest",
    "check_writable",
    "add_report",
    "read_manifest",
    "render_index",
    "INDEX",
    "MANIFEST",
    "ARCHIVE",
]

INDEX = "index.html"
MANIFEST = "reports.json"
ARCHIVE = "reports"


class ReportEntry(BaseModel):
    """One report of a folder."""

    id: str
    title: str
    created_at: float
    #: paths relative to the folder
    html: str
    notebook: str
    headline: Headline


class SiteManifest(BaseModel):
    """Every report of a folder, newest first."""

    reports: list[ReportEntry] = Field(default_factory=list)


def check_writable(folder: str | os.PathLike[str]) -> Path:
    """Create ``folder`` when needed and prove it can be written (before any work starts).

    Raises:
        ToolEvalError: the folder cannot be created or written (the message says why).
    """
    path = Path(folder)
    probe = path / f".tooleval-write-test-{uuid.uuid4().hex[:8]}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise ToolEvalError(
            f"cannot write the report folder {path}: {exc.strerror or exc}; "
            "choose a writable folder with --output"
        ) from None
    return path


def read_manifest(folder: str | os.PathLike[str]) -> SiteManifest:
    """The folder's list of reports (empty when there is none yet).

    Raises:
        ToolEvalError: ``reports.json`` exists but is not a report list.
    """
    path = Path(folder) / MANIFEST
    if not path.exists():
        return SiteManifest()
    try:
        return SiteManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError) as exc:
        raise ToolEvalError(
            f"{path} is not a report list written by tooleval_nb ({exc}); move "
            "it aside to start a new list"
        ) from None


def add_report(
    folder: str | os.PathLike[str],
    html_file: Path,
    notebook: Path,
    title: str,
    headline: Headline,
    now: float | None = None,
) -> ReportEntry:
    """Keep a copy of the report just written in ``folder`` and rewrite the index."""
    root = Path(folder)
    created = time.time() if now is None else now
    stamp = datetime.fromtimestamp(created, tz=UTC).strftime("%Y%m%d-%H%M%S")
    entry_id = f"{stamp}-{uuid.uuid4().hex[:6]}"
    target = root / ARCHIVE / entry_id
    target.mkdir(parents=True)
    shutil.copy2(html_file, target / "report.html")
    if notebook.exists():
        shutil.copy2(notebook, target / "report.ipynb")
    entry = ReportEntry(
        id=entry_id,
        title=title,
        created_at=created,
        html=f"{ARCHIVE}/{entry_id}/report.html",
        notebook=f"{ARCHIVE}/{entry_id}/report.ipynb",
        headline=headline,
    )
    manifest = read_manifest(root)
    manifest.reports.insert(0, entry)
    manifest.reports.sort(key=lambda e: e.created_at, reverse=True)
    _write(root / MANIFEST, manifest.model_dump_json(indent=2))
    _write(root / INDEX, render_index(manifest))
    return entry


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _num(value: float | None, spec: str) -> str:
    return "–" if value is None else spec.format(value)


_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .45em .7em; border-bottom: 1px solid #ddd;
         vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.latest { font-size: .8em; background: #2a7; color: #fff; padding: .1em .4em;
          border-radius: .3em; } .muted { color: #777; font-size: .9em; }
"""


def render_index(manifest: SiteManifest) -> str:
    """The index page: one row per report, newest first (static HTML, no script)."""
    rows = []
    for i, e in enumerate(manifest.reports):
        h = e.headline
        when = datetime.fromtimestamp(e.created_at, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
        models = "<br>".join(
            f"{html.escape(m.model)}: {_num(m.overall, '{:.3f}')} "
            f"<span class='muted'>({_num(m.pass_rate, '{:.0%}')} passed, "
            f"{m.n_errored} errors)</span>"
            for m in h.models
        )
        latest = " <span class='latest'>latest</span>" if i == 0 else ""
        rows.append(
            f"<tr class='report' data-report-id='{html.escape(e.id)}'><td>{when}</td>"
            f"<td><a href='{html.escape(e.html)}'>{html.escape(e.title)}</a>{latest}</td>"
            f"<td>{html.escape(', '.join(h.suites))}</td><td>{models}</td>"
            f"<td class='num'>{h.n_results}</td>"
            f"<td class='num'>{_num(h.overall, '{:.3f}')}</td>"
            f"<td class='num'>{_num(h.pass_rate, '{:.1%}')}</td>"
            f"<td class='num'>{h.n_errored}</td>"
            f"<td class='muted'>{html.escape(' '.join(h.runs))}</td></tr>"
        )
    body = "\n".join(rows) or "<tr><td colspan='9'>no reports yet</td></tr>"
    count = len(manifest.reports)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tool-calling evaluation reports</title><style>{_CSS}</style></head>
<body><h1>Tool-calling evaluation reports</h1>
<p class="muted">{count} report(s), newest first. The newest is also
<a href="report.html">report.html</a>. Scores are mean overall scores (0 to 1) over every case.
</p>
<table><thead><tr><th>written</th><th>report</th><th>suites</th><th>models: overall</th>
<th>results</th><th>overall</th><th>passed</th><th>errors</th><th>runs</th></tr></thead>
<tbody>
{body}
</tbody></table>
<script type="application/json" id="tooleval-reports">{_json_island(manifest)}</script>
</body></html>
"""


def _json_island(manifest: SiteManifest) -> str:
    text = json.dumps(
        [{"id": e.id, "html": e.html, "title": e.title} for e in manifest.reports],
        ensure_ascii=False,
    )
    return text.replace("</", "<\\/")
