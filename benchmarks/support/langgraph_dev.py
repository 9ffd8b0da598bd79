"""`langgraph dev` serving the desk (langgraph.json) on a loopback port, in demo mode and offline, with the
desk's accounts in its own data folder: for the tests of LangGraph Server and the benchmarks that use it.

It runs in its own folder (its `.langgraph_api` persistence and the desk's data go there, not into the
checkout) and its own process group, so `stop` ends all of it.
"""
from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from graph import Accounts

from .env import demo_env
from .ports import free_port
from .processes import end_group

ROOT = Path(__file__).resolve().parents[2]
# Anything that would send something off the machine: tracing, the CLI's analytics, the version check, a
# LangSmith key or licence from the developer's shell.
OFFLINE_ENV = {"LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1",
               "LANGGRAPH_NO_VERSION_CHECK": "true", "PYTHONUNBUFFERED": "1"}
DROP_ENV = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT",
            "LANGGRAPH_CLOUD_LICENSE_KEY", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING")


class LangGraphDev:
    """`langgraph dev` with `accounts` (name → password) and, when given, `--n-jobs-per-worker` (the runs its
    one server process works on at once; the queue holds the rest). `env` goes on top of the demo's."""

    def __init__(self, folder: Path, accounts: Mapping[str, str], *, n_jobs: int | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.folder = folder
        self.accounts = dict(accounts)
        self.n_jobs = n_jobs
        self.env = dict(env or {})
        self.log_path = folder / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self, timeout_s: float = 120) -> None:
        data = self.folder / "data"
        accounts = Accounts(data)
        for name, password in self.accounts.items():
            accounts.add(name, password)
        env = demo_env(drop=DROP_ENV, DESK_DATA_DIR=str(data), **OFFLINE_ENV, **self.env)
        jobs = ["--n-jobs-per-worker", str(self.n_jobs)] if self.n_jobs else []
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "langgraph_cli", "dev", "--config", str(ROOT / "langgraph.json"),
                 "--host", "127.0.0.1", "--port", str(free_port()), "--no-browser", "--no-reload", *jobs],
                cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited:\n{self.log()}")
            # The port it really took: it moves to another one if ours was taken meanwhile.
            if not self.url and (m := re.search(r"API: \S*?(http://127\.0\.0\.1:\d+)", self.log())):
                self.url = m.group(1)
            if self.url:
                try:
                    if httpx.get(f"{self.url}/ok", timeout=2).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
            time.sleep(0.2)
        raise RuntimeError(f"langgraph dev did not come up:\n{self.log()}")

    def stop(self) -> None:
        end_group(self.proc, wait_s=15)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")
