"""The chat history store: its SQLite schema, the element files, the login secret (the data layer
itself, with its guards, is chat/history.py; logins are chat/accounts.py).

Chainlit does not create its tables, and its SQLite path has quirks: every key it writes into
`steps` needs a column (or the whole step is dropped with a logged warning), and elements
(charts, reports) are kept only when a storage provider is configured. So we create the
schema ourselves and keep element files under DESK_DATA_DIR.

The history lives in DESK_DATA_DIR/chat.sqlite, or in the PostgreSQL database of
DESK_DATABASE_URL (graph/persistence/database.py) when one is set: the same tables there, JSON kept as text
as in SQLite, so the data layer reads both alike. Element files stay under DESK_DATA_DIR/files:
processes on several machines need that folder shared (or a cloud storage client instead).
"""
from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from chainlit.data.storage_clients.base import BaseStorageClient

from graph.core.private import private_dir, private_file, write_private
from graph.core.settings import Settings
from graph.persistence.database import SCHEMA_LOCK, libpq_url, sqlalchemy_url

if TYPE_CHECKING:
    from chat.history import DeskDataLayer

FILES_ROUTE = "/desk-files"

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    "id" TEXT PRIMARY KEY,
    "identifier" TEXT NOT NULL UNIQUE,
    "metadata" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TEXT
);
CREATE TABLE IF NOT EXISTS threads (
    "id" TEXT PRIMARY KEY,
    "createdAt" TEXT,
    "name" TEXT,
    "userId" TEXT REFERENCES users("id") ON DELETE CASCADE,
    "userIdentifier" TEXT,
    "tags" TEXT,
    "metadata" TEXT
);
CREATE TABLE IF NOT EXISTS steps (
    "id" TEXT PRIMARY KEY,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "parentId" TEXT,
    "streaming" BOOLEAN NOT NULL DEFAULT FALSE,
    "waitForAnswer" BOOLEAN,
    "isError" BOOLEAN,
    "metadata" TEXT,
    "tags" TEXT,
    "input" TEXT,
    "output" TEXT,
    "createdAt" TEXT,
    "command" TEXT,
    "modes" TEXT,
    "start" TEXT,
    "end" TEXT,
    "generation" TEXT,
    "showInput" TEXT,
    "defaultOpen" BOOLEAN,
    "autoCollapse" BOOLEAN,
    "language" TEXT,
    "indent" INTEGER,
    "icon" TEXT
);
CREATE INDEX IF NOT EXISTS steps_thread ON steps("threadId");
CREATE INDEX IF NOT EXISTS threads_user ON threads("userId");
CREATE TABLE IF NOT EXISTS elements (
    "id" TEXT PRIMARY KEY,
    "threadId" TEXT,
    "type" TEXT,
    "url" TEXT,
    "chainlitKey" TEXT,
    "name" TEXT NOT NULL,
    "display" TEXT,
    "objectKey" TEXT,
    "size" TEXT,
    "page" INTEGER,
    "language" TEXT,
    "forId" TEXT,
    "mime" TEXT,
    "props" TEXT,
    "autoPlay" BOOLEAN,
    "playerConfig" TEXT
);
CREATE TABLE IF NOT EXISTS feedbacks (
    "id" TEXT PRIMARY KEY,
    "forId" TEXT NOT NULL,
    "threadId" TEXT,
    "value" INTEGER NOT NULL,
    "comment" TEXT
);
"""

# Keys Chainlit writes into steps (StepDict and Message.to_dict); a missing column drops the step.
STEP_COLUMNS = ("id", "name", "type", "threadId", "parentId", "streaming", "waitForAnswer", "isError",
                "metadata", "tags", "input", "output", "createdAt", "command", "modes", "start", "end",
                "generation", "showInput", "defaultOpen", "autoCollapse", "language", "indent", "icon")


def chat_db_path(data_dir: Path) -> Path:
    return data_dir / "chat.sqlite"


def chat_database(settings: Settings) -> Path | str:
    """Where the history is kept: the SQLite file, or the Postgres URL (SQLAlchemy's spelling)."""
    return _chat_database(settings.data_dir, settings.database_url)


def _chat_database(data_dir: Path, database_url: str | None) -> Path | str:
    url = libpq_url(database_url)
    return sqlalchemy_url(url) if url else chat_db_path(data_dir)


def create_schema(database: Path | str) -> None:
    """Create (or complete) the tables; safe to run at every start. `database`: the SQLite file
    (owner-only) or a Postgres URL (chat_database)."""
    if isinstance(database, str):
        _create_postgres_schema(database)
        return
    db_path = database
    private_file(db_path)
    with sqlite3.connect(db_path) as conn:
        # WAL (kept in the file): readers never wait for the history writer, nor it for them.
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(SCHEMA)
        # An older database may lack columns a newer Chainlit writes: add them.
        have = {row[1] for row in conn.execute('PRAGMA table_info("steps")')}
        for column in STEP_COLUMNS:
            if column not in have:
                conn.execute(f'ALTER TABLE steps ADD COLUMN "{column}" TEXT')


def _create_postgres_schema(url: str) -> None:
    """The same tables in Postgres, in one transaction under the desk's schema lock: processes
    starting together would race on CREATE TABLE IF NOT EXISTS. Columns a newer Chainlit writes
    are added when missing (looked up first: ALTER TABLE locks the table even when it does nothing)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.exec_driver_sql(statement)
            have = set(conn.execute(text("SELECT column_name FROM information_schema.columns "
                                         "WHERE table_schema = current_schema() AND table_name = 'steps'")).scalars())
            for column in STEP_COLUMNS:
                if column not in have:  # from the fixed list, never a caller's text
                    conn.exec_driver_sql(f'ALTER TABLE steps ADD COLUMN "{column}" TEXT')
    finally:
        engine.dispose()


class LocalFileStorage(BaseStorageClient):
    """Element files on local disk, owner-only, served by the app under FILES_ROUTE to the owner
    of the thread they belong to (see chat/app.py)."""

    def __init__(self, root: Path):
        self.root = root.resolve()

    def path_of(self, object_key: str) -> Path | None:
        path = (self.root / object_key).resolve()
        return path if path.is_relative_to(self.root) else None

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        path = self.path_of(object_key)
        if path is None or path == self.root:
            return {}
        private_dir(self.root)
        for folder in reversed(path.relative_to(self.root).parents[:-1]):  # each level owner-only
            private_dir(self.root / folder)
        if overwrite or not path.exists():
            write_private(path, data.encode() if isinstance(data, str) else data)
        return {"object_key": object_key, "url": await self.get_read_url(object_key)}

    async def delete_file(self, object_key: str) -> bool:
        path = self.path_of(object_key)
        if path is None or not path.is_file():
            return False
        path.unlink()
        for folder in path.parents:  # the element's (and user's) folder, once empty
            if folder == self.root or not folder.is_relative_to(self.root):
                break
            try:
                folder.rmdir()
            except OSError:
                break
        return True

    async def get_read_url(self, object_key: str) -> str:
        return f"{FILES_ROUTE}/{quote(object_key)}"

    async def close(self) -> None:
        return None


def make_data_layer(data_dir: Path,
                    on_delete_thread: Callable[[str], Awaitable[None]] | None = None, *,
                    database_url: str | None = None) -> DeskDataLayer:
    """Chainlit's SQLAlchemy data layer with bound parameters and ownership checks (chat/history.py),
    on chat.sqlite under `data_dir` or on the Postgres database of `database_url` (DESK_DATABASE_URL);
    `on_delete_thread` forgets the desk's side of a deleted thread (checkpoints, notes)."""
    from chat.history import DeskDataLayer

    database = _chat_database(data_dir, database_url)
    conninfo = database if isinstance(database, str) else f"sqlite+aiosqlite:///{database}"
    return DeskDataLayer(conninfo, storage_provider=LocalFileStorage(data_dir / "files"),
                         on_delete_thread=on_delete_thread)


def ensure_auth_secret(data_dir: Path) -> str:
    """CHAINLIT_AUTH_SECRET from the environment, or one generated once and kept under DESK_DATA_DIR.
    Chainlit reads it after loading the app module, so setting it at import time is in time."""
    if secret := os.environ.get("CHAINLIT_AUTH_SECRET"):
        return secret
    path = data_dir / "auth_secret"
    secret = path.read_text().strip() if path.exists() else ""
    if not secret:
        secret = secrets.token_urlsafe(48)
        try:  # owner-only from its creation; a second process starting at once keeps the first's
            write_private(path, secret.encode(), exclusive=not path.exists())
        except FileExistsError:
            secret = path.read_text().strip()
    os.environ["CHAINLIT_AUTH_SECRET"] = secret
    return secret
