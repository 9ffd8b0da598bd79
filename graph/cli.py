"""Headless desk: `python -m graph "should I buy NVDA today?"` prints every persona as it speaks;
`python -m graph backtest AAPL --start … --end …` runs it over a window of days (graph/backtest/);
`python -m graph paper` follows the user's calls on paper (graph/paper/)."""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import unicodedata
import uuid
from collections.abc import AsyncIterator
from datetime import date
from decimal import Decimal
from functools import partial
from typing import Any, TextIO

from langchain_core.callbacks import UsageMetadataCallbackHandler

from graph.core import clock

from .asking import read_asked
from .backtest.ask import Ask
from .book.holdings import money
from .compare import headless as compare_headless
from .compare.ask import CompareAsk
from .compare.flow import Comparison
from .core import stopping
from .core.context import LOCAL_USER
from .core.errors import explain
from .core.events import Event, NodeDone, Said, Token, ToolStarted, TurnRestarted
from .core.personas import ANALYST_KINDS, DEFAULT_ANALYST_KINDS, DESK, RISK_JUDGE, persona_label
from .core.plan import RunPlan
from .core.settings import Settings
from .core.state import language_of
from .core.usage import this_run, usage_summary
from .core.words import DEFAULT_LANGUAGE, is_language, phrase, vendor_name
from .models.registry import ModelRegistry
from .nodes.thread_language import thread_language
from .paper.book import DEFAULT_COST_BPS
from .paper.keeper import PaperError
from .persistence.lease import LeaseHeld
from .record.edits import edit_change
from .record.figures import unverified_note
from .request.resolve import resolve
from .routing import Purpose, ResumeBacktest, Route
from .runtime.branches import EditRefused
from .runtime.desk import DeskRuntime
from .track.calibration import calibration
from .track.words import recalled_line, recalled_markdown, record_answer

TAG = " · "  # between a persona and its desk's ticker in a comparison


class Printer:
    """Prints one persona at a time; parallel speakers are buffered and shown whole, in turn."""

    def __init__(self, out: TextIO | None = None, language: str = DEFAULT_LANGUAGE) -> None:
        self.out = out or sys.stdout  # sys.stdout as it is when printing starts, not at import
        self.current: str | None = None
        self.buffers: dict[str, list[str]] = {}
        self.finished: set[str] = set()
        self.language = language  # personas are headed by their label in the thread's language

    def write(self, persona: str, text: str) -> None:
        if self.current is None:
            self._open(persona)
        if persona == self.current:
            self.out.write(text)
            self.out.flush()
        else:
            self.buffers.setdefault(persona, []).append(text)

    def void(self, persona: str, text: str, line: str) -> None:
        """Words of `persona` that a failed call streamed are void (TurnRestarted): dropped while they wait
        in its buffer; a terminal cannot take back what it printed, so `line` says they are void."""
        if persona != self.current:
            waiting = "".join(self.buffers.get(persona, []))
            if waiting.endswith(text):
                self.buffers[persona] = [waiting[: len(waiting) - len(text)]]
                return
        self.write(persona, f"\n{line}\n")

    def done(self, persona: str) -> None:
        if persona != self.current:
            self.finished.add(persona)
            return
        self.out.write("\n")
        self.current = None
        while self.buffers:
            nxt = next(iter(self.buffers))
            self._open(nxt)
            self.out.write("".join(self.buffers.pop(nxt)))
            if nxt not in self.finished:
                break
            self.finished.discard(nxt)
            self.out.write("\n")
            self.current = None
        self.out.flush()

    def _open(self, persona: str) -> None:
        self.current = persona
        name, dot, tag = persona.partition(TAG)  # a comparison's desk: "Bear Researcher · AMD"
        self.out.write(f"\n▶ {persona_label(name, self.language)}{dot}{tag}\n")


