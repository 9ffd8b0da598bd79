"""One list of the environment variables that would take the desk out of demo mode, and the scrub
for child processes (the `no_model_env` fixture in tests/conftest.py does it for this one)."""
from __future__ import annotations

import os
from collections.abc import Iterable

# A key or a server picks a live model; DESK_MODE forces a mode. A developer's shell may set any of them.
MODEL_ENV_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "DESK_MODE")


def demo_env(*, drop: Iterable[str] = (), **extra: str) -> dict[str, str]:
    """This process's environment for a child process: without the model variables and those in
    `drop`, then `extra` on top."""
    gone = {*MODEL_ENV_VARS, *drop}
    return {k: v for k, v in os.environ.items() if k not in gone} | extra

