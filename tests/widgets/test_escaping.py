"""Text from a suite file reaches a widget's HTML escaped (issue 46): in Jupyter, script in a
widget can drive the kernel."""

from __future__ import annotations

import html

from tooleval_nb.widgets import SuiteEditor

HOSTILE = "<img src=x onerror=\"fetch('/api/kernels')\">"


def test_a_drafts_source_from_the_suite_file_is_escaped(weather_suite):
    draft = weather_suite.cases[0].model_copy(
        update={
            "id": "draft_x",
            "draft": True,
            "tags": ["draft"],
            "metadata": {"draft": {"source": HOSTILE, "model": HOSTILE, "problems": [HOSTILE]}},
        }
    )
    editor = SuiteEditor(weather_suite.model_copy(update={"cases": [draft]}))
    for _ in range(2):  # shown again after another selection
        editor.select_case(0)
        note = editor.draft_note.value
        assert "<img" not in note and html.escape(HOSTILE, quote=False)[:20] in note
        assert "<img" not in editor.cases_table.value
