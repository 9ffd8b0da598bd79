"""Sessions and files (issue 20, point 8), tried as an attacker would against the real server: the
per-session copies of charts and reports other local users could read and a kill -9 left behind."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from chat import serving
from tests.support.chat_server import Server
from tests.support.socket_client import DeskClient, runs_finished


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


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
