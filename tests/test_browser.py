"""The pages around the API in a real browser: headless Chromium against the example service.

The example runs as deployed (gunicorn, ``DEBUG`` off). ``/docs`` renders every operation of
every served version with no console error and no request leaving the service's origin; Try
it out of a keyed POST shows the replay; a problem type page and the admin's login page are
styled (their stylesheets apply, read through computed styles) and the problem page links the
index and the API docs. One browser and one service for the whole module: it stays under a
minute.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from .browser import chromium
from .example_service import Service, example_service
from .http import send

pytestmark = pytest.mark.browser

TIMEOUT = 20  # seconds for a page to settle


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with example_service("sqlite", tmp_path_factory.mktemp("browser")) as running:
        yield running


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium(TIMEOUT) as browser:
        yield browser


def wait(driver: Any, condition: Any, message: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, TIMEOUT, poll_frequency=0.1).until(condition, message)


def open_page(driver: Any, url: str) -> None:
    driver.get_log("browser")  # reading a log empties it: what follows is this page's
    driver.get_log("performance")
    driver.get(url)


def console_errors(driver: Any) -> list[dict[str, Any]]:
    # The browser asks for /favicon.ico of a page that names no icon (the admin's): its 404 is
    # the browser's guess, not the page's.
    return [
        entry
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and "/favicon.ico - " not in entry["message"]
    ]


def requested_urls(driver: Any) -> list[str]:
    """Every URL the page asked for, from the DevTools ``Network.requestWillBeSent`` events."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def assert_nothing_left_the_origin(urls: list[str], origin: str) -> None:
    # data: URLs (Swagger UI's inline icons) are no request at all.
    outside = [url for url in urls if not url.startswith(f"{origin}/") and not url.startswith("data:")]
    assert urls and outside == []


def computed(driver: Any, selector: str, properties: list[str]) -> dict[str, str]:
    return driver.execute_script(
        "const style = getComputedStyle(document.querySelector(arguments[0]));"
        "return Object.fromEntries(arguments[1].map(name => [name, style.getPropertyValue(name)]));",
        selector,
        properties,
    )


def applied_stylesheets(driver: Any) -> list[str]:
    """The stylesheets the page loaded, each with at least one rule (a 404 has none)."""
    return driver.execute_script(
        "return Array.from(document.styleSheets).filter(sheet => sheet.href && sheet.cssRules.length > 0)"
        ".map(sheet => sheet.href);"
    )


def operations(service: Service, version: str) -> list[tuple[str, str, dict[str, Any]]]:
    document = send(service.url, "GET", f"/openapi.json?version={version}").json()
    methods = {"get", "post", "put", "patch", "delete"}
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in methods
    ]


