"""End to end in a real browser: JupyterLab on loopback, headless Chromium driven by Selenium.

Opens the notebook that shows the run panel (the quickstart once it displays a ``RunPanel``, else
``02_compare_models.ipynb``), runs all cells, clicks the panel's Run button, waits for the results
table to fill and the run to complete, and saves a screenshot to ``artifacts/``.

Chromium comes from the ``browser`` fixture of ``conftest.py`` (Debian's package; skipped, with
the reason, only when it cannot be installed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import browser_versions, jupyter_lab, open_notebook, run_all_cells

pytestmark = [pytest.mark.browser, pytest.mark.model, pytest.mark.timeout(1200)]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CANDIDATES = ["01_quickstart.ipynb", "02_compare_models.ipynb"]


def _notebook() -> str:
    for name in CANDIDATES:
        path = ROOT / "notebooks" / name
        if path.exists() and "RunPanel(" in path.read_text(encoding="utf-8"):
            return name
    pytest.fail(f"none of {CANDIDATES} displays a RunPanel")


@pytest.fixture
def lab(tmp_path):
    with jupyter_lab(tmp_path) as running:
        yield running


def test_run_panel_in_jupyterlab(lab, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    url, token, log = lab
    name = _notebook()
    open_notebook(browser, url, token, f"notebooks/{name}")
    run_all_cells(browser, f"notebooks/{name}", within=900)
    errors = browser.execute_script(
        "return Array.from(document.querySelectorAll('.jp-OutputArea-output[data-mime-type="
        '"application/vnd.jupyter.stderr"] pre, .jp-RenderedText[data-mime-type='
        '"application/vnd.jupyter.error"]\')).map(e => e.textContent.slice(0, 300))'
    )
    assert not [e for e in errors if "Traceback" in e or "Error" in e], errors

    button = WebDriverWait(browser, 60).until(
        EC.element_to_be_clickable((By.CSS_SELECTOR, "button.tooleval-run-button")),
        "the run panel's Run button did not render",
    )
    panel = button.find_element(
        By.XPATH, "./ancestor::*[contains(@class, 'tooleval-run-panel')][1]"
    )
    assert panel.find_elements(By.CSS_SELECTOR, "table.tooleval-results tbody tr") == []
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    WebDriverWait(browser, 900).until(
        lambda d: panel.find_elements(
            By.CSS_SELECTOR, ".tooleval-progress[data-status='completed']"
        ),
        "the run started from the panel did not complete",
    )
    rows = panel.find_elements(By.CSS_SELECTOR, "table.tooleval-results tbody tr")
    assert rows, "the results table stayed empty"
    assert all(len(r.find_elements(By.TAG_NAME, "td")) == 7 for r in rows)
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'});", panel)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "browser_run_panel.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    (ARTIFACTS / "browser_versions.txt").write_text(browser_versions() + "\n")
