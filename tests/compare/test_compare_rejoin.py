"""A page that opens a comparison's thread while it runs joins it, as a desk run's page does (issue 24: stop and
resume per comparison; before, a reloaded page showed what was stored and then nothing more): a reload shows the
desks' open turns with their words so far, keeps streaming both desks to the Comparison turn and the card, gets the
stage list and Stop back, and Stop there stops the comparison; a second tab and the first both follow it to its card.
Over the real chat server's socket."""
from __future__ import annotations

import contextlib

import pytest

from chat.features.compare import STOP_ACTION
from tests.compare.test_compare_edit import CARD_HEAD, cards, desk_of, turns
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, after_resume, open_thread, resumed_steps

pytestmark = pytest.mark.e2e

PACED_MS = "25"  # per streamed word: a comparison long enough to reload in the middle of it (a socket acts within ms)


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on these settings (tests/conftest.py): each test is its own user, its own threads.
    return shared_chat_server(DESK_DEMO_DELAY_MS=PACED_MS)


def speaking(client: DeskClient, persona: str, ticker: str) -> bool:
    return any(m.get("streaming") and m.get("output") and m["name"] == persona and desk_of(m) == ticker
               for m in turns(client))


async def test_a_reloaded_page_rejoins_the_comparison_to_its_card_then_can_stop_the_next(server):
    logged = len(server.log_text())  # the log from here on is this test's (the server is the module's)
    first = DeskClient(server.base, username="alice")
    await first.connect()
    await first.send("NVDA or AMD?")
    await first.wait_for(lambda: speaking(first, "Bull Researcher", "AMD"), 120, "AMD's Bull speaking")
    bull = next(m for m in turns(first) if m["name"] == "Bull Researcher" and desk_of(m) == "AMD")
    thread, cookie = first.thread_id, first.cookie
    assert thread
    await first.close()  # the reload: the first page is gone

    page = await open_thread(server, thread, cookie, "alice")
    try:
        steps = {s["id"]: s for s in resumed_steps(page)}
        # What was said so far, the open turn included with its words (stored, it may still be blank).
        assert bull["id"] in steps and steps[bull["id"]]["output"].strip()
        assert {desk_of(s) for s in steps.values()} >= {"NVDA", "AMD"}
        # The comparison goes on in this page: later speakers of both desks stream here, then the card.
        await page.wait_for(lambda: {desk_of(m) for m in page.by_author("Risk Judge")} == {"NVDA", "AMD"}, 120,
                            "both Risk Judges here")
        assert any(n == "stream_token" for n, _ in page.events)
        await page.wait_for(lambda: after_resume(page, "desk_stages"), 30, "the stage list back")
        assert [a for a in after_resume(page, "action") if a["name"] == STOP_ACTION], "Stop offered again"
        await page.wait_for(lambda: page.by_author("Comparison"), 60, "the Comparison turn")
        card = (await page.wait_for(lambda: cards(page), 60, "the card"))[0]
        assert CARD_HEAD in card["output"]
        await page.wait_for(lambda: [d for n, d in page.events if n == "element" and d.get("forId") == card["id"]],
                            30, "the card's chart")
        stages = after_resume(page, "desk_stages")[-1]
        assert {s["title"].split(" · ")[0] for s in stages["stages"]} == {"NVDA", "AMD"}
        await page.wait_for(lambda: [d for n, d in page.events if n == "remove_action"
                                     and d.get("name") == STOP_ACTION], 30, "Stop taken away at the end")
    finally:
        await page.close()

    # Reloaded again mid-way through the next comparison, Stop on the rejoined page stops it.
    first = DeskClient(server.base, username="alice")
    await first.connect()
    await first.send("compare AAPL and MSFT")
    await first.wait_for(lambda: speaking(first, "Market Analyst", "MSFT"), 120, "MSFT's analysts")
    again, cookie = first.thread_id or "", first.cookie
    await first.close()
    page = await open_thread(server, again, cookie, "alice")
    try:
        stop = await page.wait_for(lambda: [a for a in after_resume(page, "action") if a["name"] == STOP_ACTION],
                                   30, "Stop offered again")
        await page.click(stop[-1])
        await page.wait_for(lambda: [m for m in page.by_author("Desk") if m.get("output", "").startswith("Stopped.")],
                            30, "the comparison stopped")
        assert not page.by_author("Comparison")
    finally:
        with contextlib.suppress(Exception):
            await page.close()
    assert "Traceback" not in server.log_text()[logged:]


async def test_a_second_tab_and_the_first_both_follow_the_comparison_to_its_card(server):
    first = DeskClient(server.base, username="bea")
    await first.connect()
    try:
        await first.send("NVDA or AMD?")
        await first.wait_for(lambda: speaking(first, "Bear Researcher", "NVDA"), 120, "NVDA's Bear speaking")
        second = await open_thread(server, first.thread_id or "", first.cookie, "bea")
        try:
            for page in (first, second):
                await page.wait_for(lambda p=page: cards(p), 120, "the card")
                judges = page.by_author("Risk Judge")
                assert {desk_of(m) for m in judges} == {"NVDA", "AMD"}
                assert all(m["output"].strip() and not m.get("streaming") for m in judges)
            # The second page saw AMD's Risk Judge (who spoke after it joined) with the first page's words.
            said = [{desk_of(m): m["output"] for m in p.by_author("Risk Judge")} for p in (first, second)]
            assert said[0] == said[1]
        finally:
            with contextlib.suppress(Exception):
                await second.close()
    finally:
        await first.close()
