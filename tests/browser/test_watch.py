"""Watches as a person sees them (issue 26, points 3-4): a scheduled run that changed its call is a notice at the
top of a new chat, the starters still below it, with a link that opens the run's thread (its debate and card)
from the sidebar's "Scheduled · NVDA · …"; a watch asked in words is stated with Save, and `/watch` lists it.

The server gets a watch made days ago before it starts (tests/chat/test_watch_e2e.py's seed): its catch-up at
startup runs the latest due slot. Screenshots in .data/browser-shots/watch/.
"""
from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.chat.test_watch_e2e import seed_scheduled
from tests.support.chat_server import Server

from .person import (
    FAILURES,
    VIEWPORT,
    Browser,
    Locator,
    Page,
    Site,
    ask,
    login,
    open_page,
    persona_messages,
    screenshot_if_failed,
)

SHOTS = FAILURES.parent / "browser-shots" / "watch"
USER = "tester"


def shot(page: Page, name: str, target: Locator | None = None) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    if target is not None:
        target.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def sidebar_row(data_dir: Path, thread: str, timeout_s: float = 120) -> None:
    """Wait until the server has given the scheduled thread its row in the history (on_ran, after the run)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if (data_dir / "chat.sqlite").exists():
            with sqlite3.connect(data_dir / "chat.sqlite") as db:
                if db.execute('SELECT 1 FROM threads WHERE id = ? AND "userIdentifier" = ?', (thread, USER)).fetchone():
                    return
        time.sleep(0.2)
    raise AssertionError(f"the scheduled thread {thread} never reached the history")


@pytest.fixture(scope="module")
def watched(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, str, str, str]]:
    folder = tmp_path_factory.mktemp("watch-browser")
    # In a thread of its own: Playwright's sync API holds this thread's event loop.
    with ThreadPoolExecutor(1) as pool:
        before, after, thread = pool.submit(asyncio.run, seed_scheduled(folder, USER)).result()
    server = Server(folder, DESK_DEMO_DELAY_MS="2")
    server.start()
    try:
        sidebar_row(folder, thread)
        context = browser.new_context(viewport=VIEWPORT)
        try:
            login(context.new_page(), server.base, USER)
            state = folder / "browser-state.json"
            context.storage_state(path=str(state))
        finally:
            context.close()
        yield Site(server, state), before, after, thread
    finally:
        server.stop()


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser, watched) -> Iterator[Page]:
    context, page = open_page(browser, watched[0])
    try:
        yield page
        screenshot_if_failed(request, page)
    finally:
        context.close()


def test_a_notice_at_the_top_links_to_the_scheduled_run(page: Page, watched):
    _, before, after, thread = watched
    notice = page.locator("[data-step-type=system_message]").filter(has_text="Since you were last here")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text(f"NVDA: {before} → {after}")
    expect(page.locator("#starters button").first).to_be_visible()  # the starters stay under it
    sidebar = page.locator(f"#thread-history a[href='/thread/{thread}']")
    expect(sidebar).to_have_text(re.compile(r"^Scheduled · NVDA · \d{4}-\d\d-\d\d$"))
    shot(page, "1-notice")

    # Chainlit opens a message's links in a new tab: the run's thread opens there.
    with page.context.expect_page() as opened:
        notice.get_by_role("link", name="open the run").click()
    page = opened.value
    expect(page).to_have_url(re.compile(rf"/thread/{thread}$"))
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=30_000)
    card = persona_messages(page, "Desk").filter(has=page.locator("h2").filter(has_text=f"{after} NVDA"))
    expect(card).to_have_count(1, timeout=30_000)
    intro = persona_messages(page, "Desk").filter(has_text="Scheduled run of your watch on NVDA")
    expect(intro).to_have_count(1)
    shot(page, "2-scheduled-thread", intro)
    card.scroll_into_view_if_needed()
    shot(page, "3-scheduled-card", card)


def test_ask_a_watch_save_it_and_list_it(page: Page):
    ask(page, "watch NVDA and AMD every trading day after the close")
    stated = persona_messages(page, "Desk").filter(has_text="Nothing is stored until you press Save")
    expect(stated).to_contain_text("Watch NVDA, AMD every trading day at 16:30 New York time")
    save = page.get_by_role("button", name="Save", exact=True)
    expect(save).to_be_visible()
    expect(page.get_by_role("button", name="Cancel", exact=True)).to_be_visible()
    shot(page, "4-stated", stated)
    save.click()
    expect(persona_messages(page, "Desk").filter(has_text="Saved as watch 2")).to_have_count(1)
    ask(page, "/watch")
    listed = persona_messages(page, "Desk").filter(has_text=re.compile("Your watches:"))
    rows = listed.locator("ol > li")  # numbered as `/watch pause N` names them
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("NVDA · every trading day at 16:30 New York time · active · last run")
    expect(rows.nth(1)).to_have_text("NVDA, AMD · every trading day at 16:30 New York time · active · not run yet")
    shot(page, "5-listed", listed)