async def run(args: argparse.Namespace, settings: Settings, thread: str) -> int:
    usage = UsageMetadataCallbackHandler()
    async with DeskRuntime.open(settings) as desk:
        # The opening lines, and an error's sentence (_run_reporting), in the request's language where
        # it is known: the thread's, else the one the request is written in.
        args.language = thread_language(settings.language, (await desk.state(thread)).get("language"), args.text or "")
        print(f"{desk.models.notice_in(args.language)}\n"
              + phrase(args.language, "chat.market_data", label=vendor_name(desk.vendor.label, args.language)))
        text, plan = None, None   # None: an edit or a resume continues the thread
        if not (args.edit or args.resume):
            # What the words are for (graph/asking.py, the MCP server's too; its router is the chat's).
            asked = await read_asked(desk, args.user, thread, args.text, args.today or clock.today())
            if asked.problem:
                print(asked.problem, file=sys.stderr)
            if not asked.usable:
                return 2
            text = asked.text
            plan = desk.plan(analysts=args.analysts, debate_rounds=args.debate_rounds, risk_rounds=args.risk_rounds)
            if asked.followed is not None:
                return await _compare_followup(args, asked.followed, text)  # "which was riskier?" after a comparison
            routed = asked.route
            if isinstance(routed.read, CompareAsk):  # "NVDA or AMD?"
                return await _compare(args, desk, thread, plan, routed.read, text)
            if routed.purpose is not Purpose.DESK:  # the book, a watch, a backtest: said where they are done
                print(elsewhere(routed, args.language), file=sys.stderr)
                return 2
            await desk.owners.claim(args.user, thread, source="cli", title=text)
        elif args.resume and (comparison := await Comparison.stored(desk, args.user, thread)) is not None:
            return await _compare_again(args, desk, comparison)
        # The thread's lease for the run: one run per thread across processes (graph/persistence/lease.py).
        async with desk.turn(thread, text, plan) as turn:
            if (refused := await _continue(args, desk, thread)) is not None:
                return refused
            context = desk.context(today=args.today, user=args.user, source="cli")
            # The Desk speaks before the coordinator's update says the thread's language: reckoned
            # here the same way (graph/nodes/thread_language.py), then taken from that update.
            language = thread_language(settings.language, (await desk.state(thread)).get("language"), text or "")
            await _show(turn.events(context, callbacks=[usage]), args.quiet_tools, language)
            state = await desk.state(thread)
    _print_outcome(args, state, thread, usage)
    return 2 if state.get("intent") == "clarify" else 0


def elsewhere(routed: Route, language: str) -> str:
    """Where what the words ask for is done, when it is not a deliberation: the book, watches and personal tokens in
    the chat (the CLI changes none of them; tokens also with `python -m chat.users token`), a backtest with
    `python -m graph backtest`, its command written out from the words."""
    read = routed.read
    if isinstance(read, ResumeBacktest):
        return phrase(language, "cli.routed_backtest", command=f"python -m graph backtest --resume {read.backtest_id}")
    if isinstance(read, Ask):
        if read.problem or read.start is None or read.end is None:
            return read.problem
        every = f" --every {read.every}" if read.every > 1 else ""
        budget = f" --budget {read.budget}" if read.budget else ""
        command = (f"python -m graph backtest {' '.join(read.tickers)} --start {read.start.isoformat()} "
                   f"--end {read.end.isoformat()}{every}{budget}")
        return phrase(language, "cli.routed_backtest", command=command)
    if routed.purpose is Purpose.TOKENS:
        return phrase(language, "cli.routed_tokens")
    if routed.purpose is Purpose.PAPER:
        return phrase(language, "cli.routed_paper")
    return phrase(language, "cli.routed_book" if routed.purpose is Purpose.BOOK else "cli.routed_watch")


