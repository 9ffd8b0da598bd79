"""The desk's accounts, shared by the chat and LangGraph Server: per-user accounts (argon2id hashes in
DESK_DATA_DIR/accounts.sqlite), the zero-setup local mode, the token generation that makes the chat's
login tokens die when a password changes, and the throttle of failed logins. No Chainlit here: the
chat's logins are chat/web/logins.py (tokens: chat/web/tokens.py), the server's graph/server_auth.py.

Two modes, decided by one file, DESK_DATA_DIR/accounts.sqlite:

- **local** (no accounts file, the README's first command): any user name, the password from
  DESK_PASSWORD (default "desk"); the chat listens on loopback only, the server takes it from
  loopback clients only.
- **accounts** (the file exists, made by the first `python -m chat.users add`): only accounts log in.
  Removing every account does not fall back to local mode: nobody logs in until one is added again
  (or the file is deleted), so a server listening on a network never silently opens up.

User names are normalised once, everywhere (login, tokens, the CLI, the server): NFKC, surrounding
whitespace stripped, inner runs of whitespace made one space, and **case-folded** ("Alice", " alice"
and "alice " are the account "alice"). Invisible and control characters are refused, so "al\u200cice"
is not a second "alice".

Each account has an `epoch`, its token generation (new at `add` and at every `reset`): the chat's
login tokens carry it and are refused once it changes; the server forgets a remembered password
when it changes.
"""
from __future__ import annotations

import hmac
import os
import secrets
import sqlite3
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from graph.core import clock

from ..core.private import private_file

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
    return clock.now().isoformat(timespec="seconds")


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


# -- throttling ----------------------------------------------------------------------------------

class LoginThrottled(Exception):
    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many failed logins; try again in {retry_after:.0f} s")
        self.retry_after = retry_after


@dataclass
class _Record:
    failures: int = 0
    pending: int = 0
    locked_until: float = 0.0
    last: float = 0.0
    since: float = 0.0  # a name's: when its count of failures began (see `end`)


class LoginThrottle:
    """Failed logins per key: `free` failures, then each further failure locks the key for base·2^k
    seconds (capped at 15 min). A caller gives the user name tried (`("name", n)`) and the client's
    address (`("addr", a)`); three kinds of key are throttled:

    - `pair`, the name as guessed from that address: 5 free. This is what locks a guesser out of
      the account, and only him: a lock on the name alone let anyone lock a known user out of the
      desk for 15 minutes with a few wrong passwords;
    - `addr`, the address, whatever the names: 20 free (one address trying many names);
    - `name`, the name from every address together: a ceiling far above the pair's (100 free within
      an hour), so guessing from many addresses stays bounded while one guesser cannot reach it alone.

    While a key is locked every attempt on it is refused without looking at the password, the right
    one included, so the refusal tells an attacker nothing. Attempts in flight count against the
    free budget: a burst of parallel guesses gets no more checks than a sequence. A key is
    forgotten `forget_after` seconds after its last failure; a success clears the name's records
    (the pair and the name) but not the address's (an attacker's own account must not reset the
    counter of the address he guesses from)."""

    def __init__(self, *, free_per_name: int = 100, free_per_pair: int = 5, free_per_address: int = 20,
                 base_delay: float = 1.0, max_delay: float = 900.0, forget_after: float = 3600.0,
                 max_keys: int = 100_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.free = {"name": free_per_name, "pair": free_per_pair, "addr": free_per_address}
        self.base_delay, self.max_delay, self.forget_after = base_delay, max_delay, forget_after
        self.max_keys, self.clock = max_keys, clock
        self.records: OrderedDict[tuple[str, str], _Record] = OrderedDict()

    @staticmethod
    def throttled(keys: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The keys an attempt counts against: the caller's, and each name as tried from each address."""
        keys = list(keys)
        pairs = [("pair", f"{name}\0{addr}") for kind, name in keys if kind == "name"
                 for other, addr in keys if other == "addr"]
        return [*keys, *pairs]

    def _record(self, key: tuple[str, str], now: float) -> _Record:
        rec = self.records.get(key)
        if rec is None or (rec.pending == 0 and rec.last and now - rec.last > self.forget_after):
            rec = self.records[key] = _Record()
        self.records.move_to_end(key)
        while len(self.records) > self.max_keys:
            oldest = next(iter(self.records))
            if self.records[oldest].pending:
                break
            del self.records[oldest]
        return rec

    def wait(self, key: tuple[str, str], now: float | None = None) -> float:
        """Seconds before `key` may try again (0: now)."""
        now = self.clock() if now is None else now
        rec = self._record(key, now)
        if now < rec.locked_until:
            return rec.locked_until - now
        budget = max(self.free[key[0]] - rec.failures, 1)
        return 0.0 if rec.pending < budget else self.base_delay

    def begin(self, keys: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """Reserve an attempt on every key (the caller's and their pairs, see `throttled`), or raise
        LoginThrottled (reserving none). The reserved keys go to `end`."""
        keys = self.throttled(keys)
        now = self.clock()
        if (wait := max((self.wait(k, now) for k in keys), default=0.0)) > 0:
            raise LoginThrottled(wait)
        for k in keys:
            self._record(k, now).pending += 1
        return keys

    def end(self, keys: list[tuple[str, str]], ok: bool) -> None:
        now = self.clock()
        for key in keys:
            rec = self._record(key, now)
            rec.pending = max(rec.pending - 1, 0)
            if ok:
                if key[0] != "addr":
                    rec.failures, rec.locked_until = 0, 0.0
                continue
            if key[0] == "name" and (rec.failures == 0 or now - rec.since > self.forget_after):
                # The ceiling counts the failures of one stretch of `forget_after` (an hour): one guesser,
                # held to a few an hour by his pair's locks, never reaches it however long he goes on.
                rec.failures, rec.since = 0, now
            rec.failures += 1
            rec.last = now
            over = rec.failures - self.free[key[0]]
            if over >= 0:
                rec.locked_until = now + min(self.base_delay * 2 ** min(over, 30), self.max_delay)
