"""The client moved to benchmarks/support/socket_client.py (the benchmarks talk to the chat the same way) and is
re-exported here, with what the end-to-end tests read from it: a user of their own, the Desk's messages, the
buttons, the Desk's answer to something sent or pressed, and a page opening a thread that is running."""
from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING, Any

from benchmarks.support.socket_client import RECORDED_EVENTS, DeskClient, runs_finished

if TYPE_CHECKING:
    from tests.support.chat_server import Server

__all__ = ["RECORDED_EVENTS", "DeskClient", "actions", "after_resume", "answer", "desk_message", "desk_texts",
           "open_thread", "press", "resumed_steps", "runs_finished", "said", "user"]


async def user(server: Server, name: str) -> DeskClient:
    """`name` with a suffix of its own, connected: tests sharing a server keep apart by user."""
    client = DeskClient(server.base, username=f"{name}-{uuid.uuid4().hex[:6]}")
    await client.connect()
    return client


def desk_texts(client: DeskClient) -> list[str]:
    return [m.get("output", "") for m in client.by_author("Desk")]


def actions(client: DeskClient, name: str) -> list[dict]:
    """The buttons called `name` the client was sent, in order."""
    return [data for event, data in client.events if event == "action" and data.get("name") == name]


async def desk_message(client: DeskClient, pattern: str, timeout: float = 30, since: int = 0) -> dict:
    """The first Desk message matching `pattern` (a regex) among those from index `since`, waiting for it."""
    found = re.compile(pattern, re.S)
    return await client.wait_for(
        lambda: next((m for m in client.by_author("Desk")[since:] if found.search(m.get("output", ""))), None),
        timeout, f"a Desk message matching {pattern!r}")


async def said(client: DeskClient, pattern: str, timeout: float = 30, since: int = 0) -> str:
    """The text of `desk_message`."""
    return (await desk_message(client, pattern, timeout, since)).get("output", "")


async def answer(client: DeskClient, text: str | None, pattern: str, timeout: float = 30) -> str:
    """Send `text` (None: send nothing) and wait for the first new Desk message matching `pattern`."""
    seen = len(desk_texts(client))
    if text is not None:
        await client.send(text)
    return await said(client, pattern, timeout, since=seen)


async def press(client: DeskClient, action: dict, pattern: str, timeout: float = 30) -> str:
    """Press a button and wait for the first new Desk message matching `pattern`."""
    seen = len(desk_texts(client))
    await client.click(action)
    return await said(client, pattern, timeout, since=seen)


def resumed_steps(client: DeskClient) -> list[dict[str, Any]]:
    """The stored steps a page opening a thread was sent (none yet: empty)."""
    return next((d.get("steps") or [] for n, d in client.events if n == "resume_thread"), [])


def after_resume(client: DeskClient, name: str) -> list[Any]:
    """The `name` events from the thread's resumption on: what the page got by joining the run."""
    names = [n for n, _ in client.events]
    start = names.index("resume_thread") if "resume_thread" in names else len(names)
    return [d for n, d in client.events[start:] if n == name]


async def open_thread(server: Server, thread: str, cookie: str, username: str) -> DeskClient:
    """A page (a reload, a second tab) opening `thread` with a login kept from before, once it shows what is stored."""
    page = DeskClient(server.base, username=username)
    await page.connect(thread_id=thread, cookie=cookie)
    await page.wait_for(lambda: resumed_steps(page), 20, "the stored thread")
    return page
