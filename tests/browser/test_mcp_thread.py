"""An analysis another program asked for over MCP (the chat server's /mcp, issue 39), as the person then finds it in
the browser: in their sidebar, named by what was asked; opened, the debate and the decision card told from its
checkpoint; reopened after a reload, the same, once. Screenshot in .data/browser-shots/mcp/."""
from __future__ import annotations

import asyncio
import threading

import httpx
from playwright.sync_api import expect

from tests.support.mcp_client import HttpMcpDesk, text_of

from .person import FAILURES, PASSWORD, Page, Site, decision_card, persona_messages

SHOTS = FAILURES.parent / "browser-shots" / "mcp"
ASKED = "should I buy AMD on 2024-05-03?"


def _analysed_over_mcp(site: Site) -> str:
    """The thread of an analysis the `mcp` SDK's HTTP client asks for as the browser's user (its own thread and
    loop: Playwright's sync API keeps one in this thread)."""
    found: dict[str, str] = {}

    async def ask() -> None:
        client = await HttpMcpDesk(site.base, site.server.data_dir, "tester",
                                   auth=httpx.BasicAuth("tester", PASSWORD)).start()
        try:
            result = await client.call("analyse", {"request": ASKED})
            assert not result.isError, text_of(result)
            found["thread"] = (result.structuredContent or {})["thread_id"]
        finally:
            await client.stop()

    worker = threading.Thread(target=lambda: asyncio.run(ask()))
    worker.start()
    worker.join(180)
    assert "thread" in found, "the analysis over MCP did not finish"
    return found["thread"]


def test_an_analysis_asked_over_mcp_is_in_the_sidebar_and_opens_whole(page: Page, desk: Site) -> None:
    thread = _analysed_over_mcp(desk)
    page.reload()  # the sidebar lists threads as the page opens
    listed = page.locator(f"#thread-history a[href='/thread/{thread}']")
    expect(listed).to_have_text(ASKED, timeout=30_000)
    listed.click()
    expect(page).to_have_url(f"{desk.base}/thread/{thread}")
    expect(persona_messages(page, "Desk").filter(has_text="Asked over MCP").first).to_be_visible(timeout=30_000)
    expect(persona_messages(page, "Bull Researcher").first).to_be_visible()
    expect(decision_card(page).first).to_be_visible(timeout=30_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "mcp-thread.png"))
    # Told once: reopened, the history shows it as it was, with no second telling.
    page.reload()
    expect(decision_card(page).first).to_be_visible(timeout=30_000)
    expect(persona_messages(page, "Desk").filter(has_text="Asked over MCP")).to_have_count(1)
    expect(persona_messages(page, "Risk Judge")).to_have_count(1)