async def _compare(args: argparse.Namespace, desk: DeskRuntime, thread: str, plan: RunPlan, ask: CompareAsk,
                   text: str) -> int:
    """Several tickers at once (graph/compare/): a desk each, side by side, then the Comparison turn."""
    if ask.problem:
        print(ask.problem, file=sys.stderr)
        return 2
    if not compare_headless.confirm_cost(ask, plan, desk.models.live, args.yes):
        return 2
    context = desk.context(today=args.today, user=args.user, source="cli")
    comparison = await Comparison.new(desk, args.user, thread, ask, text, plan=plan, context=context)
    for owned in (thread, *comparison.record.threads.values()):
        await desk.owners.claim(args.user, owned, source="cli", title=text)
    return await _compare_run(args, desk, comparison)


async def _compare_followup(args: argparse.Namespace, comparison: Comparison, text: str) -> int:
    printer = Printer(language=comparison.record.language)
    async for piece in comparison.followup(text):
        if isinstance(piece, Token):
            printer.write(DESK, piece.text)
        elif isinstance(piece, TurnRestarted):
            printer.void(DESK, piece.text, phrase(printer.language, "cli.restarted_" + piece.reason))
    printer.done(DESK)
    print(f"\nthread {comparison.record.parent}")
    return 0


async def _compare_again(args: argparse.Namespace, desk: DeskRuntime, comparison: Comparison) -> int:
    """--resume on a comparison's thread: its desks go on where they stopped, then the comparison."""
    if not await comparison.interrupted():
        print(f"thread {comparison.record.parent} has no interrupted comparison to resume", file=sys.stderr)
        return 2
    comparison.context = desk.context(today=args.today, user=args.user, source="cli")
    comparison.runner.context = comparison.context
    return await _compare_run(args, desk, comparison, resumed=True)


async def _compare_run(args: argparse.Namespace, desk: DeskRuntime, comparison: Comparison,
                       resumed: bool = False) -> int:
    printer = Printer(language=comparison.record.language)

    async def show(events: AsyncIterator[Event], ticker: str) -> None:
        await _show(events, args.quiet_tools, printer.language, printer, tag=ticker)

    return await compare_headless.run(desk, comparison, printer, show, resumed=resumed)


async def _continue(args: argparse.Namespace, desk: DeskRuntime, thread: str) -> int | None:
    """An edit forks the thread, a resume checks there is a run to resume; 2 when neither can be."""
    if args.edit:
        try:
            fork = await desk.fork(thread, args.edit, args.edit_text)
        except EditRefused as exc:
            print(exc, file=sys.stderr)
            return 2
        print(f"edited the {fork.step.label} (step {fork.step.id}); the desk goes on from the "
              f"{', '.join(fork.next_personas) or 'end'}, everything before is kept")
    elif args.resume:
        stopped = await desk.interrupted(thread)
        if stopped is None:
            print(f"thread {thread} has no interrupted run to resume", file=sys.stderr)
            return 2
        print(f"resuming thread {thread} at the {', '.join(dict.fromkeys(stopped.personas))}")
    return None


def _tagged(persona: str, tag: str) -> str:
    return f"{persona}{TAG}{tag}" if tag else persona


