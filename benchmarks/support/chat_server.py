"""The real chat server, `chainlit run chat/app.py --headless`, on a free loopback port in demo mode."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

import httpx

from .env import demo_env
from .ports import free_port
from .processes import end_group

ROOT = Path(__file__).resolve().parents[2]


class Server:
    """Started and stopped by the caller (`start()` waits for /health); `extra_env` overrides the
    demo settings, e.g. the demo model's pacing."""

    def __init__(self, data_dir: Path, **env: str) -> None:
        self.data_dir = data_dir
        self.app = ROOT / "chat" / "app.py"  # set to another checkout's app.py to measure that one
        self.extra_env = env
        self.proc: subprocess.Popen | None = None
        self.log: TextIO | None = None
        self.port = 0

    def app_root(self) -> Path:
        """The server's working folder: the repo's config and assets, but its own `.files` (a
        checkout from before the chat kept its session files under DESK_DATA_DIR deletes its working
        folder's `.files` on shutdown: browser_ab may measure one)."""
        root = self.data_dir / "app"
        if not root.exists():
            root.mkdir()
            for name in (".chainlit", "public", "chainlit.md"):
                (root / name).symlink_to(ROOT / name)
        return root

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        # Its own auth secret: the server keeps one under its data folder.
        env = demo_env(drop=("CHAINLIT_AUTH_SECRET",),
                       **{"DESK_MODE": "demo", "DESK_DATA_DIR": str(self.data_dir), "DESK_DEMO_DELAY_MS": "15",
                          "DESK_PASSWORD": "desk", "PYTHONUNBUFFERED": "1"} | self.extra_env)
        log_path = self.data_dir / f"server-{self.port}.log"
        self.log = open(log_path, "w")  # noqa: SIM115 - open while the server runs, closed by stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chainlit", "run", str(self.app), "--headless",
             "--port", str(self.port)],
            cwd=self.app_root(), env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {log_path.read_text()}")
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not come up")

    def stop(self) -> None:
        """SIGTERM, as an operator stops it (SIGKILL if it does not go within 10 s)."""
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        """kill -9: the server gets no chance to clean up (a crash, an OOM kill, a power cut)."""
        self._end(signal.SIGKILL)

    def _end(self, how: signal.Signals) -> None:
        end_group(self.proc, how)
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def log_text(self) -> str:
        return "".join(p.read_text() for p in self.data_dir.glob("server-*.log"))
