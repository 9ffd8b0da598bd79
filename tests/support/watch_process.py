"""The watches' scheduler in a process of its own, wired as the chat server wires it (chat/features/watches.py:
graph's WatchDesk on the desk's runtime, APScheduler's jobs in the desk's database, the webhook of DESK_WEBHOOK_URL),
with one point of a slot held, for a test that stops the process there (tests/watchlist/test_watch_signals.py):

    python -m tests.support.watch_process HOLD FD

HOLD is `PERSONA#N` (that persona's Nth call held after its first word, tests/support/held_cli.py) or `notice#N`
(the Nth ticker's run decided and stored, held before its notice is made). "held" is written to the file
descriptor FD once the point is reached. SIGTERM stops it as the desk's CLIs stop (graph/core/stopping.py).
"""
from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from graph.core import stopping
from graph.core.settings import Settings
from graph.runtime.desk import DeskRuntime
from graph.watchlist import scheduler
from graph.watchlist.scheduler import WatchDesk, jobs_url
from tests.support.held_cli import hold


def hold_notice(nth: int, fd: int) -> None:
    made = scheduler.notice_of
    calls = 0

    async def held(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == nth:
            os.write(fd, b"held\n")
            await asyncio.Event().wait()  # until the process is stopped
        return await made(*args, **kwargs)

    scheduler.notice_of = held


async def main() -> None:
    settings = Settings()
    async with DeskRuntime.open(settings) as desk:
        secret = settings.webhook_secret
        watches = WatchDesk(desk, webhook_url=settings.webhook_url or "",
                            webhook_secret=secret.get_secret_value() if secret is not None else "")
        await watches.start(jobs_url(settings.data_dir, settings.database_url))
        try:
            await asyncio.Event().wait()  # as a server: until stopped
        finally:
            await watches.close()


if __name__ == "__main__":
    point, _, nth = sys.argv[1].partition("#")
    if point == "notice":
        hold_notice(int(nth or 1), int(sys.argv[2]))
    else:
        hold(sys.argv[1], int(sys.argv[2]))
    try:
        stopping.run(main())
    except KeyboardInterrupt as stopped:
        sys.exit(stopping.exit_code(stopped))
