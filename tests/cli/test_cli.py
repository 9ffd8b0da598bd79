"""The headless CLIs as a user runs them."""
from __future__ import annotations

import asyncio
import json
import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from graph.cli import _show, unstreamed
from graph.core.events import NodeDone, Token, TurnRestarted
from graph.core.personas import PERSONAS
from graph.core.settings import Settings
from graph.persistence.database import open_checkpointer
from graph.runtime.desk import DeskRuntime, Interrupted
from tests.support.cli import run_cli
from tests.support.cli import run_module as run  # `python -m graph …` in this process: no new interpreter a call
from tests.support.clock import python_path
from tests.support.env import TEST_PACE

ROOT = Path(__file__).resolve().parents[2]


def test_cli_runs_the_desk_and_continues_the_thread(tmp_path):
    out = run(["graph", "--today", "2024-05-06", "should I buy NVDA today?"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "Demo mode" in out.stdout and "synthetic" in out.stdout
    headers = re.findall(r"^▶ (.+)$", out.stdout, re.M)
    # The Desk's first words, what the analysis recalled of the track record, then every persona.
    assert headers[:2] == ["Desk", "Track record"] and set(headers) == {"Desk", "Track record", *PERSONAS}
    assert headers[6:] == list(PERSONAS[4:])
    assert re.search(r"Final decision for NVDA on 2024-05-06: (BUY|SELL|HOLD)", out.stdout)
    assert "⚙ get_indicators" in out.stdout
    thread = re.search(r"--thread (\w+)", out.stdout)[1]

    follow = run(["graph", "--thread", thread, "--today", "2024-05-06", "what was the RSI?"], tmp_path)
    assert follow.returncode == 0, follow.stderr
    assert re.findall(r"^▶ (.+)$", follow.stdout, re.M) == ["Desk"]
    assert re.search(r"RSI 14 was [\d.]+", follow.stdout)


@pytest.mark.parametrize("text", ["should I buy on 2024-02-30?", "should I buy something?"])
def test_cli_asks_back_and_exits_non_zero_on_an_unclear_request(tmp_path, text):
    out = run(["graph", "--today", "2024-05-06", text], tmp_path)
    assert out.returncode == 2
    assert "?" in out.stdout


def test_cli_rejects_unknown_analysts(tmp_path):
    out = run(["graph", "--analysts", "market,astrology", "NVDA"], tmp_path)
    assert out.returncode != 0 and "astrology" in out.stderr


@pytest.mark.parametrize("text,ticker,trade_date,intent", [
    ("should I buy NVDA today?", "NVDA", "2026-11-20", "analyze"),
    ("thoughts on Apple last Friday?", "AAPL", "2026-11-20", "analyze"),
    ("$TSLA 2024-05-01", "TSLA", "2024-05-01", "analyze"),
    ("is Berkshire B a sell?", "BRK-B", "2026-11-20", "analyze"),
    ("AI is overhyped", None, "2026-11-20", "clarify"),
])
def test_coordinator_cli_prints_json_last(tmp_path, text, ticker, trade_date, intent):
    out = run(["graph", "--parse", "--today", "2026-11-22", text], tmp_path)
    assert out.returncode == 0, out.stderr
    parsed = json.loads(out.stdout.strip().splitlines()[-1])
    assert (parsed["intent"], parsed["ticker"], parsed["trade_date"]) == (intent, ticker, trade_date)


def cli_env(tmp_path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DESK_"))} | TEST_PACE
    return env | {"DESK_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1", **extra}


def wait_for_word(fd: int, timeout: float) -> str:
    """What the child writes next on the pipe `fd`, read as it comes ("" if the child ended first)."""
    ready, _, _ = select.select([fd], [], [], timeout)
    assert ready, f"nothing on the pipe after {timeout}s"
    return os.read(fd, 64).decode()


async def pending_when_stored(data_dir: Path, thread: str, persona: str, timeout: float = 60) -> Interrupted:
    """Wait until the thread's stored checkpoint (read here, as a resume will read it) shows `persona`
    among the nodes still to run; its background write may still be under way when the turn starts."""
    settings = Settings(DESK_DATA_DIR=data_dir, DESK_DATABASE_URL=None, DESK_MODE="demo")
    async with open_checkpointer(settings) as saver:
        desk = DeskRuntime.build(settings, saver)

        async def stored() -> Interrupted:
            while (stopped := await desk.interrupted(thread)) is None or persona not in stopped.personas:
                await asyncio.sleep(0.05)
            return stopped

        return await asyncio.wait_for(stored(), timeout)


@pytest.mark.e2e
@pytest.mark.parametrize("kill_at", ["Market Analyst", "Bull Researcher", "Trader", "Risk Judge"])
def test_a_killed_cli_run_resumes_from_the_pending_step(tmp_path, kill_at):
    """kill -9 while `kill_at` speaks; `--resume` finishes the run, starting with that speaker.

    The first run is the CLI with `kill_at`'s turn held after its first word (tests/support/held_cli.py),
    so the kill cannot land after the turn, however late the test gets to send it; and it is sent only
    once the checkpoint a resume starts from is stored, so it cannot land before that either."""
    env = cli_env(tmp_path, DESK_DEMO_DELAY_MS="0", PYTHONPATH=python_path(ROOT))
    signal_r, signal_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.held_cli", kill_at, str(signal_w),
                             "--today", "2024-05-06", "should I buy NVDA today?"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp_path,
                            pass_fds=(signal_w,))
    os.close(signal_w)  # the child's copy is the only one left: its end closes the pipe
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        thread = re.fullmatch(r"thread (\w+)\n", first)[1]  # printed before anything runs
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if line.strip() == f"▶ {kill_at}":
                break
        assert f"▶ {kill_at}\n" in seen, "".join(seen)
        assert wait_for_word(signal_r, 60) == "held\n", f"{kill_at}'s turn was not held"
        stopped = asyncio.run(pending_when_stored(tmp_path / "data", thread, kill_at))
        assert kill_at in stopped.personas
        proc.kill()  # SIGKILL: no cleanup at all, mid-turn
    finally:
        os.close(signal_r)
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)

    # The resumes need no process of their own (the killed one was): `python -m graph …` run in this one.
    out = run_cli(tmp_path, "--thread", thread, "--resume")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"resuming thread {thread} at the {kill_at}" in out.stdout
    headers = re.findall(r"^▶ (.+)$", out.stdout, re.M)
    order = list(PERSONAS)
    if kill_at in order[:4]:  # parallel analysts: the unfinished ones run again, then everyone after them
        assert kill_at in headers and [h for h in headers if h not in order[:4]] == order[4:]
    else:
        assert headers == order[order.index(kill_at):]
    assert re.search(r"Final decision for NVDA on 2024-05-06: (BUY|SELL|HOLD)", out.stdout)
    again = run_cli(tmp_path, "--thread", thread, "--resume")
    assert again.returncode == 2 and "no interrupted run" in again.stderr


async def test_a_turn_citing_a_figure_no_data_holds_is_flagged_under_it(capsys):
    """As the chat shows it under the turn: the figure check's finding is printed with the words."""
    async def events():
        yield Token("Bull Researcher", "NVDA will reach 987.65 by June.")
        said = AIMessage("NVDA will reach 987.65 by June.", name="Bull Researcher")
        yield NodeDone("bull", {"messages": [said], "unverified": {"Bull Researcher#0": ["987.65"]}})
        yield Token("Bear Researcher", "No.")
        yield NodeDone("bear", {"messages": [AIMessage("No.", name="Bear Researcher")], "unverified": {}})

    await _show(events(), quiet_tools=True)
    out = capsys.readouterr().out
    bull, bear = out.split("▶ Bear Researcher")
    assert "⚠ 1 figure not found in the data: 987.65" in bull
    assert "⚠" not in bear


async def test_words_of_a_cut_off_call_are_said_void_and_never_kept_twice(capsys):
    """Issue 36, point 2: a call cut off mid-answer is asked again. The terminal has its words already: a line
    says they are void, and the turn as kept is not printed again after them. A speaker waiting its turn to
    print (a parallel analyst) never prints the void words at all."""
    async def events():
        yield Token("Market Analyst", "The trend")
        yield Token("News Analyst", "Headlines say")
        yield TurnRestarted("Market Analyst", "The trend", "cut")
        yield TurnRestarted("News Analyst", "Headlines say", "stall")
        yield Token("Market Analyst", "The trend is up.")
        yield Token("News Analyst", "Headlines are calm.")
        yield NodeDone("market_analyst", {"messages": [AIMessage("The trend is up.", name="Market Analyst")]})
        yield NodeDone("news_analyst", {"messages": [AIMessage("Headlines are calm.", name="News Analyst")]})

    await _show(events(), quiet_tools=True)
    out = capsys.readouterr().out
    market, news = out.split("▶ News Analyst")
    assert market.count("the model server cut this answer off: the words it began above are void") == 1
    assert market.count("The trend is up.") == 1 and "As kept" not in market
    assert news.strip() == "Headlines are calm.", "its void words were dropped before they were printed"


@pytest.mark.parametrize(("shown", "kept", "printed"), [
    ("Let me look.\nNVDA closed at 74.02, below its SMA 50.", "NVDA closed at 74.02, below its SMA 50.", ""),
    ("A report from nothing.\nThe close is 74.02, below the SMA 50 of 81.82.",
     "The close is 74.02, below the SMA 50 of 81.82.\n\n_(The model called no tool itself.)_",
     "\n\n_(The model called no tool itself.)_"),
    ("Words that stalled and were asked ag", "A whole new answer, sent again after the stall.",
     "\n  ⟲ As kept:\nA whole new answer, sent again after the stall.\n"),
    ("", "A turn that sent no words as it went.", "A turn that sent no words as it went.\n"),
])
def test_what_a_turn_keeps_beyond_what_streamed_is_printed(shown, kept, printed):
    """A terminal cannot replace streamed words as the chat does: it prints what the kept turn adds."""
    assert unstreamed(shown, kept) == printed
