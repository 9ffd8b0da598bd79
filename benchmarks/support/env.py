"""One list of the environment variables that would take the desk out of demo mode, and the scrub
for child processes (the `no_model_env` fixture in tests/conftest.py does it for this one)."""
from __future__ import annotations

import os
from collections.abc import Iterable

# A key or a server picks a live model; DESK_MODE forces a mode. A developer's shell may set any of them.
MODEL_ENV_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "DESK_MODE")

# The demo model's pace in tests and benchmarks, unless one sets its own: the app's default is a
# hosted model's pace (about a minute a run), which would make the suite crawl, and every figure
# in RESULTS.md was measured at this one.
TEST_PACE = {"DESK_DEMO_DELAY_MS": "8", "DESK_DEMO_FIRST_TOKEN_MS": "0"}


def demo_env(*, drop: Iterable[str] = (), **extra: str) -> dict[str, str]:
    """This process's environment for a child process, on the test pace: without the model variables
    and those in `drop`, then `extra` on top."""
    gone = {*MODEL_ENV_VARS, *drop}
    return TEST_PACE | {k: v for k, v in os.environ.items() if k not in gone} | extra

