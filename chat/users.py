"""`python -m chat.users add NAME --password PW` (and `reset NAME --password PW`, `remove NAME`, `list`):
the chat's accounts, in DESK_DATA_DIR/accounts.sqlite.

The first account switches the app from local mode (any name, DESK_PASSWORD) to accounts mode (only
accounts log in); a reset or a removal takes effect at once, also on a running server, and kills
every login token issued before it. Without --password the password is asked for (not echoed).
Run it as the user that runs the server: the file is readable by its owner only.
Exit codes: 0 done, 1 refused (no such account, exists already, a bad name or password), 2 usage.
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys

from graph import Settings

from .web.accounts import AccountError, Accounts
from .web.startup import home


def _password(given: str | None) -> str:
    if given is not None:
        return given
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise AccountError("the passwords differ")
    return first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chat.users", description="Manage the chat's accounts.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("add", "create an account"), ("reset", "set a new password (logs the user out)")):
        cmd = commands.add_parser(name, help=text)
        cmd.add_argument("name")
        cmd.add_argument("--password", help="the password (asked for when left out)")
    commands.add_parser("remove", help="delete an account (logs the user out)").add_argument("name")
    commands.add_parser("list", help="list the accounts")
    args = parser.parse_args(argv)

    os.chdir(home())  # the same data folder as `python -m chat`
    accounts = Accounts(Settings().data_dir)
    try:
        if args.command == "add":
            local = not accounts.enabled
            name = accounts.add(args.name, _password(args.password))
            print(f"added {name!r}" + (" (accounts mode: from now on only accounts log in)" if local else ""))
        elif args.command == "reset":
            print(f"reset {accounts.reset(args.name, _password(args.password))!r}: earlier logins are signed out")
        elif args.command == "remove":
            print(f"removed {accounts.remove(args.name)!r}: earlier logins are signed out")
        else:
            rows = accounts.list()
            for row in rows:
                print(f"{row.name}\tcreated {row.created}\tpassword set {row.changed}")
            if not rows:
                print(f"no accounts: nobody can log in (delete {accounts.path} to go back to local mode)"
                      if accounts.enabled else "no accounts: local mode (any name, the password from DESK_PASSWORD)")
    except AccountError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
