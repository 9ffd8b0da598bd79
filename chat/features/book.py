"""The user's book in the chat (issue 26): what they hold, told in words, shown and edited with `/book`,
or imported from a broker's CSV attached to a message. Private to the user (graph's `BookStore`, one
namespace per signed-in user) and stored only once confirmed.

The reading is graph's (`tells_holdings`, `read_holdings`, `read_csv`); this module says it back:

1. What cannot be read is listed, each part with its reason, and nothing is offered: a message or a
   file is stored whole or not at all, so nothing is half-imported and the stored book is never touched.
2. What can be read is shown as the book before → after (only the rows that change) with Store and
   Cancel, as a backtest's plan is (chat/features/backtests.py): nothing is stored before the user presses Store.
3. Store works once, only for the user it was offered to, and only while the stored book is still the
   one the offer was worked out against (another tab or message may have changed it since): a stale
   offer would otherwise write back an older book and lose the newer change.

`/book` shows the book; `/book remove` forgets it (after a Remove press); `/book clear NVDA` drops a
position; `/book <words>` reads the words as holdings even when they do not look like a statement.
"""
from __future__ import annotations

import asyncio
import contextlib
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import chainlit as cl
from fastapi import FastAPI

from graph import (
    Book,
    BookAsk,
    BookStore,
    CsvImport,
    Position,
    Reading,
    apply_changes,
    phrase,
    read_csv,
    read_holdings,
)

from ..kit.feature import Message
from ..kit.offers import Answer, Button, Offers
from ..kit.say import desk_message, page_user, speaking, thread_language
from ..runs import DeskService
from ..views.thread_names import name_if_untitled
from ..web.uploads import UploadLimit

STORE_ACTION = "book_store"
CANCEL_ACTION = "book_cancel"
REMOVE_WORDS = ("remove", "delete", "forget", "删除")
CLEAR_WORDS = ("clear", "drop", "清除")
CSV_TYPES = ("text/csv", "application/csv", "text/comma-separated-values", "application/vnd.ms-excel")
MAX_FILE_BYTES = 1_000_001  # read_csv refuses over 1,000,000 with its own words: one byte more is enough to know
CENT = Decimal("0.01")



async def _send(text: str) -> None:
    """A message of the Desk, in the language spoken here (the thread's; an offer's own when it is answered)."""
    await desk_message(text).send()


def _say(key: str, **fields: object) -> str:
    """The catalogue's [chat] `key` in the language spoken here."""
    return _said_in(thread_language(), key, **fields)


def _said_in(language: str, key: str, **fields: object) -> str:
    """The catalogue's [chat] `key` in `language`: the tables and lines below are words for a given language."""
    return phrase(language, "chat." + key, **fields)


# -- how a book reads ---------------------------------------------------------------------------------

def quantity_text(quantity: Decimal) -> str:
    """200 -> '200', 0.5 -> '0.5', 1500 -> '1,500'."""
    return f"{quantity.normalize():,f}"


def money_text(value: Decimal) -> str:
    return f"{value.quantize(CENT):,}"


def position_text(position: Position | None, language: str) -> str:
    """'200 @ 95.00', '200 (no cost)', 'short 50 @ 240.00', '—'."""
    if position is None:
        return _said_in(language, "book_nothing")
    quantity = quantity_text(abs(position.quantity))
    if position.short:
        quantity = _said_in(language, "book_short", quantity=quantity)
    if position.cost is None:
        return _said_in(language, "book_no_cost", quantity=quantity)
    return f"{quantity} @ {money_text(position.cost)}"


def book_table(book: Book, language: str) -> str:
    """The positions as a table (symbol, quantity, cost), then the cash."""
    say = lambda key, **f: _said_in(language, key, **f)  # noqa: E731 - one line per part below
    lines = [say("book_title", currency=book.currency), ""]
    if book.positions:
        lines += [f"| {say('book_symbol')} | {say('book_quantity')} | {say('book_cost')} |", "|---|---:|---:|"]
        for p in book.positions:
            quantity = quantity_text(p.quantity)
            cost = money_text(p.cost) if p.cost is not None else say("book_nothing")
            lines.append(f"| {p.symbol} | {quantity} | {cost} |")
    else:
        lines.append(say("book_no_positions"))
    lines += ["", say("book_cash_line", cash=money_text(book.cash), currency=book.currency)]
    return "\n".join(lines)


