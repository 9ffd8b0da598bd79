"""The chat's commands are declared once (chat/kit/commands.py), so the composer offers them when a person types
"/" (issue 34, point 1), described in the thread's language; a command typed out still goes with one Enter
(tests/browser/test_stop.py, test_book.py, test_watch.py type them), and one picked from the menu waits for its
words. Screenshots: .data/browser-shots/commands-menu.png, commands-menu-zh.png."""
from __future__ import annotations

from playwright.sync_api import expect

from .person import FAILURES, Browser, Page, Site, page_in

SHOTS = FAILURES.parent / "browser-shots"


def test_typing_a_slash_offers_the_commands_and_a_picked_one_waits_for_its_words(page: Page):
    box = page.locator("#chat-input")
    box.press_sequentially("/")
    for name, what in (("stop", "Stop the desk's run"), ("book", "Your holdings"), ("watch", "scheduled analyses"),
                       ("record", "track record"), ("token", "personal tokens for MCP clients")):
        expect(page.get_by_text(what)).to_be_visible()
        expect(page.get_by_text(name, exact=True).first).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "commands-menu.png"))
    box.press_sequentially("bo")  # "/bo": the menu narrows to the book; Enter picks it as a chip
    box.press("Enter")
    expect(page.locator(".command-buttons-container #command-book")).to_be_visible()
    expect(box).to_have_value("")
    box.press_sequentially("37 QCOM at 151.5")  # holdings no other test of the shared desk stores
    box.press("Enter")
    expect(page.get_by_text("Nothing is stored until you press")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("set QCOM to 37 @ 151.50")).to_be_visible()


def test_the_commands_are_described_in_the_page_s_language(browser: Browser, desk: Site):
    with page_in(browser, desk, "test_commands_zh", locale="zh-CN") as page:
        page.locator("#chat-input").press_sequentially("/")
        expect(page.get_by_text("停止本对话中交易台的运行")).to_be_visible()
        expect(page.get_by_text("交易台的战绩")).to_be_visible()
        expect(page.get_by_text("你给 MCP 客户端用的个人令牌")).to_be_visible()
        page.screenshot(path=str(SHOTS / "commands-menu-zh.png"))
