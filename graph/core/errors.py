"""Turning failures into sentences a trader can act on."""
from __future__ import annotations

import sys
from collections.abc import Iterator


class DeskError(Exception):
    """A failure with a message meant for the user."""


TIMEOUT = ("The model did not answer in time. Try again; if it keeps happening, raise "
           "DESK_REQUEST_TIMEOUT or use a faster model.")
AUTHENTICATION = "The model server rejected the API key. Check OPENAI_API_KEY."
RATE_LIMIT = "The model provider is rate-limiting us. Wait a minute and try again."
CONNECTION = "Cannot reach the model server. Check OPENAI_BASE_URL and that the server is running."
NO_TOOLS = ("The configured model cannot call tools, which the analysts need to fetch data. "
            "Pick a tool-capable model (e.g. llama3.1, qwen2.5, gpt-4o-mini) in DESK_QUICK_MODEL.")


def _not_found(text: str) -> str:
    return f"The model server does not know the configured model ({text}). Check DESK_QUICK_MODEL / DESK_DEEP_MODEL."


# What each kind of failure is, by exception type. langchain-openai re-raises the SDK's errors
# as its own subclasses (OpenAITimeoutError(openai.APITimeoutError, ModelTimeoutError), ...), so
# matching the SDK classes, or langchain-core's provider-neutral ones, covers both. Order
# matters: openai.APITimeoutError subclasses openai.APIConnectionError.
_KINDS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("timeout", (("openai", "APITimeoutError"), ("langchain_core.exceptions", "ModelTimeoutError"),
                 ("httpx", "TimeoutException"), ("httpx2", "TimeoutException"),
                 ("builtins", "TimeoutError"))),  # asyncio.TimeoutError is TimeoutError on 3.11+
    ("authentication", (("openai", "AuthenticationError"), ("langchain_core.exceptions", "ModelAuthenticationError"))),
    ("rate_limit", (("openai", "RateLimitError"), ("langchain_core.exceptions", "ModelRateLimitError"))),
    ("connection", (("openai", "APIConnectionError"), ("langchain_core.exceptions", "ModelConnectionError"))),
    ("not_found", (("openai", "NotFoundError"), ("langchain_core.exceptions", "ModelNotFoundError"))),
)


def _classes(names: tuple[tuple[str, str], ...]) -> tuple[type, ...]:
    # Only modules already imported: an exception of a class from a module nobody imported
    # cannot exist, so graph/ needs neither openai nor httpx to be installed, and explain()
    # never pays for importing them.
    found = (getattr(sys.modules.get(module), name, None) for module, name in names)
    return tuple(c for c in found if isinstance(c, type) and issubclass(c, BaseException))


def _kind(exc: BaseException) -> str | None:
    for kind, names in _KINDS:
        if isinstance(exc, _classes(names)):
            return kind
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then what it was raised from or while handling, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)


def explain(exc: BaseException) -> str:
    """A readable one-paragraph explanation of a failure, with what to do about it."""
    chain = list(_chain(exc))
    for e in chain:
        if isinstance(e, DeskError):
            return str(e)
        if (known := _by_type(e)) is not None:
            return known
    for e in chain:
        if (known := _by_words(e)) is not None:
            return known
    name = type(exc).__name__
    return f"Something went wrong: {name}: {str(exc) or name}"


def _by_type(e: BaseException) -> str | None:
    """The explanation of a failure its exception class names (a timeout, a refused key, ...)."""
    kind = _kind(e)
    if kind == "not_found":
        return _not_found(str(e) or type(e).__name__)
    return _BY_KIND.get(kind) if kind else None


_BY_KIND = {"timeout": TIMEOUT, "authentication": AUTHENTICATION, "rate_limit": RATE_LIMIT, "connection": CONNECTION}


def _by_words(e: BaseException) -> str | None:
    """The explanation of a failure only its message names: servers that raise a plain error."""
    text = str(e) or type(e).__name__
    lower = text.lower()
    if "model" in lower and "not found" in lower:
        return _not_found(text)
    if "tool" in lower and any(w in lower for w in ("support", "not allowed", "unsupported", "does not")):
        return NO_TOOLS
    return None
