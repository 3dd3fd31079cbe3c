"""JupyterLab and headless Chromium for the end-to-end tests.

:func:`jupyter_lab` starts JupyterLab on loopback over a copy of the notebooks. Chromium is
Debian's ``chromium`` and ``chromium-driver`` (``bash scripts/setup.sh test`` installs them; a
test skips, naming that command, when they are missing), a fresh profile per test, no background
network, and the browser console recorded (``driver.get_log("browser")``).

Skipped, with the reason, only when Chromium is not installed.
"""

from __future__ import annotations

import contextlib
import functools
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
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1800",
]


def ensure_chromium() -> None:
    """Skip, naming the command that installs them, when Debian's Chromium or its driver is
    missing (``bash scripts/setup.sh test`` installs both; the test command runs it first)."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.skip(
            f"{' and '.join(missing)} not installed: `bash scripts/setup.sh test` installs "
            "Debian's chromium and chromium-driver"
        )


@pytest.fixture
def browser(tmp_path):
    ensure_chromium()
    pytest.importorskip("selenium", reason="pip install selenium (the test extra)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: the report notebook's parameters when it runs in the browser (scripts/test.sh gives nbval the
#: same through TOOLEVAL_TEST_REPORT_PARAMS)
REPORT_PARAMS = '{"max_cases": 1, "max_rounds": 3}'


@contextlib.contextmanager
def jupyter_lab(tmp_path: Path) -> Iterator[tuple[str, str, list[str]]]:
    """JupyterLab on 127.0.0.1 with a token, rooted in a temp dir holding the notebooks and a
    link to the bundled suites, with the notebook's windowing off (every cell in the DOM);
    stopped (with its kernels) afterwards. Yields the URL, the token and the server's log."""
    root = tmp_path / "root"
    (root / "notebooks").mkdir(parents=True)
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, root / "notebooks" / nb.name)
    (root / "data").symlink_to(ROOT / "data")
    token, port = secrets.token_hex(16), _free_port()
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    tracker = tmp_path / "lab-settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "IPYTHONDIR": str(tmp_path / "ipy"),
        "TOOLEVAL_STORE": str(tmp_path / "runs.sqlite"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        # the report notebook run on its own evaluates one case per suite, as under nbval (the
        # same requests: the test command's cache answers nbval's); its charts and tables are
        # the same kinds with every case (`tooleval-nb report`, scripts/report.sh)
        "TOOLEVAL_REPORT_PARAMS": os.environ.get("TOOLEVAL_TEST_REPORT_PARAMS", REPORT_PARAMS),
    }
    cmd = [
        str(Path(sys.executable).with_name("jupyter-lab")),
        "--no-browser",
        *(["--allow-root"] if os.geteuid() == 0 else []),
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--expose-app-in-browser",
        "--LabApp.news_url=None",
        "--LabApp.extension_manager=readonly",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
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


#: the notebook panel whose file is ``arguments[0]`` (a path under the server's root), found among
#: the main area's widgets by its path, never through focus: in headless Chromium 150 and later,
#: with a fresh ``--user-data-dir``, ``shell.currentWidget`` and ``activeWidget`` stay null.
FIND_PANEL = """
const app = window.jupyterapp;
let w = null;
if (app) {
  for (const x of app.shell.widgets('main')) {
    if (x.context && x.context.path === arguments[0] && x.content && x.sessionContext) { w = x; break; }
  }
}
"""

#: what the main area shows (for a failure message): each widget's title and path
MAIN_AREA = """
const app = window.jupyterapp;
if (!app) return 'no JupyterLab application on the page (window.jupyterapp is undefined)';
return Array.from(app.shell.widgets('main')).map(
  x => (x.title && x.title.label) + (x.context ? ' (' + x.context.path + ')' : '')).join(', ')
  || 'nothing';
"""

PANEL_SHOWN = FIND_PANEL + "return !!w;"

KERNEL_IDLE = (
    FIND_PANEL
    + """
const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
return !!(k && k.status === 'idle' && w.content && w.content.widgets.length);
"""
)

ALL_CELLS_RAN = (
    FIND_PANEL
    + """
const k = w.sessionContext.session.kernel;
const cells = w.content.widgets.filter(c => c.model.type === 'code');
return k.status === 'idle' && cells.every(c => c.model.executionCount !== null);
"""
)


def open_notebook(browser, url: str, token: str, path: str, *, idle_within: float = 180) -> None:
    """Open ``path`` (under the server's root) in JupyterLab and wait for its kernel to be idle.

    Fails fast, with what the page shows instead, when no panel of that notebook appears within
    60 s; fails naming the kernel when the panel appears but its kernel never becomes idle."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    # `reset`: the workspace starts empty. Without it, each page load restored every notebook an
    # earlier test of the same JupyterLab had opened, with its outputs, and started a kernel for
    # each (a probe: the third notebook's page showed all three)
    browser.get(f"{url}/lab/tree/{path}?token={token}&reset")
    try:
        WebDriverWait(browser, 60).until(lambda d: d.execute_script(PANEL_SHOWN, path))
    except TimeoutException:
        shown = browser.execute_script(MAIN_AREA)
        pytest.fail(
            f"{path}: JupyterLab never showed the notebook within 60 s; its main area "
            f"holds: {shown}; {browser_versions()}",
            pytrace=False,
        )
    WebDriverWait(browser, idle_within).until(
        lambda d: d.execute_script(KERNEL_IDLE, path),
        f"{path}: the notebook is open but its kernel never became idle",
    )


def run_all_cells(browser, path: str, *, within: float, poll: float = 0.5) -> None:
    """Run every cell of the open notebook ``path`` and wait until all have run."""
    from selenium.webdriver.support.ui import WebDriverWait

    # the command names its panel (widgetId): it never depends on which widget has the focus
    browser.execute_script(
        FIND_PANEL + "app.commands.execute('notebook:run-all-cells', "
        "{widgetId: w.id}); return true;",
        path,
    )
    WebDriverWait(browser, within, poll_frequency=poll).until(
        lambda d: d.execute_script(ALL_CELLS_RAN, path), f"{path}: the cells did not all run"
    )


@functools.cache
def browser_versions() -> str:
    """The Chromium and chromedriver versions, as their binaries report them."""
    out = []
    for binary in (CHROMIUM, CHROMEDRIVER):
        try:
            done = subprocess.run(
                [str(binary), "--version"], capture_output=True, text=True, timeout=30
            )
            out.append(done.stdout.strip() or done.stderr.strip())
        except (OSError, subprocess.TimeoutExpired) as exc:
            out.append(f"{binary.name}: {exc}")
    return "; ".join(out)
