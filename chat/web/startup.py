"""What a chat server process sets up before Chainlit serves, called by chat/app.py when Chainlit loads
it and by `python -m chat` before it starts Chainlit: the refusal of a public address in local mode,
the history's tables, the login secret, and the folder Chainlit runs in (`app_root`), made from the
package's own config and assets (package data under chat/ui/: .chainlit/config.toml, public/,
chainlit.md), so that an installed wheel runs from any directory.

No Chainlit import here: importing chainlit.config reads Chainlit's config from its app root (and
writes a default one there when there is none) before `python -m chat` has said where that is.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from graph import Settings, private_dir, write_private

from ..storage import chat_database, create_schema
from .accounts import DEFAULT_PASSWORD, Accounts, is_loopback

UI = Path(__file__).resolve().parents[1] / "ui"  # chat/ui
# What Chainlit reads from its app root: its config (its translations it writes there itself), the
# page's scripts, styles and pictures, and the readme shown in the page.
UI_FILES = (".chainlit/config.toml", "public", "chainlit.md")


def home() -> Path:
    """Where `python -m chat` and `python -m chat.users` run (the default data folder, `.data`, is
    relative to it): a checkout's root, as the README runs them from anywhere; else, for an
    installed wheel, the current directory."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() else Path.cwd()


def refusal(host: str, data_dir: Path, env: Mapping[str, str]) -> str | None:
    """Why the app must not listen on `host`, or None: local mode (no account) is for this machine only."""
    if is_loopback(host) or Accounts(data_dir).enabled:
        return None
    default = (env.get("DESK_PASSWORD") or DEFAULT_PASSWORD) == DEFAULT_PASSWORD
    return (f"Refusing to listen on {host}: with no account the chat is in local mode (any user name, "
            f"one shared password{', the default ' + repr(DEFAULT_PASSWORD) if default else ''}), "
            "which is for this machine only.\n"
            "Create the accounts first: python -m chat.users add NAME --password PW")


def prepare(settings: Settings, host: str) -> None:
    """Before serving on `host`: refuse a public address in local mode (exit code 2, the reason on
    stderr), then create (or complete) the history's tables and the login secret."""
    if reason := refusal(host, settings.data_dir, os.environ):
        print(reason, file=sys.stderr)
        raise SystemExit(2)
    create_schema(chat_database(settings))  # the data folder and its files owner-only (or Postgres)
    ensure_auth_secret(settings.data_dir)


def ensure_auth_secret(data_dir: Path) -> str:
    """CHAINLIT_AUTH_SECRET from the environment, or one generated once and kept under DESK_DATA_DIR.
    Chainlit reads it after loading the app module, so setting it then is in time."""
    if secret := os.environ.get("CHAINLIT_AUTH_SECRET"):
        return secret
    path = data_dir / "auth_secret"
    secret = path.read_text().strip() if path.exists() else ""
    if not secret:
        secret = secrets.token_urlsafe(48)
        try:  # owner-only from its creation; a second process starting at once keeps the first's
            write_private(path, secret.encode(), exclusive=not path.exists())
        except FileExistsError:
            secret = path.read_text().strip()
    os.environ["CHAINLIT_AUTH_SECRET"] = secret
    return secret


def app_root(data_dir: Path) -> Path:
    """The folder Chainlit runs in (CHAINLIT_APP_ROOT) for `python -m chat`: DESK_DATA_DIR/chainlit,
    with the package's config, assets and chainlit.md linked in. What Chainlit writes to its app
    root (its translations, a `.files` folder) goes there, never into the installed package or the
    working directory."""
    root = (data_dir / "chainlit").resolve()
    private_dir(root)
    (root / ".chainlit").mkdir(exist_ok=True)
    for name in UI_FILES:
        _link(root / name, UI / name)
    return root


def _link(link: Path, target: Path) -> None:
    """`link` made a symbolic link to `target` (a copy where links cannot be made)."""
    if link.is_symlink() and link.resolve() == target.resolve():
        return
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        shutil.rmtree(link)
    try:
        link.symlink_to(target, target_is_directory=target.is_dir())
    except FileExistsError:  # another process starting on this data folder made it meanwhile
        pass
    except OSError:
        with contextlib.suppress(FileExistsError):
            if target.is_dir():
                shutil.copytree(target, link)
            else:
                shutil.copyfile(target, link)
