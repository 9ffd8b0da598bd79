# graph/'s public face: what the chat, the benchmarks and LangGraph Server use. Loaded lazily
# (graph/__init__.py), so importing one room of graph/ does not import them all.
from .backtest.ask import Ask, read_ask
from .backtest.flow import (
    DESK_STRATEGY,
    PlanRefused,
    Prepared,
    backtest_desk,
    confirmed,
    prepare_new,
    prepare_resume,
    scored,
)
from .backtest.metrics import CurveMetrics, curve_metrics
from .backtest.progress import landed, stopwatch
from .backtest.record import Backtest, Day, Records
from .backtest.result import Result
from .backtest.runner import Days, Progress, Runner
from .backtest.server_days import settings_days
from .backtest.simulate import Simulation
from .book import (
    Book,
    BookStore,
    CsvImport,
    Position,
    Reading,
    apply_changes,
    read_csv,
    read_holdings,
    tells_holdings,
)
from .book.holdings import money
from .compare.ask import MAX_TICKERS, CompareAsk, mentions, read_comparison
from .compare.comparison import ComparisonResult, DeskOutcome, side_by_side
from .compare.flow import Comparison, Cost, comparison_cost, followup_of, needs_confirmation
from .compare.runner import DeskRun, desk_thread
from .core import clock
from .core.chinese_script import chinese_tag, to_simplified
from .core.context import LOCAL_USER
from .core.errors import explain, found_in
from .core.events import (
    AlphaCurve,
    Event,
    NodeDone,
    NotePickedUp,
    Said,
    Token,
    ToolFinished,
    ToolStarted,
    TurnRestarted,
)
from .core.heap import settle_heap
from .core.links import inert_links
from .core.personas import (
    ALL_PERSONAS,
    ANALYST_KINDS,
    ANALYST_PERSONAS,
    ANALYSTS,
    COMPARISON,
    DEFAULT_ANALYST_KINDS,
    DESK,
    PERSONAS,
    RISK_JUDGE,
    persona_label,
)
from .core.plain import plain_line
from .core.plan import RISK_JUDGE_NODE, RunPlan
from .core.private import private_dir, private_file, write_private
from .core.settings import Settings, field_bounds
from .core.state import FinalDecision, language_of
from .core.usage import run_total, this_run, usage_summary
from .core.words import figure_label, phrase, ruling_value, vendor_name, word_list
from .data import make_vendor
from .data.indicators import indicator_series
from .data.synthetic import SyntheticVendor
from .data.vendor import Vendor
from .mcp import McpOwners, McpService, build_mcp_server
from .models.demo import DemoChatModel
from .models.policy import streamed_words
from .models.registry import ModelRegistry
from .nodes.thread_language import thread_language
from .notes.address import note_item
from .notes.inbox import NOTES_PER_TURN, Note, quoted_note, unread_in
from .paper.book import DEFAULT_COST_BPS, PaperBook
from .paper.keeper import Paper, PaperError, amount_of
from .paper.words import paper_answer, paper_figures, paper_heading, paper_tickers
from .persistence.accounts import (
    ACCOUNTS_FILE,
    DEFAULT_PASSWORD,
    MAX_NAME,
    MAX_PASSWORD,
    MIN_PASSWORD,
    Account,
    AccountError,
    Accounts,
    LoginThrottle,
    LoginThrottled,
    check_password,
    local_password,
    local_password_ok,
    normalize_name,
)
from .persistence.checkpoint import SERDE
from .persistence.lease import LeaseHeld, live_holder
from .persistence.offers import Offered, OfferStore
from .persistence.outages import DatabaseUnavailable, Outages
from .persistence.personal_tokens import PersonalToken, PersonalTokens, TokenError
from .persistence.postgres import SCHEMA_LOCK, libpq_url, sqlalchemy_url
from .persistence.rates import BURST, PER_S, MemoryRates, RateBuckets
from .persistence.threads import OwnedThread, ThreadOwners
from .record.case import report_markdown
from .record.edits import edit_change, edit_stands_because
from .record.figures import cited, unverified_note
from .request import clean_message
from .routing import BookAsk, PaperAsk, Purpose, ResumeBacktest, Route, Situation, TokenAsk, route
from .runtime.branches import EditRefused, Step
from .runtime.desk import DeskRuntime, DeskTurn, Interrupted
from .runtime.notes import Posted, acknowledgement, post_note
from .tools import make_toolkit
from .tools.events import events_in_horizon
from .tools.market import indicator_rows
from .track.calibration import Calibration, calibration, calibration_from
from .track.calls import Call, Outcome
from .track.horizon import benchmark_for
from .track.settle import price_in
from .track.words import recalled_line, recalled_markdown
from .watchlist.rules import EVERY_TRADING_DAY, Rule
from .watchlist.scheduler import WatchDesk, jobs_url
from .watchlist.slots import Ran
from .watchlist.store import MAX_WATCHES, Notice, Watch, WatchStore
from .watchlist.words import WatchAsk, WatchCommand, read_command, read_watch

