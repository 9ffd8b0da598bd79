"""The prompt layout a server's prefix cache can use: every speaker after the analysts opens with the
same case file (the request, the reports, then the deliberation so far, each earlier debate turn by its
claims and the last one whole), then its own role, then its turn; the four analysts open with the same
rules, then their roles."""
from __future__ import annotations

import itertools

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from benchmarks.prompts import GOAL, Prompt, common_prefix, record_run, shared_prefixes
from graph.core.personas import DEFAULT_ANALYSTS as ANALYSTS  # the default analysis (no Macro Analyst)
from graph.record.case import CUT, claims, reused
from tests.support.models import ScriptedChatModel

ROLE = "\n\n## Your role\n"
AFTER_ANALYSTS = ["Bull Researcher", "Bear Researcher", "Research Manager", "Trader",
                  "Risky Analyst", "Safe Analyst", "Neutral Analyst", "Risk Judge"]


def split(call: dict) -> tuple[str, str, str]:
    """A speaker's prompt: (the part before its role, its role, its turn)."""
    system, human = call["messages"][0], call["messages"][-1]
    assert isinstance(system, SystemMessage) and isinstance(human, HumanMessage)
    before, sep, role = str(system.content).partition(ROLE)
    assert sep, "every speaker's role follows the shared part"
    return before, role, str(human.content)


async def speakers(desk_factory, text: str = "should I buy NVDA today?", **plan) -> tuple[list[dict], object]:
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask(text, **plan)
    return model.calls, desk


@pytest.mark.parametrize("debate_rounds,risk_rounds", [(1, 1), (2, 2)])
async def test_each_speakers_prompt_opens_with_the_previous_speakers_case_file(desk_factory, debate_rounds,
                                                                                 risk_rounds):
    calls, _ = await speakers(desk_factory, debate_rounds=debate_rounds, risk_rounds=risk_rounds)
    after = [c for c in calls if c["persona"] in AFTER_ANALYSTS and not c["tools"]]
    assert len(after) == 2 * debate_rounds + 3 * risk_rounds + 3
    for earlier, later in itertools.pairwise(after):
        case, _, _ = split(earlier)
        # All of the earlier case file but the rest of its last turn (carried by its claims from now on).
        assert split(later)[0].startswith(reused(case)), f"{later['persona']} after {earlier['persona']}"


async def test_the_case_file_holds_what_each_speaker_needs_and_the_role_and_turn_come_last(desk_factory):
    calls, desk = await speakers(desk_factory)
    state = await desk.state()
    by = {c["persona"]: split(c) for c in calls if c["persona"] in AFTER_ANALYSTS and not c["tools"]}
    for persona, (case, role, turn) in by.items():
        assert case.startswith("# **NVDA** (")
        assert all(state[a.report_key] in case for a in ANALYSTS), f"{persona} reads every report"
        assert f"You are the **{persona}**" in role
        assert turn.startswith(f"{persona}, it is your turn.")
    debate, risk = state["investment_debate"].turns, state["risk_debate"].turns
    assert f"### Bull Researcher\n{debate[0].text}" in by["Bear Researcher"][0], "the bear answers the bull"
    # The rules every debater follows are said once, in the case file's opening, not in each role (issue 41).
    assert "answer its last speaker" in by["Bear Researcher"][0].partition("## Analyst reports")[0]
    assert state["investment_plan"] in by["Trader"][0]
    for persona in ("Risky Analyst", "Safe Analyst", "Neutral Analyst", "Risk Judge"):
        assert state["trader_plan"] in by[persona][0]
    assert f"### Risky Analyst\n{risk[0].text}" in by["Safe Analyst"][0]
    assert f"### Neutral Analyst\n{risk[2].text}" in by["Risk Judge"][0], "the judge reads the whole risk debate"


async def test_later_turns_carry_each_sides_claims_and_the_last_turn_whole(desk_factory):
    # Issue 41: three rounds must not resend every word. Each earlier debate turn is carried by its
    # claims (its opening paragraph, a prefix of the turn), the turn the speaker answers whole.
    calls, desk = await speakers(desk_factory, debate_rounds=3, risk_rounds=2)
    state = await desk.state()
    debate, risk = state["investment_debate"].turns, state["risk_debate"].turns
    by = [(c["persona"], split(c)[0]) for c in calls if c["persona"] in AFTER_ANALYSTS and not c["tools"]]
    bear_3 = [case for persona, case in by if persona == "Bear Researcher"][2]
    assert f"### Bull Researcher\n{debate[4].text}" in bear_3, "the last opposing turn, whole"
    for turn in debate[:4]:
        assert claims(turn.text).endswith(CUT) and f"### {turn.persona}\n{claims(turn.text)}" in bear_3
        assert turn.text not in bear_3
    judge = dict(by)["Risk Judge"]
    assert f"### Neutral Analyst\n{risk[-1].text}" in judge
    assert all(f"\n{claims(t.text)}" in judge for t in (*debate, *risk[:-1]))
    assert state["investment_plan"] in judge and state["trader_plan"] in judge, "plans are carried whole"
    # The figures a speaker cites are still traced to their source: the whole turns stay in the state.
    assert not any(state.get("unverified", {}).values())


