"""Logins: who may log in now (an account, or local mode's shared password on loopback only),
throttled (graph's LoginThrottle: per user name as tried from each client address, per address, and
per name from everywhere), and whether a signed login token still stands: its `desk_epoch` is the
account's current one (chat/web/accounts.py) and it was not logged out (`Logouts`). Imports Chainlit: the
server's side only (`python -m chat` and `python -m chat.users` use chat/web/accounts.py)."""
from __future__ import annotations

import asyncio
import contextvars
import hashlib
import hmac
import os
import secrets
import sqlite3
from contextlib import closing
from pathlib import Path

import jwt
from chainlit.auth import decode_jwt, is_oauth_enabled
from chainlit.oauth_providers import get_configured_oauth_providers
from chainlit.user import User

from graph import LoginThrottle, LoginThrottled, clock, private_file

from .accounts import MAX_NAME, MAX_PASSWORD, AccountError, Accounts, local_password, local_password_ok, normalize_name

PROVIDER = "credentials"
LOGOUTS_FILE = "logouts.sqlite"
# Per HTTP request, a note the login callback leaves for TokenGuard (chat/web/tokens.py): Chainlit answers
# any refused login with 401 (and logs an exception raised in the callback), so the 429 is set on the way out.
LOGIN_NOTE: contextvars.ContextVar[dict[str, float] | None] = contextvars.ContextVar("desk_login_note", default=None)


# -- logins ---------------------------------------------------------------------------------------

class DeskAuth:
    """Logins (accounts or local mode, throttled), the check of a token's epoch, and logouts."""

    def __init__(self, data_dir: Path, throttle: LoginThrottle | None = None, *, public: bool = False) -> None:
        self.accounts = Accounts(data_dir)
        self.logouts = Logouts(data_dir)
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
        # desk_token: this login's own id, which its logout revokes (and with it any token Chainlit
        # makes from this one, /auth/jwt, but not the user's logins elsewhere).
        return User(identifier=name, metadata={"role": "user", "provider": PROVIDER, "desk_epoch": epoch,
                                               "desk_token": secrets.token_urlsafe(16)})

    def token_current(self, user: User) -> bool:
        """Whether a signed token's user still stands: its epoch is the account's current one (or,
        from an OAuth provider the app is configured for, the provider vouches for it)."""
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

    def standing(self, token: str, user: User) -> bool:
        """Whether a signed token (of `user`) still stands: current and not logged out."""
        return self.token_current(user) and not self.logouts.revoked(token_id(token, user))

    def user_of(self, token: str | None) -> User | None:
        """The user of a token that is signed, unexpired, current and not logged out; None otherwise."""
        if not token:
            return None
        try:
            user = decode_jwt(token)
        except Exception:
            return None
        return user if self.standing(token, user) else None

    def log_out(self, token: str | None) -> User | None:
        """Revoke a standing token (a logout): refused from now on, by every server on this data
        folder and after a restart. Its user, or None when it did not stand (nothing to revoke)."""
        user = self.user_of(token)
        if token and user is not None:
            self.logouts.revoke(token_id(token, user), _expiry(token))
        return user


def token_id(token: str, user: User) -> str:
    """What a logout revokes: the login's id (desk_token), else (an OAuth token, one issued before
    logins had ids) the token itself, hashed."""
    metadata = user.metadata if isinstance(user.metadata, dict) else {}
    own = metadata.get("desk_token")
    return f"login:{own}" if isinstance(own, str) and own else "sha256:" + hashlib.sha256(token.encode()).hexdigest()


def _expiry(token: str) -> float:
    """When a (verified) token expires: its revocation is kept until then."""
    exp = jwt.decode(token, options={"verify_signature": False}).get("exp")
    return float(exp) if isinstance(exp, int | float) else clock.epoch() + 366 * 86400


class Logouts:
    """Logged-out tokens, until they would have expired: DESK_DATA_DIR/logouts.sqlite (owner-only).
    Chainlit's /logout only clears the browser's cookie, and its token stays good for 15 days to
    whoever copied it; a file, not memory, so that a restart and every server on the data folder
    refuse it. Each check opens its own short connection, as the accounts file does."""

    SCHEMA = "CREATE TABLE IF NOT EXISTS logouts (token TEXT PRIMARY KEY, expires REAL NOT NULL)"

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOGOUTS_FILE

    def revoke(self, token_id: str, expires: float) -> None:
        private_file(self.path)
        with closing(sqlite3.connect(self.path, timeout=10)) as db, db:
            db.execute(self.SCHEMA)
            db.execute("INSERT OR REPLACE INTO logouts (token, expires) VALUES (?, ?)", (token_id, expires))
            db.execute("DELETE FROM logouts WHERE expires < ?", (clock.epoch(),))  # expired: refused anyway

    def revoked(self, token_id: str) -> bool:
        if not self.path.exists():
            return False
        with closing(sqlite3.connect(self.path, timeout=10)) as db, db:
            db.execute(self.SCHEMA)
            return db.execute("SELECT 1 FROM logouts WHERE token = ?", (token_id,)).fetchone() is not None
