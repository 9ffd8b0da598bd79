"""The desk as an MCP server (the `mcp` SDK's low-level server): its tools, each with a description and JSON schemas
for what it takes and returns, and the user's threads as resources. What each does is graph/mcp/service.py's; this
binds it to the protocol:

- a tool's reply is its structured content (the output schema's) plus a short text; a refusal or a failure is a
  tool error whose text is one plain sentence, never a traceback;
- a tool that runs the desk sends a progress notification at each persona's turn (each day of a backtest), when the
  client asked for progress;
- an MCP cancellation stops the run as the chat's Stop does: the run's task is cancelled, its lease let go, and the
  thread keeps every finished turn (the resume tool goes on). The run is a task of its own, so what it does on the
  way out (its lease, its checkpoint) is not cut short by the request's cancellation.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar
from urllib.parse import unquote

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl, BaseModel, ConfigDict, Field, ValidationError

from ..core.errors import explain
from .replies import (
    BacktestPlanReply,
    BacktestReply,
    BookReply,
    CompareReply,
    DeskReply,
    RecordReply,
    ThreadInfo,
)
from .service import DeskService, Refusal, Replied, Report

NAME = "trading-desk"
STOP_WAIT_S = 15.0  # how long a cancelled run may take to put itself away (its lease, the last checkpoint)
URI = "desk://threads/{thread_id}/{part}"
PARTS = {"report": ("text/markdown", "The thread's whole deliberation as one Markdown document."),
         "decision": ("application/json", "The thread's latest ruling (signal, size, entry, stop, horizon, "
                                          "confidence, rationale) as JSON; null while it has none.")}
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for a resource that is not there

INSTRUCTIONS = (
    "Trading Desk: a team of AI personas deliberates on a stock (analysts, a bull/bear debate, a trader, a risk "
    "debate) and a Risk Judge rules BUY, SELL or HOLD with size, entry, stop, horizon and confidence. Use analyse "
    "for one stock, compare for several, follow_up to ask about a thread afterwards, resume after a stop. Your "
    "track record, backtests and book are tools too. Each thread's report and decision are resources "
    "(desk://threads/{thread_id}/report, /decision). Decisions are research, not financial advice; in demo mode "
    "every figure is synthetic.")

T = TypeVar("T")


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AnalyseArgs(Args):
    request: str = Field("", description="the question in words, in any language the desk reads: “should I buy "
                                         "NVDA today?”, “thoughts on Apple last Friday?”, “英伟达今天能买吗？”")
    ticker: str = Field("", description="instead of words: a ticker, e.g. NVDA, 0700.HK, 600519.SS")
    trade_date: date | None = Field(None, description="with ticker: the day to analyse as of (YYYY-MM-DD); the "
                                                      "last session on or before it is used; today by default")
    thread_id: str = Field("", description="one of your threads to analyse in (a new thread by default)")


class FollowUpArgs(Args):
    thread_id: str = Field(description="the thread, as analyse or compare returned it")
    question: str = Field(description="e.g. “why was the bear worried?”, “what was the RSI?”, “空头为什么担心？”")


class ResumeArgs(Args):
    thread_id: str = Field(description="the thread whose run stopped (cancelled, failed or cut off)")


class CompareArgs(Args):
    request: str = Field("", description="in words: “NVDA or AMD?”, “compare AAPL and MSFT”, “比较苹果和微软”")
    tickers: list[str] = Field(default_factory=list, description="instead of words: 2 to 5 tickers")
    trade_date: date | None = Field(None, description="with tickers: the shared day (YYYY-MM-DD); today by default")
    confirm_cost: bool = Field(False, description="with a live model, more than two tickers run only when set, "
                                                  "after the cost was stated")


class RecordArgs(Args):
    ticker: str = Field("", description="only this ticker's calls (all of them by default)")


class PlanBacktestArgs(Args):
    request: str = Field("", description="in words: “backtest NVDA from January to March 2024”, “backtest AAPL, "
                                         "GOOGL and AMZN on the paper's window every 5 days”, "
                                         "“回测英伟达 2024年1月到3月”")
    tickers: list[str] = Field(default_factory=list, description="instead of words: the tickers")
    start: date | None = Field(None, description="with tickers: the window's first day (YYYY-MM-DD)")
    end: date | None = Field(None, description="with tickers: the window's last day (YYYY-MM-DD)")
    every: int = Field(1, ge=1, le=63, description="deliberate every N-th trading day")
    budget: int | None = Field(None, ge=1, description="refuse a plan expected to spend more tokens than this")
    resume_id: str = Field("", description="instead: a stopped backtest's id, to plan what is left of it")


class RunBacktestArgs(Args):
    plan_id: str = Field(description="the plan_id plan_backtest returned; a plan runs once")


class NoArgs(Args):
    pass


class ThreadList(BaseModel):
    threads: list[ThreadInfo]


Call = Callable[[DeskService, Any, Report], Awaitable[Replied]]


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    args: type[Args]
    reply: type[BaseModel]
    call: Call
    read_only: bool = False

    def listed(self) -> types.Tool:
        return types.Tool(name=self.name, title=self.title, description=self.description,
                          inputSchema=self.args.model_json_schema(), outputSchema=self.reply.model_json_schema(),
                          annotations=types.ToolAnnotations(title=self.title, readOnlyHint=self.read_only,
                                                            destructiveHint=False, openWorldHint=False))


async def _threads(service: DeskService, args: NoArgs, report: Report) -> Replied:
    threads = await service.threads()
    lines = [f"{t.thread_id} · {t.ticker or '—'} {t.signal or ''} · {t.at[:16]} · {t.title}" for t in threads]
    return Replied(ThreadList(threads=threads), "\n".join(lines) or "—")


TOOLS: tuple[Tool, ...] = (
    Tool("analyse", "Analyse a stock",
         "Ask the trading desk for a decision on one instrument (a stock, fund, index, coin, currency pair or "
         "future). Four analysts gather market, social, news and fundamentals data (a Macro Analyst too when "
         "chosen), a Bull and a Bear researcher debate, a Research Manager and a Trader plan, a risk "
         "debate follows, and the Risk Judge rules BUY, SELL or HOLD with position size, entry, stop, horizon, "
         "confidence and rationale. Give `request` in words, in any language the desk reads, or a `ticker` and "
         "optionally a `trade_date`. A progress notification comes at each persona's turn (about a minute with a "
         "hosted model). Returns the ruling, the thread id (for follow_up, and the resources "
         "desk://threads/{thread_id}/report and /decision) and the tokens the run spent. When the desk needs a "
         "clearer request it asks back (outcome \"question\"): answer it with follow_up. Cancelling the call stops "
         "the run; the resume tool continues it.",
         AnalyseArgs, DeskReply,
         lambda s, a, r: s.analyse(a.request, a.ticker, a.trade_date, a.thread_id or None, r)),
    Tool("follow_up", "Ask about a thread",
         "Ask a follow-up on one of your threads, answered from its stored deliberation without a new analysis "
         "(“why was the bear worried?”, “what was the RSI?”, “which was riskier?” after a comparison). A new "
         "ticker or date starts a new analysis in the same thread. Also how to answer the desk's question back.",
         FollowUpArgs, DeskReply, lambda s, a, r: s.follow_up(a.thread_id, a.question, r)),
    Tool("resume", "Resume a stopped run",
         "Continue a thread's run that stopped (a cancelled call, a failure, a crash) from its last finished "
         "turn: finished turns are not asked again. Returns as analyse does.",
         ResumeArgs, DeskReply, lambda s, a, r: s.resume(a.thread_id, r)),
    Tool("compare", "Compare several stocks",
         "Compare 2 to 5 tickers: each gets its own full deliberation on the same trade date (each an ordinary "
         "thread), then a Comparison turn ranks them. Give `request` in words (“NVDA or AMD?”) or `tickers`. "
         "Progress comes at each persona's turn of each desk. Ask follow-ups on the returned thread_id.",
         CompareArgs, CompareReply,
         lambda s, a, r: s.compare(a.request, a.tickers, a.trade_date, a.confirm_cost, r)),
    Tool("track_record", "Your track record",
         "Every decision the desk made for you, scored once its horizon has passed (return close to close, "
         "alpha against the market's benchmark, right or wrong), with the hit rate and mean alpha; pending calls "
         "say when they settle. Optionally one ticker's.",
         RecordArgs, RecordReply, lambda s, a, r: s.record(a.ticker or None), read_only=True),
    Tool("plan_backtest", "Plan a backtest (runs nothing)",
         "State a backtest's plan and cost without running anything: the desk deliberates each ticker on each "
         "trading day of a window on that day's data only, and scores its signals against buy-and-hold and rule "
         "baselines (CR, ARR, SR, MDD: the TradingAgents paper's Table 1). Returns a plan_id; only run_backtest "
         "with that id runs it. Give `request` in words or `tickers`, `start` and `end`; `resume_id` plans what is "
         "left of a stopped backtest.",
         PlanBacktestArgs, BacktestPlanReply,
         lambda s, a, r: s.plan_backtest(a.request, a.tickers, a.start, a.end, a.every, a.budget,
                                         a.resume_id or None)),
    Tool("run_backtest", "Run a backtest plan",
         "Run the plan plan_backtest stated, by its plan_id (once). A progress notification comes as each day "
         "lands. Returns Table 1 in Markdown. Cancelling stops it; finished days are kept (plan_backtest with "
         "resume_id goes on).",
         RunBacktestArgs, BacktestReply, lambda s, a, r: s.run_backtest(a.plan_id, r)),
    Tool("get_book", "Your book",
         "Your holdings and cash as stored for you; the Trader and the Risk Judge size trades against them. Read "
         "only: the book is changed from the chat.",
         NoArgs, BookReply, lambda s, a, r: s.book(), read_only=True),
    Tool("list_threads", "Your threads",
         "Your threads, newest first, each with its ticker and latest signal.",
         NoArgs, ThreadList, _threads, read_only=True),
)
TOOL_BY_NAME = {t.name: t for t in TOOLS}


def _error(sentence: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=sentence)], isError=True)


def _invalid(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
    return f"{where}: {first.get('msg', 'not valid')}."


async def detached(work: Awaitable[T]) -> T:
    """Await `work` in a task of its own. The request cancelled (an MCP cancellation, the client gone), the task is
    cancelled as the chat's Stop cancels a run, and given STOP_WAIT_S to put itself away before the request ends."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait({task}, timeout=STOP_WAIT_S)
        raise


