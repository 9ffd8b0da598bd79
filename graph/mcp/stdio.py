"""`python -m graph mcp`: the MCP server over stdio, for a desktop client (Claude Desktop, Cursor) or an agent
framework that starts it as a child process. It serves one user (`--user`, the CLI's local user by default), in demo
mode when no model is configured, exactly as the CLI: the same settings (environment, `.env`), the same data folder.

Standard output carries the protocol and nothing else: it is kept for the protocol, and anything else that writes to
it (a library's print) goes to standard error, where the desk's logs go too.
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from datetime import date
from io import TextIOWrapper

import anyio
from mcp.server.stdio import stdio_server
from pydantic import ValidationError

from ..core.context import LOCAL_USER
from ..core.errors import explain
from ..core.heap import settle_heap
from ..core.settings import Settings
from ..runtime.desk import DeskRuntime
from .server import build_server
from .service import DeskService


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m graph mcp",
                                 description="Serve the trading desk over the Model Context Protocol (stdio).")
    ap.add_argument("--user", default=LOCAL_USER,
                    help=f"whose threads, track record, book and backtests these are (default: {LOCAL_USER})")
    ap.add_argument("--today", type=date.fromisoformat, help="pretend today is YYYY-MM-DD")
    return ap


async def serve(settings: Settings, user: str, today: date | None, protocol_out: TextIOWrapper) -> None:
    async with DeskRuntime.open(settings) as desk:
        server = build_server(DeskService(desk, user, today))
        settle_heap()  # a long-lived server: what it has loaded is out of every full collection (core/heap.py)
        stdout = anyio.wrap_file(protocol_out)
        async with stdio_server(stdout=stdout) as (read, write):
            await server.run(read, write, server.create_initialization_options())


def _protocol_stdout() -> TextIOWrapper:
    """Standard output for the protocol alone: a copy of it kept for the protocol, and file descriptor 1 (and
    sys.stdout) pointed at standard error."""
    sys.stdout.flush()
    protocol = TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if not args.user.strip():
        print("--user names a user", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings()
    except ValidationError as exc:
        print(f"The desk's settings are not valid: {explain(exc)}", file=sys.stderr)
        return 2
    protocol = _protocol_stdout()
    try:
        asyncio.run(serve(settings, args.user.strip(), args.today, protocol))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a sentence on standard error, which the client shows in its logs
        print(f"The desk's MCP server stopped: {explain(exc)}", file=sys.stderr)
        return 1
    return 0
