"""Sessions and files (issue 20, point 8), tried as an attacker would against the real server: a token
still good after its logout; a known user locked out by anyone's wrong passwords; the per-session
copies of charts and reports other local users could read and a kill -9 left behind; the login cookie
sent over plain http behind https; a client address named in X-Forwarded-For by anyone on the machine."""
from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import socketio
from chainlit.auth import create_jwt

from chat.web import serving
from chat.web.logins import DeskAuth, token_id
from chat.web.tokens import TokenGuard
from graph import LoginThrottle, LoginThrottled
from tests.support.attacks import list_threads, login_cookie, request
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished


async def login(server: Server, username: str, password: str, source: str = "127.0.0.1",
                **headers: str) -> httpx.Response:
    """A login from the loopback address `source` (all of 127/8 is this machine's: each is a client
    address of its own to the server)."""
    transport = httpx.AsyncHTTPTransport(local_address=source)
    async with httpx.AsyncClient(base_url=server.base, transport=transport) as http:
        return await http.post("/login", data={"username": username, "password": password}, headers=headers)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    """A server as it starts with nothing set about proxies."""
    with pytest.MonkeyPatch.context() as env:
        env.delenv("FORWARDED_ALLOW_IPS", raising=False)  # (importing chat.web.tokens set it here)
        srv = Server(tmp_path_factory.mktemp("desk-sessions"), DESK_DEMO_DELAY_MS="1")
        srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory) -> Iterator[Server]:
    """A server behind a reverse proxy on this machine, which the operator named."""
    srv = Server(tmp_path_factory.mktemp("desk-proxied"), DESK_DEMO_DELAY_MS="1", FORWARDED_ALLOW_IPS="127.0.0.1")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- logout ---------------------------------------------------------------------------------------------

@pytest.mark.e2e
async def test_a_logged_out_token_is_refused_everywhere_and_after_a_restart(tmp_path):
    srv = Server(tmp_path, DESK_DEMO_DELAY_MS="1")
    srv.start()
    try:
        copied = await login_cookie(srv.base, "alice", "desk")   # the browser's token, copied by someone
        elsewhere = await login_cookie(srv.base, "alice", "desk")  # alice on another device
        token = copied.split("=", 1)[1]
        socket = DeskClient(srv.base, "alice", "desk")
        await socket.connect(cookie=copied)
        r = await request(srv.base, "POST", "/logout", copied)
        assert r.status_code == 200
        # Before: /logout only cleared the browser's cookie, and the token answered for 15 days.
        assert (await request(srv.base, "GET", "/user", copied)).status_code == 401
        assert (await list_threads(srv.base, copied)).status_code == 401
        bearer = await request(srv.base, "GET", "/user", headers={"Authorization": f"Bearer {token}"})
        assert bearer.status_code == 401
        assert (await request(srv.base, "POST", "/auth/jwt", headers={"Authorization": f"Bearer {token}"})
                ).status_code == 401  # no new token made from it
        await socket.wait_for(lambda: socket.sio is not None and not socket.sio.connected, 10, "its socket closed")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await DeskClient(srv.base, "alice", "x").connect(cookie=copied)
        assert (await request(srv.base, "GET", "/user", elsewhere)).status_code == 200  # her other login stands
        assert (await request(srv.base, "POST", "/logout")).status_code == 200  # no token: nothing to revoke
        await socket.close()
        srv.stop()
        assert mode(tmp_path / "logouts.sqlite") == 0o600
        srv.start()  # the revocation is kept in the data folder
        assert (await request(srv.base, "GET", "/user", copied)).status_code == 401
        assert (await request(srv.base, "GET", "/user", elsewhere)).status_code == 200
    finally:
        srv.stop()


async def test_a_logout_revokes_that_login_and_tokens_made_from_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINLIT_AUTH_SECRET", "s" * 48)
    auth = DeskAuth(tmp_path)
    first, second = await auth.login("alice", "desk"), await auth.login("alice", "desk")
    assert first is not None and second is not None
    token, other = create_jwt(first), create_jwt(second)
    remade = create_jwt(first)  # as Chainlit's /auth/jwt makes a new token from a valid one
    assert token_id(token, first) != token_id(other, second)
    assert auth.log_out(token) is not None
    assert auth.user_of(token) is None and auth.user_of(remade) is None
    assert auth.user_of(other) is not None
    assert auth.log_out(token) is None and auth.log_out("not a token") is None and auth.log_out(None) is None
    # A token without a login id (OAuth, or issued before logins had one): the token itself is revoked.
    bare = {"identifier": "alice", "metadata": dict(second.metadata, desk_token=None)}
    old = create_jwt(type(second)(**bare))
    assert auth.user_of(old) is not None and auth.log_out(old) is not None and auth.user_of(old) is None
    assert auth.user_of(other) is not None
    auth.logouts.revoke("login:expired", 1.0)  # long expired: dropped at the next revocation
    auth.logouts.revoke("login:x", 2e9)
    assert not auth.logouts.revoked("login:expired") and auth.logouts.revoked("login:x")


