"""The wheel carries everything the headless desk and the chat need: built, installed into a fresh venv, run
from elsewhere.

Fast and offline: the wheel is built without build isolation (the test extra brings `build` and a
setuptools that can build wheels alone), and the fresh venv gets only the wheel; its dependencies come
from this venv's site-packages through a .pth line. A path line in a .pth adds that directory but does
not run the .pth files inside it, so this project's editable finder stays off and `graph` must come
from the wheel."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import zipfile
from pathlib import Path

import httpx
import pytest

from tests.support.env import TEST_PACE
from tests.support.ports import free_port
from tests.support.processes import end_group

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Build from a copy, so the checkout gets no build/ or egg-info and edits in progress elsewhere are not raced.
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", ".data", ".files", ".pytest_cache", "build", "dist",
                                    "*.egg-info", "__pycache__")


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=120, **kw)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "DESK_", "PYTHON")) and k != "VIRTUAL_ENV"}
    return env | {"PYTHONNOUSERSITE": "1"} | TEST_PACE | extra


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src") / "trading-desk"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCE)
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, src], env=_clean_env())
    (whl,) = dist.glob("trading_desk-*.whl")
    return whl


def test_wheel_ships_prompts_and_data_but_not_benchmarks(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = [f for pattern in ("prompts/*.md", "graph/**/*.csv", "graph/**/*.txt", "chat/ui/**/*", "chat/ui/.chainlit/*")
            for f in ROOT.glob(pattern) if f.is_file() and "translations" not in f.parts]
    assert [f for f in data if f.relative_to(ROOT).as_posix() not in names] == []
    assert any(n.startswith("prompts/") and n.endswith(".md") for n in names)
    assert {"chat/ui/.chainlit/config.toml", "chat/ui/chainlit.md", "chat/ui/public/desk.js",
            "chat/ui/public/avatars/risk_judge.svg"} <= names
    assert not [n for n in names if n.startswith(("benchmarks/", "tests/"))]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> tuple[Path, Path]:
    """A fresh venv with the wheel installed: its python and its site-packages."""
    fresh = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", fresh])
    python = fresh / "bin" / "python"
    fresh_site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).stdout.strip())
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps", "--no-index",
          "--no-compile", wheel], env=_clean_env())
    (fresh_site / "zz_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python, fresh_site


def test_headless_demo_runs_from_installed_wheel(installed, tmp_path):
    python, fresh_site = installed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = _clean_env(DESK_MODE="demo", DESK_DATA_DIR=str(tmp_path / "data"), DESK_DEMO_DELAY_MS="0")

    run = _run([python, "-m", "graph", "--today", "2024-05-06", "should I buy NVDA today?"], cwd=elsewhere, env=env)
    assert "Final decision" in run.stdout

    # and it was the wheel that ran, not this checkout
    where = _run([python, "-c", "import graph, prompts, graph.core.prompts as p; "
                  "print(graph.__file__, prompts.__file__, p.PROMPTS_DIR, sep='\\n')"],
                 cwd=elsewhere, env=env).stdout.split()
    assert len(where) == 3
    for path in where:
        assert Path(path).resolve().is_relative_to(fresh_site.resolve()), where
        assert not Path(path).resolve().is_relative_to(ROOT), where


def test_chat_runs_from_installed_wheel(installed, tmp_path):
    """`python -m chat` from another directory: the page, desk.js, the avatars, the config and chainlit.md
    all come from the installed package, a login works, and nothing is written where it was started."""
    python, fresh_site = installed
    elsewhere, data = tmp_path / "elsewhere", tmp_path / "data"
    elsewhere.mkdir()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = _clean_env(DESK_MODE="demo", DESK_DATA_DIR=str(data), DESK_PASSWORD="desk")
    env.pop("CHAINLIT_AUTH_SECRET", None)
    env.pop("CHAINLIT_APP_ROOT", None)
    log = tmp_path / "chat.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([python, "-m", "chat", "--headless", "--port", str(port)], cwd=elsewhere, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not _up(base):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        with httpx.Client(base_url=base, timeout=10) as http:
            page = http.get("/")
            assert page.status_code == 200 and "/public/desk.js" in page.text  # config.toml's custom_js
            desk_js = http.get("/public/desk.js")
            assert desk_js.status_code == 200 and desk_js.text.startswith("// Trading Desk")
            assert http.get("/avatars/Risk%20Judge").headers["content-type"].startswith("image/svg")
            assert http.get("/desk/ui.json").json()["mode"] == "demo"
            assert http.post("/login", data={"username": "alice", "password": "desk"}).status_code == 200
            settings = http.get("/project/settings").json()
            assert "Trading Desk" in settings["markdown"]  # chainlit.md
            assert settings["ui"]["name"] == "Trading Desk"
    finally:
        end_group(proc, signal.SIGTERM)
    assert list(elsewhere.iterdir()) == []  # no .chainlit, no .files where it was started
    app_root = data / "chainlit"
    for name in (".chainlit/config.toml", "public", "chainlit.md"):
        assert (app_root / name).resolve().is_relative_to(fresh_site.resolve()), name
    assert list((data / "sessions").iterdir()) == []  # the stopped process's session files are gone


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
