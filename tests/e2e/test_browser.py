"""End to end in a real browser: JupyterLab on loopback, headless Chromium driven by Selenium.

Opens the notebook that shows the run panel (the quickstart once it displays a ``RunPanel``, else
``02_compare_models.ipynb``), runs all cells, clicks the panel's Run button, waits for the results
table to fill and the run to complete, and saves a screenshot to ``artifacts/``.

Chromium comes from the ``browser`` fixture of ``conftest.py`` (Debian's package; skipped, with
the reason, only when it cannot be installed).
"""

from __future__ import annotations

import os
import queue
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.model]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CANDIDATES = ["01_quickstart.ipynb", "02_compare_models.ipynb"]


def _notebook() -> str:
    for name in CANDIDATES:
        path = ROOT / "notebooks" / name
        if path.exists() and "RunPanel(" in path.read_text(encoding="utf-8"):
            return name
    pytest.fail(f"none of {CANDIDATES} displays a RunPanel")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on 127.0.0.1 with a token, rooted in a temp dir holding the notebooks and a
    link to the bundled suites; stopped (with its kernels) afterwards."""
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, root / "notebooks" / nb.name)
    (root / "data").symlink_to(ROOT / "data")
    token, port = secrets.token_hex(16), _free_port()
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}')
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "IPYTHONDIR": str(tmp_path / "ipy"),
           "TOOLEVAL_STORE": str(tmp_path / "runs.sqlite"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    cmd = [str(Path(sys.executable).with_name("jupyter-lab")), "--no-browser",
           *(["--allow-root"] if os.geteuid() == 0 else []),
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--expose-app-in-browser",
           "--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: queue.Queue[str] = queue.Queue()
    log: list[str] = []

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            log.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                line = ""
            if f"127.0.0.1:{port}/lab" in line:
                break
            if proc.poll() is not None:
                pytest.fail("JupyterLab exited:\n" + "".join(log[-30:]))
            if time.monotonic() > deadline:
                pytest.fail("JupyterLab did not start within 120 s:\n" + "".join(log[-30:]))
        yield url, token, log
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        try:  # what is left of the server's own process group
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _kill_marked(env["TOOLEVAL_STORE"])


def _kill_marked(marker: str) -> None:
    """End the processes this test started in other sessions (kernels, the embedded model
    server): exactly those whose environment carries this test's own store path."""
    needle = f"TOOLEVAL_STORE={marker}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            try:
                os.kill(int(entry.name), signal.SIGTERM)
            except ProcessLookupError:
                pass


KERNEL_IDLE = """
const app = window.jupyterapp;
const w = app && app.shell.currentWidget;
const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
return !!(k && k.status === 'idle' && w.content && w.content.widgets.length);
"""

ALL_CELLS_RAN = """
const w = window.jupyterapp.shell.currentWidget;
const k = w.sessionContext.session.kernel;
const cells = w.content.widgets.filter(c => c.model.type === 'code');
return k.status === 'idle' && cells.every(c => c.model.executionCount !== null);
"""


def test_run_panel_in_jupyterlab(lab, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    url, token, log = lab
    name = _notebook()
    browser.get(f"{url}/lab/tree/notebooks/{name}?token={token}")
    WebDriverWait(browser, 180).until(lambda d: d.execute_script(KERNEL_IDLE),
                                      "the notebook's kernel never became idle")
    browser.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells');")
    WebDriverWait(browser, 900).until(lambda d: d.execute_script(ALL_CELLS_RAN),
                                      "the notebook's cells did not all run")
    errors = browser.execute_script(
        "return Array.from(document.querySelectorAll('.jp-OutputArea-output[data-mime-type="
        "\"application/vnd.jupyter.stderr\"] pre, .jp-RenderedText[data-mime-type="
        "\"application/vnd.jupyter.error\"]')).map(e => e.textContent.slice(0, 300))")
    assert not [e for e in errors if "Traceback" in e or "Error" in e], errors

    button = WebDriverWait(browser, 60).until(
        EC.element_to_be_clickable((By.CSS_SELECTOR, "button.tooleval-run-button")),
        "the run panel's Run button did not render")
    panel = button.find_element(By.XPATH, "./ancestor::*[contains(@class, "
                                          "'tooleval-run-panel')][1]")
    assert panel.find_elements(By.CSS_SELECTOR, "table.tooleval-results tbody tr") == []
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
    button.click()
    WebDriverWait(browser, 900).until(
        lambda d: panel.find_elements(By.CSS_SELECTOR,
                                      ".tooleval-progress[data-status='completed']"),
        "the run started from the panel did not complete")
    rows = panel.find_elements(By.CSS_SELECTOR, "table.tooleval-results tbody tr")
    assert rows, "the results table stayed empty"
    assert all(len(r.find_elements(By.TAG_NAME, "td")) == 7 for r in rows)
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'});", panel)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "browser_run_panel.png"
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
