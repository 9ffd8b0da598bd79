"""A page that opens a thread with a run in flight joins the run (issue 10, point 3): after a
reload mid-run it shows what was said so far, keeps streaming, and has the stage list and Stop
again; a reload right after asking finds the run, not a new empty chat; a second tab follows
the run too (one run with the reload mid-run, and the reloaded page's view following it: test_follow.py)."""
from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.proxy import Relay

from .person import (
    FAILURES,
    VIEWPORT,
    Browser,
    Page,
    Site,
    ask,
    decision_card,
    hold_next_resume,
    persona_messages,
    release_resume,
    wait_for_decision,
    wait_until_connected,
    wait_while_held,
)
from .test_follow import VIEW, newest_in_view

THREAD_URL = re.compile(r"/thread/[0-9a-f-]{36}$")
# Everyone who speaks once in a default analysis (one debate round, one risk round).
PERSONA_ORDER = ["Market Analyst", "Social Analyst", "News Analyst", "Fundamentals Analyst", "Bull Researcher",
                 "Bear Researcher", "Research Manager", "Trader", "Risky Analyst", "Safe Analyst",
                 "Neutral Analyst", "Risk Judge"]


def stage_list(page: Page):
    return page.locator("#desk-stages")


def test_a_reload_mid_run_shows_the_turn_so_far_keeps_streaming_and_has_stop_and_a_second_tab_follows_too(
        paced_page: Page):
    """One run for three things a page on a running thread must do (each took a paced run of its own): the
    reloaded page has the turn so far, Stop and the stage list, follows the newest words to the card
    (test_follow.py), and a second tab opened on the thread meanwhile follows the run as the first does."""
    page = paced_page
    ask(page, "Should I buy NVDA today?")
    bull = persona_messages(page, "Bull Researcher").first
    expect(bull).to_be_visible(timeout=120_000)
    expect(bull).to_contain_text(re.compile(r"\w+ \w+ \w+"))  # a few of its words are in
    expect(page).to_have_url(THREAD_URL)
    page.reload()
    bull = persona_messages(page, "Bull Researcher").first
    expect(bull).to_be_visible(timeout=30_000)
    expect(bull).to_contain_text(re.compile(r"\w+ \w+ \w+"))  # what it had said, not a blank
    expect(persona_messages(page, "Market Analyst").first).to_be_visible()
    expect(page.locator("#desk-stop")).to_be_in_viewport(timeout=30_000)  # Stop, one click away
    expect(stage_list(page)).to_be_visible()
    # A second tab on the thread joins the run too...
    other = page.context.new_page()
    try:
        other.goto(page.url)
        expect(persona_messages(other, "Bull Researcher").first).to_be_visible(timeout=30_000)
        # ...while the run goes on in the reloaded page, its newest words in view as later speakers come.
        for persona in ("Bear Researcher", "Trader"):
            expect(persona_messages(page, persona).first).to_contain_text(re.compile(r"\w+ \w+ \w+"),
                                                                         timeout=120_000)
            newest_in_view(page)
        for tab in (page, other):  # both pages to the decision
            wait_for_decision(tab, 180_000)
            expect(persona_messages(tab, "Risk Judge").first).to_be_visible()
        expect(decision_card(other)).to_have_count(1)
        expect(page.locator("#desk-stop")).to_be_hidden()
        page.wait_for_timeout(1_000)
        end = page.evaluate(VIEW)
        assert -1 <= end["cardTop"] < 100, end  # the reloaded page ends on the card's top (to the pixel)
    finally:
        other.close()


def test_a_reload_right_after_asking_lands_on_the_running_thread(paced_page: Page):
    page = paced_page
    ask(page, "Should I buy NVDA today?")
    # The address names the thread as soon as the server has taken the message.
    expect(page).to_have_url(THREAD_URL, timeout=10_000)
    page.reload()
    expect(page).to_have_url(THREAD_URL)
    expect(page.locator("[data-step-type='user_message']").filter(has_text="Should I buy NVDA today?")).to_be_visible(
        timeout=30_000)
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=120_000)
    stop = page.locator("#desk-stop")
    expect(stop).to_be_in_viewport()
    # Stopped, so that the run does not go on beside the next test's on the shared paced server (a page of that
    # test, its connection cut, once lost what was being typed while the two runs shared the machine: the server,
    # slow to send the thread back, left the draft in a composer Chainlit then threw away; person.py
    # HOLD_AFTER_RESUME).
    stop.click()
    expect(stop).to_be_hidden(timeout=30_000)


