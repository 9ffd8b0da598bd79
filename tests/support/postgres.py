"""The tests' PostgreSQL server: one throwaway cluster for the session, and databases on it.

The server itself (PostgresServer, postgres_bin) lives in benchmarks/support/postgres.py, which the
scale and server-CPU benchmarks use too; it is re-exported here under its old names.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.support.ports import free_port
from benchmarks.support.postgres import SUPERUSER, UNPRIVILEGED, PostgresServer, postgres_bin, throwaway_postgres

__all__ = ["SUPERUSER", "UNPRIVILEGED", "PostgresServer", "durable_postgres", "fresh_postgres_url", "postgres_bin",
           "postgres_server", "postgres_url"]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (skipped, with the reason, when the binaries are missing)."""
    pg_bin = postgres_bin()
    if pg_bin is None:
        pytest.skip("PostgreSQL server binaries not found (Debian: apt-get install postgresql)")
    user = UNPRIVILEGED if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="desk-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    server = PostgresServer(pg_bin, root, free_port(), user)
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {exc.stderr}\n{server.log()}") from exc
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_url(postgres_server: PostgresServer) -> str:
    """A database made once for the session (tests that share it use their own thread ids)."""
    return postgres_server.create_database("desk")


@pytest.fixture
def fresh_postgres_url(postgres_server: PostgresServer) -> str:
    """An empty database of this test's own: schema creation and counts start from nothing."""
    return postgres_server.create_database()


@pytest.fixture(scope="module")
def durable_postgres() -> Iterator[PostgresServer]:
    """A cluster of the module's own whose commits reach the disk, for a test that crashes it (`crash`) and starts
    it again (`restart`): the session's shared cluster runs without waiting for the disk and serves other tests."""
    try:
        with throwaway_postgres(durable=True) as server:
            yield server
    except SystemExit as missing:  # no PostgreSQL binaries
        pytest.skip(str(missing))
