"""The chat's accounts: the desk's accounts file (graph/persistence/accounts.py, shared with
LangGraph Server: argon2id hashes, local mode, names, token generations), re-exported for the chat,
and whether the address the chat listens on is loopback (local mode listens nowhere else). Logins
and their throttling are chat/web/logins.py; the check of every request's token is chat/web/tokens.py.

Chainlit's login token (a JWT) lives 15 days and Chainlit checks only its signature. Each token we
issue carries a `desk_epoch`: the account's token generation (new at `add` and at every `reset`), or
in local mode a digest of DESK_PASSWORD. `TokenGuard` (chat/web/tokens.py) checks it on every HTTP request and socket
handshake: a token whose epoch is not the current one is treated as no token at all.
"""
from __future__ import annotations

import ipaddress
import socket

from graph import (
    ACCOUNTS_FILE,
    DEFAULT_PASSWORD,
    MAX_NAME,
    MAX_PASSWORD,
    MIN_PASSWORD,
    Account,
    AccountError,
    Accounts,
    check_password,
    local_password,
    local_password_ok,
    normalize_name,
)

__all__ = ["ACCOUNTS_FILE", "DEFAULT_PASSWORD", "MAX_NAME", "MAX_PASSWORD", "MIN_PASSWORD", "Account", "AccountError",
           "Accounts", "check_password", "is_loopback", "local_password", "local_password_ok", "normalize_name"]


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
