"""Who may do what on LangGraph Server: `langgraph.json`'s `auth` (`graph.server_auth:auth`).

Every request carries the desk's own account, HTTP Basic (`Authorization: Basic base64(name:password)`),
checked against the accounts the chat uses (graph/persistence/accounts.py: argon2id, DESK_DATA_DIR/
accounts.sqlite; in local mode, with no accounts file, any name with DESK_PASSWORD, from loopback
clients only). Failed checks are throttled per name and per client address as the chat's logins are.
A password that passed is remembered (an HMAC under a key of this process, never the password) for
as long as the account's token generation stays: `python -m chat.users reset` or `remove` ends it.

What a user may touch, default deny:
- threads and their runs: only their own. A thread is stamped `owner` = the user when created
  (directly, or by a run on a new thread), the stamp cannot be changed, and every read, search,
  update, delete and run is filtered by it: another user's thread is not found.
- crons: likewise, stamped and filtered by `owner` (and a cron on a thread needs that thread's read).
- the store: only the inbox of a thread the user owns, `("inbox", thread_id)`, the namespace
  `note_item` posts into (graph/notes/address.py); the desk's own layout is unchanged, so the owner
  is checked on the thread. And deleting a call from the track record of one of the user's own
  backtests, `("track", "<user>/backtest/<id>")`: a backtest's runner takes back a day's call made on
  missing data (graph/backtest/server_days.py). Any other namespace or action (reading or writing any
  track record, the user's own included), and listing namespaces, is refused.
- assistants: read and search only (the desk is served as `desk`; nobody makes others).

`disable_studio_auth` in `langgraph.json` matters: without it `langgraph dev` takes any request with
the header `x-auth-scheme: langsmith` as the Studio user without checking anything.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import ipaddress
import math
import secrets
import threading
from collections import OrderedDict
from functools import cache
from typing import Any
from uuid import UUID

import httpx
from langgraph_sdk import Auth, get_client
from langgraph_sdk.client import LangGraphClient
from starlette.exceptions import HTTPException

from .core.context import BACKTEST_ID, backtest_user
from .core.settings import Settings
from .persistence.accounts import (
    MAX_NAME,
    MAX_PASSWORD,
    AccountError,
    Accounts,
    LoginThrottle,
    LoginThrottled,
    local_password_ok,
    normalize_name,
)
from .persistence.namespaces import user_label
from .track.log import TRACK

auth = Auth()

OWNER = "owner"  # the metadata key of threads and crons
INBOX = "inbox"  # a thread's inbox is the store namespace (INBOX, thread_id): graph/notes/inbox.py
REMEMBERED = 1024  # passwords that passed, remembered (as HMACs) so that not every request costs argon2

_throttle = LoginThrottle()
_key = secrets.token_bytes(32)
_passed: OrderedDict[str, str] = OrderedDict()  # HMAC(name, password) -> the account's epoch then
_passed_lock = threading.Lock()


def _refused(detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(401, detail)


def _credentials(authorization: str | None) -> tuple[str, str]:
    scheme, _, encoded = (authorization or "").strip().partition(" ")
    if scheme.lower() != "basic":
        raise _refused("an account is needed: Authorization: Basic base64(name:password)")
    try:
        name, colon, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        raise _refused("malformed credentials") from None
    if not colon:
        raise _refused("malformed credentials")
    return name, password


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


@cache
def _accounts() -> Accounts:
    return Accounts(Settings().data_dir)


def _check(name: str, password: str, address: str) -> bool:
    """Whether the password is the account's (local mode: DESK_PASSWORD, from loopback only).
    Blocking (argon2, the accounts file): run in a thread."""
    accounts = _accounts()
    if not accounts.enabled:
        return local_password_ok(password) and _is_loopback(address)
    digest = hmac.new(_key, f"{name}\0{password}".encode(), hashlib.sha256).hexdigest()
    with _passed_lock:
        remembered = _passed.get(digest)
    if remembered is not None and hmac.compare_digest(remembered, accounts.epoch(name) or ""):
        return True
    epoch = accounts.verify(name, password)
    if epoch is None:
        return False
    with _passed_lock:
        _passed[digest] = epoch
        while len(_passed) > REMEMBERED:
            _passed.popitem(last=False)
    return True


@auth.authenticate
async def authenticate(authorization: str | None, scope: dict[str, Any]) -> Auth.types.MinimalUserDict:
    raw_name, password = _credentials(authorization)
    address = str((scope.get("client") or ("",))[0])
    try:
        name: str | None = normalize_name(raw_name)
    except AccountError:
        name = None
    keys = [("name", name or raw_name.strip().casefold()[:MAX_NAME]), ("addr", address)]
    try:
        reserved = _throttle.begin(keys)
    except LoginThrottled as e:
        # starlette's: the server answers it as it is (Auth's own exception may only be 401 or 403 here)
        raise HTTPException(429, str(e), headers={"Retry-After": f"{math.ceil(e.retry_after)}"}) from None
    ok = False
    try:
        ok = (name is not None and len(password) <= MAX_PASSWORD
              and await asyncio.to_thread(_check, name, password, address))
    finally:
        _throttle.end(reserved, ok=ok)
    if not ok or name is None:
        raise _refused("wrong name or password")
    return {"identity": name}


# -- what each user may touch -----------------------------------------------------------------------

@auth.on
async def deny(ctx: Auth.types.AuthContext, value: Any) -> bool:
    """Anything not allowed below."""
    return False


@auth.on(resources=["threads", "crons"])
async def own(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Threads (with their runs) and crons: stamped with their owner when made (a run may make its
    thread) or relabelled, and filtered by it: another user's thread or cron is not found."""
    if ctx.action in ("create", "create_run") or (ctx.action == "update" and value.get("metadata") is not None):
        metadata = value.get("metadata")
        if metadata is None:
            metadata = value["metadata"] = {}
        metadata[OWNER] = ctx.user.identity  # in place: the server goes on with the same dict
    return {OWNER: ctx.user.identity}


@auth.on.assistants(actions=["read", "search"])
async def read_assistants(ctx: Auth.types.AuthContext, value: Any) -> bool:
    return True


@cache
def _server() -> LangGraphClient:
    """This server, in process and past this file's checks (the SDK's loopback transport)."""
    return get_client()


async def _owner(thread_id: str) -> str | None:
    try:
        UUID(thread_id)
    except ValueError:
        return None
    try:
        thread = await _server().threads.get(thread_id)
    except httpx.HTTPStatusError as e:
        if e.response.status_code == 404:
            return None
        raise
    owner = (thread.get("metadata") or {}).get(OWNER)
    return owner if isinstance(owner, str) else None


def _own_backtest_record(identity: str, namespace: tuple[str, ...]) -> bool:
    """Whether the namespace is the track record of one of this user's backtests."""
    if len(namespace) != 2 or namespace[0] != TRACK:
        return False
    prefix = user_label(backtest_user(identity, ""))
    return namespace[1].startswith(prefix) and BACKTEST_ID.fullmatch(namespace[1][len(prefix):]) is not None


@auth.on.store
async def own_inboxes(ctx: Auth.types.AuthContext, value: Any) -> bool:
    """Only the inbox of a thread the user owns, as the desk lays it out: (INBOX, thread_id); and
    deleting from their own backtests' track records."""
    namespace = tuple(value.get("namespace") or ())
    if ctx.action == "delete" and _own_backtest_record(ctx.user.identity, namespace):
        return True
    if ctx.action == "list_namespaces" or len(namespace) != 2 or namespace[0] != INBOX:
        return False
    return await _owner(namespace[1]) == ctx.user.identity
