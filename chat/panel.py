"""The chat settings panel (the gear): which analysts take part in the next analysis, its debate and
risk rounds and, live, the model names; read back as the next analysis' plan."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chainlit.input_widget import InputWidget, Slider, Switch, TextInput

from graph import ANALYST_KINDS, ANALYSTS, RunPlan, Settings


@dataclass(frozen=True)
class NextAnalysis:
    """What the settings panel asks of the next analysis: its plan and, live, the model names."""
    plan: RunPlan = field(default_factory=RunPlan)
    models: tuple[str, str] | None = None   # (quick, deep)


def next_analysis(values: dict[str, Any] | None, settings: Settings) -> NextAnalysis:
    """The chat settings panel (switches, sliders, model names) as the next analysis' shape."""
    values = values or {}
    models = None
    if settings.live:  # model names are a live-mode setting; the demo has one model
        models = ((values.get("quick_model") or settings.quick_model).strip(),
                  (values.get("deep_model") or settings.deep_model).strip())
    plan = RunPlan.of(settings,
                      analysts=[k for k in ANALYST_KINDS if values.get(f"analyst_{k}", k in settings.analysts)],
                      debate_rounds=int(values.get("debate_rounds") or 0) or None,
                      risk_rounds=int(values.get("risk_rounds") or 0) or None)
    return NextAnalysis(plan, models)


def settings_widgets(values: dict[str, Any], settings: Settings) -> list[InputWidget]:
    """The panel's widgets, set to `values` (the session's chat settings)."""
    nxt = next_analysis(values, settings)
    plan = nxt.plan
    widgets: list[InputWidget] = [Switch(id=f"analyst_{a.kind}", label=a.persona, initial=a.kind in plan.analysts,
                      description="Takes part in the next analysis") for a in ANALYSTS]
    widgets += [
        Slider(id="debate_rounds", label="Bull ⇄ Bear debate rounds", initial=plan.debate_rounds,
               min=1, max=5, step=1),
        Slider(id="risk_rounds", label="Risk debate rounds", initial=plan.risk_rounds, min=1, max=5, step=1),
    ]
    if nxt.models:  # live mode: the model names, as the server knows them
        widgets += [
            TextInput(id="quick_model", label="Quick model (analysts, debaters, trader)", initial=nxt.models[0]),
            TextInput(id="deep_model", label="Deep model (research manager, risk judge)", initial=nxt.models[1]),
        ]
    return widgets


def describe(nxt: NextAnalysis) -> str:
    """What the Desk says when the panel changes."""
    plan = nxt.plan
    who = ", ".join(a.persona for a in ANALYSTS if a.kind in plan.analysts)
    models = f"; models {nxt.models[0]} / {nxt.models[1]}" if nxt.models else ""
    return f"Next analysis: {who}; {plan.debate_rounds} debate round(s), {plan.risk_rounds} risk round(s){models}."
