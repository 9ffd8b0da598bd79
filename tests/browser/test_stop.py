"""Stop is one action away at any moment of a run (issue 10, point 5): a button kept in sight above
the composer while the desk speaks, and "/stop" typed with one Enter."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from .person import FAILURES, Page, ask, decision_card, persona_messages

STOPPED = "Stopped. Everything up to the last finished turn is kept"


def test_the_stop_button_stays_in_sight_and_one_click_stops_the_run(paced_page: Page):
    page = paced_page
    ask(page, "Should I buy NVDA today?")
    stop = page.locator("#desk-stop")
    expect(stop).to_be_in_viewport(timeout=60_000)
    # Later in the run, with the page scrolled far below the message that holds the Stop action:
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=120_000)
    expect(stop).to_be_in_viewport()
    stop.click()
    expect(page.get_by_text(STOPPED)).to_be_visible(timeout=30_000)
    expect(stop).to_be_hidden()
    expect(decision_card(page)).to_have_count(0)


def test_typing_stop_with_one_enter_stops_the_run(paced_page: Page):
    page = paced_page
    ask(page, "$TSLA 2024-05-01")
    expect(persona_messages(page, "Market Analyst").first).to_be_visible(timeout=60_000)
    # The sidebar names the thread by what it analyses from the start (issue 10, point 11), with
    # the time the run began (issue 21, point 6)...
    expect(page).to_have_url(re.compile(r"/thread/[0-9a-f-]{36}$"))
    listed = page.locator(f"#thread-history a[href='/thread/{page.url.rsplit('/', 1)[1]}']")
    expect(listed).to_have_text(re.compile(r"^TSLA 2024-05-01 · running · \d\d:\d\d UTC$"), timeout=30_000)
    began = listed.inner_text()[-9:]
    box = page.locator("#chat-input")
    box.press_sequentially("/stop")  # key by key, as a person types it
    box.press("Enter")
    expect(page.get_by_text(STOPPED)).to_be_visible(timeout=30_000)
    expect(box).to_have_value("")  # sent, not left as a command chip waiting for a second Enter
    expect(page.locator("#desk-stop")).to_be_hidden()
    expect(listed).to_have_text(f"TSLA 2024-05-01 · stopped · {began}")  # ...and says that it stopped


def test_stop_with_nothing_running_says_so(page: Page):
    ask(page, "/stop")  # the composer makes it a command (chat/kit/commands.py), sent with no words
    expect(page.get_by_text("Nothing is running.")).to_be_visible()
    expect(page.get_by_text("Your message was empty")).to_have_count(0)  # a command alone is not an empty message


def test_a_chinese_thread_s_stop_and_stages_are_chinese_in_an_english_browser(paced_page: Page):
    """"Stop the desk", the Stop action and the "Stages" header stayed English in a 中文 thread (issue 35,
    point 4): the page's own words follow the thread, not only the browser. The page is kept in
    .data/browser-shots/chinese-stop.png."""
    page = paced_page
    ask(page, "英伟达今天能买吗？")
    stop = page.locator("#desk-stop")
    expect(stop).to_be_in_viewport(timeout=60_000)
    expect(stop).to_have_text("停止交易台")
    expect(page.locator("#desk-stages .desk-stages-name")).to_have_text("进度")
    expect(page.locator(".step button").filter(has_text=re.compile(r"^停止$")).first).to_be_attached()
    shots = FAILURES.parent / "browser-shots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "chinese-stop.png"))
    stop.click()  # and it stops the Chinese run
    expect(stop).to_be_hidden(timeout=30_000)
    expect(decision_card(page)).to_have_count(0)
