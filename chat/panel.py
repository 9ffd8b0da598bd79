"""The chat settings panel (the gear): which analysts take part in the next analysis, its debate and
risk rounds and, live, the model names; read back as the next analysis' plan.

A client sends the panel's values over the socket as it likes (Chainlit stores each one in the
session and, at the disconnect, in the thread's metadata): debate rounds of 1000 ran 198 turns into
a GraphRecursionError, -3 skipped every debate, and "abc" made the thread fail each time it was
reopened. `check_settings` is the one rule: chat/web/door.py passes Chainlit only the values it keeps
and the Desk names the others; `next_analysis` reads through it too, so a value stored before this
check is ignored (with the Desk saying so) instead of breaking the thread."""
from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass, field
from typing import Any

from chainlit.input_widget import InputWidget, Slider, Switch, TextInput

from graph import ANALYST_KINDS, ANALYSTS, RunPlan, Settings, field_bounds, persona_label, phrase

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


# A refusal, or the rule a value broke, as words of the catalogue: the key `chat.<key>` and its fields
# (a field that is one itself is told first; the field `setting`, a widget id, is told by its label).
Words = tuple[str, dict[str, Any]]


def _told(words: Words, language: str) -> str:
    key, fields = words
    shown = {name: _told(v, language) if isinstance(v, tuple) else _label(v, language) if name == "setting" else v
             for name, v in fields.items()}
    return phrase(language, "chat." + key, **shown)


@dataclass(frozen=True)
class CheckedSettings:
    """A settings update split: what may be kept (by widget id) and each refused value, in words."""
    values: dict[str, Any] = field(default_factory=dict)
    refused: tuple[Words, ...] = ()

    def refusal(self, language: str = "en", *, stored: bool = False) -> str | None:
        """What the Desk says about the refused values of an update (`stored`: of the settings a
        reopened thread kept from before they were checked), in `language`; None when nothing was refused."""
        if not self.refused:
            return None
        named = phrase(language, "chat.panel_separator").join(_told(r, language) for r in self.refused[:MAX_NAMED])
        left = len(self.refused) - MAX_NAMED
        more = phrase(language, "chat.panel_refused_more", n=left) if left > 0 else ""
        return phrase(language, "chat.panel_ignored" if stored else "chat.panel_refused", named=named, more=more)


def _setting_ids(settings: Settings) -> set[str]:
    ids = {f"analyst_{a.kind}" for a in ANALYSTS} | set(ROUND_SETTINGS)
    if settings.live:  # model names are a live-mode setting; the demo has one model
        ids |= set(MODEL_SETTINGS)
    return ids


def _label(setting: str, language: str) -> str:
    """A setting's name in the Desk's words: its analyst's label, else the panel's short label."""
    persona = next((a.persona for a in ANALYSTS if f"analyst_{a.kind}" == setting), None)
    return persona_label(persona, language) if persona else phrase(language, f"chat.panel_{setting}_short")


def _checked(key: str, value: Any) -> tuple[Any, Words | None]:
    """(the value as kept, None) or (None, what a value of `key` must be)."""
    if key.startswith("analyst_"):
        return (value, None) if isinstance(value, bool) else (None, ("panel_on_off", {}))
    if key in ROUND_SETTINGS:
        low, high = field_bounds(key)
        whole = ((isinstance(value, int) and not isinstance(value, bool))
                 or (isinstance(value, float) and value.is_integer()))  # a slider sends 2 or 2.0
        if whole and low <= value <= high:
            return int(value), None
        return None, ("panel_whole", {"low": low, "high": high})
    # a model name; empty is the server's own model
    if isinstance(value, str) and (not value.strip() or MODEL_NAME.fullmatch(value.strip())):
        return value.strip(), None
    return None, ("panel_model_name", {})


def check_settings(values: object, settings: Settings) -> CheckedSettings:
    """The values of a settings update the desk keeps, and the refused ones named: every key is a
    widget of the panel and every value one its widget could send."""
    if not isinstance(values, dict):
        return CheckedSettings(refused=(("panel_not_named", {"value": _shown(values)}),))
    ids = _setting_ids(settings)
    kept: dict[str, Any] = {}
    refused: list[Words] = []
    for key, value in values.items():
        if not isinstance(key, str) or key not in ids:
            refused.append(("panel_no_setting", {"name": _shown(key)}))
            continue
        value, rule = _checked(key, value)
        if rule is None:
            kept[key] = value
        else:
            refused.append(("panel_must_be", {"setting": key, "rule": rule, "value": _shown(values[key])}))
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


def settings_widgets(values: dict[str, Any], settings: Settings, language: str = "en") -> list[InputWidget]:
    """The panel's widgets, set to `values` (the session's chat settings), labelled in `language`."""
    nxt = next_analysis(values, settings)
    plan = nxt.plan
    takes_part = phrase(language, "chat.panel_takes_part")
    widgets: list[InputWidget] = [Switch(id=f"analyst_{a.kind}", label=persona_label(a.persona, language),
                                         initial=a.kind in plan.analysts, description=takes_part) for a in ANALYSTS]
    widgets += [Slider(id=key, label=phrase(language, f"chat.panel_{key}"), initial=getattr(plan, key),
                       min=field_bounds(key)[0], max=field_bounds(key)[1], step=1) for key in ROUND_SETTINGS]
    if nxt.models:  # live mode: the model names, as the server knows them
        widgets += [TextInput(id=key, label=phrase(language, f"chat.panel_{key}"), initial=name)
                    for key, name in zip(MODEL_SETTINGS, nxt.models, strict=True)]
    return widgets


def describe(nxt: NextAnalysis, language: str = "en") -> str:
    """What the Desk says when the panel changes, in `language`."""
    plan = nxt.plan
    who = phrase(language, "chat.list_separator").join(
        persona_label(a.persona, language) for a in ANALYSTS if a.kind in plan.analysts)
    models = phrase(language, "chat.panel_models", quick=nxt.models[0], deep=nxt.models[1]) if nxt.models else ""
    return phrase(language, "chat.panel_next", who=who, debate=plan.debate_rounds, risk=plan.risk_rounds,
                  models=models)
