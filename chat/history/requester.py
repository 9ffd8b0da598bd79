"""Whose request is being served: the identifier of the user whose current token came with it (set by chat/web/
tokens.py's TokenGuard for each request; read by the data layer's ownership checks)."""
from __future__ import annotations

import contextvars

REQUESTER: contextvars.ContextVar[str | None] = contextvars.ContextVar("desk_requester", default=None)
