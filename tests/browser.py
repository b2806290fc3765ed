"""Headless Chromium for the browser tests: Debian's ``chromium`` and ``chromium-driver``, with selenium.

Nothing is downloaded: the browser and its driver are the system's (``.ci/run`` installs them
with apt-get), and selenium is told where both are, so that its own driver manager never runs.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

INSTALL_BROWSER = "apt-get install chromium chromium-driver; pip install selenium"
_BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> tuple[str, str] | None:
    """``(browser, driver)`` paths when both are installed, and selenium too; else ``None``."""
    browser = next((path for name in _BROWSERS if (path := shutil.which(name) or _in_usr_bin(name))), None)
    driver = shutil.which("chromedriver") or _in_usr_bin("chromedriver")
    if browser is None or driver is None or importlib.util.find_spec("selenium") is None:
        return None
    return browser, driver


def _in_usr_bin(name: str) -> str | None:
    path = Path("/usr/bin") / name
    return str(path) if path.is_file() else None


def start_chromium(browser: str, driver: str) -> Any:
    """A headless Chromium whose console (``browser``) and DevTools network events
    (``performance``) logs the tests read with ``driver.get_log(...)``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,1600",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--lang=en-US",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


@contextmanager
def chromium(page_load_timeout: float) -> Iterator[Any]:
    """The system's headless Chromium for one test module, quit on the way out."""
    found = find_browser()
    assert found is not None  # conftest skips (or, in CI, fails) without it
    browser = start_chromium(*found)
    browser.set_page_load_timeout(page_load_timeout)
    try:
        yield browser
    finally:
        browser.quit()
