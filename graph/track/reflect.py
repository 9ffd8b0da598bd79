"""A few sentences on each settled call: was it right (citing the alpha), which side's argument held
(Bull or Bear, Risky or Safe), and one lesson. The deep model writes them live; the demo writes them
from the figures alone, deterministically, and says it is the demo. The figure check applies: a
figure the reflection cites that the call's record lacks is flagged under it."""
from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from ..core.context import DeskContext
from ..core.prompts import render
from ..models.registry import ModelRegistry
from ..record.figures import numbers_in, unverified, unverified_note
from .calls import Call, Outcome
from .summary import pct

ARGUED_CHARS = 600  # each side's words, as the reflection prompt quotes them
DEMO = "demo"


def facts(call: Call, o: Outcome) -> str:
    """The call and what the market did, as the reflection's one source of figures."""
    stop = (f"the stop at {o.stop_price:g} was hit on {o.stop_hit}" if o.stop_hit
            else f"the stop at {o.stop_price:g} was not hit" if o.stop_price is not None else "no stop price was given")
    sure = "n/a" if call.confidence is None else f"{call.confidence:.2f}"
    return (f"{call.signal} {call.ticker} on {call.trade_date} (size {call.position_size or 'n/a'}, confidence "
            f"{sure}, horizon {call.horizon or 'n/a'} = {o.sessions} sessions). Close {o.entry_close:g} "
            f"on {call.trade_date}, {o.exit_close:g} on {o.settle_date}: {call.ticker} {pct(o.raw_return)}, "
            f"{o.against} {pct(o.benchmark_return)}, alpha {pct(o.alpha)}; {stop}. Verdict: {o.verdict}.")


def sides_held(call: Call, o: Outcome) -> tuple[str, str]:
    """Which researcher's case the market bore out (the stock beat its benchmark: the Bull's), and
    which risk view (a hit stop or a wrong call: the Safe Analyst's caution; else the Risky's)."""
    research = "Bull Researcher" if o.alpha > 0 else "Bear Researcher"
    risk = "Safe Analyst" if o.stop_hit or o.verdict == "wrong" else "Risky Analyst"
    return research, risk


def demo_reflection(call: Call, o: Outcome) -> str:
    research, risk = sides_held(call, o)
    verdict = "right" if o.verdict == "right" else "wrong"
    lesson = {
        ("BUY", "wrong"): "a bull case needs the stock to beat the market, not only to rise; weigh the Bear's "
                          "risks before buying again",
        ("SELL", "wrong"): "selling into a stock that kept beating the market was early; look for the trend to "
                           "turn before selling again",
        ("HOLD", "wrong"): "a HOLD missed a move larger than the band; commit to a side when the evidence leans",
        ("BUY", "right"): "the Bull's reasons held; weigh the same kind of evidence the same way",
        ("SELL", "right"): "the Bear's reasons held; weigh the same kind of evidence the same way",
        ("HOLD", "right"): "staying flat was right while the stock tracked the market",
    }[(call.signal, o.verdict)]
    stop = f" The stop was hit on {o.stop_hit}." if o.stop_hit else ""
    return (f"Demo reflection (synthetic data): the {call.signal} on {call.ticker} was {verdict}, alpha {pct(o.alpha)} "
            f"against {o.against} over {o.sessions} sessions.{stop} The {research}'s case held, and the {risk}'s "
            f"view of the risk. Lesson: {lesson}.")


async def reflect(call: Call, models: ModelRegistry, context: DeskContext | None = None) -> Call:
    """The call with its outcome's reflection written (unchanged if it has one or is not settled).
    A failed model call leaves it unwritten, to be tried at the next settlement pass."""
    o = call.outcome
    if o is None or o.reflection:
        return call
    if not models.live:
        text, by = demo_reflection(call, o), DEMO
    else:
        argued = "\n\n".join(f"{persona}: {' '.join(text.split())[:ARGUED_CHARS]}"
                             for persona, text in call.argued.items())
        prompt = [SystemMessage(render("reflection", facts=facts(call, o), argued=argued or "(not recorded)")),
                  HumanMessage("Write the reflection now.")]
        model = models.capped(models.deep(context), "turn")
        try:
            reply = await model.ainvoke(prompt)
        except Exception:
            return call
        text = " ".join(str(reply.content).split())
        if not text:
            return call
        if flagged := unverified(text, numbers_in(facts(call, o)), ticker=call.ticker):
            text += f" ({unverified_note(flagged)})"
        by = models.deep_name(context)
    return call.model_copy(update={"outcome": o.model_copy(update={"reflection": text, "reflected_by": by})})
