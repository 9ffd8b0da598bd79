"""Watches in the chat: "watch NVDA and AMD every trading day after the close", "每周一早上检查我的持仓", `/watch`.

The watches themselves are graph's (graph/watchlist/: read from words, kept per user, run on schedule exactly
once across processes, a notice when a call changes). Here, the chat's side of them:

1. A watch asked in words is read (graph's `read_watch`); what cannot be read or should not run (every hour, a
   weekend, a past date, too many tickers) is said back. Otherwise the desk states what it understood with
   Save and Cancel: nothing is stored before a person has seen it and pressed Save (as a backtest's Run).
2. `/watch` lists the user's watches by number; `/watch pause N`, `resume N`, `remove N` change one. After a
   change the scheduler here syncs at once; other processes on the database sync within a minute.
3. The scheduler (graph's WatchDesk, APScheduler with its jobs in the desk's database) runs in the chat server,
   on the chat's own desk runtime, each slot under the watch's user: the same user string the chat's runs use
   (the signed-in identifier, chat/runs.py), so a scheduled call feeds that user's track record.
4. Each scheduled run is an ordinary thread of its user's: `on_ran` gives it its row in the sidebar ("Scheduled
   · NVDA · 2026-11-27", its metadata marking it scheduled) in the process that ran it, and its first opening
   tells it from its checkpoint (chat/features/headless.py, as a backtest's day).
5. A new chat starts with the user's unseen notices at the top (what changed, when, a link to the run's thread),
   then marks them seen.
"""
from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime
from typing import Any

import chainlit as cl
from chainlit.logger import logger

from graph import (
    DESK,
    EVERY_TRADING_DAY,
    MAX_WATCHES,
    DeskRuntime,
    Notice,
    Ran,
    Rule,
    Watch,
    WatchAsk,
    WatchCommand,
    WatchDesk,
    WatchStore,
    clock,
    jobs_url,
    phrase,
    word_list,
)

from ..history import SCHEDULED_THREAD
from ..kit.feature import Message
from ..kit.offers import Answer, Button, Offers
from ..kit.say import desk_message, page_user, said, thread_language
from ..runs import DeskService
from ..speakers import label_metadata
from .headless import own_thread, tell_on_first_open

SAVE_ACTION = "watch_save"
CANCEL_ACTION = "watch_cancel"
SCHEDULED = "scheduled"  # a scheduled thread's metadata: {"watch", "ticker", "slot", "language"}



def rule_words(rule: Rule, language: str) -> str:
    at, place = f"{rule.at:%H:%M}", _place(rule, language)
    if rule.weekday == EVERY_TRADING_DAY:
        daily = "chat.watch_rule_every_day" if rule.every_day else "chat.watch_rule_daily"
        return phrase(language, daily, at=at, place=place)
    return phrase(language, "chat.watch_rule_weekly", at=at, place=place,
                  weekday=word_list(language, "desk.weekdays", beside="chat.watch_rule_weekly")[rule.weekday])


def _place(rule: Rule, language: str) -> str:
    """Whose clock the watch's time is: its exchange's city ("16:30 Hong Kong time")."""
    return phrase(language, f"chat.watch_place_{rule.market}")


def when_words(moment: datetime, rule: Rule, language: str) -> str:
    """A slot in the exchange's time: "Monday 2026-11-30, 16:30 New York time"."""
    local = moment.astimezone(rule.tz)
    return phrase(language, "chat.watch_when", day=local.date().isoformat(), at=f"{local:%H:%M}",
                  place=_place(rule, language),
                  weekday=word_list(language, "desk.weekdays", beside="chat.watch_when")[local.weekday()])


def what_words(tickers: tuple[str, ...], book: bool, language: str) -> str:
    return phrase(language, "chat.watch_book") if book else ", ".join(tickers)


def thread_link(thread_id: str) -> str:
    return f"/thread/{thread_id}"


