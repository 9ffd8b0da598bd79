"""Real accounts (issue #9): names, argon2 hashes, the `python -m chat.users` command, throttled
logins, tokens that die with a password reset, and local mode kept to loopback."""
from __future__ import annotations

import asyncio
import contextlib
import math
import os
import stat
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
import socketio
from chainlit.auth import create_jwt
from chainlit.user import User

from chat import __main__ as launcher
from chat.web.accounts import AccountError, Accounts, is_loopback, normalize_name
from chat.web.logins import DeskAuth, LoginThrottle, LoginThrottled
from chat.web.startup import refusal
from tests.support.attacks import guess, login_cookie, request, users, users_process
from tests.support.chat_server import ROOT, Server
from tests.support.env import demo_env
from tests.support.socket_client import DeskClient


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAINLIT_AUTH_SECRET", "s" * 48)
    monkeypatch.delenv("DESK_PASSWORD", raising=False)


# -- names ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", ["alice", "alice ", " alice", "Alice", "ALICE", "\talice\n", "ａｌｉｃｅ"])
def test_names_are_stripped_and_case_folded(raw):
    assert normalize_name(raw) == "alice"


def test_inner_spaces_collapse_and_bad_names_are_refused():
    assert normalize_name("  Jean   Luc ") == "jean luc"
    for bad in ("", "   ", "al\u200cice", "bob\x00", "x" * 65, "\ud800"):
        with pytest.raises(AccountError):
            normalize_name(bad)


# -- the accounts file -------------------------------------------------------------------------------

