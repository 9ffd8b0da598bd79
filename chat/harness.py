"""Drive the chat like a browser, without one: start the real server, log in, talk over socket.io.

Used by the end-to-end tests and by the benchmarks, so both measure the same path a user takes.
"""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

import httpx
import socketio

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`chainlit run chat/app.py --headless` on a free loopback port, in demo mode."""

    def __init__(self, data_dir: Path, **env: str):
        self.data_dir = data_dir
        self.extra_env = env
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def app_root(self) -> Path:
        """The server's working folder: the repo's config and assets, but its own `.files`
        (Chainlit deletes that folder on shutdown, and the repo's may be in use)."""
        root = self.data_dir / "app"
        if not root.exists():
            root.mkdir()
            for name in (".chainlit", "public", "chainlit.md"):
                (root / name).symlink_to(ROOT / name)
        return root

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = _free_port()
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "CHAINLIT_AUTH_SECRET")}
        env.update(DESK_MODE="demo", DESK_DATA_DIR=str(self.data_dir), DESK_DEMO_DELAY_MS="15",
                   DESK_PASSWORD="desk", PYTHONUNBUFFERED="1")
        env.update(self.extra_env)
        self.log = open(self.data_dir / f"server-{self.port}.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chainlit", "run", str(ROOT / "chat" / "app.py"), "--headless",
             "--port", str(self.port)],
            cwd=self.app_root(), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {(self.data_dir / f'server-{self.port}.log').read_text()}")
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not come up")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.proc = None
        self.log.close()

    def log_text(self) -> str:
        return "".join(p.read_text() for p in self.data_dir.glob("server-*.log"))


class DeskClient:
    def __init__(self, base: str, username: str = "tester", password: str = "desk"):
        self.base, self.username, self.password = base, username, password
        self.events: list[tuple[str, dict]] = []
        self.times: list[float] = []          # arrival time (time.perf_counter) of each event
        self.messages: dict[str, dict] = {}   # id -> latest known message dict (content merged from tokens)
        self.order: list[str] = []            # message ids in first-seen order
        self.thread_id: str | None = None
        self.sio: socketio.AsyncClient | None = None

    async def login(self) -> str:
        async with httpx.AsyncClient(base_url=self.base) as http:
            r = await http.post("/login", data={"username": self.username, "password": self.password})
            r.raise_for_status()
            return "; ".join(f"{k}={v}" for k, v in r.cookies.items())

    async def connect(self, thread_id: str = "") -> None:
        cookie = self.cookie = await self.login()
        self.session_id = str(uuid.uuid4())
        self.sio = socketio.AsyncClient(reconnection=False)
        for name in ("new_message", "update_message", "stream_start", "stream_token", "first_interaction",
                     "resume_thread", "element", "action", "remove_action", "task_start", "task_end",
                     "set_commands", "chat_settings", "delete_message", "resume_thread_error"):
            self.sio.on(name, self._recorder(name))
        await self.sio.connect(
            self.base, socketio_path="/ws/socket.io", transports=["websocket"], headers={"Cookie": cookie},
            auth={"sessionId": self.session_id, "clientType": "webapp", "threadId": thread_id,
                  "userEnv": "{}", "chatProfile": ""},
            wait_timeout=10,
        )
        if thread_id:
            self.thread_id = thread_id
        await self.sio.emit("connection_successful")

    def _recorder(self, name):
        async def record(data=None, *_):
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
        return record

    async def send(self, text: str, command: str | None = None) -> None:
        message = {"id": str(uuid.uuid4()), "threadId": self.thread_id or "", "name": self.username,
                   "type": "user_message", "output": text,
                   "createdAt": datetime.now(timezone.utc).isoformat()}
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
        out = []
        for i in self.order[since:]:
            m = self.messages[i]
            if m.get("type") == "assistant_message" and m.get("name") not in out:
                out.append(m["name"])
        return out

    def tokens_for(self, author: str) -> int:
        ids = {m["id"] for m in self.by_author(author)}
        return sum(1 for name, data in self.events if name == "stream_token" and data["id"] in ids)

    async def wait_for(self, predicate, timeout: float = 60.0, what: str = "condition"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = predicate()
            if result:
                return result
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}; authors so far: {self.authors()}")