def test_a_connection_that_drops_then_a_page_that_goes_offline_mid_run_come_back_to_the_whole_run(
        browser: Browser, paced_desk: Site):
    """The network between page and server goes down for a few seconds mid-run (both ends see
    the connection close) while the desk goes on speaking: once it is back, the page shows every
    turn said meanwhile and goes on with the run, and keeps what was being typed. Later in the same run the browser
    itself goes offline (Wi-Fi off): socket.io closes the socket on its own, with no goodbye to the server; back
    online, the page reloads onto the thread and has the whole run. A drop with no run going on leaves the page as
    it is (nothing was missed). One paced run for both faults (each took one of its own). The page reloaded after
    the drop meets a server slow to send the thread back (person.py HOLD_AFTER_RESUME), as on a loaded machine: what was
    being typed, and what is typed while the thread is on its way, ends in the composer under the thread."""
    relay = Relay(paced_desk.server.port)
    context = browser.new_context(viewport=VIEWPORT, storage_state=str(paced_desk.state))
    page = context.new_page()
    try:
        page.goto(relay.base)
        wait_until_connected(page)
        ask(page, "Should I buy NVDA today?")
        expect(persona_messages(page, "Bull Researcher").first).to_be_visible(timeout=120_000)
        expect(page).to_have_url(THREAD_URL)
        page.locator("#chat-input").fill("and the options market?")
        hold_next_resume(page)  # the reloaded page meets a busy server
        relay.cut(down_s=4)
        # The reloaded page waits for the thread with an empty chat whose composer has the draft back, and the
        # person goes on typing there; then the thread comes, with a composer of its own (the draft went with the
        # first one, once in a loaded CI run).
        wait_while_held(page)
        waiting = page.locator("#welcome-screen #chat-input")
        expect(waiting).to_have_value("and the options market?")
        waiting.press("End")
        waiting.press_sequentially(" And the VIX?")
        release_resume(page)
        # Back: the turns said in the gap, each once (none lost, none shown twice), and the run goes on here.
        expect(persona_messages(page, "Research Manager").first).to_be_visible(timeout=120_000)
        for persona in PERSONA_ORDER[:PERSONA_ORDER.index("Research Manager") + 1]:
            expect(persona_messages(page, persona)).to_have_count(1)
        expect(page.locator("#chat-input")).to_have_value("and the options market? And the VIX?")
        expect(page.locator("#welcome-screen")).to_have_count(0)
        expect(page.locator("#desk-stop")).to_be_visible()  # the run is still going for the second fault

        page.evaluate("window.deskTestMark = 1")
        context.set_offline(True)
        page.wait_for_timeout(4_000)
        context.set_offline(False)
        page.wait_for_function("() => window.deskTestMark === undefined", timeout=60_000)  # reloaded
        wait_for_decision(page, 180_000)
        for persona in PERSONA_ORDER:  # each turn once
            expect(persona_messages(page, persona)).to_have_count(1)
        expect(page.locator("#desk-stop")).to_be_hidden()
        composer = page.locator("#chat-input")
        expect(composer).to_have_value("and the options market? And the VIX?")  # through the second reload too
        # The run is over (on a slow page the stage list's last update can come after the Stop
        # button goes): another drop is not worth a reload.
        page.wait_for_function("() => !window.deskRunShowing()", timeout=30_000)
        page.evaluate("window.deskTestMark = 1")
        before = relay.accepted
        relay.cut(down_s=1)
        composer.press("End")
        composer.press_sequentially(" Then AMD.")  # typed while the socket is down and coming back
        deadline = 30_000
        while relay.accepted == before and deadline > 0:  # until socket.io has reconnected
            page.wait_for_timeout(250)
            deadline -= 250
        assert relay.accepted > before, "the page did not reconnect"
        page.wait_for_timeout(1_000)
        assert page.evaluate("window.deskTestMark") == 1, "the page reloaded with no run to catch up on"
        expect(composer).to_have_value("and the options market? And the VIX? Then AMD.")
    except Exception:
        FAILURES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(FAILURES / "drop-then-offline.png"))
        raise
    finally:
        context.close()
        relay.stop()
