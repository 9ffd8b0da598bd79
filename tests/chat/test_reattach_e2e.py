"""A page that opens a thread while its run goes on joins the run (issue 10, point 3): a reload
(the first page gone), a second tab (both pages stay), over the real chat server's socket."""
from __future__ import annotations

import contextlib

import pytest

from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, after_resume, open_thread, resumed_steps, runs_finished

pytestmark = pytest.mark.e2e

PACED_MS = "25"  # per streamed word: a run long enough to reload in the middle of it (a socket acts within ms)


@pytest.fixture(scope="module")
def server(shared_chat_server) -> Server:
    # Shared with the other modules on these settings (tests/conftest.py): each test is its own user, its own threads.
    return shared_chat_server(DESK_DEMO_DELAY_MS=PACED_MS)


def speaking(client: DeskClient, persona: str) -> bool:
    return any(m.get("streaming") and m.get("output") for m in client.by_author(persona))


async def test_a_reloaded_page_shows_the_turn_so_far_keeps_streaming_and_can_stop(server):
    first = DeskClient(server.base, username="reloader")
    await first.connect()
    await first.send("Should I buy NVDA today?")
    await first.wait_for(lambda: speaking(first, "Bull Researcher"), 90, "the Bull speaking")
    bull = first.by_author("Bull Researcher")[0]
    thread, cookie = first.thread_id, first.cookie
    assert thread
    await first.close()  # the reload: the first page is gone

    page = await open_thread(server, thread, cookie, "reloader")
    try:
        steps = {s["id"]: s for s in resumed_steps(page)}
        # What was said so far, the open turn included with its words (stored, it may be blank).
        assert bull["id"] in steps and steps[bull["id"]]["output"].strip()
        assert {s["name"] for s in steps.values()} >= {"Market Analyst", "News Analyst", "Bull Researcher"}
        # The run goes on in this page: later speakers stream here, and the stage list and Stop come back.
        await page.wait_for(lambda: page.tokens_for("Research Manager") >= 1, 90, "the Research Manager streaming")
        # The stage list and Stop come as the page joins the run, the Research Manager's words as it
        # speaks: waited for as events (each comes once), not read at a moment that may be too early.
        await page.wait_for(lambda: after_resume(page, "desk_stages"), 30, "the stage list to come back")
        stop = await page.wait_for(lambda: [a for a in after_resume(page, "action") if a["name"] == "stop_run"],
                                   30, "Stop to be offered again")
        await page.click(stop[-1])
        # The run ends by taking Stop away, then the Desk says it stopped (after reading the run's
        # token total): wait for that message itself, not for the first of the two.
        await page.wait_for(lambda: runs_finished(page) >= 1, 30, "the run to stop")
        await page.wait_for(lambda: "Stopped" in " ".join(m.get("output", "") for m in page.by_author("Desk")),
                            30, "the Desk to say it stopped")
    finally:
        await page.close()


async def test_a_second_tab_and_the_first_both_follow_the_run_to_its_decision(server):
    first = DeskClient(server.base, username="two-tabs")
    await first.connect()
    try:
        await first.send("Should I buy NVDA today?")
        await first.wait_for(lambda: speaking(first, "Bear Researcher"), 90, "the Bear speaking")
        second = await open_thread(server, first.thread_id or "", first.cookie, "two-tabs")
        try:
            for page in (first, second):
                await page.wait_for(lambda p=page: runs_finished(p) >= 1, 120, "the decision")
                card = [m["output"] for m in page.by_author("Desk") if "**Signal**" in m.get("output", "")]
                assert card, "both pages show the decision card"
                judge = page.by_author("Risk Judge")
                assert judge and judge[-1]["output"].strip() and not judge[-1].get("streaming")
            # the second page saw the Bear's turn end with the same words as the first
            bear_first = first.by_author("Bear Researcher")[-1]["output"]
            bear_second = next((m["output"] for m in second.by_author("Bear Researcher")), None)
            assert bear_second == bear_first
        finally:
            with contextlib.suppress(Exception):
                await second.close()
    finally:
        await first.close()
