"""The chat on PostgreSQL, in a real browser, while the database is down for longer than DESK_DB_RETRY_S (issue 36,
point 1): the page says plainly that the run paused and will go on by itself, a note typed meanwhile is kept, and once
the server is back the run resumes to its card with the note answered by a persona and every planned speaker heard;
a reload then shows the whole thread. (tests/chat/test_db_outage_e2e.py had the same outage over the socket: one run of
it is enough, here, where what the person sees is checked too.)
Screenshots in .data/browser-shots/db-outage/: the pause with the kept note, the resumed run's card."""
from __future__ import annotations

import re

import pytest

from graph.core.personas import ANALYSTS, PERSONAS
from tests.browser.person import (
    FAILURES,
    VIEWPORT,
    Browser,
    ask,
    login,
    persona_messages,
    wait_for_decision,
    wait_until_connected,
)
from tests.support.chat_server import Server

pytestmark = [pytest.mark.postgres, pytest.mark.faults]

SHOTS = FAILURES.parent / "browser-shots" / "db-outage"
NOTE = "what about the China export ban?"
PLANNED = [p for p in PERSONAS if p == "Market Analyst" or p not in {a.persona for a in ANALYSTS}]



def test_a_long_outage_pauses_the_run_keeps_the_note_and_resumes_by_itself(browser: Browser, durable_postgres,
                                                                           tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    server = Server(tmp_path / "chat", DESK_DATABASE_URL=durable_postgres.create_database(), DESK_DEMO_DELAY_MS="20",
                    DESK_ANALYSTS='["market"]', DESK_DB_RETRY_S="1")
    server.data_dir.mkdir()
    server.start()
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        login(page, server.base)
        wait_until_connected(page)
        ask(page, "Should I buy NVDA today?")
        persona_messages(page, "Bull Researcher").first.wait_for(timeout=90_000)
        durable_postgres.crash()
        paused = page.get_by_text(re.compile("has not answered for")).first
        paused.wait_for(timeout=60_000)
        assert "resumes it by itself" in paused.inner_text()
        assert not page.get_by_text(re.compile("Something went wrong|OperationalError")).count()
        ask(page, NOTE)
        page.get_by_text(re.compile("^Kept: the database is not answering")).first.wait_for(timeout=30_000)
        page.screenshot(path=str(SHOTS / "paused.png"))
        durable_postgres.restart()
        page.get_by_text("The database is back: resuming from the last saved step.").wait_for(timeout=60_000)
        wait_for_decision(page, 120_000)
        answered = [p for p in PLANNED if persona_messages(page, p).filter(has_text=f"“{NOTE}”").count()]
        assert answered, "a persona answers the kept note"
        assert [p for p in PERSONAS if bool(persona_messages(page, p).count()) != (p in PLANNED)] == [], \
            "every planned speaker spoke, and no other"
        assert not page.get_by_text(re.compile("went wrong|OperationalError")).count()
        page.screenshot(path=str(SHOTS / "resumed.png"), full_page=True)
        page.reload()  # the stored thread: what was said during the outage is there once
        wait_for_decision(page, 30_000)
        assert page.get_by_text(re.compile("^Kept: the database is not answering")).count() == 1
    except BaseException:
        page.screenshot(path=str(FAILURES / "db-outage.png"), full_page=True)
        raise
    finally:
        context.close()
        server.stop()
