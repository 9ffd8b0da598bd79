"""This machine and its processes, as /proc shows them: what a benchmark runs on, and the CPU
seconds and memory of the servers and browsers it measures."""
from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import time
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def machine() -> dict:
    cpu = "unknown"
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    mem = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        mem = round(int(Path("/proc/meminfo").read_text().split()[1]) / 1024 / 1024, 1)
    return {"cpus": os.cpu_count(), "cpu": cpu, "memory_gib": mem, "python": platform.python_version(),
            "platform": platform.platform()}


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads) and its waited-for children."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
    return (utime + stime + cutime + cstime) / CLOCK_TICKS


async def quiet(pid: int, window_s: float = 0.5, idle_cpu_s: float = 0.02, limit_s: float = 30.0) -> None:
    """Until the process spends less than `idle_cpu_s` of CPU in a `window_s` (writes drained)."""
    deadline = time.monotonic() + limit_s
    before = process_cpu_s(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(window_s)
        now = process_cpu_s(pid)
        if now - before < idle_cpu_s:
            return
        before = now


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


# -- a process tree (a browser and its renderers) -----------------------------------------------

def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds of the process and its reaped children)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()  # after "pid (comm) "
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return int(fields[1]), ticks / CLOCK_TICKS


def _kind(pid: int) -> str:
    """Chromium's process type (browser, renderer, gpu-process, utility, zygote) or the command."""
    try:  # Chromium's children rewrite their command line into one space-separated string
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "gone"
    kind = re.search(r"--type=(\S+)", cmd)
    return kind[1] if kind else Path(cmd.split(" ", 1)[0]).name


def tree_cpu(root: int) -> dict[str, float]:
    """CPU seconds of a process and all its live descendants (the dead ones' are in their
    parents' cutime/cstime once reaped), by process kind."""
    stats = {int(p): s for p in os.listdir("/proc") if p.isdigit() and (s := _stat(int(p))) is not None}
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    out: dict[str, float] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            kind = "browser" if pid == root else _kind(pid)
            out[kind] = out.get(kind, 0.0) + stats[pid][1]
        todo += children.get(pid, [])
    return out


def spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {k: round(after.get(k, 0.0) - before.get(k, 0.0), 2) for k in after if after[k] != before.get(k, 0.0)}