# -- session files ------------------------------------------------------------------------------------

@pytest.mark.e2e
async def test_session_files_are_owner_only_and_a_killed_servers_are_removed_at_the_next_start(tmp_path):
    srv = Server(tmp_path, DESK_DEMO_DELAY_MS="1")
    srv.start()
    client = DeskClient(srv.base, "alice", "desk")
    try:
        await client.connect()
        await client.send("Should I buy NVDA today?")
        await client.wait_for(lambda: runs_finished(client) >= 1, 120, "the analysis")
        [killed] = (tmp_path / "sessions").iterdir()
        files = [p for p in killed.rglob("*") if p.is_file() and p.name != serving.LOCK]
        # Before: 0644 files in 0755 folders, readable by every local user (the chart, the report).
        assert {p.suffix for p in files} >= {".json", ".md"}, files
        assert {mode(p) for p in files} == {0o600}
        assert {mode(p) for p in [killed, *(p for p in killed.rglob("*") if p.is_dir())]} == {0o700}
        assert mode(tmp_path / "sessions") == 0o700
        assert not [p for p in (srv.app_root() / ".files").rglob("*")]  # nothing in the working folder
        srv.kill()  # kill -9: Chainlit's clean-up at shutdown does not run
    finally:
        await client.close()
        srv.stop()
    assert [p for p in killed.rglob("*") if p.suffix == ".md"], "the killed server's files are still there"

    again = Server(tmp_path, DESK_DEMO_DELAY_MS="1")
    again.start()
    try:
        # Before: a killed server's folder stayed until a later start by chance found its pid unused.
        assert not killed.exists()
        [own] = (tmp_path / "sessions").iterdir()
        assert mode(own) == 0o700
    finally:
        again.stop()
    assert list((tmp_path / "sessions").iterdir()) == []


def test_a_folder_is_left_behind_once_its_lock_is_free_whatever_its_pid(tmp_path):
    """In a container the server may get the same pid at every start: its dead predecessor's folder
    carries the new server's pid, and was kept as a live process's."""
    host = serving.socket.gethostname()
    mine = tmp_path / f"{host}-{os.getpid()}-abc"
    mine.mkdir()
    assert serving._left_behind(mine)  # no lock (an earlier version's folder): our own pid is not alive for it
    (mine / serving.LOCK).touch()
    assert serving._left_behind(mine)  # a lock nobody holds
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); "
                               "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
                               str(mine / serving.LOCK)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert not serving._left_behind(mine)  # a running process's
    finally:
        holder.kill()
        holder.wait()
    assert serving._left_behind(mine)
    other = tmp_path / f"{host}-{os.getppid()}-abc"
    other.mkdir()
    assert not serving._left_behind(other)  # an earlier version's folder of a live process


# -- the login cookie over https ------------------------------------------------------------------------

def secure(response: httpx.Response) -> bool:
    [cookie] = [v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith("access_token=")]
    return "secure" in [a.strip().lower() for a in cookie.split(";")]


@pytest.mark.e2e
async def test_the_login_cookie_is_secure_behind_an_https_proxy(server, proxied):
    # Before: Chainlit set Secure only with SameSite=None, so the 15-day token also went out over http.
    assert secure(await login(proxied, "alice", "desk", **{"X-Forwarded-Proto": "https"}))
    assert not secure(await login(proxied, "alice", "desk"))  # plain http: a Secure cookie would not come back
    # A server told of no proxy believes no X-Forwarded-Proto: the request came over plain http.
    assert not secure(await login(server, "alice", "desk", **{"X-Forwarded-Proto": "https"}))


async def test_every_cookie_is_secure_over_https():
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"set-cookie", b"access_token=ab.secure.cd; HttpOnly; Path=/; SameSite=lax"),
            (b"set-cookie", b"other=1; Secure"), (b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b""})

    cookie = b"access_token=ab.secure.cd; HttpOnly; Path=/; SameSite=lax"
    for scheme, expected in (("https", [cookie + b"; Secure", b"other=1; Secure"]),
                             ("http", [cookie, b"other=1; Secure"])):
        sent: list[dict] = []

        async def record(message):
            sent.append(message)

        guard = TokenGuard(app, auth=None)  # type: ignore[arg-type]  # no token: the auth is not asked
        await guard({"type": "http", "scheme": scheme, "method": "GET", "path": "/", "headers": [],
                     "client": ("127.0.0.1", 1)}, None, record)  # type: ignore[arg-type]
        assert [v for k, v in sent[0]["headers"] if k == b"set-cookie"] == expected


