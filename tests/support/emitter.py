"""A recorded emitter on Chainlit's context, so handlers run without a server or a browser."""
from __future__ import annotations

from typing import Any

from chainlit.element import ElementDict
from chainlit.emitter import BaseChainlitEmitter
from chainlit.session import BaseSession
from chainlit.step import StepDict
from chainlit.types import CommandDict


class RecordedEmitter(BaseChainlitEmitter):
    """Keeps every UI event; `messages` folds them into the messages the user would see."""

    def __init__(self, session: BaseSession) -> None:
        super().__init__(session)
        self.events: list[tuple[str, Any]] = []

    async def emit(self, event: str, data: Any) -> None:
        self.events.append((event, data))

    async def send_step(self, step_dict: StepDict) -> None:
        self.events.append(("new_message", dict(step_dict)))

    async def update_step(self, step_dict: StepDict) -> None:
        self.events.append(("update_message", dict(step_dict)))

    async def stream_start(self, step_dict: StepDict) -> None:
        self.events.append(("stream_start", dict(step_dict)))

    async def send_token(self, id: str, token: str, is_sequence: bool = False, is_input: bool = False) -> None:
        self.events.append(("stream_token", {"id": id, "token": token}))

    async def send_element(self, element_dict: ElementDict) -> None:
        self.events.append(("element", dict(element_dict)))

    async def set_commands(self, commands: list[CommandDict]) -> None:
        self.events.append(("set_commands", commands))

    # Synchronous like Chainlit's own emitter: ChatSettings.send calls it without awaiting.
    def set_chat_settings(self, settings: dict) -> None:  # type: ignore[override]
        self.session.chat_settings = settings

    def named(self, name: str) -> list[Any]:
        return [d for n, d in self.events if n == name]

    @property
    def messages(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for name, data in self.events:
            if name in ("new_message", "update_message", "stream_start"):
                out.setdefault(data["id"], {}).update(data)
            elif name == "stream_token" and data["id"] in out:
                out[data["id"]]["output"] = out[data["id"]].get("output", "") + data["token"]
        return out

    def by_author(self, author: str) -> list[dict]:
        return [m for m in self.messages.values() if m.get("name") == author and m.get("type") == "assistant_message"]

    def authors(self) -> list[str]:
        seen: list[str] = []
        for m in self.messages.values():
            if m.get("type") == "assistant_message" and m["name"] not in seen:
                seen.append(m["name"])
        return seen
