"""LangGraph Server's auth (graph/server_auth.py) in process: who gets in, in accounts mode and in
local mode, and what the handlers stamp and filter. The attack itself, two clients against a real
`langgraph dev`, is in tests/server/test_langgraph_server.py."""
from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import Auth
from starlette.exceptions import HTTPException

from graph import Accounts, LoginThrottle, note_item
from graph import server_auth as server

LOOPBACK = {"client": ("127.0.0.1", 50000)}
ELSEWHERE = {"client": ("192.0.2.7", 50000)}


def basic(name: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("DESK_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DESK_PASSWORD", raising=False)
    monkeypatch.setattr(server, "_throttle", LoginThrottle())
    server._accounts.cache_clear()
    server._passed.clear()
    yield tmp_path
    server._accounts.cache_clear()
    server._passed.clear()


def who(authorization: str | None, scope: dict[str, Any] = LOOPBACK) -> str:
    return asyncio.run(server.authenticate(authorization, scope))["identity"]


def refused(authorization: str | None, scope: dict[str, Any] = LOOPBACK) -> int:
    with pytest.raises((Auth.exceptions.HTTPException, HTTPException)) as e:
        who(authorization, scope)
    return e.value.status_code


def test_only_basic_credentials_are_read(data_dir: Path) -> None:
    for authorization in (None, "", "Bearer desk", "Basic", "Basic !!!", "Basic " + base64.b64encode(b"desk").decode(),
                          "Basic " + base64.b64encode(b"\xff:desk").decode()):
        assert refused(authorization) == 401, authorization


def test_local_mode_takes_any_name_with_the_desk_password_from_loopback_only(data_dir: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    assert who(basic(" Alice ", "desk")) == "alice"
    assert who(basic("bob", "desk"), {"client": ("::1", 1)}) == "bob"
    assert refused(basic("alice", "desk"), ELSEWHERE) == 401  # a proxy or a container's network: no
    assert refused(basic("alice", "not desk")) == 401
    monkeypatch.setenv("DESK_PASSWORD", "another one")
    assert refused(basic("alice", "desk")) == 401
    assert who(basic("alice", "another one")) == "alice"


def test_accounts_mode_takes_accounts_only_and_forgets_a_password_once_it_changes(data_dir: Path) -> None:
    accounts = Accounts(data_dir)
    accounts.add("alice", "alice's passphrase")
    assert refused(basic("alice", "desk")) == 401  # local mode is over
    assert refused(basic("nobody", "desk")) == 401
    assert who(basic("ALICE", "alice's passphrase"), ELSEWHERE) == "alice"
    assert len(server._passed) == 1  # remembered: the next request costs no argon2
    assert who(basic("alice", "alice's passphrase")) == "alice"
    accounts.reset("alice", "a new passphrase")
    assert refused(basic("alice", "alice's passphrase")) == 401
    assert who(basic("alice", "a new passphrase")) == "alice"
    accounts.remove("alice")
    assert refused(basic("alice", "a new passphrase")) == 401


def test_failed_checks_are_throttled_per_name(data_dir: Path) -> None:
    Accounts(data_dir).add("alice", "alice's passphrase")
    assert [refused(basic("alice", f"guess {i}")) for i in range(5)] == [401] * 5
    assert refused(basic("alice", "guess 5")) == 429
    assert refused(basic("alice", "alice's passphrase")) == 429  # locked: the right one too
    Accounts(data_dir).add("bob", "bob's passphrase")
    assert who(basic("bob", "bob's passphrase")) == "bob"  # another name is not locked


@dataclass
class User:
    identity: str
    is_authenticated: bool = True
    display_name: str = ""
    permissions: tuple[str, ...] = ()


def ctx(user: str, resource: Any, action: Any) -> Auth.types.AuthContext:
    return Auth.types.AuthContext(user=User(user), permissions=[], resource=resource, action=action)


@pytest.mark.parametrize(("resource", "action"), [("threads", "create"), ("threads", "create_run"),
                                                  ("threads", "update"), ("crons", "create"), ("crons", "update")])
def test_what_a_user_makes_or_relabels_is_theirs(resource: str, action: str) -> None:
    metadata = {"owner": "bob", "label": "x"}
    value = {"metadata": metadata}
    assert asyncio.run(server.own(ctx("alice", resource, action), value)) == {"owner": "alice"}
    assert value["metadata"] is metadata and metadata == {"owner": "alice", "label": "x"}  # in place


@pytest.mark.parametrize("action", ["read", "search", "update", "delete"])
def test_the_rest_is_filtered_by_owner(action: str) -> None:
    value: dict[str, Any] = {"thread_id": "t"}
    assert asyncio.run(server.own(ctx("alice", "threads", action), value)) == {"owner": "alice"}
    assert "metadata" not in value


def test_the_store_is_only_thread_inboxes() -> None:
    """Refused before any look-up: no other namespace, no listing. An inbox is the one `note_item` posts to."""
    assert note_item("t", "hi").namespace == [server.INBOX, "t"]
    for action, namespace in [("put", ("alice", "notes")), ("put", (server.INBOX,)), ("search", ()),
                              ("put", (server.INBOX, "not-a-thread-id")), ("get", (server.INBOX, "t", "deeper")),
                              ("list_namespaces", (server.INBOX,))]:
        allowed = asyncio.run(server.own_inboxes(ctx("alice", "store", action), {"namespace": namespace}))
        assert allowed is False, (action, namespace)