# -- X-Forwarded-For ------------------------------------------------------------------------------------

async def wrong_passwords(server: Server, n: int, source: str, forwarded: bool) -> list[int]:
    """`n` wrong passwords, each for another name (no name is throttled) and, when `forwarded`, from
    another address named in X-Forwarded-For."""
    codes = []
    for i in range(n):
        headers = {"X-Forwarded-For": f"10.{i // 250}.{i % 250}.7"} if forwarded else {}
        codes.append((await login(server, f"victim{i}", "wrong", source, **headers)).status_code)
    return codes


@pytest.mark.e2e
async def test_x_forwarded_for_is_believed_only_from_a_named_proxy(server, proxied):
    # Before: the server believed X-Forwarded-For from loopback, so anything on this machine (a proxy
    # that passes the header on) named a new address each time and never met the limit per address.
    codes = await wrong_passwords(server, 21, "127.0.0.1", forwarded=True)
    assert codes == [401] * 20 + [429], codes  # 20 free per address, then locked
    await asyncio.sleep(1.1)  # (the lock on this machine's address runs out: the other tests log in from it)
    # The operator's proxy is believed: each forwarded address is a client of its own.
    assert await wrong_passwords(proxied, 25, "127.0.0.1", forwarded=True) == [401] * 25
    # A client that is not the named proxy is not.
    codes = await wrong_passwords(proxied, 25, "127.0.0.3", forwarded=True)
    assert set(codes[20:]) == {429}, codes


# -- locking a known user out ---------------------------------------------------------------------------

@pytest.mark.e2e
async def test_wrong_passwords_from_one_address_do_not_lock_the_user_out_elsewhere(server):
    codes = [(await login(server, "carol", f"guess {i}", "127.0.0.2")).status_code for i in range(30)]
    assert codes[:5] == [401] * 5 and set(codes[5:]) <= {401, 429} and codes.count(401) <= 8, codes
    # The guesser stays locked out of carol, even with her password (asked first: his lock is seconds
    # long, and under load a login elsewhere, with its password hash, can outlast it).
    assert (await login(server, "carol", "desk", "127.0.0.2")).status_code == 429
    # Before: the name itself was locked (1 s, 2 s, 4 s… up to 15 min) for everybody, carol included.
    assert (await login(server, "carol", "desk", "127.0.0.5")).status_code == 200
    # Another address has its own five.
    assert (await login(server, "carol", "guess", "127.0.0.6")).status_code == 401


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_guessing_a_name_from_many_addresses_meets_a_ceiling():
    throttle = LoginThrottle(free_per_name=100, clock=Clock())
    guessed = 0
    for i in range(1000):  # 1000 addresses, three guesses each: each pair and address stays within its budget
        for _ in range(3):
            try:
                throttle.end(throttle.begin([("name", "carol"), ("addr", f"10.0.{i // 250}.{i % 250}")]), ok=False)
                guessed += 1
            except LoginThrottled:
                pass
    assert guessed == 100  # then the name is locked from everywhere (1 s, 2 s…)
    with pytest.raises(LoginThrottled):
        throttle.begin([("name", "carol"), ("addr", "10.9.9.9")])


def test_a_pair_locks_the_name_from_that_address_only():
    clock = Clock()
    throttle = LoginThrottle(clock=clock)
    attacker, user = [("name", "carol"), ("addr", "10.0.0.66")], [("name", "carol"), ("addr", "10.0.0.5")]
    for _ in range(5):
        throttle.end(throttle.begin(attacker), ok=False)
    with pytest.raises(LoginThrottled):
        throttle.begin(attacker)
    throttle.end(throttle.begin(user), ok=True)  # carol herself, from her own address
    with pytest.raises(LoginThrottled):
        throttle.begin(attacker)  # her login does not unlock the guesser
    clock.now += 1
    throttle.end(throttle.begin(attacker), ok=False)
    with pytest.raises(LoginThrottled) as locked:
        throttle.begin(attacker)
    assert round(locked.value.retry_after) == 2


def test_one_guesser_never_reaches_the_ceiling_however_long_he_goes_on():
    clock = Clock()
    throttle = LoginThrottle(clock=clock)
    guesser = [("name", "carol"), ("addr", "10.0.0.66")]
    failures = 0
    while clock.now < 1000 + 48 * 3600:  # two days of guessing as fast as the locks allow
        try:
            throttle.end(throttle.begin(guesser), ok=False)
        except LoginThrottled as locked:
            clock.now += locked.retry_after
            continue
        failures += 1
        # Before: past 100 failures in all, the name was locked for everyone after each of his.
        assert throttle.wait(("name", "carol")) == 0, failures
    assert failures > 150
