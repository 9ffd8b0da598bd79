"""Ending a server a test started in its own process group (it and whatever it spawned)."""
from __future__ import annotations

import os
import signal
import subprocess


def end_group(proc: subprocess.Popen | None, how: signal.Signals = signal.SIGTERM, wait_s: float = 10) -> None:
    """Send `how` to the process group, then SIGKILL if it has not gone within `wait_s`."""
    if proc is None or proc.poll() is not None:
        return
    os.killpg(proc.pid, how)
    try:
        proc.wait(wait_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)