def _reporter(server: Server[Any, Any]) -> Report:
    """Progress notifications for this request, when its client asked for them (a progress token)."""
    context = server.request_context
    token = context.meta.progressToken if context.meta else None

    async def report(progress: float, total: float | None, message: str) -> None:
        if token is not None:
            await context.session.send_progress_notification(token, progress, total, message,
                                                             related_request_id=str(context.request_id))
    return report


def _thread_of(uri: AnyUrl | str) -> tuple[str, str]:
    """(thread id, part) of desk://threads/{thread_id}/{part}; ("", "") for any other URI."""
    text = str(uri)
    prefix = "desk://threads/"
    if not text.startswith(prefix):
        return "", ""
    thread, _, part = text[len(prefix):].partition("/")
    return unquote(thread), part


# The service for a request: over stdio the one user's; over HTTP (chat/features/mcp.py) the user its request was
# authenticated as (the request is Starlette's, None over stdio).
Services = Callable[[Any], DeskService]


class Handlers:
    """The protocol's requests, each answered for the user it comes from."""

    def __init__(self, services: Services, server: Server[Any, Any]) -> None:
        self.services, self.server = services, server

    @property
    def service(self) -> DeskService:
        return self.services(self.server.request_context.request)

    async def list_tools(self) -> list[types.Tool]:
        return [t.listed() for t in TOOLS]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        tool = TOOL_BY_NAME.get(name)
        if tool is None:
            return _error(f"There is no tool {name}; the desk's tools are {', '.join(TOOL_BY_NAME)}.")
        try:
            args = tool.args.model_validate(arguments)
        except ValidationError as exc:
            return _error(_invalid(exc))
        try:
            replied = await detached(tool.call(self.service, args, _reporter(self.server)))
        except Refusal as refusal:
            return _error(str(refusal))
        except Exception as exc:  # a sentence, never a traceback
            return _error(explain(exc))
        return types.CallToolResult(content=[types.TextContent(type="text", text=replied.text)],
                                    structuredContent=replied.reply.model_dump(mode="json"), isError=False)

    async def list_resources(self) -> list[types.Resource]:
        return [types.Resource(uri=AnyUrl(URI.format(thread_id=thread.thread_id, part=part)),
                               name=f"{thread.ticker} {part} ({thread.thread_id})", mimeType=mime,
                               description=f"{description} {thread.title}")
                for thread in await self.service.threads() if thread.ticker
                for part, (mime, description) in PARTS.items()]

    async def list_templates(self) -> list[types.ResourceTemplate]:
        return [types.ResourceTemplate(uriTemplate=URI.replace("{part}", part), name=f"thread {part}",
                                       mimeType=mime, description=description)
                for part, (mime, description) in PARTS.items()]

    async def read_resource(self, uri: AnyUrl) -> Iterable[ReadResourceContents]:
        thread, part = _thread_of(uri)
        if part not in PARTS:
            raise McpError(types.ErrorData(code=RESOURCE_NOT_FOUND, message=f"There is no resource {uri}."))
        try:
            text = await (self.service.report(thread) if part == "report" else self.service.decision(thread))
        except Refusal as refusal:  # another user's thread reads as one that is not there
            raise McpError(types.ErrorData(code=RESOURCE_NOT_FOUND, message=str(refusal))) from None
        return [ReadResourceContents(content=text, mime_type=PARTS[part][0])]


def build_server(services: DeskService | Services, notice: str = "") -> Server[Any, Any]:
    """The protocol bound to the desk: for one user's service (stdio), or for the service of each request's user
    (HTTP: then `notice` is the desk's mode)."""
    if isinstance(services, DeskService):
        notice, one = services.desk.models.notice, services
        services = lambda request: one  # noqa: E731
    # The mode (demo or live, and how to change it) told to the client as it connects, as the CLI's first line.
    mode = notice.replace("**", "")
    server: Server[Any, Any] = Server(NAME, instructions=f"{INSTRUCTIONS}\n\n{mode}".strip())
    handlers = Handlers(services, server)
    server.list_tools()(handlers.list_tools)
    server.call_tool()(handlers.call_tool)
    server.list_resources()(handlers.list_resources)
    server.list_resource_templates()(handlers.list_templates)
    server.read_resource()(handlers.read_resource)
    return server


__all__ = ["TOOLS", "build_server", "detached"]
