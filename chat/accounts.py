"""Who may log in: per-user accounts (argon2 hashes), the zero-setup local mode, throttled logins and
login tokens that die when the password changes.

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
in local mode a digest of DESK_PASSWORD. `TokenGuard` checks it on every HTTP request and socket
handshake: a token whose epoch is not the current one is treated as no token at all.
"""
from __future__ import annotations

import asyncio
import contextvars
import hashlib
import hmac
import ipaddress
import math
import os
import re
import secrets
import socket
import sqlite3
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from graph.core.private import private_file

if TYPE_CHECKING:  # Chainlit takes seconds to import: `python -m chat.users` does without it
    from chainlit.user import User
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

ACCOUNTS_FILE = "accounts.sqlite"
DEFAULT_PASSWORD = "desk"  # local mode's, unless DESK_PASSWORD says otherwise
MAX_NAME = 64
MIN_PASSWORD = 8
MAX_PASSWORD = 1024  # argon2 takes any length; a cap keeps a login request cheap to refuse
AUTH_COOKIE = os.environ.get("CHAINLIT_AUTH_COOKIE_NAME", "access_token")  # as chainlit.auth.cookie names it
PROVIDER = "credentials"

# Set by TokenGuard for the request being served: the client's address (login throttling) and the
# identifier of the user whose current token came with it (ownership checks in the data layer).
CLIENT_ADDRESS: contextvars.ContextVar[str | None] = contextvars.ContextVar("desk_client_address", default=None)
REQUESTER: contextvars.ContextVar[str | None] = contextvars.ContextVar("desk_requester", default=None)
# Per HTTP request, a note the login callback leaves for TokenGuard: Chainlit answers any refused
# login with 401 (and logs an exception raised in the callback), so the 429 is set on the way out.
LOGIN_NOTE: contextvars.ContextVar[dict[str, float] | None] = contextvars.ContextVar("desk_login_note", default=None)

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


class LoginThrottled(Exception):
    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many failed logins; try again in {retry_after:.0f} s")
        self.retry_after = retry_after


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


# -- throttling ----------------------------------------------------------------------------------

@dataclass
class _Record:
    failures: int = 0
    pending: int = 0
    locked_until: float = 0.0
    last: float = 0.0