def rendered_operations(driver: Any) -> list[tuple[str, str, str]]:
    """(method, path, summary) of each operation Swagger UI shows."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.opblock')).map(block => ["
        "  block.querySelector('.opblock-summary-method').textContent,"
        "  block.querySelector('[data-path]').dataset.path,"
        "  (block.querySelector('.opblock-summary-description') || {textContent: ''}).textContent]);"
    )


def show_version(driver: Any, version: str, count: int) -> list[tuple[str, str, str]]:
    wait(
        driver,
        lambda d: (
            len(d.find_elements("css selector", ".opblock")) == count
            and all(path.startswith(f"/{version}/") for _, path, _ in rendered_operations(d))
        ),
        f"/docs did not render the {count} operations of {version}",
    )
    return rendered_operations(driver)


def test_docs_render_every_operation_of_every_version_from_the_origin_alone(driver: Any, service: Service) -> None:
    from selenium.webdriver.support.ui import Select

    expected = {version: operations(service, version) for version in ("v2", "v1")}
    open_page(driver, f"{service.url}/docs")
    shown = show_version(driver, "v2", len(expected["v2"]))
    assert sorted((method, path) for method, path, _ in shown) == sorted(
        (method, path) for method, path, _ in expected["v2"]
    )
    # Each operation's summary, when the document gives one, is what the page shows.
    summaries = {(method, path): operation.get("summary", "") for method, path, operation in expected["v2"]}
    assert {(method, path): summary for method, path, summary in shown} == summaries

    # The version switch: one entry per served version, each loading its own document.
    switch = Select(driver.find_element("css selector", ".topbar select"))
    labels = [option.text for option in switch.options]
    assert [label.split()[0] for label in labels] == ["v1", "v2"], labels
    switch.select_by_visible_text(next(label for label in labels if label.startswith("v1")))
    shown = show_version(driver, "v1", len(expected["v1"]))
    assert sorted((method, path) for method, path, _ in shown) == sorted(
        (method, path) for method, path, _ in expected["v1"]
    )

    assert console_errors(driver) == []
    urls = requested_urls(driver)
    assert_nothing_left_the_origin(urls, service.url)
    assert f"{service.url}/openapi.json?version=v1" in urls and f"{service.url}/openapi.json?version=v2" in urls


def test_try_it_out_of_a_keyed_post_shows_the_replay(driver: Any, service: Service) -> None:
    from selenium.webdriver.common.keys import Keys

    open_page(driver, f"{service.url}/docs?version=v2")
    block = wait(
        driver,
        lambda d: next(
            iter(d.find_elements("xpath", "//div[contains(@class, 'opblock-post')][.//*[@data-path='/v2/users']]")),
            False,
        ),
        "no POST /v2/users in /docs",
    )
    block.find_element("css selector", ".opblock-summary-control").click()
    wait(driver, lambda d: block.find_elements("css selector", ".try-out__btn"), "no Try it out button").pop().click()
    key = wait(
        driver,
        lambda d: block.find_elements("css selector", "tr[data-param-name='Idempotency-Key'] input"),
        "no Idempotency-Key input",
    ).pop()
    key.send_keys(f"browser-{uuid.uuid4()}")
    body = block.find_element("css selector", "textarea.body-param__text")
    body.send_keys(Keys.CONTROL, "a")  # as a user replaces the example (clear() bypasses React)
    body.send_keys(Keys.DELETE)
    body.send_keys(json.dumps({"email": f"browser-{uuid.uuid4().hex[:8]}@example.com", "name": "Browser"}))

    def response_headers(execution: int) -> str:
        block.find_element("css selector", "button.execute").click()
        return wait(driver, lambda d: _live_response(block, execution), f"execution {execution} showed no response")

    first = response_headers(1)
    assert "x-cache-lookup: MISS" in first and "idempotent-replayed: true" not in first
    second = response_headers(2)
    assert "idempotent-replayed: true" in second and "x-cache-lookup: HIT" in second
    # The replay is the first answer: the same user, not a second one.
    [created] = re.findall(r'"id": "(usr_\w+)"', first)
    assert re.findall(r'"id": "(usr_\w+)"', second) == [created]
    assert console_errors(driver) == []
    assert_nothing_left_the_origin(requested_urls(driver), service.url)


def _live_response(block: Any, execution: int) -> str | bool:
    # Swagger UI replaces the live response table on each execution; the request count tells
    # which one is shown: the first answer is a 201 without the replay headers.
    table = block.find_elements("css selector", ".live-responses-table .response")
    if not table:
        return False
    status = table[0].find_element("css selector", ".response-col_status").text.strip()
    headers = " ".join(pre.text for pre in table[0].find_elements("css selector", ".response-col_description pre"))
    if status != "201":
        return False
    replayed = "idempotent-replayed: true" in headers
    return headers if replayed == (execution == 2) else False


def test_a_problem_type_page_is_styled_and_linked(driver: Any, service: Service) -> None:
    open_page(driver, f"{service.url}/problems/idempotency-key-in-use/")  # the slash redirects
    wait(driver, lambda d: d.current_url == f"{service.url}/problems/idempotency-key-in-use", "no redirect")
    assert applied_stylesheets(driver) == [f"{service.url}/problems/style.css"]
    style = computed(driver, "body", ["font-family", "background-color"])
    assert "system-ui" in style["font-family"] and style["background-color"] == "rgb(246, 248, 250)"
    assert driver.find_element("css selector", ".type-url").text == f"{service.url}/problems/idempotency-key-in-use"
    links = {link.get_attribute("href") for link in driver.find_elements("css selector", "a")}
    assert {f"{service.url}/problems/", f"{service.url}/docs"} <= links
    assert "`" not in driver.find_element("tag name", "main").text

    # The index, by the path without its slash: a table of contents to every type.
    open_page(driver, f"{service.url}/problems")
    wait(driver, lambda d: d.current_url == f"{service.url}/problems/", "no redirect to /problems/")
    contents = driver.find_elements("css selector", "nav.toc table a[href^='#']")
    sections = driver.find_elements("css selector", "section.type[id]")
    assert len(contents) == len(sections) > 30
    assert {a.get_attribute("hash")[1:] for a in contents} == {s.get_attribute("id") for s in sections}
    assert console_errors(driver) == []
    assert_nothing_left_the_origin(requested_urls(driver), service.url)


def test_the_admin_login_is_styled(driver: Any, service: Service) -> None:
    open_page(driver, f"{service.url}/admin/login/")
    sheets = applied_stylesheets(driver)
    assert {f"{service.url}/static/admin/css/{name}.css" for name in ("base", "login")} <= set(sheets)
    # base.css: the header's colour (--header-bg) and the admin's font stack.
    assert computed(driver, "#header", ["background-color"])["background-color"] == "rgb(65, 118, 144)"
    assert "Segoe UI" in computed(driver, "body", ["font-family"])["font-family"]
    assert console_errors(driver) == []
    assert_nothing_left_the_origin(requested_urls(driver), service.url)
