"""Personal tokens: a credential a user makes for a program that asks the desk for them (an MCP client, a
script), and revokes when that program should stop. Kept in DESK_DATA_DIR/personal_tokens.sqlite, owner-only,
apart from the accounts file (whose mere existence switches the desk to accounts mode).

A token is `desk_pat_` and 43 random URL-safe characters (256 bits), shown once when made. Only its SHA-256 is
stored: a token carries its own entropy, so a slow password hash would add nothing but cost to each request.
A token is looked up by that digest; a revoked one, or one whose account has since been removed (in accounts
mode), is no one's. Each token has a short public id (`id`) by which it is listed and revoked; the id says
nothing of the secret.
"""
from __future__ import annotations

import hashlib
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..core import clock
from ..core.private import private_file
from .accounts import Accounts

TOKENS_FILE = "personal_tokens.sqlite"
PREFIX = "desk_pat_"
MAX_LABEL = 80
MAX_TOKENS = 20  # per user: a program each, not a token per request
SCHEMA = """CREATE TABLE IF NOT EXISTS personal_tokens (
    id TEXT PRIMARY KEY, user TEXT NOT NULL, label TEXT NOT NULL, digest TEXT NOT NULL UNIQUE,
    created TEXT NOT NULL, last_used TEXT, revoked TEXT)"""


class TokenError(Exception):
    """A token that cannot be made (too many, a label too long): a sentence for the user."""


@dataclass(frozen=True)
class PersonalToken:
    id: str
    user: str
    label: str
    created: str  # ISO UTC, to the second
    last_used: str | None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _now() -> str:
    return clock.now().isoformat(timespec="seconds")


class PersonalTokens:
    """The tokens file. Every call opens its own short connection, as the accounts file does: a token made or
    revoked in the chat or on the command line counts at once in every process."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / TOKENS_FILE
        self.accounts = Accounts(data_dir)

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        private_file(self.path)
        conn = sqlite3.connect(self.path, timeout=10)
        try:
            with conn:
                conn.execute(SCHEMA)
                yield conn
        finally:
            conn.close()

    def create(self, user: str, label: str = "") -> tuple[PersonalToken, str]:
        """A new token of `user`'s: its record and its secret, which is not kept and cannot be shown again."""
        label = " ".join(label.split())
        if len(label) > MAX_LABEL:
            raise TokenError(f"a token's label has at most {MAX_LABEL} characters")
        secret = PREFIX + secrets.token_urlsafe(32)
        token = PersonalToken(secrets.token_hex(4), user, label, _now(), None)
        with self._db() as db:
            count = db.execute("SELECT COUNT(*) FROM personal_tokens WHERE user = ? AND revoked IS NULL",
                               (user,)).fetchone()[0]
            if count >= MAX_TOKENS:
                raise TokenError(f"a user has at most {MAX_TOKENS} tokens: revoke one first")
            db.execute("INSERT INTO personal_tokens (id, user, label, digest, created) VALUES (?, ?, ?, ?, ?)",
                       (token.id, user, label, _digest(secret), token.created))
        return token, secret

    def list(self, user: str) -> list[PersonalToken]:
        """`user`'s tokens that still work, newest first."""
        if not self.path.exists():
            return []
        with self._db() as db:
            rows = db.execute("SELECT id, user, label, created, last_used FROM personal_tokens "
                              "WHERE user = ? AND revoked IS NULL ORDER BY created DESC, id", (user,)).fetchall()
        return [PersonalToken(*row) for row in rows]

    def revoke(self, user: str, token_id: str) -> bool:
        """Revoke `user`'s token `token_id`; whether there was one (another user's reads as none)."""
        if not self.path.exists():
            return False
        with self._db() as db:
            return db.execute("UPDATE personal_tokens SET revoked = ? WHERE id = ? AND user = ? AND revoked IS NULL",
                              (_now(), token_id, user)).rowcount > 0

    def verify(self, secret: str) -> str | None:
        """Whose token `secret` is, or None: unknown, revoked, or its account removed."""
        if not secret.startswith(PREFIX) or len(secret) > 200 or not self.path.exists():
            return None
        digest = _digest(secret)
        with self._db() as db:
            row = db.execute("SELECT id, user FROM personal_tokens WHERE digest = ? AND revoked IS NULL",
                             (digest,)).fetchone()
            if row is None:
                return None
            token_id, user = row
            if self.accounts.enabled and self.accounts.epoch(user) is None:
                return None  # the account is gone: so are its programs' tokens
            db.execute("UPDATE personal_tokens SET last_used = ? WHERE id = ?", (_now(), token_id))
        return str(user)
