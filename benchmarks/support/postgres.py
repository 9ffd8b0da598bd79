"""A real PostgreSQL server for the tests and the benchmarks: a throwaway cluster in a temporary
folder, on a free loopback port, torn down afterwards (tests/support/postgres.py's fixtures keep
one for a test session; `throwaway_postgres` one for a benchmark's command).

initdb refuses to run as root, so when the tests run as root (CI containers) the cluster is made
and run by an unprivileged user (`nobody`), in a folder that user owns. The server trusts its
loopback clients (no password): it listens on 127.0.0.1 only and its socket lives in the
temporary folder. Durability is off (fsync, synchronous_commit): a test cluster never outlives
its session, and this keeps a 2-core machine's disk out of the measurements.

Binaries: Debian's `postgresql` package (/usr/lib/postgresql/<version>/bin), installed in CI by
.ci/debian-packages; tests that need the server are skipped with the reason when it is missing.
"""
from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .ports import free_port

SUPERUSER = "desk"
UNPRIVILEGED = "nobody"


def postgres_bin() -> Path | None:
    """The folder of initdb and pg_ctl: Debian's newest installed version, else the PATH's."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(v) if (v := Path(p).parts[-3]).isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass
class PostgresServer:
    """A cluster under `root`, run as `user` (None: this process's user)."""
    bin: Path
    root: Path
    port: int
    user: str | None
    # Commits waited for on disk, as a production server has them: a test that crashes the server (`crash`) must not
    # lose what it acknowledged. Off by default: a cluster that never crashes needs no disk waits.
    durable: bool = False

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        as_user: dict[str, Any] = {}
        if self.user is not None:
            # Root's supplementary groups are dropped too (extra_groups=[]), not only its uid.
            as_user = {"user": self.user, "group": pwd.getpwnam(self.user).pw_gid, "extra_groups": []}
        env = {"PATH": f"{self.bin}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": str(self.root)}
        return subprocess.run(args, cwd=self.root, env=env, capture_output=True, text=True, timeout=120,
                              check=True, **as_user, **kwargs)

    def start(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                  "--encoding=UTF8", "--locale=C.UTF-8")
        self.restart()

    def restart(self) -> None:
        """Start the cluster made by `start` again (after `crash`)."""
        options = f"-h 127.0.0.1 -p {self.port} -k {self.root} -c max_connections=200"
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")

    def crash(self) -> None:
        """Stop it as a crash does (`pg_ctl -m immediate`): every connection cut, no goodbye to the clients."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "-t", "30", "stop")
        except subprocess.CalledProcessError:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; its URL."""
        import psycopg

        name = name or f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # a name made here, never a caller's text
        return self.url(name)

    def log(self) -> str:
        path = self.root / "server.log"
        return path.read_text() if path.exists() else ""


@contextlib.contextmanager
def throwaway_postgres(*, durable: bool = False) -> Iterator[PostgresServer]:
    """A PostgreSQL cluster in a temporary folder on a free loopback port, run by an unprivileged
    user when this runs as root (initdb refuses root), removed afterwards."""
    pg_bin = postgres_bin()
    if pg_bin is None:
        raise SystemExit("PostgreSQL server binaries not found (Debian: apt-get install postgresql), "
                         "or pass --database-url")
    user = UNPRIVILEGED if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="desk-scale-pg-"))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    server = PostgresServer(pg_bin, root, free_port(), user, durable)
    try:
        try:
            server.start()
        except subprocess.CalledProcessError as exc:
            raise RuntimeError(f"PostgreSQL did not start: {exc.stderr}\n{server.log()}") from exc
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        shutil.rmtree(root, ignore_errors=True)
