"""The chat's accounts: per-user accounts (argon2 hashes) and the zero-setup local mode, and the token
generation that makes login tokens die when the password changes (logins and their throttling are
chat/logins.py; the check of every request's token is chat/tokens.py).

Two modes, decided by one file, DESK_DATA_DIR/accounts.sqlite:

- **local** (no accounts file, the README's first command): any user name, the password from
  DESK_PASSWORD (default "desk"); the app listens on loopback only.
- **accounts** (the file exists, made by the first `python -m chat.users add`): only accounts log in.
  Removing every account does not fall back to local mode: nobody logs in until one is added again
  (or the file is deleted), so a server listening on a network never silently opens up.

User names are normalised once, everywhere (login, tokens, the CLI): NFKC, surrounding whitespace
stripped, inner runs of whitespace made one space, and **case-folded** ("Alice", " alice" and
"alice " are the account "alice"). Invisible and control characters are refused, so "al\u200cice"
is not a second "alice".

Chainlit's login token (a JWT) lives 15 days and Chainlit checks only its signature. Each token we
issue carries a `desk_epoch`: the account's token generation (new at `add` and at every `reset`), or
in local mode a digest of DESK_PASSWORD. `TokenGuard` (chat/tokens.py) checks it on every HTTP request and socket
handshake: a token whose epoch is not the current one is treated as no token at all.
"""
from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import socket
import sqlite3
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from graph import private_file

ACCOUNTS_FILE = "accounts.sqlite"
DEFAULT_PASSWORD = "desk"  # local mode's, unless DESK_PASSWORD says otherwise
MAX_NAME = 64
MIN_PASSWORD = 8
MAX_PASSWORD = 1024  # argon2 takes any length; a cap keeps a login request cheap to refuse

_HASHER = PasswordHasher()  # argon2id, RFC 9106 low-memory profile (64 MiB, 3 passes)


@cache
def _dummy_hash() -> str:
    """Verified against for unknown names: they cost what known ones do."""
    return _HASHER.hash(secrets.token_hex(16))


def local_password() -> str:
    return os.environ.get("DESK_PASSWORD") or DEFAULT_PASSWORD


def local_password_ok(password: str) -> bool:
    """Local mode: the password from DESK_PASSWORD (default "desk"), whatever the user name."""
    return hmac.compare_digest(password.encode(), local_password().encode())

SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    name    TEXT PRIMARY KEY,
    hash    TEXT NOT NULL,
    epoch   TEXT NOT NULL,
    created TEXT NOT NULL,
    changed TEXT NOT NULL
)
"""



class AccountError(Exception):
    """A refused account operation, with a message for the user."""



def normalize_name(raw: str) -> str:
    """The account name `raw` stands for; AccountError when it cannot be one."""
    name = unicodedata.normalize("NFKC", " ".join(unicodedata.normalize("NFKC", raw).split()).casefold())
    if not name:
        raise AccountError("a user name cannot be empty")
    if len(name) > MAX_NAME:
        raise AccountError(f"a user name has at most {MAX_NAME} characters")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise AccountError("a user name cannot contain invisible or control characters")
    return name


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Account:
    name: str
    created: str
    changed: str


class Accounts:
    """The accounts file. Every call opens its own short connection: the CLI changes the file
    while the server runs, and each login or token check must see the change at once."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / ACCOUNTS_FILE

    @property
    def enabled(self) -> bool:
        """Accounts mode: the file exists (even with no account left in it)."""
        return self.path.exists()

    @contextmanager
    def _db(self, create: bool = False) -> Iterator[sqlite3.Connection]:
        if create:
            private_file(self.path)
        elif not self.path.exists():
            raise AccountError("no accounts yet")
        conn = sqlite3.connect(self.path, timeout=10)
        try:
            with conn:
                conn.execute(SCHEMA)
                yield conn
        finally:
            conn.close()

    def add(self, raw_name: str, password: str) -> str:
        name = normalize_name(raw_name)
        check_password(password)
        with self._db(create=True) as db:
            try:
                db.execute("INSERT INTO accounts (name, hash, epoch, created, changed) VALUES (?, ?, ?, ?, ?)",
                           (name, _HASHER.hash(password), secrets.token_urlsafe(16), _now(), _now()))
            except sqlite3.IntegrityError:
                raise AccountError(f"the account {name!r} exists already (use reset)") from None
        return name

    def reset(self, raw_name: str, password: str) -> str:
        """A new password and a new token generation: every token issued before is refused."""
        name = normalize_name(raw_name)
        check_password(password)
        with self._db() as db:
            cur = db.execute("UPDATE accounts SET hash = ?, epoch = ?, changed = ? WHERE name = ?",
                             (_HASHER.hash(password), secrets.token_urlsafe(16), _now(), name))
            if cur.rowcount == 0:
                raise AccountError(f"no account {name!r}")
        return name

    def remove(self, raw_name: str) -> str:
        name = normalize_name(raw_name)
        with self._db() as db:
            if db.execute("DELETE FROM accounts WHERE name = ?", (name,)).rowcount == 0:
                raise AccountError(f"no account {name!r}")
        return name

    def list(self) -> list[Account]:
        if not self.enabled:
            return []
        with self._db() as db:
            return [Account(*row) for row in db.execute("SELECT name, created, changed FROM accounts ORDER BY name")]

    def epoch(self, name: str) -> str | None:
        """The account's current token generation; None when there is no such account."""
        if not self.enabled:
            return None
        with self._db() as db:
            row = db.execute("SELECT epoch FROM accounts WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def verify(self, name: str, password: str) -> str | None:
        """The account's token generation if `password` is its password, else None. Unknown names
        cost the same argon2 verification as known ones (no timing oracle for names)."""
        with self._db() as db:
            row = db.execute("SELECT hash, epoch FROM accounts WHERE name = ?", (name,)).fetchone()
        stored, epoch = row if row else (_dummy_hash(), None)
        try:
            _HASHER.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return None
        if epoch is None:
            return None
        if _HASHER.check_needs_rehash(stored):  # stronger default parameters since it was hashed
            with self._db() as db:
                db.execute("UPDATE accounts SET hash = ? WHERE name = ? AND hash = ?",
                           (_HASHER.hash(password), name, stored))
        return epoch


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or a name) is reachable from this machine only."""
    host = host.strip().strip("[]")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)
