"""/paper over the real server's socket (issue 40, point 2): opting in states the rules and waits for Start; an analysis
made then is an order that waits for the next session's open; once that session has closed (the server restarted
on a later day: DESK_TEST_NOW, tests/support/clock.py), /paper shows it filled, linked to its thread, with the equity
chart against the benchmark. Cancel makes nothing."""
from __future__ import annotations

import re
import uuid

import pytest

from tests.support.chat_server import Server
from tests.support.clock import on_day
from tests.support.socket_client import DeskClient, actions, answer, desk_texts, press, runs_finished

pytestmark = pytest.mark.e2e

ASKED = "2024-05-21T14:00:00+00:00"   # Tue: during the session; the order fills at the 22nd's open
LATER = "2024-05-24T14:00:00+00:00"   # Fri: the 22nd and the 23rd have closed


def on(day: str) -> dict[str, str]:
    """A server whose clock says `day` (moving on from there)."""
    return {**on_day(day), "DESK_DEMO_DELAY_MS": "0"}


async def offer(client: DeskClient, text: str) -> tuple[str, dict, dict]:
    starts, cancels = len(actions(client, "paper_start")), len(actions(client, "paper_cancel"))
    said = await answer(client, text, r"Follow your calls on paper\?", 60)
    # Chainlit sends a message's actions one event each, after the message: wait for both buttons.
    await client.wait_for(lambda: len(actions(client, "paper_start")) > starts
                          and len(actions(client, "paper_cancel")) > cancels, 15, "Start and Cancel")
    return said, actions(client, "paper_start")[-1], actions(client, "paper_cancel")[-1]


async def test_paper_book_opt_in_an_order_waiting_then_filled_with_its_chart(tmp_path):
    name = f"ann-{uuid.uuid4().hex[:6]}"
    server = Server(tmp_path, **on(ASKED))
    server.start()
    try:
        ann = DeskClient(server.base, username=name)
        await ann.connect()
        assert "not following your calls on paper" in await answer(ann, "/paper", r"not following|Your paper book", 60)
        said, _, cancel = await offer(ann, "start a paper book")
        assert "100,000.00" in said and "No amount was given" in said
        assert "Not started" in await press(ann, cancel, r"Not started")
        said, start, _ = await offer(ann, "follow my calls on paper with 50,000")
        assert "starting with 50,000.00" in said and "5 bp of each fill" in said
        assert "the open of the first session after that day" in said and "day's low" in said
        assert "horizon" in said
        assert "is followed on paper, starting with 50,000.00" in await press(ann, start, r"followed on paper")
        before = runs_finished(ann)  # the offers' buttons removed count too
        await ann.send("should I buy NVDA today?")
        await ann.wait_for(lambda: runs_finished(ann) > before, 180, "the analysis")
        waiting = await answer(ann, "my paper book", r"\*\*Your paper book\*\*", 60)
        assert "waits for the open of the first session after 2024-05-21" in waiting, (waiting, desk_texts(ann)[-4:])
        assert re.search(r"- NVDA SELL [\d.]+%.*\(thread \[\w{8}\]\(/thread/[\w-]+\)\)", waiting), waiting
        assert "**Trades**\n- none" in waiting
        await ann.close()
    finally:
        server.stop()

    server = Server(tmp_path, **on(LATER))
    server.start()
    try:
        ann = DeskClient(server.base, username=name)
        await ann.connect()
        elements = len([d for e, d in ann.events if e == "element"])
        shown = await answer(ann, "/paper", r"\*\*Your paper book\*\*", 60)
        assert re.search(r"^- 2024-05-22 short \d+ NVDA at [\d.]+: [\d,.]+, cost [\d.]+ · cash [\d,.]+ · the call's "
                         r"SELL.*\(thread \[\w{8}\]\(/thread/[\w-]+\)\)$", shown, re.M), shown
        assert "As of the close of 2024-05-23" in shown and "**Since 2024-05-21**" in shown
        assert "- SPY, the benchmark of NVDA: CR" in shown
        assert "**Calibration**" in shown
        charts = await ann.wait_for(lambda: [d for e, d in ann.events[elements:] if e == "element"
                                             and d.get("type") == "plotly" and d.get("name") == "paper-equity"]
                                    or None, 30, "the equity chart")
        assert charts[0]["forId"] == next(m["id"] for m in ann.by_author("Desk") if m.get("output") == shown)
        await ann.close()
    finally:
        server.stop()
