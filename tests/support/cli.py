"""`python -m graph …` run inside the test's own process: the same `main` a user's command runs, without a new
interpreter importing the desk each time (3-4 s a call on this machine). For what needs a process of its own (a
kill, a lease held by another process, the real console script), tests start one (tests/cli/test_cli.py: the
killed run)."""
from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from graph.cli import main
from tests.support.env import TEST_PACE


@dataclass(frozen=True)
class Ran:
    """What a run printed and how it ended, as subprocess.CompletedProcess names them."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(tmp_path: Path, *args: str, **env: str) -> Ran:
    """`python -m graph *args` in demo mode, its data under `tmp_path/data`, run from `tmp_path`."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "DESK_"))} | TEST_PACE
    environ |= {"DESK_DATA_DIR": str(tmp_path / "data"), "DESK_DEMO_DELAY_MS": "0"} | env
    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    with mock.patch.dict(os.environ, environ, clear=True), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        os.chdir(tmp_path)
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse refusing an option
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
        finally:
            os.chdir(here)
    return Ran(code, out.getvalue(), err.getvalue())


def run_module(args: list[str], tmp_path: Path) -> Ran:
    """tests/cli/test_cli.py's `run(["graph", …], tmp_path)`, in this process."""
    assert args[:1] == ["graph"], args
    return run_cli(tmp_path, *args[1:])
