"""`python -m chat.users add NAME --password PW` (and `reset NAME --password PW`, `remove NAME`, `list`):
the chat's accounts, in DESK_DATA_DIR/accounts.sqlite; and a user's personal tokens (issue 39: for an MCP client
or a script, sent as `Authorization: Bearer desk_pat_…`), in DESK_DATA_DIR/personal_tokens.sqlite:
`token NAME [--label L]` makes one and prints it once (only its digest is kept), `tokens NAME` lists them,
`revoke NAME ID` stops one at once. In the chat, `/token` does the same for the signed-in user.

The first account switches the app from local mode (any name, DESK_PASSWORD) to accounts mode (only
accounts log in); a reset or a removal takes effect at once, also on a running server, and kills
every login token issued before it. Without --password the password is asked for (not echoed).
Run it as the user that runs the server: the file is readable by its owner only.
Exit codes: 0 done, 1 refused (no such account, exists already, a bad name or password; a token refused, or no
such token of that user's to revoke), 2 usage.
"""
from __future__ import annotations

import argparse
import getpass
import os
import sys

from graph import PersonalTokens, Settings, TokenError

from .web.accounts import AccountError, Accounts, normalize_name
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
    cmd = commands.add_parser("token", help="make a personal token for NAME (printed once)")
    cmd.add_argument("name")
    cmd.add_argument("--label", default="", help="what the token is for (e.g. 'Cursor on my laptop')")
    commands.add_parser("tokens", help="list NAME's personal tokens").add_argument("name")
    cmd = commands.add_parser("revoke", help="revoke NAME's personal token ID (at once)")
    cmd.add_argument("name")
    cmd.add_argument("id")
    args = parser.parse_args(argv)

    os.chdir(home())  # the same data folder as `python -m chat`
    data_dir = Settings().data_dir
    accounts = Accounts(data_dir)
    try:
        if args.command in ("token", "tokens", "revoke"):
            return _tokens(args, accounts, PersonalTokens(data_dir))
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


def _tokens(args: argparse.Namespace, accounts: Accounts, tokens: PersonalTokens) -> int:
    """A user's personal tokens: made (the secret to stdout, once), listed, revoked. In accounts mode the user is an
    account (a token of no account would never verify); in local mode any name, as its logins are."""
    user = normalize_name(args.name)
    if accounts.enabled and accounts.epoch(user) is None:
        raise AccountError(f"no account {user!r}")
    if args.command == "token":
        try:
            token, secret = tokens.create(user, args.label)
        except TokenError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        print(secret)
        print(f"token {token.id} of {user!r}" + (f" ({token.label})" if token.label else "")
              + ": shown only now; it is not kept and cannot be shown again (revoke it with "
              f"`python -m chat.users revoke {user} {token.id}`)")
    elif args.command == "tokens":
        rows = tokens.list(user)
        for row in rows:
            print(f"{row.id}\t{row.label or '-'}\tcreated {row.created}\tlast used {row.last_used or 'never'}")
        if not rows:
            print(f"no personal tokens of {user!r}")
    else:
        if not tokens.revoke(user, args.id.strip().lower()):
            print(f"error: {user!r} has no token {args.id!r}", file=sys.stderr)
            return 1
        print(f"revoked {args.id.strip().lower()} of {user!r}: it stops working now")
    return 0


if __name__ == "__main__":
    sys.exit(main())
