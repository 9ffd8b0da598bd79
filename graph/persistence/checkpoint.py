"""The thread store's serializer, and its SQLite form (one file under DESK_DATA_DIR). Which store
a process opens, SQLite or Postgres, is decided in graph/persistence/database.py."""
from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from ..core.private import private_file
from ..core.state import Debate, FinalDecision, Intervention, Turn

# Our pydantic types in state must be allow-listed, or loading a checkpoint warns (and strict mode refuses).
# Checkpoints from before the move to graph/core/ name them under graph.state (kept for those).
SERDE = JsonPlusSerializer(allowed_msgpack_modules=[
    (module, t.__name__)
    for t in (Debate, Turn, FinalDecision, Intervention) for module in (t.__module__, "graph.state")
])


@asynccontextmanager
async def open_sqlite_checkpointer(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    private_file(path)  # owner-only from creation, its folder too
    async with aiosqlite.connect(str(path)) as conn:
        saver = AsyncSqliteSaver(conn, serde=SERDE)
        await saver.setup()  # switches the file to WAL
        # In WAL mode NORMAL skips the fsync on every commit; a power cut may lose the last
        # step or two, never corrupt the file, and a resumed thread redoes those steps.
        await conn.execute("PRAGMA synchronous=NORMAL")
        yield saver
