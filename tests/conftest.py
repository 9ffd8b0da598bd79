"""Shared fixtures. What they build on (the scripted model, the in-process desk, the fakes) is in
tests/support."""
from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from graph.core.settings import Settings
from tests.support.chat_server import Server
from tests.support.clock import travel_suite
from tests.support.desk import Desk
from tests.support.env import MODEL_ENV_VARS, TEST_PACE
from tests.support.loopback import Loopback
from tests.support.postgres import (  # noqa: F401 (fixtures)
    durable_postgres,
    fresh_postgres_url,
    postgres_server,
    postgres_url,
)
from tests.support.yahoo import FakeYahoo, recorded_yahoo

# Every Settings() and child process of the suite runs the demo model at the test pace, not the
# app's hosted-model pace; a test that wants another pace says so.
for _name, _value in TEST_PACE.items():
    os.environ.setdefault(_name, _value)

# DESK_TEST_NOW=<instant> runs the whole suite, and every process it starts, on that date (issue 33).
SIMULATED_NOW = travel_suite()


def pytest_report_header() -> str:
    return f"simulated now: {SIMULATED_NOW.isoformat()} (DESK_TEST_NOW)" if SIMULATED_NOW else "real clock"


@pytest.fixture
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Demo mode whatever the developer's shell says (undone after the test)."""
    for var in MODEL_ENV_VARS:
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def settings(tmp_path, no_model_env) -> Settings:
    return Settings(DESK_DATA_DIR=tmp_path / "data", DESK_DEMO_DELAY_MS=0)


@pytest.fixture
def desk_factory(settings: Settings) -> Callable[..., Desk]:
    def make(model=None, checkpointer=None, vendor=None, thread=None, store=None, **overrides) -> Desk:
        s = settings.model_copy(update=overrides) if overrides else settings
        return Desk(s, model, checkpointer, vendor, thread, store=store)
    return make


@pytest.fixture
def yahoo(monkeypatch: pytest.MonkeyPatch) -> FakeYahoo:
    """yfinance answers from recorded shapes, and logs every call."""
    from graph.data import yfinance_vendor  # yfinance loads only for the tests that use it

    fake = recorded_yahoo()
    monkeypatch.setattr(yfinance_vendor.yf, "Ticker", fake.Ticker)
    return fake


@pytest.fixture(scope="session")
def shared_chat_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """`shared_chat_server(**env)`: the real chat server with those settings, one per session (per xdist worker),
    started on first use and shared by every module that asks for the same settings, for modules whose tests keep
    apart by user (each test its own user and threads; a check of the log reads only what came after the test began).
    A start costs several seconds of both cores' time."""
    servers: dict[tuple[tuple[str, str], ...], Server] = {}

    def get(**env: str) -> Server:
        key = tuple(sorted(env.items()))
        if key not in servers:
            server = Server(tmp_path_factory.mktemp("chat-shared"), **env)
            server.start()
            servers[key] = server
        return servers[key]

    try:
        yield get
    finally:
        for server in servers.values():
            server.stop()



@pytest.fixture
async def loopback() -> AsyncIterator[Loopback]:
    """Receivers on loopback for the test (tests/support/loopback.py), stopped after it."""
    receivers = Loopback()
    yield receivers
    await receivers.close()
