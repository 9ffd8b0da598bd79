"""Turning failures into sentences a trader can act on, in the reader's language.

The sentences are the `[errors]` texts of prompts/words_<code>.md (graph/core/words.py); `explain`
tells one in the language asked for, English by default."""
from __future__ import annotations

import errno
import sys
from collections.abc import Iterator, Mapping
from typing import TypeVar

from .words import DEFAULT_LANGUAGE, label, phrase

E = TypeVar("E", bound=BaseException)


class DeskError(Exception):
    """A failure with a message meant for the user: a sentence, or a catalogue text (`key`, e.g.
    "errors.empty_answer", with its fields) that `told` gives in any language. str() is the English.
    A field named `persona` is shown by the persona's label; a field that is an exception, explained."""

    def __init__(self, message: str = "", *, key: str | None = None, **fields: object) -> None:
        self.key = key
        self.fields = fields
        super().__init__(message if key is None else _told(DEFAULT_LANGUAGE, key, fields))

    def told(self, language: str) -> str:
        return str(self) if self.key is None else _told(language, self.key, self.fields)


def _told(language: str, key: str, fields: Mapping[str, object]) -> str:
    def shown(name: str, value: object) -> object:
        if isinstance(value, BaseException):
            return explain(value, language)
        if name == "persona":
            return label(language, "personas", str(value))
        return value
    return phrase(language, key, **{name: shown(name, value) for name, value in fields.items()})


# The English of the failure the analysts' tools cannot get past (speaking.py tells it apart).
NO_TOOLS = phrase(DEFAULT_LANGUAGE, "errors.no_tools")

# What each kind of failure is, by exception type. langchain-openai re-raises the SDK's errors
# as its own subclasses (OpenAITimeoutError(openai.APITimeoutError, ModelTimeoutError), ...), so
# matching the SDK classes, or langchain-core's provider-neutral ones, covers both. Order
# matters: openai.APITimeoutError subclasses openai.APIConnectionError. Each kind is the key of
# its sentence in the `[errors]` catalogue.
_KINDS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("timeout", (("openai", "APITimeoutError"), ("langchain_core.exceptions", "ModelTimeoutError"),
                 ("httpx", "TimeoutException"), ("httpx2", "TimeoutException"),
                 ("builtins", "TimeoutError"))),  # asyncio.TimeoutError is TimeoutError on 3.11+
    ("authentication", (("openai", "AuthenticationError"), ("langchain_core.exceptions", "ModelAuthenticationError"))),
    ("rate_limit", (("openai", "RateLimitError"), ("langchain_core.exceptions", "ModelRateLimitError"))),
    ("connection", (("openai", "APIConnectionError"), ("langchain_core.exceptions", "ModelConnectionError"))),
    ("server_error", (("openai", "InternalServerError"), ("langchain_core.exceptions", "ModelAPIError"))),
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


def explain(exc: BaseException, language: str = DEFAULT_LANGUAGE) -> str:
    """A readable one-paragraph explanation of a failure, with what to do about it, in `language`."""
    chain = list(_chain(exc))
    for e in chain:
        if isinstance(e, DeskError):
            return e.told(language)
        if disk_full(e):
            return phrase(language, "errors.disk_full", text=_disk_words(e))
        if (known := _by_type(e, language)) is not None:
            return known
    for e in chain:
        if (known := _by_words(e, language)) is not None:
            return known
    name = type(exc).__name__
    return phrase(language, "errors.unknown", name=name, text=str(exc) or name)


_DISK_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_SQLITE_FULL = 13  # SQLITE_FULL: "database or disk is full"
_DISK_FULL_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")


def disk_full(e: BaseException) -> bool:
    """Whether a failure is a full disk (issue 36): ENOSPC from a file write, SQLite's SQLITE_FULL, Postgres's
    DiskFull (SQLSTATE 53100), or a driver's error that says so in words (SQLAlchemy wraps sqlite3's)."""
    if isinstance(e, OSError) and e.errno in _DISK_FULL_ERRNOS:
        return True
    if getattr(e, "sqlite_errorcode", None) == _SQLITE_FULL or getattr(e, "sqlstate", None) == "53100":
        return True
    return any(words in str(e).lower() for words in _DISK_FULL_WORDS)


def _disk_words(e: BaseException) -> str:
    """What the failure says, without its file's long path or a driver's SQL (the sentence names the place)."""
    if isinstance(e, OSError) and e.errno in _DISK_FULL_ERRNOS:
        return "no space left on device"
    lower = str(e).lower()
    return next((words for words in _DISK_FULL_WORDS if words in lower), "no space left")


def found_in(exc: BaseException, kind: type[E]) -> E | None:
    """The first exception of `kind` along the chain `explain` reads (raised from or while handling another)."""
    return next((e for e in _chain(exc) if isinstance(e, kind)), None)


def kind_of(exc: BaseException) -> str | None:
    """The kind of failure `explain` names by class ("timeout", "rate_limit", "connection", ...), the
    first along the exception's chain; None when none is."""
    return next((k for e in _chain(exc) if (k := _kind(e)) is not None), None)


def _by_type(e: BaseException, language: str) -> str | None:
    """The explanation of a failure its exception class names (a timeout, a refused key, ...)."""
    kind = _kind(e)
    return phrase(language, "errors." + kind, text=str(e) or type(e).__name__) if kind else None


def _by_words(e: BaseException, language: str) -> str | None:
    """The explanation of a failure only its message names: servers that raise a plain error."""
    text = str(e) or type(e).__name__
    lower = text.lower()
    if "model" in lower and "not found" in lower:
        return phrase(language, "errors.not_found", text=text)
    if "tool" in lower and any(w in lower for w in ("support", "not allowed", "unsupported", "does not")):
        return phrase(language, "errors.no_tools")
    return None
