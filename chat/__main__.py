"""`python -m chat [chainlit run options]`: prepare the data folder and the login secret, then
start Chainlit on chat/app.py from the repository root.

Local mode (no account created: any user name, one shared password) listens on loopback only:
asked for another address (`--host 0.0.0.0`, CHAINLIT_HOST), it refuses with exit code 2 until
accounts exist (`python -m chat.users add NAME`).
"""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from graph.core.settings import Settings

from .accounts import DEFAULT_PASSWORD, Accounts, is_loopback

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


def refusal(host: str, data_dir: Path, env: Mapping[str, str]) -> str | None:
    """Why the app must not listen on `host`, or None."""
    if is_loopback(host) or Accounts(data_dir).enabled:
        return None
    default = (env.get("DESK_PASSWORD") or DEFAULT_PASSWORD) == DEFAULT_PASSWORD
    return (f"Refusing to listen on {host}: with no account the chat is in local mode (any user name, "
            f"one shared password{', the default ' + repr(DEFAULT_PASSWORD) if default else ''}), "
            "which is for this machine only.\n"
            "Create the accounts first: python -m chat.users add NAME --password PW")


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    os.chdir(root)  # Chainlit reads .chainlit/, public/ and chainlit.md from the working directory
    settings = Settings()
    if reason := refusal(listening_host(sys.argv[1:], os.environ), settings.data_dir, os.environ):
        print(reason, file=sys.stderr)
        sys.exit(2)
    from .storage import chat_database, create_schema, ensure_auth_secret  # Chainlit: seconds to import

    create_schema(chat_database(settings))  # the data folder and its files owner-only (or Postgres)
    ensure_auth_secret(settings.data_dir)
    args = [sys.executable, "-m", "chainlit", "run", "chat/app.py", *sys.argv[1:]]
    os.execv(sys.executable, args)


if __name__ == "__main__":
    main()
