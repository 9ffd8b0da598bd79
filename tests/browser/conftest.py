"""The chat in a real browser: Debian's Chromium driven by Playwright, against the real server.

One browser and one demo-mode server per pace for the package (package scope: Playwright's sync
API holds an event loop in this thread while it runs, which async tests after these cannot
share), each server started on first use: `page` talks to
a fast desk (a whole analysis in seconds), `paced_page` to one that speaks slowly enough for a
test to act in the middle of a run (stop, reload), `instant_page` to one with no pace at all, for
a test that waits on many whole runs and watches none of them stream (a backtest's days). Every
test gets a fresh browser context, logged in from a login made once per server. A failing test
leaves a screenshot of its page in .data/browser-failures/ (git-ignored with .data/). What a
person does (log in, ask, look for names, the card) is in person.py.

Run them alone with `pytest -m browser`.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chat_server import Server

from .person import (
    CHROMIUM,
    CHROMIUM_ARGS,
    FAILURES,
    VIEWPORT,
    Browser,
    Page,
    Site,
    login,
    open_page,
    playwright_sync,
    screenshot_if_failed,
)

FAST_DELAY_MS = "2"     # per streamed word: an analysis in a few seconds, still word by word
PACED_DELAY_MS = "40"   # long enough (tens of seconds) to act mid-run on a loaded machine
INSTANT_DELAY_MS = "0"  # no pace: a backtest's 61 days in seconds rather than a minute


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Keeps each phase's report on the item, so a page fixture knows at teardown whether the
    test failed (and takes the screenshot while the page is still open)."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium (apt-get install chromium)")
    for old in FAILURES.glob("*.png"):  # screenshots of this run's failures only
        old.unlink()
    with playwright_sync.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


def _site(browser: Browser, folder: Path, delay_ms: str, **env: str) -> Iterator[Site]:
    server = Server(folder, DESK_DEMO_DELAY_MS=delay_ms, **env)
    server.start()
    try:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            login(context.new_page(), server.base)
            state = folder / "browser-state.json"
            context.storage_state(path=str(state))
        finally:
            context.close()
        yield Site(server, state)
    finally:
        server.stop()


@pytest.fixture(scope="package")
def desk(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from _site(browser, tmp_path_factory.mktemp("desk-browser"), FAST_DELAY_MS)


@pytest.fixture(scope="package")
def instant_desk(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from _site(browser, tmp_path_factory.mktemp("desk-browser-instant"), INSTANT_DELAY_MS)


@pytest.fixture(scope="package")
def paced_desk(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from _site(browser, tmp_path_factory.mktemp("desk-browser-paced"), PACED_DELAY_MS)


def _page(request: pytest.FixtureRequest, browser: Browser, site: Site) -> Iterator[Page]:
    """A logged-in page on a new chat; screenshotted into .data/browser-failures/ if the test fails."""
    context, page = open_page(browser, site)
    try:
        yield page
        screenshot_if_failed(request, page)
    finally:
        context.close()


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser, desk: Site) -> Iterator[Page]:
    yield from _page(request, browser, desk)


@pytest.fixture
def instant_page(request: pytest.FixtureRequest, browser: Browser, instant_desk: Site) -> Iterator[Page]:
    yield from _page(request, browser, instant_desk)


@pytest.fixture
def paced_page(request: pytest.FixtureRequest, browser: Browser, paced_desk: Site) -> Iterator[Page]:
    yield from _page(request, browser, paced_desk)
