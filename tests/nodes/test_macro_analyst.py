"""The Macro Analyst (issue 38, point 2): chosen like any analyst (the CLI, the settings panel, a LangGraph Server
input) and never in the default analysis; a demo run with it finishes with its report in the case file and every
figure traced; without a macro source (live, no FRED_API_KEY) it says so in one line without asking a model."""
from __future__ import annotations

import pytest

from chat.panel import next_analysis, settings_widgets
from graph.cli import _check, _parser
from graph.core.events import NodeDone
from graph.core.plan import RunPlan
from graph.core.settings import Settings
from graph.core.words import phrase
from graph.data.synthetic import SyntheticVendor
from graph.record.case import case_record
from tests.support.desk import Desk

WITH_MACRO = ["market", "social", "news", "fundamentals", "macro"]


async def _run(desk: Desk, analysts: list[str]) -> tuple[dict[str, str], list[str], dict]:
    said: dict[str, str] = {}
    flagged: list[str] = []
    for ev in await desk.ask("should I buy NVDA today?", analysts=analysts):  # a LangGraph Server input's field
        if isinstance(ev, NodeDone) and ev.spoken is not None:
            said[str(ev.spoken.name)] = str(ev.spoken.content)
            flagged += ev.unverified
    return said, flagged, await desk.state()


async def test_a_demo_run_with_the_macro_analyst_finishes_and_its_figures_are_traced(settings: Settings) -> None:
    said, flagged, state = await _run(Desk(settings), [*WITH_MACRO, "astrologer"])  # an unknown name is dropped
    assert state["analysts"] == WITH_MACRO
    report = said["Macro Analyst"]
    assert state["macro_report"] == report
    for figure in ("| Fed Funds Rate % |", "| CPI YoY % |", "| Payrolls Change K |", "| 10Y-2Y Spread |", "| VIX |"):
        assert figure in report
    assert flagged == []  # the figure check traced every number it and the speakers after it cited
    assert "### Macro Analyst" in case_record(state)  # the case file every later speaker reads
    assert state["final_decision"] is not None
    assert "Macro Analyst" in state["usage"]["personas"]


async def test_the_default_analysis_has_no_macro_analyst(settings: Settings) -> None:
    said, _, state = await _run(Desk(settings), [])
    assert "Macro Analyst" not in said and not state.get("macro_report")
    assert state["analysts"] == ["market", "social", "news", "fundamentals"]


async def test_without_a_macro_source_it_says_so_in_one_line(settings: Settings) -> None:
    class NoMacro(SyntheticVendor):
        macro_source = None  # live without FRED_API_KEY

    said, flagged, state = await _run(Desk(settings, vendor=NoMacro()), ["market", "macro"])
    line = phrase("en", "no_source.macro")
    assert said["Macro Analyst"] == line and "\n" not in line and "FRED_API_KEY" in line
    assert "Macro Analyst" not in state["usage"]["personas"]  # no model was asked
    assert state["final_decision"] is not None and flagged == []
    assert phrase("zh", "no_source.macro") != line  # said in the thread's language


def test_the_cli_takes_the_macro_analyst() -> None:
    ap = _parser()
    args = ap.parse_args(["should I buy NVDA today?", "--analysts", "market,macro"])
    _check(ap, args)
    assert args.analysts == ["market", "macro"]
    assert "macro" in ap.format_help()
    with pytest.raises(SystemExit):
        _check(ap, ap.parse_args(["x", "--analysts", "macroeconomist"]))


def test_the_panel_offers_the_macro_analyst_off_by_default() -> None:
    settings = Settings(DESK_MODE="demo", _env_file=None)
    switches = {w.id: w for w in settings_widgets({}, settings)}
    assert switches["analyst_macro"].initial is False and switches["analyst_macro"].label == "Macro Analyst"
    assert switches["analyst_market"].initial is True
    assert "macro" not in next_analysis({}, settings).plan.analysts
    assert next_analysis({"analyst_macro": True}, settings).plan.analysts == tuple(WITH_MACRO)
    assert next_analysis({"analyst_macro": True}, settings).plan == RunPlan(analysts=tuple(WITH_MACRO))
    zh = {w.id: w for w in settings_widgets({}, settings, "zh")}
    assert zh["analyst_macro"].label == "宏观分析师"
