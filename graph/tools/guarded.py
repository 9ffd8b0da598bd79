"""Vendor calls with a time limit, and the wrapper that makes every tool answer.

A tool body returns ``(text, figures, items)``, optionally with a 4th item of
extra artifact keys, or raises. :func:`guarded_tool` turns either outcome into
the ``(content, artifact)`` pair of the artifact contract (see
:mod:`graph.tools`): any failure reaches the model as "no data: <reason>".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any, ParamSpec, TypeVar

from langchain_core.tools import StructuredTool
from pydantic import BaseModel

from ..data.vendor import Vendor, VendorError

VENDOR_TIMEOUT_S = 30.0

Figures = dict[str, float | int | str | None]
Artifact = dict[str, Any]
# A body's answer: (text, figures, items), or with extra artifact keys as a 4th item.
Answer = tuple[str, Figures, list[str]] | tuple[str, Figures, list[str], Artifact]
Body = Callable[..., Awaitable[Answer]]

P = ParamSpec("P")
T = TypeVar("T")


class NoData(Exception):
    """Raised inside a tool body when the vendor answered but had nothing."""


async def call_vendor(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a sync vendor method off the event loop, with a time limit."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(fn, *args, **kwargs), VENDOR_TIMEOUT_S)
    except TimeoutError:
        raise VendorError("timeout") from None


async def optional(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
    """Secondary data: a failure here gives None rather than sinking the whole tool."""
    try:
        return await call_vendor(fn, *args, **kwargs)
    except Exception:
        return None


def reason(exc: Exception) -> str:
    """The short reason a failure is reported with."""
    if isinstance(exc, (VendorError, NoData)):
        return str(exc) or type(exc).__name__
    return f"unexpected {type(exc).__name__}: {exc}"


def guarded_tool(
    name: str,
    description: str,
    args_schema: type[BaseModel],
    vendor: Vendor,
    as_of: date,
    body: Body,
) -> StructuredTool:
    """Wrap a body into a tool that always answers, with data or "no data"."""
    as_of_text = as_of.isoformat()

    async def run(**kwargs: object) -> tuple[str, Artifact]:
        base: Artifact = {"tool": name, "source": vendor.name, "as_of": as_of_text}
        try:
            text, figures, items, *more = await body(**kwargs)
        except Exception as exc:  # any failure must reach the model as "no data"
            why = reason(exc)
            return f"no data: {why}", {**base, "error": why, "figures": {}, "items": []}
        header = f"Source: {vendor.label} · as of {as_of_text}"
        extra = more[0] if more else {}
        return f"{header}\n{text}", {**base, "figures": figures, "items": items, **extra}

    return StructuredTool.from_function(
        coroutine=run,
        name=name,
        description=description,
        args_schema=args_schema,
        response_format="content_and_artifact",
    )
