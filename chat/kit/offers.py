"""Buttons that wait for a person's yes or no: a backtest's Run, the book's Store, a watch's Save, a comparison's Run.

A feature makes its offer with `Offers.message(text, body)`: the message with its buttons, the offer stored first
(graph's OfferStore: in the desk's database, so a restart or another process of it still honours the buttons).
A press is answered by `install`'s callbacks: the offer is taken once (a second press, or one after it was
answered, says it is gone), only by the user it was made to (another user's press says so and leaves it on offer),
its buttons are removed from the page, and the feature's handler gets it with the button that was pressed.

An offer may show one button several times, each for one `choice` (the tokens' Revoke, one per token): the press
carries its choice, and the handler gets it only if the offer was shown with that button for that choice, so a
forged press names nothing else.
"""
from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import chainlit as cl

from graph import DeskRuntime, Offered, OfferStore, phrase

from .say import desk_message, page_user, said, speaking, thread_language


@dataclass(frozen=True)
class Button:
    """One button of an offer: its action name (its callback), and its label's and tooltip's catalogue keys; a
    button shown once per choice has its `choice` and what its label names (`named`: the label's {name})."""

    name: str
    label: str
    icon: str
    tooltip: str = ""
    choice: str = ""
    named: str = ""

    def stored(self, action_id: str) -> dict[str, str]:
        extra = {"choice": self.choice, "named": self.named} if self.choice else {}
        return {"name": self.name, "id": action_id, "label": self.label, "icon": self.icon, "tooltip": self.tooltip,
                **extra}


@dataclass(frozen=True)
class Answer:
    """An offer taken by the press of `button` (its action name)."""

    offered: Offered
    button: str
    choice: str = ""  # the pressed button's choice, as the offer was shown with it ("" for a button without)

    @property
    def body(self) -> dict[str, Any]:
        return self.offered.body

    @property
    def language(self) -> str:
        return self.offered.language

    @property
    def user(self) -> str:
        return self.offered.user

    @property
    def thread_id(self) -> str:
        return self.offered.thread_id


Handler = Callable[[Answer], Awaitable[None]]


class Offers:
    """One feature's offers (`kind`: "backtest", "book", …), each shown with `buttons`.

    `gone` and `not_yours` are the catalogue keys said to a press that finds its offer answered (or never made) and
    to another user's press; `same_thread`: an offer is answered only from the thread it was made in (a
    comparison's Run starts in that thread: pressed elsewhere it is gone)."""

    def __init__(self, kind: str, runtime: Callable[[], Awaitable[DeskRuntime]], buttons: tuple[Button, ...], *,
                 gone: str, not_yours: str, same_thread: bool = False) -> None:
        self.kind, self.runtime, self.buttons = kind, runtime, buttons
        self.gone, self.not_yours, self.same_thread = gone, not_yours, same_thread

    async def store(self) -> OfferStore:
        desk = await self.runtime()
        return OfferStore(desk.store, desk.leases)

    async def message(self, text: str, body: dict[str, Any], *, language: str | None = None,
                      thread_id: str | None = None, instead: tuple[Button, ...] = (),
                      shown: tuple[Button, ...] | None = None) -> cl.Message:
        """The Desk's message `text` with the offer's buttons, the offer stored before it is shown (send it).
        `instead`: buttons shown in place of the offer's own of the same name (the book's Store is Remove, with a
        bin, when the change forgets the book); `shown`: the buttons shown instead of all of the offer's own (each
        named as one of them), a button once per choice among them."""
        lang = language or thread_language()
        key = OfferStore.new_key()
        message_id = str(uuid.uuid4())
        names = {own.name for own in self.buttons}
        if shown is not None and not {b.name for b in shown} <= names:
            raise ValueError(f"an offer of {self.kind} shows only its own buttons ({sorted(names)})")
        buttons = list(shown) if shown is not None else \
            [next((b for b in instead if b.name == own.name), own) for own in self.buttons]
        actions = [_action(b, key, lang) for b in buttons]
        await (await self.store()).put(Offered(
            key, self.kind, page_user(), thread_id if thread_id is not None else cl.context.session.thread_id, lang,
            body, message_id, tuple(b.stored(a.id) for a, b in zip(actions, buttons))))
        return desk_message(text, language=lang, actions=actions, message_id=message_id)

    async def answered(self, action: cl.Action) -> Answer | None:
        """The offer `action` answers, taken (once) if it is on offer to the pressing user, its buttons removed;
        else None, and the page is told why."""
        key = str((action.payload or {}).get("offer") or "")
        store = await self.store()
        if self.same_thread and (offered := await store.get(self.kind, key)) is not None \
                and offered.thread_id != cl.context.session.thread_id:
            await said(self.gone).send()
            return None
        outcome, offered = await store.take(self.kind, key, page_user())
        if outcome == "gone" or offered is None:
            await said(self.gone).send()
            return None
        if outcome == "not_yours":
            await said(self.not_yours, language=offered.language).send()
            return None
        for shown in _actions(offered):  # also after a restart: the ids were stored with the offer
            with contextlib.suppress(Exception):  # a page already gone: the offer is answered all the same
                await shown.remove()
        choice = str((action.payload or {}).get("choice") or "")
        if not any(b.get("name") == action.name and b.get("choice", "") == choice for b in offered.buttons):
            choice = ""  # a choice the offer was not shown with (a forged press) chooses nothing
        return Answer(offered, action.name, choice)

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        """A page opened the thread: the user's offers still open in it get their buttons back (Chainlit stores
        no actions), on their messages."""
        shown = {str(step.get("id")) for step in steps}
        for offered in await (await self.store()).open_in(self.kind, page_user(), thread_id):
            if offered.message_id in shown:
                for action in _actions(offered):
                    await action.send(for_id=offered.message_id)

    def install(self, handlers: dict[str, Handler]) -> None:
        """Answer every button's press with its handler (each button of the offer has one)."""
        for button in self.buttons:
            handler = handlers[button.name]

            async def pressed(action: cl.Action, handler: Handler = handler) -> None:
                if (answer := await self.answered(action)) is not None:
                    with speaking(answer.language):  # answered in the words it was offered in
                        await handler(answer)

            cl.action_callback(button.name)(pressed)


def _action(button: Button, key: str, language: str, **shown: str) -> cl.Action:
    """A button of offer `key` as the page shows it (`shown`: its id and message, when it was shown before)."""
    payload = {"offer": key, **({"choice": button.choice} if button.choice else {})}
    label = phrase(language, button.label, **({"name": button.named} if button.choice else {}))
    return cl.Action(name=button.name, payload=payload, label=label, icon=button.icon or None,
                     tooltip=phrase(language, button.tooltip) if button.tooltip else "", **shown)


def _actions(offered: Offered) -> list[cl.Action]:
    """The offer's buttons as they were shown (their ids, labels in the offer's language)."""
    return [_action(Button(b["name"], b["label"], b.get("icon", ""), b.get("tooltip", ""), b.get("choice", ""),
                           b.get("named", "")), offered.key, offered.language, id=b["id"], forId=offered.message_id)
            for b in offered.buttons]