async def test_a_note_is_read_last_by_the_speaker_who_takes_it_and_the_case_file_stays_shared(desk_factory):
    note = "Trader, what about the earnings date?"
    holder: dict = {}

    async def interject(persona, messages, tools):
        if persona == "Research Manager" and "seq" not in holder:
            holder["seq"] = await holder["desk"].post(note)
        return None

    model = ScriptedChatModel(script=interject)
    desk = desk_factory(model)
    holder["desk"] = desk
    await desk.ask("should I buy NVDA today?")
    manager, trader, risky = (next(c for c in model.calls if c["persona"] == p)
                              for p in ("Research Manager", "Trader", "Risky Analyst"))
    assert note in split(trader)[2] and note not in str(trader["messages"][0].content)
    assert split(risky)[0].startswith(reused(split(trader)[0]))
    assert split(trader)[0].startswith(reused(split(manager)[0]))


async def test_the_follow_up_desk_opens_with_the_judges_case_file(desk_factory):
    model = ScriptedChatModel()
    desk = desk_factory(model)
    await desk.ask("should I buy NVDA today?")
    judge = next(c for c in model.calls if c["persona"] == "Risk Judge" and not c["tools"])
    await desk.ask("why was the bear worried?")
    desk_call = model.calls[-1]
    assert desk_call["persona"] == "Desk"
    case, role, _ = split(desk_call)
    assert case.startswith(reused(split(judge)[0]))
    assert "\n\n## Risk Judge's ruling\n" in case.removeprefix(reused(split(judge)[0]))
    assert "## Final decision\nSignal: " in role
    assert str(desk_call["messages"][-1].content) == "why was the bear worried?"
    assert "Bear Researcher" in (await desk.state())["messages"][-1].content


async def test_the_analysts_prompts_open_alike(desk_factory):
    calls, _ = await speakers(desk_factory)
    first = {c["persona"]: split(c) for c in calls if c["tools"] and len(c["messages"]) == 2}
    assert set(first) == {a.persona for a in ANALYSTS}
    assert len({case for case, _, _ in first.values()}) == 1, "the same rules before each role"
    assert all(f"You are the **{p}**" in role for p, (_, role, _) in first.items())


async def test_the_analysts_and_the_case_file_open_with_the_same_rules(desk_factory):
    # Issue 41: the desk's rules are said once, first, in every prompt, so the first speaker after the
    # analysts reuses them too and no role repeats them.
    calls, _ = await speakers(desk_factory)
    market = next(str(c["messages"][0].content) for c in calls if c["persona"] == "Market Analyst")
    bull = next(str(c["messages"][0].content) for c in calls if c["persona"] == "Bull Researcher")
    rules = market[:common_prefix(market, bull)]
    assert rules.startswith("# **NVDA** (") and "never estimate or invent a number" in rules
    assert "Open with your conclusion" in rules
    assert all("invent" not in split(c)[1] for c in calls if c["persona"] in AFTER_ANALYSTS and not c["tools"])


@pytest.mark.parametrize("text,told", [("should I buy NVDA today?", False), ("should I buy SPY today?", True),
                                       ("should I buy BTC-USD today?", True)])
async def test_only_what_is_not_a_company_reads_what_to_do_instead_of_a_pe(desk_factory, text, told):
    calls, _ = await speakers(desk_factory, text)
    role = next(split(c)[1] for c in calls if c["persona"] == "Fundamentals Analyst")
    assert ("Not everything is a company" in role) is told


async def test_most_prompt_tokens_repeat_an_earlier_prompts_prefix(no_model_env):
    run = await record_run(debate_rounds=1)
    assert run.share() >= GOAL
    # More rounds only add shared case file: the share does not fall.
    assert (await record_run(debate_rounds=2)).share() >= run.share()


def test_the_shared_prefix_is_counted_per_token_against_any_earlier_prompt():
    assert common_prefix(["a", "b", "c"], ["a", "b", "x"]) == 2
    prompts = [Prompt("x", (), (), tuple(t)) for t in (["a", "b"], ["c"], ["a", "b", "c"], ["c", "d"])]
    assert shared_prefixes(prompts) == [0, 0, 2, 1]
    assert shared_prefixes(prompts, previous_only=True) == [0, 0, 0, 0]
