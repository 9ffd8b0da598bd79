"""Turning failures into sentences a trader can act on."""
from __future__ import annotations


class DeskError(Exception):
    """A failure with a message meant for the user."""


def explain(exc: BaseException) -> str:
    """A readable one-paragraph explanation of a failure, with what to do about it."""
    if isinstance(exc, DeskError):
        return str(exc)
    name = type(exc).__name__
    text = str(exc) or name
    lower = text.lower()
    if name in ("APITimeoutError", "TimeoutError", "ReadTimeout"):
        return ("The model did not answer in time. Try again; if it keeps happening, raise "
                "DESK_REQUEST_TIMEOUT or use a faster model.")
    if name == "AuthenticationError":
        return "The model server rejected the API key. Check OPENAI_API_KEY."
    if name == "RateLimitError":
        return "The model provider is rate-limiting us. Wait a minute and try again."
    if name == "APIConnectionError":
        return "Cannot reach the model server. Check OPENAI_BASE_URL and that the server is running."
    if name == "NotFoundError" or "model" in lower and "not found" in lower:
        return f"The model server does not know the configured model ({text}). Check DESK_QUICK_MODEL / DESK_DEEP_MODEL."
    if "tool" in lower and any(w in lower for w in ("support", "not allowed", "unsupported", "does not")):
        return ("The configured model cannot call tools, which the analysts need to fetch data. "
                "Pick a tool-capable model (e.g. llama3.1, qwen2.5, gpt-4o-mini) in DESK_QUICK_MODEL.")
    return f"Something went wrong: {name}: {text}"
