"""The chat history's tables: where they are (chat.sqlite, or Postgres) and their schema, created at
every start (the data layer over them, with its guards, and the element files are chat/history/).
No Chainlit import: `python -m chat` creates the tables before it starts Chainlit.

Chainlit does not create its tables, and its SQLite path has quirks: every key it writes into
`steps` needs a column (or the whole step is dropped with a logged warning), and elements
(charts, reports) are kept only when a storage provider is configured. So we create the
schema ourselves and keep element files under DESK_DATA_DIR.

The history lives in DESK_DATA_DIR/chat.sqlite, or in the PostgreSQL database of DESK_DATABASE_URL
when one is set: the same tables there, JSON kept as text as in SQLite, so the data layer reads both
alike.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from graph import SCHEMA_LOCK, Settings, libpq_url, private_file, sqlalchemy_url

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
    return chat_store(settings.data_dir, settings.database_url)


def chat_store(data_dir: Path, database_url: str | None) -> Path | str:
    """chat_database, from the data folder and DESK_DATABASE_URL."""
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
