"""What a message to a thread asks for, read once for the headless ways of asking the desk: the CLI (graph/cli.py)
and the MCP server (graph/mcp/).

The message is cleaned (graph's `clean_message`: what is stored and run), the thread's language reckoned for it, and
then, in this order: a follow-up to the comparison the thread holds ("which was riskier?") is the comparison's;
anything else is what the router (graph/routing.py, the chat's too) reads it as: the book's, a backtest's, a
watch's, a new comparison's, or the desk's (a new analysis, a follow-up, a question back). Each caller then does what
it can with it, and says in its own words where the rest is done (the CLI names a command, the MCP server a tool).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from .compare.flow import Comparison, followup_of
from .nodes.thread_language import thread_language
from .request import clean_message
from .routing import Purpose, Route, Situation, route
from .runtime.desk import DeskRuntime


@dataclass(frozen=True)
class Asked:
    text: str                 # the message as cleaned: what is stored and run
    language: str             # the language the thread answers it in
    problem: str | None = None  # what cleaning had to say (a message cut short, an empty one)
    usable: bool = True       # False: nothing to run (the problem says why)
    followed: Comparison | None = None  # the thread's finished comparison this follows up
    route: Route = field(default_factory=lambda: Route(Purpose.DESK))


async def read_asked(desk: DeskRuntime, user: str, thread_id: str, text: str, today: date) -> Asked:
    """What `text`, sent by `user` to thread `thread_id` on `today`, asks for."""
    state = await desk.state(thread_id)
    language = thread_language(desk.settings.language, state.get("language"), text or "")
    cleaned = clean_message(text)  # before anything stores it
    if not cleaned.usable:
        return Asked(cleaned.text, language, cleaned.problem, usable=False)
    if (followed := await followup_of(desk, user, thread_id, cleaned.text, today)) is not None:
        return Asked(cleaned.text, language, cleaned.problem, followed=followed)
    analysed = bool(state.get("ticker"))  # then only "NVDA or AMD?", not two names, is a comparison
    routed = route(cleaned.text, Situation(today, analysed, desk.settings.language))
    return Asked(cleaned.text, language, cleaned.problem, route=routed)
