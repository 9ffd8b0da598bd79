"""The paper book in the chat (issue 40): `/paper`, "follow my calls on paper with 100,000", "my paper book", "stop
paper trading", "用10万模拟跟单", "我的模拟账户", "停止模拟" (graph's router reads them: `PaperAsk`).

Opting in states the rules (the next session's open, the cost in bp, stops on the daily bars, the horizon's close) and
waits for Start or Cancel (the kit's offer, stored: answered once, only by its user). Showing it settles the book as
of the last final close (graph's `PaperKeeper.settle`, what `python -m graph paper` shows) and says it in the thread's
language, each trade's and order's thread a link to it, with the equity curve against the benchmark of each asset
class it traded and the drawdowns, and the calibration of the user's settled calls (chat/views/paper_view.py). The
work is graph's: this module only words it and draws it.
"""
from __future__ import annotations

import contextlib
from typing import Any

import chainlit as cl

from graph import (
    DEFAULT_COST_BPS,
    PaperAsk,
    PaperError,
    amount_of,
    calibration,
    clock,
    curve_metrics,
    money,
    paper_answer,
    paper_figures,
    paper_heading,
    phrase,
)

from ..kit.feature import Message
from ..kit.offers import Answer, Button, Offers
from ..kit.say import desk_message, page_user, speaking, thread_language
from ..runs import DeskService
from ..views.paper_view import calibration_chart, equity_chart
from ..views.thread_names import name_if_untitled

START_ACTION = "paper_start"
CANCEL_ACTION = "paper_cancel"
DEFAULT_AMOUNT = "100000"


def _say(language: str, key: str, **fields: object) -> str:
    return phrase(language, f"paper.{key}", **fields)


def thread_link(thread_id: str) -> str:
    """A thread id as a link the page opens (the thread of the call behind a trade or an order)."""
    return f"[{thread_id[:8]}](/thread/{thread_id})"


class PaperBooks:
    """The chat's paper books, over graph's `PaperKeeper` (the runtime's `paper`)."""

    def __init__(self, service: DeskService) -> None:
        self.service = service
        self.offers = Offers("paper", service.runtime, (
            Button(START_ACTION, "paper.chat_start", "play", "paper.chat_start_tooltip"),
            Button(CANCEL_ACTION, "paper.chat_cancel", "x", "paper.chat_cancel_tooltip")),
            gone="paper.chat_gone", not_yours="paper.chat_not_yours")

    def install(self) -> None:
        self.offers.install({START_ACTION: self.start_pressed, CANCEL_ACTION: self.cancel_pressed})

    async def stop(self, thread_id: str) -> bool:
        return False  # nothing of the paper book runs on a thread

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        await self.offers.reopened(thread_id, steps)

    async def close(self) -> None:
        pass

    async def answer(self, message: Message) -> bool:
        """`/paper …` and the words for the paper book (graph's router); False for any other message."""
        if not isinstance(asked := message.route.read, PaperAsk):
            return False
        with speaking(asked.language or thread_language()):  # answered in the words' own language
            language = thread_language()
            with contextlib.suppress(Exception):  # the sidebar's name; the book is answered without it
                await name_if_untitled(cl.context.session.thread_id, _say(language, "chat_thread_name"))
            if asked.action == "start":
                await self._offer(asked.amount, language)
            elif asked.action == "stop":
                await self._stop(language)
            else:
                await self._show(language)
        return True

    async def _send(self, text: str, language: str) -> None:
        await desk_message(text, language=language).send()

    async def _offer(self, amount_text: str, language: str) -> None:
        """The rules and Start / Cancel; an amount that is none, or a book already following, said instead."""
        keeper = (await self.service.runtime()).paper
        current = await keeper.books.get(page_user())
        if current is not None and current.following:
            await self._send(_say(language, "chat_already", since=paper_heading(current, language)), language)
            return
        try:
            amount = amount_of(amount_text or DEFAULT_AMOUNT)
        except PaperError:
            await self._send(_say(language, "bad_amount", amount=amount_text), language)
            return
        parts = [_say(language, "chat_offer", amount=money(amount), cost=f"{DEFAULT_COST_BPS.normalize():f}")]
        if not amount_text:
            parts.append(_say(language, "chat_default_amount", amount=money(amount)))
        parts.append(_say(language, "rules"))
        await (await self.offers.message("\n\n".join(parts), {"amount": f"{amount:f}"})).send()

    async def _stop(self, language: str) -> None:
        stopped = await (await self.service.runtime()).paper.stop(page_user(), clock.now())
        await self._send(_say(language, "stopped_now" if stopped is not None else "not_started"), language)

    async def _show(self, language: str) -> None:
        """The book as of the last final close, its figures since it began, its chart and the calibration."""
        desk = await self.service.runtime()
        user, today = page_user(), clock.today()
        paper = await desk.paper.settle(user, today)
        if paper is None:
            await self._send(_say(language, "chat_none"), language)
            return
        mine, benches = paper_figures(paper, curve_metrics)
        calibrated = calibration(await desk.track.calls(user, today))
        text = paper_answer(paper, mine, benches, calibrated, language, link=thread_link)
        if not paper.ledger.curve:
            text += "\n\n" + _say(language, "no_curve", since=paper.book.since_date.isoformat())
        message = desk_message(text, language=language)
        await message.send()
        if paper.ledger.curve:
            await equity_chart(paper, language).send(for_id=message.id)
        if calibrated.scored or calibrated.sides:
            await calibration_chart(calibrated, language, "paper-calibration").send(for_id=message.id)

    # -- the buttons ------------------------------------------------------------------------------------

    async def start_pressed(self, answer: Answer) -> None:
        """Start: the paper book made for the offer's user, from now on, with the amount offered."""
        language = answer.language
        keeper = (await self.service.runtime()).paper
        try:
            book = await keeper.start(answer.user, str(answer.body.get("amount") or DEFAULT_AMOUNT), clock.now())
        except PaperError:
            current = await keeper.books.get(answer.user)
            if current is not None and current.following:
                await self._send(_say(language, "chat_already", since=paper_heading(current, language)), language)
            else:
                await self._send(_say(language, "bad_amount", amount=answer.body.get("amount")), language)
            return
        await self._send("\n\n".join([_say(language, "started", amount=money(book.start_amount), cost=book.cost_bps),
                                      _say(language, "chat_show_after")]), language)

    async def cancel_pressed(self, answer: Answer) -> None:
        await self._send(_say(answer.language, "chat_cancelled"), answer.language)
