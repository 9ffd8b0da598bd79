"""Personal tokens (graph/persistence/personal_tokens.py): made, listed, revoked and checked per user; only a
digest kept; a removed account's tokens dead; what a client sends never reaches SQL as text."""
from __future__ import annotations

import hashlib
import sqlite3
import stat

import pytest

from graph import Accounts, PersonalTokens, TokenError
from graph.persistence.personal_tokens import MAX_TOKENS, PREFIX, TOKENS_FILE


def test_made_checked_listed_and_revoked(tmp_path):
    tokens = PersonalTokens(tmp_path)
    made, secret = tokens.create("alice", "  Claude   Desktop ")
    assert secret.startswith(PREFIX) and len(secret) == len(PREFIX) + 43
    assert made.label == "Claude Desktop" and made.user == "alice" and made.last_used is None
    assert tokens.verify(secret) == "alice"
    [listed] = tokens.list("alice")
    assert listed.id == made.id and listed.last_used is not None  # the check above used it
    assert tokens.list("bob") == []

    assert not tokens.revoke("bob", made.id), "another user cannot revoke it"
    assert tokens.verify(secret) == "alice"
    assert tokens.revoke("alice", made.id)
    assert tokens.verify(secret) is None and tokens.list("alice") == []
    assert not tokens.revoke("alice", made.id), "once"


def test_only_a_digest_is_kept_in_a_private_file(tmp_path):
    tokens = PersonalTokens(tmp_path)
    _, secret = tokens.create("alice")
    path = tmp_path / TOKENS_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret.encode() not in path.read_bytes()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT digest FROM personal_tokens").fetchone()[0] == \
            hashlib.sha256(secret.encode()).hexdigest()


@pytest.mark.parametrize("sent", ["", "desk", PREFIX, PREFIX + "x" * 43, "' OR 1=1 --", PREFIX + "' OR 1=1 --",
                                  PREFIX + "%", "x" * 100_000])
def test_anything_else_is_nobodys(tmp_path, sent):
    tokens = PersonalTokens(tmp_path)
    tokens.create("alice")
    assert tokens.verify(sent) is None
    assert not tokens.revoke("alice", "' OR 1=1 --") and len(tokens.list("alice")) == 1


def test_nothing_made_nothing_checks(tmp_path):
    tokens = PersonalTokens(tmp_path)
    assert tokens.verify(PREFIX + "a" * 43) is None and tokens.list("alice") == []
    assert not (tmp_path / TOKENS_FILE).exists(), "a check creates no file"


def test_a_removed_account_takes_its_tokens_with_it(tmp_path):
    accounts = Accounts(tmp_path)
    accounts.add("alice", "correct horse")
    accounts.add("bob", "battery staple")
    tokens = PersonalTokens(tmp_path)
    _, alices = tokens.create("alice")
    _, bobs = tokens.create("bob")
    accounts.reset("alice", "another horse")
    assert tokens.verify(alices) == "alice", "a new password leaves the programs' tokens alone"
    accounts.remove("alice")
    assert tokens.verify(alices) is None and tokens.verify(bobs) == "bob"


def test_a_label_and_a_count_have_limits(tmp_path):
    tokens = PersonalTokens(tmp_path)
    with pytest.raises(TokenError, match="at most 80"):
        tokens.create("alice", "x" * 81)
    made = [tokens.create("alice")[0] for _ in range(MAX_TOKENS)]
    with pytest.raises(TokenError, match="revoke one first"):
        tokens.create("alice")
    tokens.revoke("alice", made[0].id)
    tokens.create("alice")
