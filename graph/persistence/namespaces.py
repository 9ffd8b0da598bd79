"""A user as a label of a Store namespace: ("track", user), ("book", user), ("backtest", user, …).

The Store refuses periods in labels and user names are often emails, so a label escapes them
(and the escape character itself); `user_of` reads a label back into the user.
"""
from __future__ import annotations


def user_label(user: str) -> str:
    return user.replace("%", "%25").replace(".", "%2E")


def user_of(label: str) -> str:
    return label.replace("%2E", ".").replace("%25", "%")