class LoginThrottle:
    """Failed logins per key (a user name, a client address): `free` failures, then each further
    failure locks the key for base·2^k seconds (capped). While a key is locked every attempt on it
    is refused without looking at the password, the right one included, so the refusal tells an
    attacker nothing. Attempts in flight count against the free budget: a burst of parallel
    guesses gets no more checks than a sequence. A key is forgotten `forget_after` seconds after
    its last failure; a success clears a user name's record but not an address's (an attacker's
    own account must not reset the counter of the address he guesses from)."""

    def __init__(self, *, free_per_name: int = 5, free_per_address: int = 20, base_delay: float = 1.0,
                 max_delay: float = 900.0, forget_after: float = 3600.0, max_keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free = {"name": free_per_name, "addr": free_per_address}
        self.base_delay, self.max_delay, self.forget_after = base_delay, max_delay, forget_after
        self.max_keys, self.clock = max_keys, clock
        self.records: OrderedDict[tuple[str, str], _Record] = OrderedDict()

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
        """Reserve an attempt on every key, or raise LoginThrottled (reserving none)."""
        keys = list(keys)
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
                if key[0] == "name":
                    rec.failures, rec.locked_until = 0, 0.0
                continue
            rec.failures += 1
            rec.last = now
            over = rec.failures - self.free[key[0]]
            if over >= 0:
                rec.locked_until = now + min(self.base_delay * 2 ** min(over, 30), self.max_delay)


# -- the door --------------------------------------------------------------------------------------

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


class DeskAuth:
    """Logins (accounts or local mode, throttled) and the check of a token's epoch."""

    def __init__(self, data_dir: Path, throttle: LoginThrottle | None = None, *, public: bool = False) -> None:
        self.accounts = Accounts(data_dir)
        self.throttle = throttle or LoginThrottle()
        # Listening beyond loopback: local mode (a shared password) must not let anyone in.
        self.public = public

    @property
    def local(self) -> bool:
        return not self.accounts.enabled

    @staticmethod
    def local_epoch() -> str:
        """Local mode's token generation: follows DESK_PASSWORD (and the login secret)."""
        secret = os.environ.get("CHAINLIT_AUTH_SECRET", "").encode()
        return hmac.new(secret, b"desk-local\0" + local_password().encode(), hashlib.sha256).hexdigest()[:32]

    def epoch(self, name: str) -> str | None:
        return self.local_epoch() if self.local else self.accounts.epoch(name)

    def _check(self, name: str, password: str) -> str | None:
        if len(password) > MAX_PASSWORD:
            return None
        if self.local:
            return self.local_epoch() if local_password_ok(password) and not self.public else None
        return self.accounts.verify(name, password)

    async def login(self, username: str, password: str, address: str | None = None) -> User | None:
        """The user, or None: a wrong name or password, or locked out (then the HTTP answer is a
        429 with Retry-After, see TokenGuard)."""
        try:
            return await self.attempt(username, password, address)
        except LoginThrottled as e:
            if (note := LOGIN_NOTE.get()) is not None:
                note["retry_after"] = e.retry_after
            return None

    async def attempt(self, username: str, password: str, address: str | None = None) -> User | None:
        """The user, or None for a wrong name or password; LoginThrottled while locked out."""
        try:
            name: str | None = normalize_name(username)
        except AccountError:
            name = None
        keys = [("name", name or username.strip().casefold()[:MAX_NAME])]
        if address:
            keys.append(("addr", address))
        reserved = self.throttle.begin(keys)
        epoch = None
        try:
            if name is not None:
                epoch = await asyncio.to_thread(self._check, name, password)
        finally:
            self.throttle.end(reserved, ok=epoch is not None)
        if name is None or epoch is None:
            return None
        from chainlit.user import User

        return User(identifier=name, metadata={"role": "user", "provider": PROVIDER, "desk_epoch": epoch})

    def token_current(self, user: User) -> bool:
        """Whether a signed token's user still stands: its epoch is the account's current one (or,
        from an OAuth provider the app is configured for, the provider vouches for it)."""
        from chainlit.auth import is_oauth_enabled
        from chainlit.oauth_providers import get_configured_oauth_providers

        metadata = user.metadata if isinstance(user.metadata, dict) else {}
        provider = metadata.get("provider")
        if provider != PROVIDER and provider and is_oauth_enabled() and provider in get_configured_oauth_providers():
            return True
        got = metadata.get("desk_epoch")
        if provider != PROVIDER or not isinstance(got, str):
            return False
        try:
            name = normalize_name(user.identifier)
        except AccountError:
            return False
        expected = self.epoch(name) if name == user.identifier else None
        return expected is not None and hmac.compare_digest(got, expected)

    def user_of(self, token: str | None) -> User | None:
        """The user of a token that is signed, unexpired and current; None otherwise."""
        if not token:
            return None
        from chainlit.auth import decode_jwt

        try:
            user = decode_jwt(token)
        except Exception:
            return None
        return user if self.token_current(user) else None


# -- tokens on requests ----------------------------------------------------------------------------

_CHUNK = re.compile(rf"^{re.escape(AUTH_COOKIE)}(_\d+)?$")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def cookie_token(cookie_header: str | None) -> str | None:
    from chainlit.auth import get_token_from_cookies
    from starlette.requests import cookie_parser

    return get_token_from_cookies(cookie_parser(cookie_header)) if cookie_header else None


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def request_token(cookie_header: str | None, authorization: str | None) -> str | None:
    """The token Chainlit would read: the auth cookie first, then a bearer token."""
    return cookie_token(cookie_header) or bearer_token(authorization)


def _without(scope: Scope, *, cookie: bool, authorization: bool) -> Scope:
    headers: list[tuple[bytes, bytes]] = []
    for key, value in scope.get("headers") or []:
        low = key.lower()
        if authorization and low == b"authorization":
            continue
        if cookie and low == b"cookie":
            kept = [part for part in value.decode("latin-1").split(";")
                    if not _CHUNK.match(part.split("=", 1)[0].strip())]
            if not any(p.strip() for p in kept):
                continue
            value = ";".join(kept).strip().encode("latin-1")
        headers.append((key, value))
    return {**scope, "headers": headers}


class TokenGuard:
    """ASGI middleware in front of Chainlit's whole app (HTTP and the socket's handshake): a signed
    token whose epoch is stale (password reset, account removed, local password changed, accounts
    mode switched on) is taken off the request, so Chainlit sees an anonymous caller and refuses
    it. Also records the client address and the current requester for the code behind."""

    def __init__(self, app: ASGIApp, auth: DeskAuth) -> None:
        self.app = app
        self.auth = auth

    def _check(self, token: str | None) -> tuple[bool, User | None]:
        """(strip it, its user if current)."""
        if not token:
            return False, None
        from chainlit.auth import decode_jwt

        try:
            user = decode_jwt(token)
        except Exception:
            return False, None  # not ours to judge: Chainlit refuses a bad or expired token itself
        return (False, user) if self.auth.token_current(user) else (True, None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        strip_cookie, cookie_user = self._check(cookie_token(_header(scope, b"cookie")))
        strip_bearer, bearer_user = self._check(bearer_token(_header(scope, b"authorization")))
        if strip_cookie or strip_bearer:
            scope = _without(scope, cookie=strip_cookie, authorization=strip_bearer)
        user = cookie_user or (None if cookie_token(_header(scope, b"cookie")) else bearer_user)
        client = scope.get("client")
        note: dict[str, float] = {}
        address = CLIENT_ADDRESS.set(client[0] if client else None)
        requester = REQUESTER.set(user.identifier if user else None)
        noted = LOGIN_NOTE.set(note)

        async def send_noted(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401 and "retry_after" in note:
                retry = str(math.ceil(note["retry_after"])).encode()
                message = {**message, "status": 429, "headers": [*message.get("headers", []), (b"retry-after", retry)]}
            await send(message)

        try:
            await self.app(scope, receive, send_noted if scope["type"] == "http" else send)
        finally:
            LOGIN_NOTE.reset(noted)
            REQUESTER.reset(requester)
            CLIENT_ADDRESS.reset(address)


def environ_token(environ: dict[str, Any]) -> str | None:
    """The token of a socket's handshake (its WSGI-style environ)."""
    return cookie_token(environ.get("HTTP_COOKIE"))
