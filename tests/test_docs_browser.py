"""The documentation site in a real browser: headless Chromium at 1280 px against ``mkdocs build``.

The docs are built as ``./dev test`` builds them (``mkdocs build --strict``, into a temporary
directory) and served over HTTP from that directory. The home page and the two references must fit
their page: no table wider than the content area (a table too wide for it scrolls sideways,
which a reader of the first screen misses), and every image loaded (a chart whose file is
missing shows as a broken icon, which ``--strict`` does not catch for an image that the build
copies but the browser cannot decode). The same measures are run once against a table and an
image broken on purpose, so that they are seen to fail.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .browser import chromium
from .servers import free_port

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 1280  # the width of a laptop's browser window, in CSS pixels
TIMEOUT = 20  # seconds for a page and its images to settle
PAGES = ["", "settings/", "checks/"]  # the home page and the two references of tables, as the site names them
CONTENT = "article.md-content__inner"  # Material's content area: the page's column of text

# Each table of the content area against the content area, and each image of the page. A table
# fits when nothing of it lies right of the content area's edge and it has nothing to scroll
# sideways (Material lets a table too wide for the column scroll inside it; a table displayed as
# a table, whose clientWidth is 0, is measured by its edge alone).
_MEASURE = """
const content = document.querySelector(arguments[0]);
const edge = content.getBoundingClientRect().right;
const tables = Array.from(content.querySelectorAll('table')).map((table, index) => {
  const box = table.getBoundingClientRect();
  return {index: index, right: box.right, scrollWidth: table.scrollWidth, clientWidth: table.clientWidth,
          head: (table.querySelector('tr') || table).textContent.trim().slice(0, 60)};
});
const images = Array.from(document.querySelectorAll('img')).map(image => ({
  src: image.getAttribute('src'), complete: image.complete, naturalWidth: image.naturalWidth}));
return {edge: edge, viewport: window.innerWidth, tables: tables, images: images};
"""


@dataclass
class Layout:
    edge: float
    viewport: int
    tables: list[dict[str, Any]]
    images: list[dict[str, Any]]

    def tables_too_wide(self) -> list[str]:
        return [
            f"table {table['index']} ({table['head']!r}): right edge {table['right']:.0f} px, content area's "
            f"{self.edge:.0f} px; {table['scrollWidth']} px of content in {table['clientWidth']} px"
            for table in self.tables
            if table["right"] > self.edge + 1 or _scrolls(table)
        ]

    def images_not_loaded(self) -> list[str]:
        return [image["src"] for image in self.images if not image["complete"] or image["naturalWidth"] == 0]


def _scrolls(table: dict[str, Any]) -> bool:
    return bool(table["clientWidth"]) and table["scrollWidth"] > table["clientWidth"] + 1


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The docs built with ``--strict`` and served on a loopback port; the site's URL."""
    directory = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(directory)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert built.returncode == 0, f"mkdocs build --strict failed (pip install -e '.[docs]'):\n{built.stderr}"
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the test's output is its assertions
        pass


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium(TIMEOUT) as browser:
        browser.set_window_size(WIDTH, 1000)
        # The window's frame is not the viewport: widen the window until the page itself is WIDTH wide.
        inner = browser.execute_script("return window.innerWidth;")
        browser.set_window_size(WIDTH + (WIDTH - inner), 1000)
        yield browser


def layout(driver: Any, url: str) -> Layout:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, TIMEOUT, poll_frequency=0.1).until(
        lambda d: d.execute_script(
            "return document.readyState === 'complete' && Array.from(document.images).every(image => image.complete);"
        ),
        f"{url} did not finish loading",
    )
    return Layout(**driver.execute_script(_MEASURE, CONTENT))


@pytest.mark.parametrize("page", PAGES, ids=["home", "settings", "checks"])
def test_tables_fit_the_page_and_images_load(site: str, driver: Any, page: str) -> None:
    measured = layout(driver, site + page)
    assert measured.viewport == WIDTH
    assert measured.tables, f"{page or 'the home page'} has no table to measure: is the content area {CONTENT}?"
    assert measured.tables_too_wide() == []
    assert measured.images_not_loaded() == []


def test_the_home_page_shows_the_cost_chart(site: str, driver: Any) -> None:
    measured = layout(driver, site)
    charts = [image for image in measured.images if image["src"] == "images/overhead.svg"]
    assert charts and charts[0]["naturalWidth"] > 0, measured.images


def test_the_measures_see_a_wide_table_and_a_broken_image(site: str, driver: Any) -> None:
    """A table whose one cell does not wrap and is wider than the page, and an image whose file is missing."""
    layout(driver, site)
    driver.execute_script(
        "const content = document.querySelector(arguments[0]);"
        "const table = document.createElement('table');"
        "table.innerHTML = '<tr><td style=\"white-space: nowrap\">' + 'xxxx '.repeat(400) + '</td></tr>';"
        "content.appendChild(table);"
        "const image = document.createElement('img');"
        "image.src = 'images/no-such-chart.svg';"
        "content.appendChild(image);",
        CONTENT,
    )
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, TIMEOUT, poll_frequency=0.1).until(
        lambda d: d.execute_script("return Array.from(document.images).every(image => image.complete);")
    )
    measured = Layout(**driver.execute_script(_MEASURE, CONTENT))
    assert [problem for problem in measured.tables_too_wide() if "xxxx" in problem]
    assert "images/no-such-chart.svg" in measured.images_not_loaded()
