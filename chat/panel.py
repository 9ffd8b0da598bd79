"""The chat settings panel (the gear): which analysts take part in the next analysis, its debate and
risk rounds and, live, the model names; read back as the next analysis' plan.

A client sends the panel's values over the socket as it likes (Chainlit stores each one in the
session and, at the disconnect, in the thread's metadata): debate rounds of 1000 ran 198 turns into
a GraphRecursionError, -3 skipped every debate, and "abc" made the thread fail each time it was
reopened. `check_settings` is the one rule: chat/door.py passes Chainlit only the values it keeps
and the Desk names the others; `next_analysis` reads through it too, so a value stored before this
check is ignored (with the Desk saying so) instead of breaking the thread."""
from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass, field
from typing import Any

from chainlit.input_widget import InputWidget, Slider, Switch, TextInput

from graph import ANALYST_KINDS, ANALYSTS, RunPlan, Settings, field_bounds

ROUND_SETTINGS = ("debate_rounds", "risk_rounds")
MODEL_SETTINGS = ("quick_model", "deep_model")
# A model name as model servers spell them ("gpt-4o-mini", "llama3.1:8b", "meta-llama/Llama-3.1-8B",
# "ft:gpt-4o-mini:org::id", "claude-3-5-sonnet@20240620"); no spaces or control characters.
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}")
MAX_NAMED = 5  # refused values named one by one; a flood of junk keys is counted, not listed
_SHOWN = reprlib.Repr()
_SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlist, _SHOWN.maxdict = 40, 40, 3, 3


def _shown(value: object) -> str:
    """A refused value as the Desk names it: short, control characters and lone surrogates escaped."""
    try:
        return _SHOWN.repr(value)
    except ValueError:  # an int past Python's digit limit
        return f"a {type(value).__name__}"


@dataclass(frozen=True)
class CheckedSettings:
    """A settings update split: what may be kept (by widget id) and each refused value, in words."""
    values: dict[str, Any] = field(default_factory=dict)
    refused: tuple[str, ...] = ()

    def refusal(self, *, stored: bool = False) -> str | None:
        """What the Desk says about the refused values of an update (`stored`: of the settings a
        reopened thread kept from before they were checked); None when nothing was refused."""
        if not self.refused:
            return None
        named = "; ".join(self.refused[:MAX_NAMED])
        more = f"; and {len(self.refused) - MAX_NAMED} more" if len(self.refused) > MAX_NAMED else ""
        if stored:
            return f"This chat's stored settings are ignored where they are not valid: {named}{more}. Defaults used."
        return f"Settings not changed: {named}{more}. The panel shows the settings kept."


def _labels(settings: Settings) -> dict[str, str]:
    labels = {f"analyst_{a.kind}": a.persona for a in ANALYSTS}
    labels |= {"debate_rounds": "Bull ⇄ Bear debate rounds", "risk_rounds": "Risk debate rounds"}
    if settings.live:  # model names are a live-mode setting; the demo has one model
        labels |= {"quick_model": "Quick model", "deep_model": "Deep model"}
    return labels


def _checked(key: str, value: Any) -> tuple[Any, str | None]:
    """(the value as kept, None) or (None, what a value of `key` must be)."""
    if key.startswith("analyst_"):
        return (value, None) if isinstance(value, bool) else (None, "on or off")
    if key in ROUND_SETTINGS:
        low, high = field_bounds(key)
        whole = ((isinstance(value, int) and not isinstance(value, bool))
                 or (isinstance(value, float) and value.is_integer()))  # a slider sends 2 or 2.0
        if whole and low <= value <= high:
            return int(value), None
        return None, f"a whole number from {low} to {high}"
    # a model name; empty is the server's own model
    if isinstance(value, str) and (not value.strip() or MODEL_NAME.fullmatch(value.strip())):
        return value.strip(), None
    return None, "a model name (letters, digits and . _ : / @ + -, up to 200 characters)"


def check_settings(values: object, settings: Settings) -> CheckedSettings:
    """The values of a settings update the desk keeps, and the refused ones named: every key is a
    widget of the panel and every value one its widget could send."""
    if not isinstance(values, dict):
        return CheckedSettings(refused=(f"the panel sends named values, not {_shown(values)}",))
    labels = _labels(settings)
    kept: dict[str, Any] = {}
    refused: list[str] = []
    for key, value in values.items():
        if not isinstance(key, str) or key not in labels:
            refused.append(f"no setting is called {_shown(key)}")
            continue
        value, rule = _checked(key, value)
        if rule is None:
            kept[key] = value
        else:
            refused.append(f"{labels[key]} must be {rule}, not {_shown(values[key])}")
    return CheckedSettings(kept, tuple(refused))


@dataclass(frozen=True)
class NextAnalysis:
    """What the settings panel asks of the next analysis: its plan and, live, the model names."""
    plan: RunPlan = field(default_factory=RunPlan)
    models: tuple[str, str] | None = None   # (quick, deep)


def next_analysis(values: dict[str, Any] | None, settings: Settings) -> NextAnalysis:
    """The chat settings panel (switches, sliders, model names) as the next analysis' shape; a value
    `check_settings` refuses (stored before it existed) is left out: the default stands."""
    kept = check_settings(values or {}, settings).values
    models = None
    if settings.live:
        models = (kept.get("quick_model") or settings.quick_model, kept.get("deep_model") or settings.deep_model)
    plan = RunPlan.of(settings,
                      analysts=[k for k in ANALYST_KINDS if kept.get(f"analyst_{k}", k in settings.analysts)],
                      debate_rounds=kept.get("debate_rounds"), risk_rounds=kept.get("risk_rounds"))
    return NextAnalysis(plan, models)


def settings_widgets(values: dict[str, Any], settings: Settings) -> list[InputWidget]:
    """The panel's widgets, set to `values` (the session's chat settings)."""
    nxt = next_analysis(values, settings)
    plan = nxt.plan
    widgets: list[InputWidget] = [Switch(id=f"analyst_{a.kind}", label=a.persona, initial=a.kind in plan.analysts,
                      description="Takes part in the next analysis") for a in ANALYSTS]
    low, high = field_bounds("debate_rounds")
    widgets += [
        Slider(id="debate_rounds", label="Bull ⇄ Bear debate rounds", initial=plan.debate_rounds,
               min=low, max=high, step=1),
        Slider(id="risk_rounds", label="Risk debate rounds", initial=plan.risk_rounds,
               min=field_bounds("risk_rounds")[0], max=field_bounds("risk_rounds")[1], step=1),
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