def unstreamed(shown: str, kept: str) -> str:
    """What of a turn as kept did not stream: the chat replaces a turn's streamed words with the
    turn as kept, a terminal cannot, so the CLI prints what the kept turn adds. Most often the
    kept turn is the tail of what streamed (words before tool calls are not kept) and adds
    nothing; an analyst's report written from the desk's fetch adds the line that says so; a turn
    that kept none of what streamed (its answer stalled and was asked again) is printed whole."""
    shown, kept = shown.rstrip(), kept.strip()
    if not kept or shown.endswith(kept):
        return ""
    # The longest start of the kept turn that streamed last (a few words at least: one shared
    # full stop is no overlap).
    for end in range(len(kept) - 1, min(40, len(kept) // 2), -1):
        if not kept[end - 1].isspace() and shown.endswith(kept[:end]):
            return kept[end:]
    return "\n  ⟲ As kept:\n" + kept + "\n" if shown else kept + "\n"


def _void(ev: TurnRestarted, streamed: dict[str, str], printer: Printer, persona: str) -> None:
    """A call's streamed words are void (it was cut off or stalled): not held against the turn as kept,
    and dropped or said void on the terminal."""
    if (was := streamed.get(ev.persona, "")).endswith(ev.text):
        streamed[ev.persona] = was[: len(was) - len(ev.text)]
    printer.void(persona, ev.text, phrase(printer.language, "cli.restarted_" + ev.reason))


def _kept(ev: NodeDone, kept: str, shown: str, printer: Printer, key: str) -> None:
    """A turn ended: what of it as kept did not stream, and a figure no data holds flagged under it."""
    if rest := unstreamed(shown, kept):
        printer.write(key, rest)
    if flagged := ev.unverified:  # as the chat shows it under the turn: a figure no data holds
        printer.write(key, f"\n  ⚠ {unverified_note(flagged)}\n")
    printer.done(key)


async def _show(events: AsyncIterator[Event], quiet_tools: bool, language: str = DEFAULT_LANGUAGE,
                printer: Printer | None = None, tag: str = "") -> None:
    """Print a run's events. `printer` and `tag`: one desk of a comparison, its personas headed with its ticker
    on the printer the desks share."""
    printer = printer or Printer(language=language)
    streamed: dict[str, str] = {}  # each persona's words as they went out, to hold against its turn as kept
    key = partial(_tagged, tag=tag)
    async for ev in events:
        if isinstance(ev, NodeDone) and ev.node == "coordinator" and "language" in ev.update:
            printer.language = language_of(ev.update)
        if isinstance(ev, Token):
            printer.write(key(ev.persona), ev.text)
            streamed[ev.persona] = streamed.get(ev.persona, "") + ev.text
        elif isinstance(ev, TurnRestarted):
            _void(ev, streamed, printer, key(ev.persona))
        elif isinstance(ev, Said):
            printer.write(key(ev.persona), ev.text)
            printer.done(key(ev.persona))
        elif isinstance(ev, ToolStarted) and not quiet_tools:
            printer.write(key(ev.persona), f"\n  ⚙ {ev.tool}({json.dumps(ev.args)})\n")
        elif isinstance(ev, NodeDone) and ev.node == "coordinator" and (recalled := ev.update.get("track_record")):
            # What this analysis recalled, in the thread's language (the coordinator's update set it above).
            printer.write(key("Track record"), recalled_markdown(recalled, printer.language))
            printer.done(key("Track record"))
        elif isinstance(ev, NodeDone) and (said := ev.spoken) is not None and ev.node != "coordinator":
            _kept(ev, str(said.content), streamed.pop(str(said.name), ""), printer, key(str(said.name)))


def _print_outcome(args: argparse.Namespace, state: dict[str, Any], thread: str,
                   usage: UsageMetadataCallbackHandler) -> None:
    decision = state.get("final_decision")
    # The card's words in the thread's language (prompts/words_<code>.md); values, tickers and signals as they are.
    lang = language_of(state)
    if state.get("intent") == "analyze" and decision is not None:
        title = phrase(lang, "card.title", ticker=decision.ticker, trade_date=decision.trade_date,
                       signal=decision.signal)
        print(f"\n══ {title} ══")
        for label, value in decision.rows(lang)[1:-1]:  # the signal is in the title, the rationale was said
            print(f"  {_padded(label)}{value}")
        if calls := [f"{persona_label(p, lang)} {c}" for p, c in (state.get("plan_calls") or {}).items() if c]:
            chain = " → ".join([*calls, f"{persona_label(RISK_JUDGE, lang)} {decision.signal}"])
            print(f"  {_padded(phrase(lang, 'card.along_the_way'))}{chain}")
        if decision.read:
            print(f"  {_padded(phrase(lang, 'card.ruling_read'))}{phrase(lang, 'read.' + decision.read)}")
        if decision.words_say:
            print("\n" + phrase(lang, "card.disagree", words=decision.words_say, signal=decision.signal))
        if line := recalled_line(state.get("track_record") or {}, lang):
            print(f"  {_padded(phrase(lang, 'card.track_record'))}"
                  f"{phrase(lang, 'card.track_line', line=line, ticker=decision.ticker)}")
        _print_sizing(state.get("sizing"), lang)
        if args.edit and (change := edit_change(state)):
            print("\n" + phrase(lang, "card.edit_change", change=change))
    if spent := usage_summary(this_run(state), lang):  # the run's tokens per persona (graph/core/usage.py)
        print(f"\n{spent}")
    tokens = sum(u.get("total_tokens", 0) for u in usage.usage_metadata.values())
    print("\n" + phrase(lang, "cli.run_end", thread=thread, tokens=tokens, question=phrase(lang, "cli.your_question")))


def _print_sizing(sizing: dict[str, Any] | None, lang: str) -> None:
    """The ruling against the user's book (graph/book/sizing.py), under the card's figures."""
    if not sizing or not sizing.get("summary"):
        return
    print(f"  {_padded(phrase(lang, 'card.book'))}{sizing['summary']}")
    if sizing.get("cash_before"):
        held = phrase(lang, "card.book_position", before=sizing.get("before") or "—", after=sizing.get("after") or "—")
        print(f"  {_padded('')}{held} · cash {sizing['cash_before']} → {sizing.get('cash_after')}")


def _padded(label: str, width: int = 14) -> str:
    """`label` padded to `width` terminal columns: a CJK character takes two."""
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in label)
    return label + " " * max(1, width - columns)


async def show_past(args: argparse.Namespace, settings: Settings, thread: str) -> int:
    """--history, --branches, --switch: the thread's branches, read (or switched) without running anything."""
    async with DeskRuntime.open(settings) as desk:
        if not await desk.has_thread(thread):
            print(f"no thread {thread}", file=sys.stderr)
            return 2
        if args.switch:
            try:
                await desk.switch_branch(thread, args.switch)
            except EditRefused as exc:
                print(exc, file=sys.stderr)
                return 2
        if args.history:
            for step in await desk.history(thread):
                print(f"{step.id:<13} {step.persona:<21} {step.first_words}")
        else:
            for branch in await desk.branches(thread):
                print(f"{'*' if branch.current else ' '} {branch.head}  {branch.title}")
    return 0


async def show_record(args: argparse.Namespace, settings: Settings) -> int:
    """--record: the user's calls, scored where their horizon has passed, as the chat's /record shows them."""
    today = args.today or clock.today()
    async with DeskRuntime.open(settings) as desk:
        calls = await desk.track.calls(args.user, today, ticker=args.ticker)
        # No thread to take a language from: DESK_LANGUAGE's when it names one, else English.
        language = settings.language if is_language(settings.language) else DEFAULT_LANGUAGE
        print(record_answer(calls, args.ticker, today, language))
    return 0


def parse(text: str, today: date | None, has_decision: bool) -> int:
    """--parse: how one sentence is understood, as JSON on the last line (the reason on the line before)."""
    settings = Settings()
    model = ModelRegistry(settings).quick(None) if settings.live else None
    parsed = asyncio.run(resolve(text, today or clock.today(), has_decision=has_decision, model=model))
    print(parsed.reason)
    print(json.dumps(parsed.model_dump(mode="json")))
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m graph", description="Run the trading desk headless.")
    ap.add_argument("text", nargs="?", help='what you would type in the chat, e.g. "should I buy NVDA today?"')
    ap.add_argument("--thread", help="continue a stored thread (ask a follow-up)")
    ap.add_argument("--resume", action="store_true",
                    help="with --thread: continue the thread's interrupted run from its last checkpoint")
    ap.add_argument("--today", type=date.fromisoformat, help="pretend today is YYYY-MM-DD")
    ap.add_argument("--analysts", type=lambda s: [a.strip() for a in s.split(",") if a.strip()],
                    help=f"comma-separated subset of {','.join(ANALYST_KINDS)} "
                         f"(default: DESK_ANALYSTS, else {','.join(DEFAULT_ANALYST_KINDS)})")
    ap.add_argument("--debate-rounds", type=int)
    ap.add_argument("--risk-rounds", type=int)
    ap.add_argument("--quiet-tools", action="store_true", help="do not print tool calls")
    ap.set_defaults(language=DEFAULT_LANGUAGE)  # the request's, once run() knows it
    ap.add_argument("--history", action="store_true",
                    help="with --thread: list the steps of the thread's current branch (id, persona, first words)")
    ap.add_argument("--edit", metavar="STEP",
                    help="with --thread and --text-file: fork after STEP (an id from --history) with the file's "
                         "text as that persona's words, and re-run what follows")
    ap.add_argument("--text-file", metavar="FILE", help="the edited words for --edit ('-' reads stdin)")
    ap.add_argument("--branches", action="store_true", help="with --thread: list the thread's branches (* = current)")
    ap.add_argument("--switch", metavar="HEAD", help="with --thread: make the branch HEAD (from --branches) current")
    ap.add_argument("--parse", action="store_true",
                    help="only show how TEXT is understood: one JSON object (intent, ticker, trade_date, ...) "
                         "on the last line; runs nothing")
    ap.add_argument("--has-decision", action="store_true", help="with --parse: as if the thread holds a decision")
    ap.add_argument("--record", action="store_true",
                    help="print the track record: every logged call, its outcome once its horizon has passed")
    ap.add_argument("--ticker", type=lambda s: s.strip().upper(), help="with --record: only this ticker's calls")
    ap.add_argument("--user", default=LOCAL_USER,
                    help=f"whose track record the run writes and --record reads (default: {LOCAL_USER})")
    ap.add_argument("--yes", action="store_true",
                    help="run a live comparison of more than two tickers without asking (its cost is still printed)")
    return ap


def _check(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (exit 2, with the reason) options that do not go together."""
    if args.analysts and (bad := set(args.analysts) - set(ANALYST_KINDS)):
        ap.error(f"unknown analysts {sorted(bad)}; choose from {', '.join(ANALYST_KINDS)}")
    if args.resume and not args.thread:
        ap.error("--resume needs --thread ID")
    if (args.history or args.branches or args.switch or args.edit) and not args.thread:
        ap.error("--history, --branches, --switch and --edit need --thread ID")
    if args.edit and not args.text_file:
        ap.error("--edit needs --text-file FILE with the persona's new words")
    if args.ticker and not args.record:
        ap.error("--ticker goes with --record")
    if (args.parse or not (args.resume or args.edit or args.history or args.branches or args.switch or args.record)) \
            and not args.text:
        ap.error("say what to ask, e.g. \"should I buy NVDA today?\"")


def _backtest_parser(settings: Settings) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m graph backtest",
        description="Run the desk over a window of trading days, one deliberation per ticker and day on that "
                    "day's data only, and score its signals against buy-and-hold and four rule baselines "
                    "(the TradingAgents paper's Table 1).")
    ap.add_argument("tickers", nargs="*", help="the tickers, e.g. AAPL GOOGL AMZN")
    ap.add_argument("--start", type=date.fromisoformat, help="the window's first day, YYYY-MM-DD")
    ap.add_argument("--end", type=date.fromisoformat, help="the window's last day, YYYY-MM-DD")
    ap.add_argument("--every", type=int, default=1, metavar="N", help="deliberate every N trading days (default 1)")
    ap.add_argument("--analysts", type=lambda s: [a.strip() for a in s.split(",") if a.strip()],
                    help=f"comma-separated subset of {','.join(ANALYST_KINDS)} "
                         f"(default: DESK_ANALYSTS, else {','.join(DEFAULT_ANALYST_KINDS)})")
    ap.add_argument("--debate-rounds", type=int)
    ap.add_argument("--risk-rounds", type=int)
    ap.add_argument("--concurrency", type=int, metavar="N",
                    help=f"days deliberated at once (default {settings.backtest_concurrency}, "
                         "DESK_BACKTEST_CONCURRENCY); 1 gives every day all the calls settled before it")
    ap.add_argument("--budget", type=int, metavar="TOKENS",
                    help="refuse a plan expected to spend more tokens, and start no day past it")
    ap.add_argument("--yes", action="store_true", help="run without asking (needed when there is no terminal)")
    ap.add_argument("--resume", metavar="ID", help="go on with a stored backtest: finished days are kept")
    ap.add_argument("--out", metavar="DIR", help="where the Markdown and the daily CSV go (default: ./backtests)")
    ap.add_argument("--long-only", dest="mode", action="store_const", const="long_only", default="long_short",
                    help="SELL goes flat instead of short")
    ap.add_argument("--cost-bps", type=float, default=0.0, metavar="BP", help="cost per unit of position change")
    ap.add_argument("--risk-free", type=float, default=0.0, metavar="RATE", help="annual risk-free rate for SR")
    ap.add_argument("--today", type=date.fromisoformat, help="pretend today is YYYY-MM-DD")
    ap.add_argument("--user", default=LOCAL_USER, help=f"whose backtest it is (default: {LOCAL_USER})")
    ap.add_argument("--server", metavar="URL", default=None,
                    help="deliberate the days on this LangGraph Server (`langgraph dev`, langgraph.json) as background "
                         "runs; --concurrency is then the days in flight there (default: DESK_BACKTEST_SERVER; "
                         "'' runs them here)")
    ap.add_argument("--server-user", metavar="NAME",
                    help="the server's account (default: DESK_SERVER_USER, else --user); its password is "
                         "DESK_SERVER_PASSWORD, or asked at the terminal")
    return ap


def backtest(argv: list[str]) -> int:
    """`python -m graph backtest …` (graph/backtest/headless.py)."""
    from .backtest.headless import main as run_backtest  # the backtest's modules load only for it

    settings = Settings()
    ap = _backtest_parser(settings)
    args = ap.parse_args(argv)
    if args.resume and (args.tickers or args.start or args.end):
        ap.error("--resume ID goes on with the stored plan: give no tickers, --start or --end with it")
    if not args.resume and not (args.tickers and args.start and args.end):
        ap.error("name the tickers and the window, e.g. AAPL GOOGL AMZN --start 2024-01-02 --end 2024-03-28")
    if args.analysts and (bad := set(args.analysts) - set(ANALYST_KINDS)):
        ap.error(f"unknown analysts {sorted(bad)}; choose from {', '.join(ANALYST_KINDS)}")
    if args.concurrency is not None and args.concurrency < 1:
        ap.error("--concurrency is 1 or more")
    if args.budget is not None and args.budget < 1:
        ap.error("--budget is a number of tokens, 1 or more")
    return run_backtest(args)


def _paper_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m graph paper",
        description="Follow your calls on paper: each new BUY or SELL the desk rules for you fills at the open of "
                    "the first session after the day it was decided, with its size, stop and horizon. Without "
                    "--start or --stop: the paper book as of the last close, its figures, and the calibration "
                    "of your track record.")
    ap.add_argument("--start", metavar="AMOUNT", help="opt in: follow your calls from now on, starting with AMOUNT")
    ap.add_argument("--cost-bps", type=Decimal, default=DEFAULT_COST_BPS, metavar="BP",
                    help=f"with --start: the cost of each fill in basis points of its amount (default "
                         f"{DEFAULT_COST_BPS})")
    ap.add_argument("--stop", action="store_true", help="opt out: follow no call logged from now on")
    ap.add_argument("--today", type=date.fromisoformat, help="pretend today is YYYY-MM-DD (for the view)")
    ap.add_argument("--user", default=LOCAL_USER, help=f"whose paper book (default: {LOCAL_USER})")
    return ap


async def show_paper(args: argparse.Namespace, settings: Settings) -> int:
    """`python -m graph paper`: opt in (--start), opt out (--stop), or the book settled as of today's last close."""
    from .backtest.metrics import curve_metrics  # quantstats loads only for the figures
    from .paper import words

    language = settings.language if is_language(settings.language) else DEFAULT_LANGUAGE
    say = partial(phrase, language)
    async with DeskRuntime.open(settings) as desk:
        keeper = desk.paper
        if args.start is not None:
            try:
                book = await keeper.start(args.user, args.start, clock.now(), cost_bps=args.cost_bps)
            except PaperError:
                current = await keeper.books.get(args.user)
                if current is not None and current.following:
                    print(say("paper.already", since=words.heading(current, language)), file=sys.stderr)
                else:
                    print(say("paper.bad_amount", amount=args.start), file=sys.stderr)
                return 2
            print(say("paper.started", amount=money(book.start_amount), cost=book.cost_bps))
            print(say("paper.rules"))
            return 0
        if args.stop:
            stopped = await keeper.stop(args.user, clock.now())
            print(say("paper.stopped_now") if stopped is not None else say("paper.not_started"))
            return 0 if stopped is not None else 2
        today = args.today or clock.today()
        paper = await keeper.settle(args.user, today)
        if paper is None:
            print(say("paper.none"))
            return 0
        mine, benches = words.figures(paper, curve_metrics)
        calls = await desk.track.calls(args.user, today)
        print(words.paper_answer(paper, mine, benches, calibration(calls), language))
    return 0


def paper(argv: list[str]) -> int:
    """`python -m graph paper …` (graph/paper/)."""
    ap = _paper_parser()
    args = ap.parse_args(argv)
    if args.start is not None and args.stop:
        ap.error("--start and --stop do not go together")
    if not args.cost_bps.is_finite() or args.cost_bps < 0:
        ap.error("--cost-bps is a number of basis points, 0 or more")
    return asyncio.run(show_paper(args, Settings()))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # A first argument that is exactly "backtest" is the subcommand. The free-text request is one argument
    # (quoted), so "backtest NVDA from January to March" still goes to the desk as a sentence; only the bare
    # word alone, which the desk could do nothing with, changed meaning.
    if argv[:1] == ["backtest"]:
        return backtest(argv[1:])
    if argv[:1] == ["paper"]:  # the same rule: "paper" alone, not a sentence that begins with it
        return paper(argv[1:])
    ap = _parser()
    args = ap.parse_args(argv)
    _check(ap, args)
    if args.parse:
        return parse(args.text, args.today, args.has_decision)
    if args.history or args.branches or args.switch:
        return asyncio.run(show_past(args, Settings(), args.thread))
    if args.record:
        return asyncio.run(show_record(args, Settings()))
    if args.edit:
        with (sys.stdin if args.text_file == "-" else open(args.text_file, encoding="utf-8")) as f:
            args.edit_text = f.read()
    thread = args.thread or uuid.uuid4().hex[:12]
    # The thread id comes first, so a run killed half-way can still be resumed.
    print(f"thread {thread}", flush=True)
    return _run_reporting(args, thread)


def _language(args: argparse.Namespace) -> str:
    """The language the run's lines are in: the thread's (set once the run began), else English."""
    return str(getattr(args, "language", None) or DEFAULT_LANGUAGE)


def _run_reporting(args: argparse.Namespace, thread: str) -> int:
    """Run, and say how to go on when the run does not end well."""
    resume = f"python -m graph --thread {thread} --resume"
    try:
        return stopping.run(run(args, Settings(), thread))  # SIGTERM stops it as Ctrl-C does
    except KeyboardInterrupt as stopped:
        print("\n" + phrase(_language(args), "cli.stopped", resume=resume), file=sys.stderr)
        return stopping.exit_code(stopped)
    except asyncio.CancelledError:  # only the lease's keeper cancels the run: it could not renew in time
        print("\n" + phrase(_language(args), "cli.lease_lost", thread=thread, resume=resume), file=sys.stderr)
        return 1
    except LeaseHeld:
        print("\n" + phrase(_language(args), "cli.lease_held", thread=thread), file=sys.stderr)
        return 1
    except Exception as exc:
        print("\n" + phrase(_language(args), "cli.failed", reason=explain(exc, _language(args)), resume=resume),
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