__all__ = [
    "ACCOUNTS_FILE",
    "ALL_PERSONAS",
    "ANALYSTS",
    "ANALYST_KINDS",
    "ANALYST_PERSONAS",
    "BURST",
    "COMPARISON",
    "DEFAULT_ANALYST_KINDS",
    "DEFAULT_COST_BPS",
    "DEFAULT_PASSWORD",
    "DESK",
    "DESK_STRATEGY",
    "EVERY_TRADING_DAY",
    "LOCAL_USER",
    "MAX_NAME",
    "MAX_PASSWORD",
    "MAX_TICKERS",
    "MAX_WATCHES",
    "MIN_PASSWORD",
    "NOTES_PER_TURN",
    "PERSONAS",
    "PER_S",
    "RISK_JUDGE",
    "RISK_JUDGE_NODE",
    "SCHEMA_LOCK",
    "SERDE",
    "Account",
    "AccountError",
    "Accounts",
    "AlphaCurve",
    "Ask",
    "Backtest",
    "Book",
    "BookAsk",
    "BookStore",
    "Calibration",
    "Call",
    "CompareAsk",
    "Comparison",
    "ComparisonResult",
    "Cost",
    "CsvImport",
    "CurveMetrics",
    "DatabaseUnavailable",
    "Day",
    "Days",
    "DemoChatModel",
    "DeskOutcome",
    "DeskRun",
    "DeskRuntime",
    "DeskTurn",
    "EditRefused",
    "Event",
    "FinalDecision",
    "Interrupted",
    "LeaseHeld",
    "LoginThrottle",
    "LoginThrottled",
    "McpOwners",
    "McpService",
    "MemoryRates",
    "ModelRegistry",
    "NodeDone",
    "Note",
    "NotePickedUp",
    "Notice",
    "OfferStore",
    "Offered",
    "Outages",
    "Outcome",
    "OwnedThread",
    "Paper",
    "PaperAsk",
    "PaperBook",
    "PaperError",
    "PersonalToken",
    "PersonalTokens",
    "PlanRefused",
    "Position",
    "Posted",
    "Prepared",
    "Progress",
    "Purpose",
    "Ran",
    "RateBuckets",
    "Reading",
    "Records",
    "Result",
    "ResumeBacktest",
    "Route",
    "Rule",
    "RunPlan",
    "Runner",
    "Said",
    "Settings",
    "Simulation",
    "Situation",
    "Step",
    "SyntheticVendor",
    "ThreadOwners",
    "Token",
    "TokenAsk",
    "TokenError",
    "ToolFinished",
    "ToolStarted",
    "TurnRestarted",
    "Vendor",
    "Watch",
    "WatchAsk",
    "WatchCommand",
    "WatchDesk",
    "WatchStore",
    "acknowledgement",
    "amount_of",
    "apply_changes",
    "backtest_desk",
    "benchmark_for",
    "build_mcp_server",
    "calibration",
    "calibration_from",
    "check_password",
    "chinese_tag",
    "cited",
    "clean_message",
    "clock",
    "comparison_cost",
    "confirmed",
    "curve_metrics",
    "desk_thread",
    "edit_change",
    "edit_stands_because",
    "events_in_horizon",
    "explain",
    "field_bounds",
    "figure_label",
    "followup_of",
    "found_in",
    "indicator_rows",
    "indicator_series",
    "inert_links",
    "jobs_url",
    "landed",
    "language_of",
    "libpq_url",
    "live_holder",
    "local_password",
    "local_password_ok",
    "make_toolkit",
    "make_vendor",
    "mentions",
    "money",
    "needs_confirmation",
    "normalize_name",
    "note_item",
    "paper_answer",
    "paper_figures",
    "paper_heading",
    "paper_tickers",
    "persona_label",
    "phrase",
    "plain_line",
    "post_note",
    "prepare_new",
    "prepare_resume",
    "price_in",
    "private_dir",
    "private_file",
    "quoted_note",
    "read_ask",
    "read_command",
    "read_comparison",
    "read_csv",
    "read_holdings",
    "read_watch",
    "recalled_line",
    "recalled_markdown",
    "report_markdown",
    "route",
    "ruling_value",
    "run_total",
    "scored",
    "settings_days",
    "settle_heap",
    "side_by_side",
    "sqlalchemy_url",
    "stopwatch",
    "streamed_words",
    "tells_holdings",
    "this_run",
    "thread_language",
    "to_simplified",
    "unread_in",
    "unverified_note",
    "usage_summary",
    "vendor_name",
    "word_list",
    "write_private",
]