class Watches:
    """The server's watches: the ones offered, and the scheduler that runs the saved ones."""

    def __init__(self, service: DeskService) -> None:
        self.service = service
        self.settings = service.settings
        self.offers = Offers("watch", service.runtime, (
            Button(SAVE_ACTION, "chat.watch_save", "check", "chat.watch_save_tooltip"),
            Button(CANCEL_ACTION, "chat.watch_cancel", "x", "chat.watch_cancel_tooltip")),
            gone="watch_offer_gone", not_yours="watch_not_yours")
        self.scheduler: WatchDesk | None = None

    def install(self) -> None:
        self.offers.install({SAVE_ACTION: self.save_pressed, CANCEL_ACTION: self.cancel_pressed})

    async def store(self) -> WatchStore:
        return WatchStore((await self.service.runtime()).store)

    # -- the scheduler --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Run the scheduler in this process (unless DESK_WATCH=off): every watch's jobs, and at once the slots
        missed while no server ran (each watch's latest only)."""
        if not self.settings.watch_scheduler:
            return
        secret = self.settings.webhook_secret
        self.scheduler = WatchDesk(await self.service.runtime(), webhook_url=self.settings.webhook_url or "",
                                   webhook_secret=secret.get_secret_value() if secret is not None else "",
                                   on_ran=self.on_ran)
        await self.scheduler.start(jobs_url(self.settings.data_dir, self.settings.database_url))
        if self.scheduler.background is not None:
            self.scheduler.background.add_done_callback(_logged)

    async def stop(self, thread_id: str) -> bool:
        return False  # a slot's run is the scheduler's: it is not the chat's to stop

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        await self.offers.reopened(thread_id, steps)

    async def close(self) -> None:
        if self.scheduler is not None:
            # A catch-up or a slot still running is cancelled, its leases let go before the runtime closes: its
            # slot stays due, and goes on from its last checkpoint at the next start.
            await self.scheduler.close()
            self.scheduler = None

    async def on_ran(self, watch: Watch, ran: Ran) -> None:
        """A slot's ticker has run here: its thread goes into its user's sidebar, marked scheduled."""
        m = SCHEDULED_THREAD.fullmatch(ran.thread)
        day = ran.decision.trade_date if ran.decision is not None else ""
        try:
            await _own_scheduled(ran.thread, watch.user, watch.language, watch.id, ran.ticker, day,
                                 m[3] if m else "")
        except Exception:  # the run and its call are kept; only its place in the sidebar is missing
            logger.exception("Could not add the scheduled thread %s to its user's history", ran.thread)

    # -- what the user types --------------------------------------------------------------------------

    async def answer(self, said: Message) -> bool:
        """Answer `/watch …` or a watch asked in words; False for any other message."""
        ask = said.route.read
        if isinstance(ask, WatchCommand):
            await self._command(ask)
            return True
        if not isinstance(ask, WatchAsk):
            return False
        if ask.problem:
            await desk_message(ask.problem, language=ask.language).send()
            return True
        await self._offer(ask)
        return True

    async def _offer(self, ask: WatchAsk) -> None:
        lang = ask.language
        text = phrase(lang, "chat.watch_understood", what=what_words(ask.tickers, ask.book, lang),
                      rule=rule_words(ask.rule, lang),
                      each=phrase(lang, "chat.watch_each_book" if ask.book else "chat.watch_each_ticker"),
                      webhook=phrase(lang, "chat.watch_webhook") if self.settings.webhook_url else "",
                      next=when_words(ask.rule.next_slot(clock.now()), ask.rule, lang))
        body = {"tickers": list(ask.tickers), "book": ask.book, "rule": ask.rule.as_dict()}
        await (await self.offers.message(text, body, language=lang)).send()

    async def save_pressed(self, answer: Answer) -> None:
        """Save pressed: said in the offer's language (the kit answers inside `speaking`)."""
        lang, store, user = answer.language, await self.store(), answer.user
        tickers, book = tuple(answer.body.get("tickers") or ()), bool(answer.body.get("book"))
        rule = Rule.from_dict(answer.body.get("rule") or {})
        if len(await store.watches(user)) >= MAX_WATCHES:  # said in the user's words (the store refuses too)
            await said("watch_too_many", limit=MAX_WATCHES).send()
            return
        try:
            watch = await store.add(user, tickers, rule, book=book, language=lang)
        except ValueError:  # another tab saved one meanwhile: the store's cap holds
            await said("watch_too_many", limit=MAX_WATCHES).send()
            return
        await self._sync()
        number = [w.id for w in await store.watches(user)].index(watch.id) + 1
        await said("watch_saved", n=number, what=what_words(watch.tickers, watch.book, lang),
                   rule=rule_words(watch.rule, lang),
                   next=when_words(watch.rule.next_slot(clock.now()), watch.rule, lang)).send()

    async def cancel_pressed(self, answer: Answer) -> None:
        await said("watch_cancelled").send()

    async def _command(self, command: WatchCommand) -> None:
        store, user, lang = await self.store(), page_user(), thread_language()
        watches = await store.watches(user)
        if command.action == "list":
            await self._list(watches)
            return
        if not command.which:
            await said("watch_which", action=command.action).send()
            return
        watch = await store.find(user, command.which)
        if watch is None:
            await said("watch_unknown", which=command.which).send()
            return
        n = [w.id for w in watches].index(watch.id) + 1
        what = what_words(watch.tickers, watch.book, lang)
        if command.action == "remove":
            await store.remove(watch)
            await self._sync()
            await said("watch_removed_done", n=n, what=what).send()
        elif command.action == "pause":
            await store.set_paused(watch, True)
            await self._sync()
            await said("watch_paused_done", n=n, what=what).send()
        else:  # resume
            await store.set_paused(watch, False)
            await self._sync()
            await said("watch_resumed_done", n=n, what=what,
                       next=when_words(watch.rule.next_slot(clock.now()), watch.rule, lang)).send()

    async def _list(self, watches: list[Watch]) -> None:
        lang = thread_language()
        if not watches:
            await said("watch_none").send()
            return
        lines = [phrase(lang, "chat.watch_list_title"), ""]
        for n, watch in enumerate(watches, 1):
            last = watch.last_run
            lines.append(phrase(lang, "chat.watch_line", n=n, what=what_words(watch.tickers, watch.book, lang),
                                rule=rule_words(watch.rule, lang),
                                state=phrase(lang, "chat.watch_paused" if watch.paused else "chat.watch_active"),
                                last=phrase(lang, "chat.watch_last_run", when=when_words(last, watch.rule, lang))
                                if last is not None else phrase(lang, "chat.watch_never_run")))
        lines += ["", phrase(lang, "chat.watch_commands")]
        await desk_message("\n".join(lines)).send()

    async def _sync(self) -> None:
        if self.scheduler is not None:
            await self.scheduler.sync()

    # -- a new chat: the notices ----------------------------------------------------------------------

    async def show_notices(self, language: str) -> None:
        """At the top of a new chat: the user's unseen notices, each with a link to its run's thread, then
        marked seen. A system message, as the mode notice: Chainlit keeps the starters under it."""
        store, user = await self.store(), page_user()
        notices = await store.notices(user, unseen=True)
        if not notices:
            return
        lines = [phrase(language, "chat.notices_title"), ""]
        for notice in notices:
            await self._own_noticed(notice, store)
            slot = datetime.fromisoformat(notice.slot)
            # A webhook that failed or hung: the notice is kept all the same, and the user told it was not sent.
            unsent = self.settings.webhook_url and not notice.posted
            lines.append(phrase(language, "chat.notice_line", ticker=notice.ticker, reason=notice.reason,
                                when=when_words(slot, Rule(), language), link=thread_link(notice.id),
                                posted=phrase(language, "chat.notice_not_posted") if unsent else ""))
        await cl.Message(content="\n".join(lines), author=DESK, type="system_message",
                         metadata=label_metadata(DESK, language=language)).send()
        for notice in notices:
            await store.mark(notice, seen=True)

    async def _own_noticed(self, notice: Notice, store: WatchStore) -> None:
        """The notice's thread in its user's sidebar: on_ran made it, unless its process stopped in between."""
        m = SCHEDULED_THREAD.fullmatch(notice.id)
        if m is None:
            return
        watch = await store.get(notice.user, notice.watch)
        slot = datetime.fromisoformat(notice.slot)
        with contextlib.suppress(Exception):  # the link is shown either way
            await _own_scheduled(notice.id, notice.user, watch.language if watch else "en", notice.watch,
                                 notice.ticker, slot.date().isoformat(), m[3])


async def _own_scheduled(thread_id: str, user: str, language: str, watch_id: str, ticker: str, day: str,
                         slot: str) -> None:
    name = phrase(language, "chat.scheduled_name", ticker=ticker, day=day or f"{slot[:4]}-{slot[4:6]}-{slot[6:8]}")
    if not await own_thread(thread_id, user, name, {SCHEDULED: {"watch": watch_id, "ticker": ticker, "slot": slot,
                                                                  "language": language}}):
        logger.warning("The scheduled thread %s is not in its user's history", thread_id)


def is_scheduled_thread(thread_id: str | None) -> bool:
    return SCHEDULED_THREAD.fullmatch(thread_id or "") is not None


def render_scheduled(desk: DeskRuntime, thread_id: str, metadata: dict[str, Any], steps: list[Any]) -> None:
    """On a scheduled thread's first opening (no stored messages), tell the run from its checkpoint."""
    if not is_scheduled_thread(thread_id):
        return
    about = metadata.get(SCHEDULED) or {}

    def intro(language: str, state: dict[str, Any]) -> str:
        return phrase(str(about.get("language") or language), "chat.scheduled_intro",
                      ticker=str(about.get("ticker") or state.get("ticker") or ""),
                      day=str(state.get("trade_date") or ""))

    tell_on_first_open(desk, thread_id, steps, intro, "chat.scheduled_gone")


def _logged(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        logger.error("The watches' catch-up run failed: %s", exc, exc_info=exc)
