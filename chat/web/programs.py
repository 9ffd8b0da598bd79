"""Who a program asking the desk over HTTP is (an MCP client at /mcp, chat/features/mcp.py): HTTP Basic with a desk
account (local mode: any name and the shared password, on loopback only), or `Authorization: Bearer` with a personal
token the user made (graph's PersonalTokens: `/token` in the chat, `python -m chat.users token NAME`).

A Basic login is the chat's login (chat/web/logins.py: throttled per name and client address, argon2id). A program
sends it with every request, so a success is remembered for a few minutes by a keyed digest of the header, never the
password itself, and only while the account's token generation stands (a new password or a removed account ends it
at once). A login token of the chat's own (its cookie or its JWT) is not a program's credential here.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from graph import PersonalTokens

from .logins import DeskAuth

REMEMBER_S = 300.0  # how long a Basic login is taken without argon2 again
REMEMBERED = 1000  # the most remembered at once (the oldest go first)
CHALLENGE = 'Basic realm="Trading Desk", charset="UTF-8", Bearer realm="Trading Desk"'


@dataclass(frozen=True)
class Remembered:
    user: str
    epoch: str
    until: float


class ProgramAuth:
    def __init__(self, auth: DeskAuth, tokens: PersonalTokens) -> None:
        self.auth = auth
        self.tokens = tokens
        self._key = secrets.token_bytes(32)
        self._remembered: dict[bytes, Remembered] = {}

    async def user(self, authorization: str | None, address: str | None) -> str | None:
        """The user a request's Authorization header names, or None; LoginThrottled while a name or an address is
        locked out after failed logins."""
        scheme, _, credentials = (authorization or "").strip().partition(" ")
        credentials = credentials.strip()
        if not credentials:
            return None
        if scheme.lower() == "bearer":
            return await asyncio.to_thread(self.tokens.verify, credentials)
        if scheme.lower() == "basic":
            return await self._basic(credentials, address)
        return None

    async def _basic(self, credentials: str, address: str | None) -> str | None:
        digest = hmac.new(self._key, credentials.encode("latin-1", "replace"), hashlib.sha256).digest()
        now = time.monotonic()
        known = self._remembered.get(digest)
        if known is not None and known.until > now and self.auth.epoch(known.user) == known.epoch:
            return known.user
        self._remembered.pop(digest, None)
        try:
            name, sep, password = base64.b64decode(credentials, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return None
        if not sep:
            return None
        user = await self.auth.attempt(name, password, address)  # LoginThrottled goes to the caller
        if user is None:
            return None
        epoch = self.auth.epoch(user.identifier)
        if epoch is not None:
            while len(self._remembered) >= REMEMBERED:
                self._remembered.pop(next(iter(self._remembered)))
            self._remembered[digest] = Remembered(user.identifier, epoch, now + REMEMBER_S)
        return str(user.identifier)


__all__ = ["CHALLENGE", "ProgramAuth"]
