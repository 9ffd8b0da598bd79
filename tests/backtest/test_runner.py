"""The runner over days, in-process on the demo desk: a small backtest to its table, no look-ahead, the
track record point in time across days, a vendor failure on one day, and days found done in their threads."""
from __future__ import annotations

import threading
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
from langchain_core.messages import HumanMessage

from graph.backtest.baselines import BASELINES
from graph.backtest.export import HEADER
from graph.backtest.record import BACKTEST, Records
from graph.backtest.result import DESK, score
from graph.backtest.runner import Runner, request_text
from graph.backtest.watch import current_day
from graph.core.settings import Settings
from graph.data.synthetic import SyntheticVendor
from graph.data.vendor import VendorError
from graph.persistence.namespaces import user_label
from graph.track.log import DecisionLog
from tests.backtest.conftest import Make, backtest_desk, run_all

START, END = date(2024, 1, 2), date(2024, 1, 8)  # five sessions


async def test_a_small_backtest_runs_every_day_as_a_deliberation_and_makes_the_table(
        settings: Settings, new_backtest: Make, tmp_path: Path) -> None:
    desk = backtest_desk(settings)
    backtest = await new_backtest(desk, ["AAPL", "GOOGL"], START, END)
    seen: list[str] = []
    runner = await run_all(desk, backtest, on_day=lambda day, progress: seen.append(day.key))
    days = runner.ordered()
    assert len(days) == 10 and len(seen) == 10 and runner.progress.finished == 10
    for day in days.values():
        assert day.status == "done" and day.signal in ("BUY", "SELL", "HOLD") and day.tokens > 0
        assert day.calls == 17 and day.wall_s is not None
        state = await desk.state(day.thread)  # a real, stored analysis of that day
        assert state["trade_date"] == day.day and state["final_decision"].signal == day.signal
        asked = [m.content for m in state["messages"] if isinstance(m, HumanMessage)]
        assert asked == [request_text(day.ticker, date.fromisoformat(day.day))]
    assert days["AAPL:2024-01-02"].thread == f"bt-{backtest.id}-AAPL-20240102"
    # Stored for a resume: every day under the backtest, the backtest under its user.
    assert set(await Records(desk.store).days(backtest)) == set(days)
    assert await desk.store.aget((BACKTEST, user_label("tester")), backtest.id) is not None
    # The desk's calls went to the backtest's own track record, not the user's.
    assert len(await DecisionLog(desk.store).values(backtest.memory_user)) == 10
    assert await DecisionLog(desk.store).values("tester") == []

    result = score(backtest, days, desk.vendor)
    assert [row.strategy for row in result.table.rows] == [*(b.label for b in BASELINES), DESK]
    assert all(set(row.figures) == {"AAPL", "GOOGL"} for row in result.table.rows)
    assert "(synthetic)" in result.table.title
    text = result.table.markdown()
    assert "Synthetic:" in text and "| Trading Desk |" in text
    markdown, daily = result.write(tmp_path / "out")
    assert "## The desk's days" in markdown.read_text() and days["AAPL:2024-01-02"].thread in markdown.read_text()
    frame = pd.read_csv(daily)
    assert tuple(frame.columns) == HEADER and len(frame) == 2 * 6 * 5  # tickers × strategies × days
    desk_rows = frame[(frame.strategy == DESK) & (frame.ticker == "AAPL")]
    assert list(desk_rows.signal) == [days[f"AAPL:{d}"].signal for d in desk_rows.date]


