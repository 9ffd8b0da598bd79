"""The models the desk speaks with: ChatOpenAI when configured, the demo policy otherwise."""
from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from .demo_model import DemoChatModel
from .prompts import render
from .settings import Settings


@dataclass(frozen=True)
class Models:
    quick: BaseChatModel   # analysts, debaters, trader, Desk
    deep: BaseChatModel    # research manager, risk judge
    live: bool
    notice: str            # one line for the user: which mode, and how to change it


def make_models(settings: Settings) -> Models:
    if not settings.live:
        demo = DemoChatModel(delay_ms=settings.demo_delay_ms, first_token_ms=settings.demo_first_token_ms)
        return Models(quick=demo, deep=demo, live=False, notice=render("demo_notice"))
    from langchain_openai import ChatOpenAI

    def chat(model: str) -> ChatOpenAI:
        return ChatOpenAI(
            model=model,
            # Local servers (Ollama, vLLM, LM Studio) accept any key; the client insists on one.
            api_key=settings.openai_api_key or "not-needed",
            base_url=settings.openai_base_url,
            timeout=settings.request_timeout,
            max_retries=settings.max_retries,
            streaming=True,
            stream_usage=True,
        )

    base = f", server {settings.openai_base_url}" if settings.openai_base_url else ""
    return Models(quick=chat(settings.quick_model), deep=chat(settings.deep_model), live=True,
                  notice=render("live_notice", quick_model=settings.quick_model,
                                deep_model=settings.deep_model, base_url=base))
