"""One settings object for the whole desk, read from the environment (and a .env file)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from annotated_types import Ge, Le
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .chinese_script import chinese_tag
from .personas import DEFAULT_ANALYST_KINDS


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    # "auto" is live when a key or a base URL is configured, demo otherwise.
    mode: Literal["auto", "demo", "live"] = Field("auto", validation_alias="DESK_MODE")
    openai_api_key: str | None = Field(None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("OPENAI_BASE_URL", "OPENAI_API_BASE")
    )
    quick_model: str = Field("gpt-4o-mini", validation_alias="DESK_QUICK_MODEL")
    deep_model: str = Field("gpt-4o", validation_alias="DESK_DEEP_MODEL")
    request_timeout: float = Field(120.0, validation_alias="DESK_REQUEST_TIMEOUT")
    max_retries: int = Field(2, validation_alias="DESK_MAX_RETRIES")

    # Market data: "auto" is Yahoo Finance when live and synthetic in demo mode; never mixed.
    data_vendor: Literal["auto", "synthetic", "yfinance"] = Field("auto", validation_alias="DESK_DATA_VENDOR")
    cache_ttl_s: float = Field(900.0, validation_alias="DESK_CACHE_TTL_S")
    # How long one market-data call may take before its tool says "no data" and the run goes on (issue 36).
    vendor_timeout_s: float = Field(30.0, gt=0, le=600, validation_alias="DESK_VENDOR_TIMEOUT_S")
    data_dir: Path = Field(Path(".data"), validation_alias="DESK_DATA_DIR")
    # FRED's API key (free, fred.stlouisfed.org): the Macro Analyst's series, live. Optional: without it the
    # Macro Analyst says in one line that there is no macro data (the demo has its own synthetic series).
    fred_api_key: SecretStr | None = Field(None, validation_alias="FRED_API_KEY")
    # The demo model streams at a hosted model's pace (about 30 words a second, three seconds to
    # each call's first word), so a person has time to interject before the persona they
    # name has spoken; tests and benchmarks set their own pace (benchmarks/support/env.py).
    demo_delay_ms: float = Field(33.0, ge=0, validation_alias="DESK_DEMO_DELAY_MS")
    demo_first_token_ms: float = Field(3000.0, ge=0, validation_alias="DESK_DEMO_FIRST_TOKEN_MS")

    # The analysts of an analysis nobody chose for (the Macro Analyst only when named: "market,...,macro").
    analysts: tuple[str, ...] = Field(DEFAULT_ANALYST_KINDS, validation_alias="DESK_ANALYSTS")
    debate_rounds: int = Field(1, ge=1, le=5, validation_alias="DESK_DEBATE_ROUNDS")
    risk_rounds: int = Field(1, ge=1, le=5, validation_alias="DESK_RISK_ROUNDS")
    # Off for a model server that serves one request at a time (e.g. a small local Ollama).
    parallel_analysts: bool = Field(True, validation_alias="DESK_PARALLEL_ANALYSTS")
    max_tool_rounds: int = Field(5, ge=1, le=20, validation_alias="DESK_MAX_TOOL_ROUNDS")

    # Backtests (graph/backtest/): analyses run at once, and the most one backtest may plan (each is a
    # whole deliberation: a window too long by mistake should be refused, not started).
    # Whether a SELL with nothing held may open a short when the desk sizes a ruling against the user's
    # book (graph/book/sizing.py); off, it means staying out.
    allow_short: bool = Field(False, validation_alias="DESK_ALLOW_SHORT")
    backtest_concurrency: int = Field(2, ge=1, le=16, validation_alias="DESK_BACKTEST_CONCURRENCY")
    backtest_max_runs: int = Field(2000, ge=1, validation_alias="DESK_BACKTEST_MAX_RUNS")
    # A LangGraph Server that serves the desk (langgraph.json) to run a backtest's days on, as background
    # runs its queue spreads over its workers (graph/backtest/server_days.py); None runs them in process.
    # The account is the desk account the server's auth checks (graph/server_auth.py).
    backtest_server: str | None = Field(None, validation_alias="DESK_BACKTEST_SERVER")
    backtest_server_user: str | None = Field(None, validation_alias="DESK_SERVER_USER")
    backtest_server_password: SecretStr | None = Field(None, validation_alias="DESK_SERVER_PASSWORD")

    # Watches (graph/watchlist/): whether this process runs the scheduler (DESK_WATCH=off for a process
    # that must not run scheduled slots; another process on the same database runs them), and where a
    # notice is posted (JSON, signed with the secret: neither the secret nor the URL's path is logged).
    watch_scheduler: bool = Field(True, validation_alias="DESK_WATCH")
    webhook_url: str | None = Field(None, validation_alias="DESK_WEBHOOK_URL")
    webhook_secret: SecretStr | None = Field(None, validation_alias="DESK_WEBHOOK_SECRET")

    # Storage: SQLite files under data_dir unless a Postgres URL is given (postgresql://…).
    database_url: str | None = Field(None, validation_alias="DESK_DATABASE_URL")
    # How long a Postgres operation is tried again while the connection is lost (graph/persistence/outages.py):
    # a blip shorter than this is ridden out; a longer outage stops the run, which resumes once the database is back.
    db_retry_s: float = Field(30.0, gt=0, le=600, validation_alias="DESK_DB_RETRY_S")

    # A real model's output caps per role (max_tokens) and its stall watchdog: a call that
    # sends no token for this long is cancelled and tried once more.
    report_tokens: int = Field(900, ge=64, validation_alias="DESK_REPORT_TOKENS")
    turn_tokens: int = Field(500, ge=64, validation_alias="DESK_TURN_TOKENS")
    ruling_tokens: int = Field(700, ge=64, validation_alias="DESK_RULING_TOKENS")
    stall_timeout_s: float = Field(60.0, gt=0, validation_alias="DESK_STALL_TIMEOUT_S")
    # How a ruling (and the other shapes the desk reads) is asked for: "schema" decodes under its JSON
    # schema where the server can, else function calling; "tools" only function calling; both fall
    # back to reading the judge's lines. "lines" reads the lines only (graph/models/shaped.py).
    structured_output: Literal["schema", "tools", "lines"] = Field("schema", validation_alias="DESK_STRUCTURED_OUTPUT")
    # Tokens (prompt + completion) one run may spend; None is no limit.
    token_budget: int | None = Field(None, ge=1, validation_alias="DESK_TOKEN_BUDGET")

    # The language the desk answers in: "auto" is the request's (a thread keeps its language until
    # a message is clearly in another, graph/nodes/thread_language.py), or an ISO 639 code ("en",
    # "zh", ...) for every thread whatever the user writes; "zh-Hant" (or "zh-TW", "zh-HK") is
    # Chinese in Traditional characters.
    language: str = Field("auto", pattern=r"^(auto|[a-z]{2,3}|zh-Hant)$", validation_alias="DESK_LANGUAGE")

    @field_validator("language", mode="before")
    @classmethod
    def _language_code(cls, value: object) -> object:
        """"ZH" or " zh " is "zh", "zh-tw" is "zh-Hant"; the pattern then refuses what is not a code."""
        return chinese_tag(value.strip()) or value.strip().lower() if isinstance(value, str) else value

    @property
    def live(self) -> bool:
        if self.mode == "auto":
            return bool(self.openai_api_key or self.openai_base_url)
        return self.mode == "live"

    @property
    def vendor_name(self) -> str:
        if self.data_vendor == "auto":
            return "yfinance" if self.live else "synthetic"
        return self.data_vendor

    @property
    def checkpoint_path(self) -> Path:
        return self.data_dir / "checkpoints.sqlite"


def field_bounds(name: str) -> tuple[int, int]:
    """A whole-number setting's bounds, as declared above (DESK_DEBATE_ROUNDS: 1..5)."""
    meta = Settings.model_fields[name].metadata
    return (next(int(m.ge) for m in meta if isinstance(m, Ge)),  # type: ignore[call-overload]
            next(int(m.le) for m in meta if isinstance(m, Le)))  # type: ignore[call-overload]


def bounded(name: str, value: Any, default: int) -> int:
    """`value` when it is a whole number within the setting's bounds, else `default`: a run's shape
    sent by a client (LangGraph Server's input) is never taken as it comes (rounds of 1000 ran 198
    turns, then failed)."""
    low, high = field_bounds(name)
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    return default
