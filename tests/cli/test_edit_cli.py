"""Editing the past headless: --history lists the current branch's steps, --edit forks after one and
re-runs what follows, --branches and --switch move between the branches."""
from __future__ import annotations

import re

from tests.support.cli import Ran, run_cli

STEPS = ["market", "social", "news", "fundamentals", "bull-1", "bear-1", "manager", "trader",
         "risky-1", "safe-1", "neutral-1"]


def cli(tmp_path, *args: str) -> Ran:
    return run_cli(tmp_path, *args)  # in this process: 8 runs a test, each a new interpreter before


def test_history_edit_branches_and_switch(tmp_path):
    first = cli(tmp_path, "--today", "2024-05-06", "--quiet-tools", "should I buy NVDA today?")
    assert first.returncode == 0, first.stderr
    thread = re.search(r"--thread (\w+)", first.stdout)[1]

    lines = cli(tmp_path, "--thread", thread, "--history").stdout.splitlines()
    assert [line.split()[0] for line in lines] == STEPS
    trader = next(line for line in lines if line.startswith("trader"))
    assert re.fullmatch(r"trader\s+Trader\s+Sell NVDA at 74\.02 .*", trader)
    assert re.search(r"^bull-1\s+Bull Researcher\s+The bull case", "\n".join(lines), re.M)

    words = tmp_path / "trader.txt"
    words.write_text("Stay flat: the signals disagree.\n\nFINAL TRANSACTION PROPOSAL: **HOLD**\n")
    edit = cli(tmp_path, "--thread", thread, "--today", "2024-05-06", "--quiet-tools", "--edit", "trader",
               "--text-file", str(words))
    assert edit.returncode == 0, edit.stderr
    assert re.findall(r"^▶ (.+)$", edit.stdout, re.M) == ["Risky Analyst", "Safe Analyst", "Neutral Analyst",
                                                           "Risk Judge"]
    assert "Final decision for NVDA on 2024-05-06: HOLD" in edit.stdout
    assert re.search(r"Against the branch before the edit: was SELL [\d.]+% at 0\.\d\d → now HOLD at 0\.\d\d",
                     edit.stdout)

    lines = cli(tmp_path, "--thread", thread, "--history").stdout.splitlines()
    assert [line.split()[0] for line in lines] == STEPS
    assert re.fullmatch(r"trader\s+Trader\s+Stay flat: the signals disagree\. FINAL TRANSACTION PROPOSAL: \*\*HOLD\*\*",
                        next(line for line in lines if line.startswith("trader")))

    listed = cli(tmp_path, "--thread", thread, "--branches").stdout.splitlines()
    assert len(listed) == 2
    assert re.fullmatch(r"  (\S+)  original → SELL [\d.]+% at 0\.\d\d", listed[0])
    assert re.fullmatch(r"\* \S+  edit of Trader → HOLD at 0\.\d\d", listed[1])
    original = listed[0].split()[0]

    back = cli(tmp_path, "--thread", thread, "--switch", original[:24])
    assert back.returncode == 0, back.stderr
    assert [line[0] for line in back.stdout.splitlines()] == ["*", " "]
    lines = cli(tmp_path, "--thread", thread, "--history").stdout.splitlines()
    assert re.fullmatch(r"trader\s+Trader\s+Sell NVDA at 74\.02 .*", next(x for x in lines if x.startswith("trader")))


def test_refused_edits_exit_2_with_the_reason(tmp_path):
    missing = cli(tmp_path, "--thread", "nothing-here", "--history")
    assert missing.returncode == 2 and "no thread nothing-here" in missing.stderr
    words = tmp_path / "w.txt"
    words.write_text("x")
    first = cli(tmp_path, "--today", "2024-05-06", "--quiet-tools", "--analysts", "market", "NVDA today")
    thread = re.search(r"--thread (\w+)", first.stdout)[1]
    bad = cli(tmp_path, "--thread", thread, "--edit", "bull-7", "--text-file", str(words))
    assert bad.returncode == 2 and "no step 'bull-7'" in bad.stderr and "bull-1" in bad.stderr
    needs = cli(tmp_path, "--thread", thread, "--edit", "bull-1")
    assert needs.returncode == 2 and "--text-file" in needs.stderr