def test_accounts_add_reset_remove_list(tmp_path):
    accounts = Accounts(tmp_path / "data")
    assert not accounts.enabled and accounts.list() == []
    assert accounts.add(" Alice", "correct horse") == "alice"
    assert accounts.enabled
    assert stat.S_IMODE((tmp_path / "data" / "accounts.sqlite").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    with pytest.raises(AccountError, match="exists"):
        accounts.add("ALICE ", "another one")
    with pytest.raises(AccountError, match="at least"):
        accounts.add("bob", "short")
    epoch = accounts.verify("alice", "correct horse")
    assert epoch and accounts.verify("alice", "wrong horse") is None and accounts.verify("nobody", "x") is None
    stored = (tmp_path / "data" / "accounts.sqlite").read_bytes()
    assert b"correct horse" not in stored and b"$argon2id$" in stored

    accounts.reset("alice", "battery staple")
    assert accounts.verify("alice", "correct horse") is None
    new_epoch = accounts.verify("alice", "battery staple")
    assert new_epoch and new_epoch != epoch
    assert [a.name for a in accounts.list()] == ["alice"]
    with pytest.raises(AccountError):
        accounts.reset("bob", "whatever1")
    accounts.remove("Alice")
    assert accounts.list() == [] and accounts.verify("alice", "battery staple") is None
    assert accounts.enabled  # no fall-back to local mode once accounts exist


def test_the_users_command(tmp_path):
    data = tmp_path / "data"
    r = users_process(data, "list")  # the command itself, once; then its `main` in this process
    assert r.returncode == 0 and "local mode" in r.stdout
    r = users(data, "add", " Alice", "--password", "correct horse")
    assert r.returncode == 0 and "'alice'" in r.stdout and "accounts mode" in r.stdout
    assert users(data, "add", "alice", "--password", "other one").returncode == 1
    assert users(data, "add", "bob", "--password", "short").returncode == 1
    assert users(data, "add", "bob", "--password", "bob's password").returncode == 0
    r = users(data, "list")
    assert r.returncode == 0 and [line.split("\t")[0] for line in r.stdout.splitlines()] == ["alice", "bob"]
    assert users(data, "reset", "ALICE", "--password", "battery staple").returncode == 0
    assert Accounts(data).verify("alice", "battery staple")
    assert users(data, "remove", "bob").returncode == 0
    assert users(data, "remove", "bob").returncode == 1
    assert users(data, "frobnicate").returncode == 2


# -- throttling -------------------------------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failures_lock_a_name_for_growing_times():
    clock = Clock()
    throttle = LoginThrottle(free_per_name=3, clock=clock)
    key = [("name", "alice")]
    for _ in range(3):
        throttle.end(throttle.begin(key), ok=False)
    locks = []
    for _ in range(4):
        with pytest.raises(LoginThrottled) as locked:
            throttle.begin(key)
        locks.append(round(locked.value.retry_after))
        clock.now += locked.value.retry_after
        throttle.end(throttle.begin(key), ok=False)
    assert locks == [1, 2, 4, 8]
    clock.now += 16
    throttle.end(throttle.begin(key), ok=True)  # the right password clears the name
    throttle.end(throttle.begin(key), ok=False)
    throttle.begin(key)


def test_parallel_guesses_get_no_more_checks_than_the_free_ones():
    throttle = LoginThrottle(free_per_name=5, clock=Clock())
    reserved = 0
    for _ in range(50):
        try:
            throttle.begin([("name", "alice")])
            reserved += 1
        except LoginThrottled:
            pass
    assert reserved == 5


def test_a_success_does_not_clear_the_address():
    clock = Clock()
    throttle = LoginThrottle(free_per_name=100, free_per_address=2, clock=clock)
    for name in ("alice", "bob"):
        throttle.end(throttle.begin([("name", name), ("addr", "10.0.0.9")]), ok=False)
    with pytest.raises(LoginThrottled):
        throttle.begin([("name", "mallory"), ("addr", "10.0.0.9")])
    clock.now += 1
    throttle.end(throttle.begin([("name", "mallory"), ("addr", "10.0.0.9")]), ok=True)
    throttle.end(throttle.begin([("name", "carol"), ("addr", "10.0.0.9")]), ok=False)
    with pytest.raises(LoginThrottled) as locked:
        throttle.begin([("name", "dave"), ("addr", "10.0.0.9")])
    assert round(locked.value.retry_after) == 2  # the third failure: mallory's own login reset nothing
    clock.now += 3600 + 10  # forgotten an hour after the last failure
    throttle.begin([("name", "carol"), ("addr", "10.0.0.9")])


async def test_while_locked_even_the_right_password_is_refused(tmp_path, secret):
    auth = DeskAuth(tmp_path, LoginThrottle(free_per_name=2, base_delay=60))
    assert (await auth.login("alice", "desk")) is not None
    for _ in range(2):
        assert await auth.login("alice", "nope") is None
    with pytest.raises(LoginThrottled):
        await auth.attempt("alice", "desk")
    assert await auth.login("alice", "desk") is None
    assert await auth.login("bob", "desk") is not None  # another name is not locked


# -- tokens -------------------------------------------------------------------------------------------

async def test_tokens_follow_the_password(tmp_path, secret, monkeypatch):
    auth = DeskAuth(tmp_path)
    local = await auth.login(" Tester", "desk")
    assert local is not None and local.identifier == "tester"
    assert auth.token_current(local) and auth.user_of(create_jwt(local)) is not None
    monkeypatch.setenv("DESK_PASSWORD", "a new shared one")
    assert not auth.token_current(local)  # the local password changed
    monkeypatch.delenv("DESK_PASSWORD")
    assert auth.token_current(local)

    auth.accounts.add("alice", "correct horse")
    assert not auth.token_current(local)  # accounts mode: local logins are over
    assert await auth.login("tester", "desk") is None
    alice = await auth.login("Alice ", "correct horse")
    assert alice is not None and auth.token_current(alice)
    auth.accounts.reset("alice", "battery staple")
    assert not auth.token_current(alice)
    forged = User(identifier="alice", metadata={"provider": "credentials", "desk_epoch": None})
    assert not auth.token_current(forged)
    assert not auth.token_current(User(identifier="alice", metadata={"provider": "github"}))  # no OAuth set up


async def test_local_mode_on_a_public_address_lets_nobody_in(tmp_path, secret):
    assert await DeskAuth(tmp_path, public=True).login("alice", "desk") is None


# -- loopback only in local mode --------------------------------------------------------------------

def test_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("192.168.1.4")


def test_the_listening_host_is_read_as_chainlit_reads_it():
    assert launcher.listening_host([], {}) == "127.0.0.1"
    assert launcher.listening_host(["--port", "8080"], {"CHAINLIT_HOST": "0.0.0.0"}) == "0.0.0.0"
    assert launcher.listening_host(["--host", "::", "--headless"], {"CHAINLIT_HOST": "127.0.0.1"}) == "::"
    assert launcher.listening_host(["--host=10.1.2.3"], {}) == "10.1.2.3"


def test_python_m_chat_refuses_a_public_address_in_local_mode(tmp_path):
    data = tmp_path / "data"
    for args, env in ((["--host", "0.0.0.0"], {}), ([], {"CHAINLIT_HOST": "0.0.0.0"}),
                      (["--host", "0.0.0.0"], {"DESK_PASSWORD": "not the default"})):
        r = subprocess.run([sys.executable, "-m", "chat", *args, "--headless"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=60, env=demo_env(DESK_DATA_DIR=str(data), **env))
        assert r.returncode == 2, r.stderr
        assert "Refusing to listen on 0.0.0.0" in r.stderr and "python -m chat.users add" in r.stderr
    assert refusal("0.0.0.0", data, {}) is not None
    Accounts(data).add("alice", "correct horse")
    assert refusal("0.0.0.0", data, {}) is None  # accounts mode may listen on a network
    assert refusal("127.0.0.1", tmp_path / "other", {}) is None


@pytest.mark.e2e
def test_chainlit_run_refuses_a_public_address_in_local_mode(tmp_path):
    r = subprocess.run([sys.executable, "-m", "chainlit", "run", str(ROOT / "chat" / "app.py"), "--headless",
                        "--host", "0.0.0.0", "--port", "1"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env=demo_env(drop=("CHAINLIT_AUTH_SECRET",), DESK_DATA_DIR=str(tmp_path / "d")))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Refusing to listen on 0.0.0.0" in r.stderr


# -- over the real server -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def accounts_server(tmp_path_factory) -> Iterator[Server]:
    """A server in accounts mode: alice and bob, made with the command an operator uses."""
    data = tmp_path_factory.mktemp("desk-accounts")
    for name, password in (("alice", "alice's first"), ("bob", "bob's password")):
        assert users(data, "add", name, "--password", password).returncode == 0
    srv = Server(data, DESK_DEMO_DELAY_MS="1")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


async def status(base: str, username: str, password: str) -> int:
    async with httpx.AsyncClient(base_url=base) as http:
        return (await http.post("/login", data={"username": username, "password": password})).status_code


@pytest.mark.e2e
async def test_only_accounts_log_in(accounts_server):
    base = accounts_server.base
    assert await status(base, "tester", "desk") == 401  # local mode is over
    assert await status(base, "alice", "desk") == 401
    assert await status(base, " Alice ", "alice's first") == 200
    r = await request(base, "GET", "/user", await login_cookie(base, "ALICE", "alice's first"))
    assert r.status_code == 200 and r.json()["identifier"] == "alice"


@pytest.mark.e2e
async def test_a_token_issued_before_a_reset_is_refused_after_it(accounts_server):
    base, data = accounts_server.base, accounts_server.data_dir
    old = await login_cookie(base, "alice", "alice's first")
    assert (await request(base, "GET", "/user", old)).status_code == 200
    open_socket = DeskClient(base, "alice", "alice's first")
    await open_socket.connect(cookie=old)
    try:
        assert users(data, "reset", "alice", "--password", "alice's second").returncode == 0

        assert (await request(base, "GET", "/user", old)).status_code == 401
        r = await request(base, "POST", "/project/threads", old, json={"pagination": {"first": 20}, "filter": {}})
        assert r.status_code == 401
        with pytest.raises(socketio.exceptions.ConnectionError):
            await DeskClient(base, "alice", "x").connect(cookie=old)
        # the socket opened before the reset is closed: at once (a stale token's sockets are
        # closed when the server next sees it), or at its next message at the latest
        with contextlib.suppress(socketio.exceptions.BadNamespaceError):
            await open_socket.send("Should I buy NVDA today?")
        await open_socket.wait_for(lambda: open_socket.sio is not None and not open_socket.sio.connected, 10,
                                   "the old socket closed")
        assert not open_socket.by_author("Market Analyst")
    finally:
        await open_socket.close()
    assert await status(base, "alice", "alice's first") == 401
    new = await login_cookie(base, "alice", "alice's second")
    assert (await request(base, "GET", "/user", new)).status_code == 200
    # Logged in again, the same browser session (restored by its id) works with the new token.
    again = DeskClient(base, "alice", "alice's second")
    await again.connect(cookie=new, session_id=open_socket.session_id)
    try:
        await again.send("hello")
        await again.wait_for(lambda: [m for m in again.by_author("Desk") if "hello" not in m.get("output", "")
                                      and m.get("output")], 15, "the desk answering")
        assert again.sio is not None and again.sio.connected
    finally:
        await again.close()

    assert users(data, "remove", "alice").returncode == 0
    assert (await request(base, "GET", "/user", new)).status_code == 401
    assert await status(base, "alice", "alice's second") == 401


@pytest.mark.e2e
async def test_two_hundred_wrong_guesses_are_slowed_down(accounts_server):
    base = accounts_server.base
    g = await guess(base, "bob", 200)
    print(f"\n200 wrong guesses in {g.seconds:.2f} s: {g.checked} checked ({g.per_second:.1f}/s), "
          f"{g.throttled} refused unchecked")
    # Before: every guess was checked, 110-280 a second. Now five are, then the name is locked for
    # 1 s, 2 s, 4 s…: one more check per lock that ran out while the 200 were sent.
    assert g.checked + g.throttled == 200
    assert g.checked <= 5 + 1 + math.ceil(math.log2(1 + g.seconds)), g
    async with httpx.AsyncClient(base_url=base) as http:
        locked = await http.post("/login", data={"username": "bob", "password": "bob's password"})
    assert locked.status_code == 429, "while locked even the right password is refused"
    await asyncio.sleep(float(locked.headers["retry-after"]) + 0.2)
    assert await status(base, "bob", "bob's password") == 200
    # Another name from the same address is not locked by bob's.
    assert users(accounts_server.data_dir, "add", "carol", "--password", "carol's password").returncode == 0
    assert await status(base, "carol", "carol's password") == 200


@pytest.mark.e2e
def test_the_accounts_file_is_private(accounts_server):
    data = accounts_server.data_dir
    assert stat.S_IMODE(os.stat(data / "accounts.sqlite").st_mode) == 0o600


def test_the_users_command_makes_lists_and_revokes_personal_tokens(tmp_path):
    """`token NAME` prints the secret once (stdout: the secret, then one line saying so), `tokens NAME` lists id,
    label, created and last used, `revoke NAME ID` stops it at once; another user's id, or no such id, is refused."""
    from graph import PersonalTokens

    data = tmp_path / "data"
    r = users(data, "token", " Alice", "--label", "Cursor on my laptop")
    assert r.returncode == 0, r.stderr
    secret, said = r.stdout.splitlines()
    assert secret.startswith("desk_pat_") and "shown only now" in said and "Cursor on my laptop" in said
    tokens = PersonalTokens(data)
    assert tokens.verify(secret) == "alice"  # the name as the chat's login makes it
    [token] = tokens.list("alice")
    assert token.id in said and token.label == "Cursor on my laptop"
    assert secret.encode() not in (data / "personal_tokens.sqlite").read_bytes()  # only its digest is kept
    r = users(data, "tokens", "ALICE")
    assert r.returncode == 0
    [line] = r.stdout.splitlines()
    assert line.split("\t")[:2] == [token.id, "Cursor on my laptop"] and "created 20" in line and "last used 20" in line
    assert secret not in r.stdout
    assert "no personal tokens of 'bob'" in users(data, "tokens", "bob").stdout

    assert users(data, "revoke", "bob", token.id).returncode == 1  # not bob's
    assert tokens.verify(secret) == "alice"
    assert users(data, "revoke", "alice", "00000000").returncode == 1
    r = users(data, "revoke", "alice", token.id)
    assert r.returncode == 0 and "stops working now" in r.stdout
    assert tokens.verify(secret) is None and users(data, "revoke", "alice", token.id).returncode == 1
    assert users(data, "token", "alice", "--label", "x" * 81).returncode == 1  # a label too long: refused
    assert users(data, "token").returncode == 2 and users(data, "revoke", "alice").returncode == 2

    # In accounts mode a token is an account's: none for a name that is no account.
    assert users(data, "add", "carol", "--password", "correct horse").returncode == 0
    assert users(data, "token", "dave").returncode == 1
    r = users(data, "token", "carol")
    assert r.returncode == 0 and tokens.verify(r.stdout.splitlines()[0]) == "carol"
