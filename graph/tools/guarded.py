"""Vendor calls with a time limit, and the wrapper that makes every tool answer.

A tool body returns ``(text, figures, items)``, optionally with a 4th item of
extra artifact keys, or raises. :func:`guarded_tool` turns either outcome into
the ``(content, artifact)`` pair of the artifact contract (see
:mod:`graph.tools`): any failure reaches the model as "no data: <reason>".
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any, ParamSpec, TypeVar

from langchain_core.tools import StructuredTool
from pydantic import BaseModel

from ..data.vendor import Vendor, VendorError, vendor_call

VENDOR_TIMEOUT_S = 30.0  # DESK_VENDOR_TIMEOUT_S's default; a vendor's own `timeout_s` (make_vendor) wins
# Vendor calls run on threads of their own: a vendor that hangs holds these, never the event loop's
# default executor that the rest of the process (files, the database) needs.
_VENDOR_THREADS = ThreadPoolExecutor(max_workers=16, thread_name_prefix="desk-vendor")

Figures = dict[str, float | int | str | None]
Artifact = dict[str, Any]
# A body's answer: (text, figures, items), or with extra artifact keys as a 4th item.
Answer = tuple[str, Figures, list[str]] | tuple[str, Figures, list[str], Artifact]
Body = Callable[..., Awaitable[Answer]]

P = ParamSpec("P")
T = TypeVar("T")


class NoData(Exception):
    """Raised inside a tool body when the vendor answered but had nothing."""


def timeout_of(fn: Callable[..., object], args: tuple[object, ...]) -> float:
    """The time limit of a call: its vendor's `timeout_s` (the method's owner, or the vendor a helper such
    as `asset_class_of` is given first), else VENDOR_TIMEOUT_S."""
    owner = getattr(fn, "__self__", None) or (args[0] if args else None)
    value = getattr(owner, "timeout_s", None)
    return float(value) if isinstance(value, (int, float)) and value > 0 else VENDOR_TIMEOUT_S


async def call_vendor(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a sync vendor method off the event loop, with a time limit (issue 36).

    A call past its limit, or whose run is stopped, is given up: the caller gets ``VendorError`` (the
    tool says "no data: ..."), and the call is told (``VendorCall.stop``) so that a cache does not keep
    its late answer and a retrying vendor stops. A thread that hangs inside the vendor's own I/O cannot
    be killed in Python; it ends when that I/O does, holding only one of the vendor threads."""
    limit = timeout_of(fn, args)
    stop = threading.Event()

    def run() -> T:
        with vendor_call(stop):
            return fn(*args, **kwargs)

    context = contextvars.copy_context()
    work = asyncio.get_running_loop().run_in_executor(_VENDOR_THREADS, context.run, run)
    try:
        return await asyncio.wait_for(work, limit)
    except TimeoutError:
        stop.set()
        raise VendorError(f"timeout: the data source did not answer within {limit:g} s") from None
    except BaseException:  # the run was cancelled (Stop, shutdown) or the vendor failed
        stop.set()
        raise


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
    source_label: str | None = None,
) -> StructuredTool:
    """Wrap a body into a tool that always answers, with data or "no data". ``source_label`` names the data's
    source when it is not the vendor's own (FRED's macro series, through the market-data vendor)."""
    as_of_text = as_of.isoformat()

    async def run(**kwargs: object) -> tuple[str, Artifact]:
        base: Artifact = {"tool": name, "source": vendor.name, "as_of": as_of_text}
        try:
            text, figures, items, *more = await body(**kwargs)
        except Exception as exc:  # any failure must reach the model as "no data"
            why = reason(exc)
            # "failed": the vendor failed or hung (not an answer with nothing in it): the analyst's report
            # then says what it lacks (graph/nodes/analysts.py).
            failed = {} if isinstance(exc, NoData) else {"failed": True}
            return f"no data: {why}", {**base, "error": why, "figures": {}, "items": [], **failed}
        header = f"Source: {source_label or vendor.label} · as of {as_of_text}"
        extra = more[0] if more else {}
        return f"{header}\n{text}", {**base, "figures": figures, "items": items, **extra}

    return StructuredTool.from_function(
        coroutine=run,
        name=name,
        description=description,
        args_schema=args_schema,
        response_format="content_and_artifact",
    )
