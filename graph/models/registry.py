"""The models the desk speaks with: ChatOpenAI when configured, the demo policy otherwise.

Chat models are built once per name and kept; which names a run uses comes from its runtime
context (`DeskContext.quick_model` / `deep_model`), so one compiled graph serves any choice.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlparse

from langchain_core.language_models import BaseChatModel

from ..core.prompts import render_in
from ..core.settings import Settings
from ..core.words import DEFAULT_LANGUAGE, phrase
from .shaped import Shapes

if TYPE_CHECKING:
    from ..core.context import DeskContext


# What a call is for decides its output cap: an analyst's report, a debate turn (debaters, the
# research manager, the trader, the Desk's follow-up answers) or the Risk Judge's ruling.
Role = Literal["report", "turn", "ruling"]


@dataclass(frozen=True)
class CallLimits:
    """How one call is bounded: its output cap, the stall watchdog, and the request fields that
    carry the cap to the server."""

    max_tokens: int | None = None
    stall_timeout_s: float | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)


def _is_openai(base_url: str | None) -> bool:
    return not base_url or (urlparse(base_url).hostname or "").endswith("api.openai.com")


class ModelRegistry:
    def __init__(self, settings: Settings, *, fixed: BaseChatModel | None = None, notice: str | None = None,
                 live: bool | None = None):
        self.settings = settings
        self.live = settings.live if live is None else live
        self._fixed = fixed
        self._built: dict[str, BaseChatModel] = {}
        # Each model's capped copy per role (`capped`), beside the model it was copied from.
        self._capped: dict[tuple[int, Role], tuple[BaseChatModel, BaseChatModel]] = {}
        self._given_notice = notice
        self.notice = notice if notice is not None else self.notice_in(DEFAULT_LANGUAGE)
        # Which structured-output method each model's server takes, found out once (shaped.py).
        self.shapes = Shapes(schema_first=settings.structured_output == "schema")

    def notice_in(self, language: str) -> str:
        """One line for the user: which mode, and how to change it; in `language` where the prompts
        hold it (prompts/demo_notice_<code>.md, live_notice_<code>.md), else in English."""
        if self._given_notice is not None:
            return self._given_notice
        s = self.settings
        if not self.live:
            return render_in(language, "demo_notice")
        base = phrase(language, "desk.server", url=s.openai_base_url) if s.openai_base_url else ""
        return render_in(language, "live_notice", quick_model=s.quick_model, deep_model=s.deep_model, base_url=base)

    @classmethod
    def fixed(cls, model: BaseChatModel, settings: Settings | None = None, notice: str = "test mode",
              live: bool = False) -> ModelRegistry:
        """Every name is this one model (tests, benchmarks)."""
        return cls(settings or Settings(), fixed=model, notice=notice, live=live)

    def quick_name(self, context: DeskContext | None) -> str:
        return (context.quick_model if context else None) or self.settings.quick_model

    def deep_name(self, context: DeskContext | None) -> str:
        return (context.deep_model if context else None) or self.settings.deep_model

    def quick(self, context: DeskContext | None) -> BaseChatModel:
        """Analysts, debaters, trader, Desk."""
        return self.get(self.quick_name(context))

    def deep(self, context: DeskContext | None) -> BaseChatModel:
        """Research manager, risk judge."""
        return self.get(self.deep_name(context))

    def limits(self, role: Role) -> CallLimits:
        """The cap (DESK_REPORT_TOKENS, DESK_TURN_TOKENS, DESK_RULING_TOKENS) and the stall watchdog
        (DESK_STALL_TIMEOUT_S) of a call made for `role`."""
        s = self.settings
        cap = {"report": s.report_tokens, "turn": s.turn_tokens, "ruling": s.ruling_tokens}[role]
        fields: dict[str, Any] = {"max_tokens": cap}
        if self.live and self._fixed is None and not _is_openai(s.openai_base_url):
            # ChatOpenAI sends the cap as `max_completion_tokens`, which OpenAI wants; llama-cpp-python's
            # server ignores that field (and then never stops: 6,652 tokens in one turn), Ollama and
            # LM Studio read `max_tokens`. Other servers get both names.
            fields["extra_body"] = {"max_tokens": cap}
        return CallLimits(max_tokens=cap, stall_timeout_s=s.stall_timeout_s, fields=fields)

    def capped(self, model: BaseChatModel, role: Role) -> BaseChatModel:
        """`model` with the role's cap built in, for calls whose request is built elsewhere
        (structured output): the cap fields the model has, set on a copy."""
        fields = {k: v for k, v in self.limits(role).fields.items() if k in type(model).model_fields}
        if not fields:
            return model
        # The same copy each time, so what is built on it once (its structured forms: shaped.py) is reused.
        known = self._capped.get((id(model), role))
        if known is None or known[0] is not model:
            known = (model, model.model_copy(update=fields))
            self._capped[(id(model), role)] = known
        return known[1]

    def get(self, name: str) -> BaseChatModel:
        if self._fixed is not None:
            return self._fixed
        key = name if self.live else ""  # the demo has one model whatever the name
        if key not in self._built:
            self._built[key] = self._make(name)
        return self._built[key]

    def _make(self, name: str) -> BaseChatModel:
        s = self.settings
        if not self.live:
            from .demo import DemoChatModel
            return DemoChatModel(delay_ms=s.demo_delay_ms, first_token_ms=s.demo_first_token_ms)
        from langchain_openai import ChatOpenAI

        from .waits import hear_waits
        model = ChatOpenAI(
            model=name,
            # Local servers (Ollama, vLLM, LM Studio) accept any key; the client insists on one.
            api_key=s.openai_api_key or "not-needed",
            base_url=s.openai_base_url,
            timeout=s.request_timeout,
            max_retries=s.max_retries,
            streaming=True,
            stream_usage=True,
        )
        hear_waits(model)  # the stall watchdog waits out the client's own retries (a 429's Retry-After)
        return model