def change_table(before: Book | None, after: Book, language: str) -> str:
    """Only the rows that change, before → after: a position added, changed or dropped, and the cash."""
    old = before or Book(currency=after.currency)
    say = lambda key, **f: _said_in(language, key, **f)  # noqa: E731
    lines = [f"| | {say('book_before')} | {say('book_after')} |", "|---|---:|---:|"]
    symbols = sorted({p.symbol for p in old.positions} | {p.symbol for p in after.positions})
    for symbol in symbols:
        was, now = old.get(symbol), after.get(symbol)
        if was != now:
            lines.append(f"| {symbol} | {position_text(was, language)} | {position_text(now, language)} |")
    if old.cash != after.cash:
        lines.append(f"| {say('book_cash')} | {money_text(old.cash)} | {money_text(after.cash)} |")
    return "\n".join(lines)


def _shown_name(name: str) -> str:
    """A file's name as the chat writes it: no Markdown or line breaks from the name itself."""
    return re.sub(r"[^\w.\- ()]", "_", name or "file")[:80]


# -- the book's answers -------------------------------------------------------------------------------

class Books:
    """The server's book offers (changes shown and waiting for Store), over the desk's Store."""

    def __init__(self, service: DeskService) -> None:
        self.service = service
        self.offers = Offers("book", service.runtime, (
            Button(STORE_ACTION, "chat.book_store", "check", "chat.book_store_tooltip"),
            Button(CANCEL_ACTION, "chat.book_cancel", "x", "chat.book_cancel_tooltip")),
            gone="book_gone", not_yours="book_not_yours")
        self._writing = asyncio.Lock()  # one compare-then-write at a time in this process

    def install(self) -> None:
        """The offers' buttons."""
        self.offers.install({STORE_ACTION: self.store_pressed, CANCEL_ACTION: self.cancel_pressed})

    @staticmethod
    def guard_uploads(server: FastAPI) -> None:
        """The cap on uploads (chat/web/uploads.py) in front of Chainlit's upload route."""
        server.add_middleware(UploadLimit)

    async def stop(self, thread_id: str) -> bool:
        return False  # nothing of the book runs

    async def reopened(self, thread_id: str, steps: list[Any]) -> None:
        await self.offers.reopened(thread_id, steps)

    async def close(self) -> None:
        pass

    async def books(self) -> BookStore:
        return BookStore((await self.service.runtime()).store)

    async def answer(self, said: Message) -> bool:
        """Answer a message about the book: a file attached, `/book …`, or holdings told in words. False
        for any other message (it goes to the desk)."""
        files = list(said.message.elements or [])
        if files:
            await self._import(files)
            return True
        if not isinstance(asked := said.route.read, BookAsk):
            return False
        if asked.command:
            await self._command(asked.words)
        else:
            await self._told(asked.words)
        return True

    async def _command(self, rest: str) -> None:
        words = rest.split()
        first = words[0].lower() if words else ""
        if not words or first in ("show", "help", "显示"):
            await self._show()
        elif first in REMOVE_WORDS and len(words) == 1:
            await self._offer_removal()
        elif first in CLEAR_WORDS + REMOVE_WORDS:
            await self._offer_clear(" ".join(words[1:]))
        else:  # "/book 200 NVDA at 95": the words are holdings, whatever tells_holdings would say
            await self._told(rest)

    async def _show(self) -> None:
        book = await (await self.books()).get(page_user())
        if book is None:
            await _send(_say("book_empty"))
            return
        await _send(f"{book_table(book, thread_language())}\n\n{_say('book_help')}")

    async def _told(self, text: str) -> None:
        before = await (await self.books()).get(page_user())
        reading = read_holdings(text, before)
        with speaking(reading.language):  # answered in the words' own language
            if reading.problems:
                await _send(_problems(reading))
                return
            lead = [_say("book_read") + "\n" + "\n".join(f"- {change.told(reading.language)}"
                                                        for change in reading.changes)]
            await self._offer(before, apply_changes(before, reading.changes), lead)

    async def _offer_clear(self, symbol: str) -> None:
        if not symbol:
            await _send(_say("book_clear_which"))
            return
        before = await (await self.books()).get(page_user())
        held = before.get(symbol) if before is not None else None
        if before is None or held is None:
            await _send(_say("book_not_held", symbol=_shown_name(symbol.upper())))
            return
        await self._offer(before, before.with_position(Position(held.symbol, Decimal(0))), [])

    async def _offer_removal(self) -> None:
        before = await (await self.books()).get(page_user())
        if before is None:
            await _send(_say("book_nothing_to_remove"))
            return
        ask = _say("book_remove_ask", positions=len(before.positions), cash=money_text(before.cash),
                   currency=before.currency)
        await self._offer(before, None, [ask])

    async def _import(self, files: list[cl.Element]) -> None:
        """A broker's CSV: every row read, or every bad row listed and nothing imported."""
        if len(files) > 1:
            await _send(_say("book_csv_one"))
            return
        file = files[0]
        name = _shown_name(file.name)
        with contextlib.suppress(Exception):  # the sidebar's name; the import goes on without it
            await name_if_untitled(cl.context.session.thread_id, _say("name_upload", name=name))
        if not _is_csv(file):
            await _send(_say("book_csv_only", name=name))
            return
        try:
            data = _content(file)
        except OSError:
            await _send(_say("book_csv_unreadable", name=name))
            return
        before = await (await self.books()).get(page_user())
        result = read_csv(data, currency=before.currency if before is not None else "USD")
        if result.book is None:
            await _send(_csv_errors(result, name, thread_language()))
            return
        after = result.book
        if not result.has_cash and before is not None:
            after = after.with_cash(before.cash)  # a positions-only export leaves the cash the user told
        lead = [_say("book_csv_title", name=name, rows=result.rows)]
        tail = [_say("book_csv_cash_kept")] if not result.has_cash and before is not None else []
        if result.notes:
            tail.append(_say("book_csv_notes") + "\n"
                        + "\n".join(f"- {note.told(thread_language())}" for note in result.notes))
        await self._offer(before, after, lead, tail)

    async def _offer(self, before: Book | None, after: Book | None, lead: list[str],
                     tail: list[str] | None = None) -> None:
        """The change before → after with Store (or Remove) and Cancel; nothing is stored here."""
        if after is not None and after == (before or Book(currency=after.currency)):
            await _send(_say("book_same"))
            return
        parts = [*lead, *([change_table(before, after, thread_language())] if after is not None else []),
                 *(tail or [])]
        body = {"before": before.to_json() if before is not None else None,
                "after": after.to_json() if after is not None else None}
        removal = (Button(STORE_ACTION, "chat.book_remove", "trash-2", "chat.book_remove_tooltip"),) if after is None \
            else ()
        await (await self.offers.message("\n\n".join([*parts, _say("book_confirm")]), body,
                                         instead=removal)).send()

    # -- the buttons ------------------------------------------------------------------------------------

    async def store_pressed(self, answer: Answer) -> None:
        """Store (or Remove) pressed: said in the offer's language (the kit answers inside `speaking`)."""
        user = answer.user
        before, after = (_book(answer.body.get("before")), _book(answer.body.get("after")))
        async with self._writing:
            books = await self.books()
            if await books.get(user) != before:
                await _send(_say("book_changed"))
                return
            if after is None:
                await books.remove(user)
                await _send(_say("book_removed"))
                return
            await books.put(user, after)
        await _send(f"{_say('book_stored')}\n\n{book_table(after, answer.language)}")

    async def cancel_pressed(self, answer: Answer) -> None:
        await _send(_say("book_cancelled"))


