"""`python -m chat [chainlit run options]`: prepare the data folder and the login secret, then start
Chainlit on this package's app.py, in a folder made from the package's config and assets
(startup.app_root), so that an installed wheel runs from any directory.

Local mode (no account created: any user name, one shared password) listens on loopback only:
asked for another address (`--host 0.0.0.0`, CHAINLIT_HOST), it refuses with exit code 2 until
accounts exist (`python -m chat.users add NAME`).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from graph import Settings

from .web.startup import app_root, home, prepare

APP = Path(__file__).resolve().with_name("app.py")
DEFAULT_HOST = "127.0.0.1"  # Chainlit's


def listening_host(argv: Sequence[str], env: Mapping[str, str]) -> str:
    """The address `chainlit run` will listen on: its --host option (the last one given, as click
    takes it), else CHAINLIT_RUN_HOST (click's variable for that option), else CHAINLIT_HOST."""
    host = None
    for i, arg in enumerate(argv):
        if arg == "--host" and i + 1 < len(argv):
            host = argv[i + 1]
        elif arg.startswith("--host="):
            host = arg.split("=", 1)[1]
    return host or env.get("CHAINLIT_RUN_HOST") or env.get("CHAINLIT_HOST") or DEFAULT_HOST


def main() -> None:
    os.chdir(home())  # a checkout's root: its .data is the default data folder
    settings = Settings()
    prepare(settings, listening_host(sys.argv[1:], os.environ))  # exits (2) on a public address in local mode
    env = {**os.environ, "CHAINLIT_APP_ROOT": str(app_root(settings.data_dir))}
    os.execve(sys.executable, [sys.executable, "-m", "chainlit", "run", str(APP), *sys.argv[1:]], env)


if __name__ == "__main__":
    main()
