"""Talk to the chat server as a browser does, without one: log in over HTTP, then socket.io.

Used by the end-to-end tests and by the benchmarks, so both measure the path a user takes.
"""
from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
import socketio

T = TypeVar("T")

RECORDED_EVENTS = ("new_message", "update_message", "stream_start", "stream_token", "first_interaction",
                   "resume_thread", "element", "action", "remove_action", "task_start", "task_end",
                   "set_commands", "chat_settings", "delete_message", "resume_thread_error", "desk_stages",
                   "toast")


class DeskClient:
    def __init__(self, base: str, username: str = "tester", password: str = "desk") -> None:
        self.base, self.username, self.password = base, username, password
        self.events: list[tuple[str, Any]] = []
        self.times: list[float] = []          # arrival time (time.perf_counter) of each event
        self.messages: dict[str, dict] = {}   # id -> latest known message dict (content merged from tokens)
        self.order: list[str] = []            # message ids in first-seen order
        self.thread_id: str | None = None
        self.sio: socketio.AsyncClient | None = None
        self.cookie = ""
        self.session_id = ""
        self.arrived = asyncio.Event()        # set as each event is recorded (see `until`)

    async def login(self) -> str:
        async with httpx.AsyncClient(base_url=self.base) as http:
            r = await http.post("/login", data={"username": self.username, "password": self.password})
            r.raise_for_status()
            return "; ".join(f"{k}={v}" for k, v in r.cookies.items())

    async def connect(self, thread_id: str = "", cookie: str | None = None, session_id: str | None = None,
                      origin: str | None = None) -> None:
        """Log in (or use `cookie`, a login kept from before) and open the socket on `thread_id`
        (empty: a new thread), as a new session or, as a reloaded tab does, an earlier `session_id`;
        with `origin`, as a page of that origin does. Raises socketio's ConnectionError when the
        server refuses."""
        cookie = self.cookie = cookie if cookie is not None else await self.login()
        headers = {"Cookie": cookie} | ({"Origin": origin} if origin else {})
        self.session_id = session_id or str(uuid.uuid4())
        self.sio = socketio.AsyncClient(reconnection=False)
        for name in RECORDED_EVENTS:
            self.sio.on(name, self._recorder(name))
        await self.sio.connect(
            self.base, socketio_path="/ws/socket.io", transports=["websocket"], headers=headers,
            auth={"sessionId": self.session_id, "clientType": "webapp", "threadId": thread_id,
                  "userEnv": "{}", "chatProfile": ""},
            wait_timeout=10,
        )
        if thread_id:
            self.thread_id = thread_id
        await self.sio.emit("connection_successful")

    def _recorder(self, name: str) -> Callable[..., Awaitable[None]]:
        async def record(data: Any = None, *_: Any) -> None:
            self.events.append((name, data))
            self.times.append(time.perf_counter())
            if name in ("new_message", "stream_start", "update_message") and isinstance(data, dict):
                mid = data["id"]
                if mid not in self.messages:
                    self.order.append(mid)
                    self.messages[mid] = dict(data)
                else:
                    self.messages[mid].update(data)
            elif name == "stream_token" and data["id"] in self.messages:
                self.messages[data["id"]]["output"] = self.messages[data["id"]].get("output", "") + data["token"]
            elif name == "first_interaction":
                self.thread_id = data.get("thread_id")
            self.arrived.set()
        return record

    async def send(self, text: str, command: str | None = None, message_id: str | None = None) -> None:
        assert self.sio is not None, "connect() first"
        message = {"id": message_id or str(uuid.uuid4()), "threadId": self.thread_id or "", "name": self.username,
                   "type": "user_message", "output": text,
                   "createdAt": datetime.now(UTC).isoformat()}
        if command:
            message["command"] = command
        await self.sio.emit("client_message", {"message": message, "fileReferences": []})

    async def click(self, action: dict) -> dict:
        """Press an action button, as the browser does (an HTTP call bound to this session)."""
        async with httpx.AsyncClient(base_url=self.base, headers={"Cookie": self.cookie}) as http:
            r = await http.post("/project/action", json={"sessionId": self.session_id, "action": action})
            r.raise_for_status()
            return r.json()

    async def close(self) -> None:
        if self.sio is not None:
            await self.sio.disconnect()

    # -- reading what happened ---------------------------------------------

    def by_author(self, author: str) -> list[dict]:
        return [self.messages[i] for i in self.order
                if self.messages[i].get("name") == author and "message" in self.messages[i].get("type", "")]

    def authors(self, since: int = 0) -> list[str]:
        """Authors of assistant messages in the order they first appeared, from message index `since`."""
        out: list[str] = []
        for i in self.order[since:]:
            m = self.messages[i]
            if m.get("type") == "assistant_message" and m.get("name") not in out:
                out.append(m["name"])
        return out

    def tokens_for(self, author: str) -> int:
        ids = {m["id"] for m in self.by_author(author)}
        return sum(1 for name, data in self.events if name == "stream_token" and data["id"] in ids)

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float = 60.0,
                       what: str = "condition") -> T:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = predicate()
            if result:
                return result
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}; authors so far: {self.authors()}")

    async def until(self, predicate: Callable[[], object], timeout: float) -> bool:
        """Wait until `predicate()` holds, asking it again as each event arrives (no polling);
        False when `timeout` passes first."""
        deadline = time.monotonic() + timeout
        while not predicate():
            self.arrived.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)
        return True

    async def next_event(self, match: Callable[[str, Any], object], since: int = 0, timeout: float = 60.0,
                         what: str = "an event") -> int:
        """The index of the first event from index `since` that `match(name, data)` accepts, waiting
        for it as events arrive. Every event is looked at, however soon the next one followed it:
        a moment that passed before this coroutine ran again is not missed."""
        at = since

        def found() -> bool:
            nonlocal at
            while at < len(self.events):
                if match(*self.events[at]):
                    return True
                at += 1
            return False

        if not await self.until(found, timeout):
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; authors so far: {self.authors()}")
        return at


def runs_finished(client: DeskClient) -> int:
    """Every run ends by removing its Stop action."""
    return sum(1 for name, _ in client.events if name == "remove_action")