def _book(value: object) -> Book | None:
    return Book.from_json(value) if isinstance(value, dict) else None


def _problems(reading: Reading) -> str:
    lang = reading.language
    lines = [_say("book_problems"),
             *(_say("book_problem_line", text=p.text, reason=p.told(lang)) for p in reading.problems)]
    if reading.changes:
        changes = _say("note_separator").join(c.told(lang) for c in reading.changes)
        lines += ["", _say("book_read_part", changes=changes)]
    return "\n".join(lines)


def _csv_errors(result: CsvImport, name: str, language: str) -> str:
    lines = [_said_in(language, "book_csv_errors", name=name),
             *(f"- {error.told(language)}" for error in result.errors), "", _said_in(language, "book_csv_fix")]
    return "\n".join(lines)


def _is_csv(file: cl.Element) -> bool:
    return (file.mime or "").split(";")[0].strip().lower() in CSV_TYPES or (file.name or "").lower().endswith(".csv")


def _content(file: cl.Element) -> bytes:
    """The attached file's bytes (Chainlit keeps an upload in the session's folder, at `path`)."""
    if file.path:
        with Path(file.path).open("rb") as handle:
            return handle.read(MAX_FILE_BYTES)
    content = file.content or b""
    return content.encode() if isinstance(content, str) else content
