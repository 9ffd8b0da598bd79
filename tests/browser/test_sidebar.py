"""The sidebar as a newcomer read it (issue 35, point 8): a chat that began with only a CSV attached was
"Untitled Conversation", and "New chat" warned "This will clear your current chat history", which is false
(the chat stays in the sidebar, whole). Screenshots in .data/browser-shots/sidebar/."""
from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .person import FAILURES, Page, persona_messages
from .test_book import attach

SHOTS = FAILURES.parent / "browser-shots" / "sidebar"


def test_a_chat_begun_with_a_csv_is_named_after_it(page: Page, tmp_path: Path):
    csv = tmp_path / "broker-export.csv"
    csv.write_text("Symbol,Quantity,Avg Cost\nNVDA,150,97.5\nCASH,12000,\n")
    attach(page, csv)
    expect(persona_messages(page, "Desk").filter(has_text="From broker-export.csv").last).to_be_visible(
        timeout=30_000)
    expect(page).to_have_url(re.compile(r"/thread/[0-9a-f-]{36}$"))
    listed = page.locator(f"#thread-history a[href='/thread/{page.url.rsplit('/', 1)[1]}']")
    expect(listed).to_have_text("Book from broker-export.csv", timeout=30_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "csv-named.png"))


def test_new_chat_says_the_chat_stays(page: Page):
    page.locator("#new-chat-button").first.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("This one stays in the sidebar with all its history")
    expect(dialog).not_to_contain_text("clear your current chat history")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "new-chat.png"))
