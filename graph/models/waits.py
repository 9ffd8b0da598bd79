"""The waits the model client takes on its own, told to the stall watchdog so it does not count them as
silence.

The OpenAI client retries a 408, 409, 429 or 5xx answer itself (`max_retries`), after the server's
Retry-After (up to two minutes) or its own backoff (0.5 s doubling, at most 8 s). graph/nodes/speaking.py
watches each call for `DESK_STALL_TIMEOUT_S` without a word; a Retry-After longer than that is the
server asking for patience, not a hang, so the watchdog is moved on by the wait. The client's response
hook reaches the call it belongs to through a context variable: the call's own task sets it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# What the client's retries wait at most: the server's Retry-After up to this (the client's limit,
# openai._constants.MAX_RETRY_AFTER_DELAY), its own backoff at most BACKOFF_MAX_S.
RETRY_AFTER_MAX_S = 120.0
BACKOFF_MAX_S = 8.0
_RETRIED = frozenset({408, 409, 429})

_waiting: ContextVar[Callable[[float], None] | None] = ContextVar("desk_client_waits", default=None)


@contextmanager
def told_of_waits(wait: Callable[[float], None]) -> Iterator[None]:
    """Within the block, `wait(seconds)` hears of each retry the client is about to wait for."""
    token = _waiting.set(wait)
    try:
        yield
    finally:
        _waiting.reset(token)


def retry_wait(status: int, headers: Any) -> float | None:
    """How long the client waits before asking again after an answer of `status` (None: it does not retry
    it). The server's Retry-After (or retry-after-ms) when the client honours it, else its longest backoff."""
    if status not in _RETRIED and status < 500:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(name)) * scale
        except (TypeError, ValueError):
            continue
        if 0 < seconds <= RETRY_AFTER_MAX_S:
            return seconds
    return BACKOFF_MAX_S


async def _on_response(response: Any) -> None:
    if (tell := _waiting.get()) is not None and (seconds := retry_wait(response.status_code, response.headers)):
        tell(seconds)


def hear_waits(model: Any) -> None:
    """Hook the model's async HTTP client (ChatOpenAI's; shared between models) so a call hears of waits."""
    client = getattr(getattr(model, "root_async_client", None), "_client", None)
    hooks = getattr(client, "event_hooks", None)
    if not isinstance(hooks, dict) or _on_response in hooks.get("response", []):
        return
    client.event_hooks = {**hooks, "response": [*hooks.get("response", []), _on_response]}  # type: ignore[union-attr]