class LookAheadVendor(SyntheticVendor):
    """Refuses (and notes) any request for data after the day being run, in whichever day's run it comes."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self.asked_in_a_day = 0
        self.lock = threading.Lock()

    def _check(self, what: str, last: date) -> None:
        day = current_day()
        if day is None:
            return  # planning and scoring: not a day's deliberation
        with self.lock:
            self.asked_in_a_day += 1
            if last > day.day:
                self.violations.append(f"{day.ticker} {day.day}: {what} up to {last}")
                raise VendorError(f"look-ahead: {what} up to {last} while running {day.day}")

    def ohlcv(self, ticker: str, start: date, end: date) -> pd.DataFrame:
        self._check(f"prices of {ticker}", end)
        return super().ohlcv(ticker, start, end)

    def profile(self, ticker: str, as_of: date) -> dict:
        self._check(f"profile of {ticker}", as_of)
        return super().profile(ticker, as_of)

    def statements(self, ticker: str, as_of: date, kind: Any) -> pd.DataFrame:
        self._check(f"statements of {ticker}", as_of)
        return super().statements(ticker, as_of, kind)

    def news(self, ticker: str, start: date, end: date) -> list:
        self._check(f"news of {ticker}", end)
        return super().news(ticker, start, end)

    def macro_news(self, start: date, end: date) -> list:
        self._check("market news", end)
        return super().macro_news(start, end)

    def social_posts(self, ticker: str, start: date, end: date) -> list:
        self._check(f"posts on {ticker}", end)
        return super().social_posts(ticker, start, end)

    def recommendations(self, ticker: str, as_of: date) -> list:
        self._check(f"grades of {ticker}", as_of)
        return super().recommendations(ticker, as_of)


async def test_no_day_asks_for_data_after_it(settings: Settings, new_backtest: Make) -> None:
    """Two days run at once, each must see only its own past: the vendor knows which day asks (the runner's
    context), and refuses anything later. Every day also settles the calls before it, from the same vendor."""
    vendor = LookAheadVendor()
    desk = backtest_desk(settings, vendor)
    backtest = await new_backtest(desk, ["AAPL", "MSFT"], date(2024, 1, 2), date(2024, 3, 28), every=20)
    runner = await run_all(desk, backtest, concurrency=2)
    assert vendor.violations == []
    assert vendor.asked_in_a_day > 50  # the tools did ask, inside each day's run
    assert all(d.status == "done" for d in runner.ordered().values()), runner.ordered()


async def test_the_track_record_is_recalled_point_in_time(settings: Settings, new_backtest: Make) -> None:
    """Each day recalls exactly the calls settled on or before it (its most recent ones on the ticker),
    from the days before it in this backtest, and none that settled later."""
    desk = backtest_desk(settings)
    backtest = await new_backtest(desk, ["AAPL"], date(2024, 1, 2), date(2024, 5, 31), every=10)
    runner = await run_all(desk, backtest, concurrency=1)
    calls = await DecisionLog(desk.store).values(backtest.memory_user)
    assert len(calls) == len(runner.ordered())
    recalled_any = 0
    for day in runner.ordered().values():
        record = (await desk.state(day.thread))["track_record"]
        recalled = [c["id"] for c in record["same"]]
        settled = sorted((c for c in calls if c.get("outcome") and c["outcome"]["settle_date"] <= day.day),
                         key=lambda c: (c["outcome"]["settle_date"], c["trade_date"]), reverse=True)
        assert recalled == [c["id"] for c in settled[:3]], day.day
        assert all(c["trade_date"] < day.day for c in record["same"])
        recalled_any += bool(recalled)
        assert day.unseen == []  # one day at a time: nothing missed
    assert recalled_any >= 3  # not vacuous: later days did learn from earlier ones


async def test_a_day_run_beside_an_earlier_one_lists_the_call_it_could_not_see(
        settings: Settings, new_backtest: Make) -> None:
    """Every 30 sessions with two at a time: the second day starts while the first runs, and the first's
    call (a 2–6 week horizon: 30 sessions) settles on the second's date. It was not recalled, and the day says so."""
    desk = backtest_desk(settings)
    backtest = await new_backtest(desk, ["AAPL"], date(2024, 1, 2), date(2024, 4, 30), every=30)
    runner = await run_all(desk, backtest, concurrency=2)
    days = list(runner.ordered().values())
    assert [d.day for d in days] == ["2024-01-02", "2024-02-14", "2024-03-28"]
    horizons = {d.horizon for d in days}
    assert horizons == {"2-6 weeks"}, horizons  # the demo's: 30 sessions
    assert days[1].unseen == ["AAPL:2024-01-02"]
    second = (await desk.state(days[1].thread))["track_record"]
    assert second["same"] == []  # it started before the first was decided: nothing to recall, no look-ahead
    stored = await Records(desk.store).days(backtest)
    assert stored["AAPL:2024-02-14"].unseen == ["AAPL:2024-01-02"]


class FailingVendor(SyntheticVendor):
    """The news of one ticker and day fails `times` times (then works)."""

    def __init__(self, ticker: str, day: date, times: int) -> None:
        self.ticker, self.day, self.left, self.failed = ticker, day, times, 0

    def news(self, ticker: str, start: date, end: date) -> list:
        if ticker == self.ticker and end == self.day and self.left > 0:
            self.left -= 1
            self.failed += 1
            raise VendorError("rate limited")
        return super().news(ticker, start, end)


