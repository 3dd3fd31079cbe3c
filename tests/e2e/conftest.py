"""Headless Chromium for the end-to-end tests: Debian's ``chromium`` and ``chromium-driver``
(installed with apt-get when missing; no browser download), a fresh profile per test, no
background network, and the browser console recorded (``driver.get_log("browser")``).

Skipped, with the reason, only when Chromium cannot be installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1800"]


def ensure_chromium() -> None:
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    if shutil.which("apt-get") is None:
        pytest.skip("chromium is not installed and apt-get is not available to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = [["apt-get", "update", "-q"],
             ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium",
              "chromium-driver"]]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, env=env, timeout=900)
        if done.returncode != 0:
            pytest.skip(f"chromium could not be installed ({' '.join(step)} exited "
                        f"{done.returncode}: {done.stderr.strip()[-300:]})")
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("apt-get ran but /usr/bin/chromium or /usr/bin/chromedriver is missing")


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