async def test_a_vendor_failure_marks_the_day_failed_after_one_retry(settings: Settings, new_backtest: Make) -> None:
    vendor = FailingVendor("AAPL", date(2024, 1, 4), times=99)
    desk = backtest_desk(settings, vendor)
    backtest = await new_backtest(desk, ["AAPL"], START, END)
    runner = await run_all(desk, backtest)
    days = runner.ordered()
    bad = days["AAPL:2024-01-04"]
    assert bad.status == "failed" and bad.signal is None
    assert "data vendor failed" in bad.reason and "rate limited" in bad.reason
    assert vendor.failed == 2  # the day, and its one retry
    assert [d.status for k, d in days.items() if k != bad.key] == ["done"] * 4
    # Its call (a decision on missing data) is not in the memory later days learn from.
    calls = await DecisionLog(desk.store).values(backtest.memory_user)
    assert bad.thread not in {c["thread_id"] for c in calls} and len(calls) == 4
    result = score(backtest, days, desk.vendor)
    assert any("Failed days" in note and "AAPL 2024-01-04" in note for note in result.table.notes)
    desk_days = {d.day: d for d in result.simulations[("AAPL", DESK)].days}
    assert desk_days["2024-01-04"].signal is None  # not filled: the position is kept
    assert runner.progress.failed == 1


async def test_a_vendor_failure_once_is_retried_and_the_day_decided(settings: Settings, new_backtest: Make) -> None:
    vendor = FailingVendor("AAPL", date(2024, 1, 4), times=1)
    desk = backtest_desk(settings, vendor)
    backtest = await new_backtest(desk, ["AAPL"], START, END)
    runner = await run_all(desk, backtest)
    day = runner.ordered()["AAPL:2024-01-04"]
    assert day.status == "done" and vendor.failed == 1
    state = await desk.state(day.thread)  # begun again: one analysis in its thread, not two
    assert len([m for m in state["messages"] if isinstance(m, HumanMessage)]) == 1
    calls = await DecisionLog(desk.store).values(backtest.memory_user)
    assert [c["thread_id"] for c in calls].count(day.thread) == 1


async def test_a_resumed_backtest_keeps_its_finished_days(settings: Settings, new_backtest: Make) -> None:
    """Days recorded done, and a day decided in its thread whose record was never written (killed between the
    two), are kept; nothing is asked of the model again."""
    desk = backtest_desk(settings)
    backtest = await new_backtest(desk, ["AAPL", "GOOGL"], START, END)
    first = await run_all(desk, backtest)
    lost = "GOOGL:2024-01-05"
    await desk.store.adelete((BACKTEST, user_label("tester"), backtest.id), lost)

    heads = {k: await _head(desk, d.thread) for k, d in first.ordered().items()}

    again = backtest_desk(settings, checkpointer=desk.checkpointer, store=desk.store)
    runner = await run_all(again, backtest)
    assert runner.progress.kept == 10 and runner.progress.ran == 0
    assert {k: await _head(again, d.thread) for k, d in runner.ordered().items()} == heads  # no step ran again
    assert runner.ordered()[lost].signal == first.ordered()[lost].signal
    assert runner.ordered()[lost].wall_s is None  # read from its thread, not timed
    assert lost in await Records(desk.store).days(backtest)  # and recorded now


async def _head(desk: Any, thread: str) -> str:
    stored = await desk.checkpointer.aget_tuple(desk.config(thread))
    return str(stored.checkpoint["id"])


async def test_no_day_starts_past_the_budget_and_the_rest_is_left_to_resume(
        settings: Settings, new_backtest: Make) -> None:
    desk = backtest_desk(settings)
    backtest = await new_backtest(desk, ["AAPL"], START, END)
    per_day = Runner(desk, backtest).per_run().tokens
    runner = await run_all(desk, backtest, concurrency=1, budget=per_day * 3)
    assert 2 <= runner.progress.ran <= 3 and "budget" in runner.progress.stopped
    result = score(backtest, runner.ordered(), desk.vendor)
    assert len(result.missing) == 5 - runner.progress.ran
    assert any(note.startswith("Not run") for note in result.table.notes)
    rest = await run_all(desk, backtest, concurrency=1)  # resumed without a budget: only the rest runs
    assert rest.progress.kept == runner.progress.ran and rest.progress.finished == 5
